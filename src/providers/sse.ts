/**
 * Server-sent events decoding (WHATWG EventSource rules). Chunks may split anywhere — inside a
 * UTF-8 sequence, a line, or a CRLF pair. Lines end in LF, CRLF or CR; `:` lines are comments;
 * a blank line dispatches the event. An event still pending at end of input is dispatched too,
 * since some local servers close without the final blank line.
 */

export interface SseEvent {
  /** The `event:` field, `message` when absent. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
}

export class SseDecoder {
  readonly #decoder = new TextDecoder("utf-8");
  #buffer = "";
  #event = "";
  #data: string[] = [];
  #hasData = false;

  /** Feeds bytes; returns the events completed by them. */
  push(bytes: Uint8Array): SseEvent[] {
    this.#buffer += this.#decoder.decode(bytes, { stream: true });
    return this.#drain(false);
  }

  /** Flushes the decoder at end of input. */
  end(): SseEvent[] {
    this.#buffer += this.#decoder.decode();
    const events = this.#drain(true);
    if (this.#buffer.length > 0) {
      this.#line(this.#buffer, events);
      this.#buffer = "";
    }
    const last = this.#dispatch();
    if (last) events.push(last);
    return events;
  }

  /** Splits off every complete line; the buffer is cut once per chunk, not once per line. */
  #drain(final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    const buffer = this.#buffer;
    let start = 0;
    let lf = buffer.indexOf("\n");
    let cr = buffer.indexOf("\r");
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      // A CR at the very end may be the first half of a CRLF split across chunks: wait for more.
      if (end === cr && cr === buffer.length - 1 && !final) break;
      this.#line(buffer.slice(start, end), events);
      start = end === cr && lf === cr + 1 ? lf + 1 : end + 1;
      if (lf !== -1 && lf < start) lf = buffer.indexOf("\n", start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf("\r", start);
    }
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === "") {
      const event = this.#dispatch();
      if (event) events.push(event);
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#event = value;
    else if (field === "data") {
      this.#data.push(value);
      this.#hasData = true;
    }
  }

  #dispatch(): SseEvent | undefined {
    const event = this.#hasData ? { event: this.#event || "message", data: this.#data.join("\n") } : undefined;
    this.#event = "";
    this.#data = [];
    this.#hasData = false;
    return event;
  }
}

/** Decodes a byte stream into SSE events. Errors of the source propagate to the caller. */
export async function* decodeSse(source: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const chunk of source) yield* decoder.push(chunk);
  yield* decoder.end();
}
