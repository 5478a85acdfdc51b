/**
 * OpenAI Chat Completions (`POST <base>/v1/chat/completions`, streamed). Also the dialect of
 * Ollama, llama.cpp, vLLM and LM Studio, so the decoder is lenient where those servers differ:
 * tool-call deltas without `index` or `id`, several calls reusing index 0 with distinct ids,
 * `reasoning_content` or `reasoning`, usage repeated in every chunk, no `[DONE]` after a finish.
 */
import { WireMemo } from "./wire-memo.ts";
import * as v from "valibot";
import { errorDetail } from "./http.ts";
import type { WireDialect } from "./http-provider.ts";
import type { SseEvent } from "./sse.ts";
import type { WireDecoder } from "./sse-stream.ts";
import { isTruncatedStop, type Message, type ProviderEvent, type ProviderRequest } from "./types.ts";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com";
export const OPENAI_DEFAULT_MODEL = "gpt-4.1";
export const OPENAI_KEY_VARIABLE = "OPENAI_API_KEY";

/** `<base>/v1/chat/completions`; a base already ending in `/v1` is not doubled. */
export function openaiEndpoint(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v1$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

type WireMessage = Record<string, unknown>;

export function toOpenAIMessages(request: Pick<ProviderRequest, "system" | "messages">): WireMessage[] {
  const out: WireMessage[] = [];
  if (request.system) out.push({ role: "system", content: request.system });
  for (const message of request.messages) out.push(toWire(message));
  return out;
}

function toWire(message: Message): WireMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      const wire: WireMessage = { role: "assistant", content: message.content };
      if (message.toolCalls.length > 0) {
        // `content: null` is the canonical form for a pure tool-call message; some servers reject "".
        if (message.content === "") wire.content = null;
        wire.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      return wire;
    }
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

/** The wire JSON of one message, memoized per message object (wire-memo.ts). */
const wireTexts = new WireMemo<string>();

function wireJson(message: Message): string {
  return wireTexts.get(message, (m) => JSON.stringify(toWire(m)));
}

/**
 * The request body as JSON text: exactly `JSON.stringify(toOpenAIBody(…))`, with each message's
 * JSON taken from the memo above, so a turn serializes only the messages added since the last one.
 * The body without messages holds `"messages":[]` once (a JSON string value cannot: its quotes are
 * escaped), and the messages are spliced in there.
 */
export function openAIBodyText(model: string, request: ProviderRequest, maxTokens?: number): string {
  const parts: string[] = request.system ? [JSON.stringify({ role: "system", content: request.system })] : [];
  for (const message of request.messages) parts.push(wireJson(message));
  const empty = JSON.stringify(toOpenAIBody(model, { messages: [], tools: request.tools }, maxTokens));
  return empty.replace('"messages":[]', () => `"messages":[${parts.join(",")}]`);
}

export function toOpenAIBody(model: string, request: ProviderRequest, maxTokens?: number): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model,
    stream: true,
    stream_options: { include_usage: true },
    messages: toOpenAIMessages(request),
  };
  // An empty `tools` array is rejected by some servers, so it is omitted.
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  return body;
}

const nullableString = v.optional(v.nullable(v.string()));
const ToolCallDeltaSchema = v.object({
  index: v.optional(v.nullable(v.number())),
  id: nullableString,
  function: v.optional(v.nullable(v.object({ name: nullableString, arguments: nullableString }))),
});
const ChunkSchema = v.object({
  choices: v.optional(
    v.nullable(
      v.array(
        v.object({
          index: v.optional(v.number()),
          delta: v.optional(
            v.nullable(
              v.object({
                content: v.optional(v.unknown()),
                reasoning_content: v.optional(v.unknown()),
                reasoning: v.optional(v.unknown()),
                tool_calls: v.optional(v.nullable(v.array(ToolCallDeltaSchema))),
              }),
            ),
          ),
          finish_reason: nullableString,
        }),
      ),
    ),
  ),
  usage: v.optional(
    v.nullable(
      v.object({
        prompt_tokens: v.number(),
        completion_tokens: v.number(),
        // OpenAI's automatic prompt cache: the cached part of prompt_tokens.
        prompt_tokens_details: v.optional(v.nullable(v.object({ cached_tokens: v.optional(v.nullable(v.number())) }))),
      }),
    ),
  ),
  error: v.optional(v.unknown()),
});

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/** Error types that may succeed when the request is sent again. */
const RETRYABLE_ERROR = /rate|overload|server|timeout|unavailable|capacity/i;

/** Decodes one completion stream. `nextCallId` names calls the server sent without an id. */
export class OpenAIStreamDecoder implements WireDecoder {
  readonly #calls: PendingCall[] = [];
  readonly #byIndex = new Map<number, PendingCall>();
  #finishReason: string | undefined;
  #usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number } | undefined;
  readonly #nextCallId: () => string;

  constructor(nextCallId: () => string) {
    this.#nextCallId = nextCallId;
  }

  onEvent(sse: SseEvent): ProviderEvent[] {
    const data = sse.data.trim();
    if (data === "[DONE]") return this.#finish();
    if (data === "") return [];
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return [{ type: "error", message: `openai stream: invalid JSON chunk: ${data.slice(0, 120)}`, retryable: false }];
    }
    if (sse.event === "error") return [this.#streamError(json)];
    const parsed = v.safeParse(ChunkSchema, json);
    if (!parsed.success) {
      return [{ type: "error", message: `openai stream: unexpected chunk: ${data.slice(0, 120)}`, retryable: false }];
    }
    const chunk = parsed.output;
    if (chunk.error !== undefined && chunk.error !== null) return [this.#streamError(json)];
    const events: ProviderEvent[] = [];
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
      this.#usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens, cacheReadTokens: cached, cacheWriteTokens: 0 };
    }
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return events;
    const delta = choice.delta;
    if (delta) {
      // Servers that send both carry the same text in each; `reasoning_content` wins.
      const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : delta.reasoning;
      if (typeof reasoning === "string" && reasoning.length > 0) events.push({ type: "reasoning_delta", text: reasoning });
      if (typeof delta.content === "string" && delta.content.length > 0) events.push({ type: "text_delta", text: delta.content });
      delta.tool_calls?.forEach((call, position) => this.#addToolDelta(call, position));
    }
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    return events;
  }

  onEnd(): ProviderEvent[] {
    // Some local servers close after the finish chunk without `data: [DONE]`.
    if (this.#finishReason !== undefined) return this.#finish();
    return [{ type: "error", message: "openai stream ended before the response was complete", retryable: true }];
  }

  #addToolDelta(delta: v.InferOutput<typeof ToolCallDeltaSchema>, position: number): void {
    const index = delta.index ?? position;
    let call = this.#byIndex.get(index);
    // Several calls sent whole under the same index (seen from Ollama): a new id means a new call.
    if (!call || (delta.id && call.id && delta.id !== call.id)) {
      call = { id: "", name: "", arguments: "" };
      this.#calls.push(call);
      this.#byIndex.set(index, call);
    }
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name += delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  #finish(): ProviderEvent[] {
    const events: ProviderEvent[] = this.#calls.map((call) => ({
      type: "tool_call",
      id: call.id || this.#nextCallId(),
      name: call.name,
      arguments: call.arguments,
    }));
    if (this.#usage) events.push({ type: "usage", ...this.#usage });
    const stopReason = this.#finishReason ?? (this.#calls.length > 0 ? "tool_calls" : "stop");
    events.push({ type: "done", stopReason, ...(isTruncatedStop(stopReason) ? { truncated: true } : {}) });
    return events;
  }

  #streamError(json: unknown): ProviderEvent {
    const detail = errorDetail(JSON.stringify(json));
    return { type: "error", message: `openai stream error: ${detail}`, retryable: RETRYABLE_ERROR.test(detail + JSON.stringify(json)) };
  }
}

/** The OpenAI Chat Completions dialect of HttpProvider. */
export const OPENAI_WIRE: WireDialect = {
  id: "openai",
  keyVariable: OPENAI_KEY_VARIABLE,
  callIdPrefix: "call_",
  endpoint: openaiEndpoint,
  headers(apiKey) {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    return headers;
  },
  body: openAIBodyText,
  decoder: (nextCallId) => new OpenAIStreamDecoder(nextCallId),
};
