/**
 * Runs one streamed HTTP request through a wire decoder (openai or anthropic) and yields provider
 * events. Never throws: transport failures, invalid chunks and unexpected exceptions all end the
 * stream with one `error` event. The stream stops at the first `done` or `error` event.
 */
import { decodeSse, type SseEvent } from "./sse.ts";
import { openStream, scrub, TransportError, type HttpRequest } from "./http.ts";
import type { ProviderEvent } from "./types.ts";
import { errorMessage } from "../util/errors.ts";

export interface WireDecoder {
  /** Events produced by one SSE event; a `done` or `error` among them ends the stream. */
  onEvent(event: SseEvent): ProviderEvent[];
  /** Called when the body ends without a `done`/`error`: the final events (a `done`, or an `error`). */
  onEnd(): ProviderEvent[];
}

function isFinal(event: ProviderEvent): boolean {
  return event.type === "done" || event.type === "error";
}

export async function* streamSse(request: HttpRequest, decoder: WireDecoder): AsyncGenerator<ProviderEvent> {
  try {
    const opened = await openStream(request);
    if (!opened.ok) {
      yield opened.event;
      return;
    }
    for await (const sse of decodeSse(opened.chunks)) {
      for (const event of decoder.onEvent(sse)) {
        yield event;
        if (isFinal(event)) return;
      }
    }
    for (const event of decoder.onEnd()) {
      yield event;
      if (isFinal(event)) return;
    }
  } catch (error) {
    if (error instanceof TransportError) {
      yield error.event;
      return;
    }
    const message = errorMessage(error);
    yield { type: "error", message: scrub(`${request.providerName} stream failed: ${message}`, request.secrets), retryable: false };
  }
}
