/**
 * The provider contract. A provider turns one request (system prompt, conversation, tools) into a
 * stream of typed events. `stream` never throws and never rejects: every failure, including a
 * cancelled request, ends the stream with one final `error` event. A successful stream ends with
 * exactly one `done` event. Tool calls arrive complete (arguments as the raw text the model wrote,
 * which may be invalid JSON — the agent loop validates them).
 */
import type { Runtime } from "../runtime/types.ts";

export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string;
      reasoning?: string;
      toolCalls: { id: string; name: string; arguments: string }[];
    }
  | { role: "tool"; toolCallId: string; name: string; content: string; isError?: boolean };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the tool input. */
  parameters: Record<string, unknown>;
}

export interface ProviderRequest {
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  signal?: AbortSignal;
  /**
   * `compact` marks the one summarizing request of a compaction, `hook` a prompt hook's request
   *; the script provider answers both without using a turn.
   */
  purpose?: "turn" | "compact" | "hook";
  /** `hook` requests: the hook's label (the script provider's `hooks` key). */
  hookLabel?: string;
  /** A model other than the provider's own for this one request (a prompt hook's `model`). */
  model?: string;
}

export type ProviderEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  /** A complete call; `arguments` is raw text. */
  | { type: "tool_call"; id: string; name: string; arguments: string }
  /**
   * Input tokens of the whole request (cached ones included) and output tokens of the reply;
   * `cacheReadTokens` (served from the provider's prompt cache) and `cacheWriteTokens` (written to
   * it) are the parts of `inputTokens` the provider reported as such, 0 when it reported none.
   */
  | { type: "usage"; inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number }
  /**
   * `stopReason` is the provider's own value (`stop`/`tool_calls`, `end_turn`/`tool_use`, …);
   * `truncated` is set when the reply was cut off at the output token limit (`length`, `max_tokens`).
   */
  | { type: "done"; stopReason: string; truncated?: boolean }
  /** `retryable`: the same request may succeed later (rate limit, overload, lost connection). Never holds a key. */
  | { type: "error"; message: string; retryable: boolean; status?: number };

export type ProviderId = "openai" | "anthropic" | "script";

export interface Provider {
  readonly id: ProviderId;
  readonly model: string;
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent>;
}

export interface RetryOptions {
  /** Total attempts, the first included (1 = no retry). */
  attempts: number;
  /** Delay before the first retry; doubles each retry. */
  baseDelayMs: number;
}

export interface CreateProviderOptions {
  id: ProviderId;
  model?: string;
  /** `https://host[:port][/prefix]`, with or without a trailing `/v1`. */
  baseUrl?: string;
  /** Defaults to `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` from `runtime.env()`. */
  apiKey?: string;
  /** Required for `script`; relative paths resolve against `runtime.cwd()`. */
  scriptPath?: string;
  fetch?: typeof fetch;
  runtime: Runtime;
  retry?: RetryOptions;
  /** Limit for the response headers to arrive, and for each gap between body chunks. */
  requestTimeoutMs?: number;
  /** Anthropic `max_tokens` (required by that API); also sent to OpenAI when set. */
  maxTokens?: number;
}

export type CreateProviderResult = { ok: true; provider: Provider } | { ok: false; error: string };

/** Wire stop reasons that mean "cut off at the output token limit": OpenAI `length`, Anthropic `max_tokens`. */
const TRUNCATED_STOP_REASONS: ReadonlySet<string> = new Set(["length", "max_tokens"]);

export function isTruncatedStop(stopReason: string): boolean {
  return TRUNCATED_STOP_REASONS.has(stopReason);
}
