import { describe, expect, test } from "bun:test";
import { decodeSse, SseDecoder, type SseEvent } from "../../src/providers/sse.ts";

const encoder = new TextEncoder();

function decodeAll(pieces: readonly Uint8Array[]): SseEvent[] {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  for (const piece of pieces) events.push(...decoder.push(piece));
  events.push(...decoder.end());
  return events;
}

const SAMPLE =
  ": comment line\r\n" +
  "event: ping\r\ndata: {}\r\n\r\n" +
  "data: héllo 🌍\n\n" +
  "data: line one\ndata: line two\n\n" +
  "id: 7\rdata:no-space\r\r" +
  "data: [DONE]\n\n";

const EXPECTED: SseEvent[] = [
  { event: "ping", data: "{}" },
  { event: "message", data: "héllo 🌍" },
  { event: "message", data: "line one\nline two" },
  { event: "message", data: "no-space" },
  { event: "message", data: "[DONE]" },
];

describe("SSE decoding", () => {
  test("LF, CRLF, CR line ends, comments, multi-line data", () => {
    expect(decodeAll([encoder.encode(SAMPLE)])).toEqual(EXPECTED);
  });

  test("same events whatever the chunk boundary (byte split at every position, incl. inside UTF-8 and CRLF)", () => {
    const bytes = encoder.encode(SAMPLE);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(decodeAll([bytes.slice(0, cut), bytes.slice(cut)])).toEqual(EXPECTED);
    }
    const single = Array.from(bytes, (byte) => Uint8Array.of(byte));
    expect(decodeAll(single)).toEqual(EXPECTED);
  });

  test("an event pending at end of input is dispatched; blank lines alone dispatch nothing", () => {
    expect(decodeAll([encoder.encode("\n\n\ndata: last")])).toEqual([{ event: "message", data: "last" }]);
  });

  test("decodeSse over an async source", async () => {
    async function* source(): AsyncGenerator<Uint8Array> {
      yield encoder.encode("data: a\n");
      yield encoder.encode("\ndata: b\n\n");
    }
    const out: SseEvent[] = [];
    for await (const event of decodeSse(source())) out.push(event);
    expect(out.map((event) => event.data)).toEqual(["a", "b"]);
  });
});
