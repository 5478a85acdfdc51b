/**
 * Anthropic Messages API (`POST <base>/v1/messages`, streamed). System text goes to the top-level
 * `system` field; tool results travel as `tool_result` blocks of a user message, merged with any
 * user text that follows them (the API wants the results right after the `tool_use` message).
 * Thinking blocks stream as reasoning; they are not sent back (that needs their signatures).
 */
import { WireMemo } from "./wire-memo.ts";
import * as v from "valibot";
import type { WireDialect } from "./http-provider.ts";
import type { SseEvent } from "./sse.ts";
import type { WireDecoder } from "./sse-stream.ts";
import { isTruncatedStop, type Message, type ProviderEvent, type ProviderRequest } from "./types.ts";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_DEFAULT_MODEL = "claude-sonnet-4-5";
export const ANTHROPIC_KEY_VARIABLE = "ANTHROPIC_API_KEY";
export const ANTHROPIC_VERSION = "2023-06-01";
/** The API requires `max_tokens`; this fits every current model. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export function anthropicEndpoint(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`;
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

const ObjectSchema = v.record(v.string(), v.unknown());

/** `tool_use.input` must be an object; raw arguments that are not a JSON object become `{}`. */
function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const json: unknown = JSON.parse(argumentsText);
    if (Array.isArray(json)) return {};
    const parsed = v.safeParse(ObjectSchema, json);
    return parsed.success ? parsed.output : {};
  } catch {
    return {};
  }
}

export function toAnthropicMessages(request: Pick<ProviderRequest, "system" | "messages">): {
  system: string;
  messages: WireMessage[];
} {
  const system: string[] = request.system ? [request.system] : [];
  const messages: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    switch (message.role) {
      case "system":
        system.push(message.content);
        break;
      case "user":
        // Empty text blocks are rejected by the API.
        push("user", message.content === "" ? [] : [{ type: "text", text: message.content }]);
        break;
      case "tool": {
        const block: Block = { type: "tool_result", tool_use_id: message.toolCallId, content: message.content };
        if (message.isError) block.is_error = true;
        push("user", [block]);
        break;
      }
      case "assistant": {
        const blocks: Block[] = message.content === "" ? [] : [{ type: "text", text: message.content }];
        for (const call of message.toolCalls) {
          blocks.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call.arguments) });
        }
        push("assistant", blocks);
        break;
      }
    }
  }
  return { system: system.join("\n\n"), messages };
}

/** Anthropic prompt caching: a breakpoint caches the whole prefix (tools, system, messages) up to it. */
const CACHE_MARK = { type: "ephemeral" } as const;

/**
 * Marks the conversation prefix for the prompt cache: the last block of the last message (this
 * request's prefix, read back by the next request) and of the last user message before the latest
 * assistant reply (what the previous request wrote), so a turn that adds many blocks still finds
 * it. With the tools and system marks that is the API's limit of 4 breakpoints.
 */
function markConversation(messages: readonly WireMessage[]): void {
  markCachePoints(messages, (message) => {
    const block = message.content[message.content.length - 1];
    if (block !== undefined) block.cache_control = CACHE_MARK;
  });
}

/** The two messages `markConversation` marks: the last one, and the last user message before the latest assistant reply. */
function markCachePoints<T extends { readonly role: string }>(messages: readonly T[], mark: (message: T) => void): void {
  const last = messages[messages.length - 1];
  if (last !== undefined) mark(last);
  let lastAssistant = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "assistant") {
      lastAssistant = i;
      break;
    }
  }
  for (let i = lastAssistant - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "user") {
      mark(message);
      break;
    }
  }
}

export function toAnthropicBody(model: string, request: ProviderRequest, maxTokens: number): Record<string, unknown> {
  const { system, messages } = toAnthropicMessages(request);
  markConversation(messages);
  const body: Record<string, unknown> = { model, max_tokens: maxTokens, stream: true, messages };
  if (system) body.system = [{ type: "text", text: system, cache_control: CACHE_MARK }];
  if (request.tools.length > 0) {
    const last = request.tools.length - 1;
    body.tools = request.tools.map((tool, index) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
      ...(index === last ? { cache_control: CACHE_MARK } : {}),
    }));
  }
  return body;
}

/** The wire blocks of one message as JSON texts, memoized per message object (wire-memo.ts). */
const wireBlocks = new WireMemo<readonly string[]>();

/** The JSON of each block `toAnthropicMessages` makes of this (non-system) message, in order. */
function blocksOf(message: Message): readonly string[] {
  return wireBlocks.get(message, (m) =>
    toAnthropicMessages({ system: "", messages: [m] }).messages.flatMap((wire) => wire.content.map((block) => JSON.stringify(block))),
  );
}

const CACHE_MARK_FIELD = `,"cache_control":${JSON.stringify(CACHE_MARK)}}`;

/** `markConversation` over block texts: the same two blocks get the cache mark as their last field. */
function markConversationText(wire: { role: "user" | "assistant"; blocks: string[] }[]): void {
  markCachePoints(wire, (message) => {
    const at = message.blocks.length - 1;
    const block = message.blocks[at];
    if (block !== undefined) message.blocks[at] = block.slice(0, -1) + CACHE_MARK_FIELD;
  });
}

/**
 * The request body as JSON text: exactly `JSON.stringify(toAnthropicBody(…))`, with each message's
 * blocks taken from the memo above and merged by role as `toAnthropicMessages` merges them, so a
 * turn builds only the messages added since the last one.
 */
export function anthropicBodyText(model: string, request: ProviderRequest, maxTokens: number): string {
  const system: string[] = request.system ? [request.system] : [];
  const wire: { role: "user" | "assistant"; blocks: string[] }[] = [];
  for (const message of request.messages) {
    if (message.role === "system") {
      system.push(message.content);
      continue;
    }
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const role = message.role === "assistant" ? "assistant" : "user";
    const last = wire[wire.length - 1];
    if (last !== undefined && last.role === role) last.blocks.push(...blocks);
    else wire.push({ role, blocks: [...blocks] });
  }
  markConversationText(wire);
  const messages = wire.map((message) => `{"role":"${message.role}","content":[${message.blocks.join(",")}]}`).join(",");
  const empty = JSON.stringify(toAnthropicBody(model, { system: system.join("\n\n"), messages: [], tools: request.tools }, maxTokens));
  return empty.replace('"messages":[]', () => `"messages":[${messages}]`);
}

const count = v.optional(v.nullable(v.number()));
const UsageSchema = v.object({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
});
const EventSchema = v.variant("type", [
  v.object({ type: v.literal("message_start"), message: v.object({ usage: v.optional(v.nullable(UsageSchema)) }) }),
  v.object({
    type: v.literal("content_block_start"),
    index: v.number(),
    content_block: v.object({
      type: v.string(),
      id: v.optional(v.string()),
      name: v.optional(v.string()),
      input: v.optional(v.unknown()),
      text: v.optional(v.string()),
      thinking: v.optional(v.string()),
    }),
  }),
  v.object({
    type: v.literal("content_block_delta"),
    index: v.number(),
    delta: v.object({
      type: v.string(),
      text: v.optional(v.string()),
      partial_json: v.optional(v.string()),
      thinking: v.optional(v.string()),
    }),
  }),
  v.object({ type: v.literal("content_block_stop"), index: v.number() }),
  v.object({
    type: v.literal("message_delta"),
    delta: v.optional(v.object({ stop_reason: v.optional(v.nullable(v.string())) })),
    usage: v.optional(v.nullable(UsageSchema)),
  }),
  v.object({ type: v.literal("message_stop") }),
  v.object({ type: v.literal("ping") }),
  v.object({
    type: v.literal("error"),
    error: v.object({ type: v.optional(v.string()), message: v.optional(v.string()) }),
  }),
]);

interface OpenBlock {
  kind: string;
  id: string;
  name: string;
  json: string;
  initialInput: unknown;
}

const RETRYABLE_ERROR_TYPES = new Set(["overloaded_error", "rate_limit_error", "api_error", "timeout_error"]);

export class AnthropicStreamDecoder implements WireDecoder {
  readonly #blocks = new Map<number, OpenBlock>();
  #usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  #sawUsage = false;
  #stopReason: string | undefined;
  readonly #nextCallId: () => string;

  constructor(nextCallId: () => string) {
    this.#nextCallId = nextCallId;
  }

  onEvent(sse: SseEvent): ProviderEvent[] {
    if (sse.data.trim() === "") return [];
    let json: unknown;
    try {
      json = JSON.parse(sse.data);
    } catch {
      return [{ type: "error", message: `anthropic stream: invalid JSON event: ${sse.data.slice(0, 120)}`, retryable: false }];
    }
    const parsed = v.safeParse(EventSchema, json);
    if (!parsed.success) return []; // Unknown event types are ignored, as the API versioning policy asks.
    const event = parsed.output;
    switch (event.type) {
      case "message_start":
        this.#addUsage(event.message.usage);
        return [];
      case "content_block_start": {
        const block = event.content_block;
        this.#blocks.set(event.index, {
          kind: block.type,
          id: block.id ?? "",
          name: block.name ?? "",
          json: "",
          initialInput: block.input,
        });
        if (block.type === "text" && block.text) return [{ type: "text_delta", text: block.text }];
        if (block.type === "thinking" && block.thinking) return [{ type: "reasoning_delta", text: block.thinking }];
        return [];
      }
      case "content_block_delta": {
        const delta = event.delta;
        if (delta.type === "text_delta" && delta.text) return [{ type: "text_delta", text: delta.text }];
        if (delta.type === "thinking_delta" && delta.thinking) return [{ type: "reasoning_delta", text: delta.thinking }];
        if (delta.type === "input_json_delta" && delta.partial_json !== undefined) {
          const block = this.#blocks.get(event.index);
          if (block) block.json += delta.partial_json;
        }
        return [];
      }
      case "content_block_stop": {
        const block = this.#blocks.get(event.index);
        this.#blocks.delete(event.index);
        if (!block || block.kind !== "tool_use") return [];
        return [{ type: "tool_call", id: block.id || this.#nextCallId(), name: block.name, arguments: toolArguments(block) }];
      }
      case "message_delta":
        if (event.delta?.stop_reason) this.#stopReason = event.delta.stop_reason;
        this.#addUsage(event.usage);
        return [];
      case "message_stop":
        return this.#finish();
      case "ping":
        return [];
      case "error": {
        const type = event.error.type ?? "error";
        const message = event.error.message ?? type;
        return [{ type: "error", message: `anthropic stream error: ${type}: ${message}`, retryable: RETRYABLE_ERROR_TYPES.has(type) }];
      }
    }
  }

  onEnd(): ProviderEvent[] {
    if (this.#stopReason !== undefined) return this.#finish();
    return [{ type: "error", message: "anthropic stream ended before the response was complete", retryable: true }];
  }

  /** message_start carries the input counts; message_delta carries cumulative counts (a field it leaves out keeps its value). */
  #addUsage(usage: v.InferOutput<typeof UsageSchema> | null | undefined): void {
    if (!usage) return;
    const u = this.#usage;
    if (typeof usage.input_tokens === "number") u.input = usage.input_tokens;
    if (typeof usage.cache_read_input_tokens === "number") u.cacheRead = usage.cache_read_input_tokens;
    if (typeof usage.cache_creation_input_tokens === "number") u.cacheWrite = usage.cache_creation_input_tokens;
    if (typeof usage.output_tokens === "number") u.output = usage.output_tokens;
    this.#sawUsage = true;
  }

  #finish(): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    const u = this.#usage;
    // The API's input_tokens leaves out the cached parts; inputTokens is the whole request.
    if (this.#sawUsage)
      events.push({
        type: "usage",
        inputTokens: u.input + u.cacheRead + u.cacheWrite,
        outputTokens: u.output,
        cacheReadTokens: u.cacheRead,
        cacheWriteTokens: u.cacheWrite,
      });
    const stopReason = this.#stopReason ?? "end_turn";
    events.push({ type: "done", stopReason, ...(isTruncatedStop(stopReason) ? { truncated: true } : {}) });
    return events;
  }
}

function toolArguments(block: OpenBlock): string {
  if (block.json.trim() !== "") return block.json;
  // No deltas: the start event's `input` is the whole input (empty object for a no-argument call).
  return block.initialInput !== undefined && block.initialInput !== null ? JSON.stringify(block.initialInput) : "{}";
}

/** The Anthropic Messages dialect of HttpProvider. */
export const ANTHROPIC_WIRE: WireDialect = {
  id: "anthropic",
  keyVariable: ANTHROPIC_KEY_VARIABLE,
  callIdPrefix: "toolu_",
  endpoint: anthropicEndpoint,
  headers(apiKey) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "text/event-stream",
      "anthropic-version": ANTHROPIC_VERSION,
    };
    if (apiKey) headers["x-api-key"] = apiKey;
    return headers;
  },
  body: (model, request, maxTokens) => anthropicBodyText(model, request, maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS),
  decoder: (nextCallId) => new AnthropicStreamDecoder(nextCallId),
};
