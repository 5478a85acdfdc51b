/**
 * Context compaction (DESIGN.md "Compaction runs before a provider request…", LOOP-37, LIFE-62):
 * when the estimated context passes `maxContextTokens` (`--max-context-tokens`,
 * `agent.max_context_tokens`, else 80% of the model's context window: src/agent/usage.ts),
 * pre_compact hooks run (a block skips the
 * compaction; `additionalContext` joins the summarizing instructions), one summarizing provider
 * request with `purpose: "compact"` replaces the conversation by its summary, a `compaction` record
 * is written, and session_start fires with source `compact`. Never throws: a failed summarizing
 * request skips the compaction with a warning and the session goes on uncompacted.
 *
 * The summarizing request offers no tools: the conversation goes as one text transcript (tool calls
 * and results included), which every wire accepts without tool definitions. A reply that is a tool
 * call, or has no text, is a failure. Automatic compaction backs off after a failure: the next
 * attempt comes after 1, 2, 4… skipped checks, and after AUTO_COMPACTION_MAX_FAILURES failures in a
 * row it is off for the session (a manual `/compact` still runs and, when it succeeds, re-arms it).
 */
import type { Message, Provider, ToolDefinition } from "../providers/types.ts";
import { hiddenContextMessage, joinContexts } from "../hooks/merge/context.ts";
import { compactionSummaryMessage } from "../session/replay.ts";
import type { StopKind } from "../hooks/merge/merge.ts";
import type { FireScope, SessionServices } from "./session-services.ts";
import { addUsage, type UsageTotals } from "./usage.ts";

/** The summarizing request's instructions; pre_compact context and custom instructions follow them. */
export const COMPACTION_INSTRUCTIONS =
  "Summarize the conversation so far so that you can continue the work from the summary alone: the user's requests and goals, decisions made, files read or changed, commands run and their results, open problems, and what remains to do. Be concise but keep every detail needed to continue.";

const encoder = new TextEncoder();

/**
 * The estimated context size in tokens: the provider's last reported input tokens when known, else
 * the UTF-8 bytes of the conversation (every message's text, reasoning and call arguments) ÷ 4.
 */
export function estimateContextTokens(messages: readonly Message[], lastInputTokens: number | undefined): number {
  if (lastInputTokens !== undefined) return lastInputTokens;
  let bytes = 0;
  for (const message of messages) {
    bytes += encoder.encode(message.content).length;
    if (message.role === "assistant") {
      if (message.reasoning) bytes += encoder.encode(message.reasoning).length;
      for (const call of message.toolCalls) bytes += encoder.encode(call.name).length + encoder.encode(call.arguments).length;
    }
  }
  return Math.ceil(bytes / 4);
}

/** Consecutive failed automatic compactions after which the session stops trying on its own. */
export const AUTO_COMPACTION_MAX_FAILURES = 4;

interface Backoff {
  failures: number;
  /** Automatic checks still to skip before the next attempt. */
  skip: number;
}

/** Per session (its services object), so a long session never resends the whole history on every turn. */
const backoffs = new WeakMap<SessionServices, Backoff>();

function backoffOf(s: SessionServices): Backoff {
  let backoff = backoffs.get(s);
  if (backoff === undefined) {
    backoff = { failures: 0, skip: 0 };
    backoffs.set(s, backoff);
  }
  return backoff;
}

/** True when this automatic check may try; counts the check otherwise. */
function mayAttempt(backoff: Backoff): boolean {
  if (backoff.failures >= AUTO_COMPACTION_MAX_FAILURES) return false;
  if (backoff.skip > 0) {
    backoff.skip -= 1;
    return false;
  }
  return true;
}

function noteFailure(s: SessionServices, backoff: Backoff): void {
  backoff.failures += 1;
  backoff.skip = 2 ** (backoff.failures - 1);
  if (backoff.failures === AUTO_COMPACTION_MAX_FAILURES) {
    s.emit({
      type: "notice",
      kind: "warning",
      text: `agent: automatic compaction is off for this session after ${AUTO_COMPACTION_MAX_FAILURES} failed attempts; /compact tries again`,
    });
  }
}

/** The conversation as one transcript: no tool_use/tool_result blocks, so no tool definitions are needed. */
export function transcriptText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      parts.push(`[tool result ${message.toolCallId}${message.isError ? " (error)" : ""}]\n${message.content}`);
    } else if (message.role === "assistant") {
      const calls = message.toolCalls.map((call) => `[tool call ${call.id}: ${call.name} ${call.arguments}]`);
      parts.push(`[assistant]\n${[message.content, ...calls].filter((text) => text !== "").join("\n")}`);
    } else {
      parts.push(`[${message.role}]\n${message.content}`);
    }
  }
  return parts.join("\n\n");
}

export interface CompactionRequest {
  readonly provider: Provider;
  readonly system: string;
  /** The session's tools: never offered to the summarizing request (it gets a transcript instead). */
  readonly tools: readonly ToolDefinition[];
  readonly messages: readonly Message[];
  readonly trigger: "auto" | "manual";
  /** `/compact <instructions>` in the interactive UI; "" for automatic compaction. */
  readonly customInstructions: string;
  /** The session's usage totals: the summarizing request's tokens are added. */
  readonly usage?: UsageTotals;
}

export type CompactionOutcome =
  /** The conversation to use from now on (summary, then any session_start `compact` context). */
  | { readonly kind: "compacted"; readonly messages: Message[] }
  /** Nothing changed: a pre_compact block, or the summarizing request failed. */
  | { readonly kind: "skipped" }
  /** A hook ended the session (`continue: false`, or a failure under policy `fail`, D8). */
  | { readonly kind: "stopped"; readonly reason: string; readonly stopKind: StopKind };

/** Runs one compaction under the turn's signal and counters. Notices go through `s.emit`. */
export async function compactConversation(
  s: SessionServices,
  scope: FireScope & { readonly signal: AbortSignal },
  request: CompactionRequest,
): Promise<CompactionOutcome> {
  const backoff = backoffOf(s);
  if (request.trigger === "auto" && !mayAttempt(backoff)) return { kind: "skipped" };
  const outcome = await compactOnce(s, scope, request);
  if (outcome.kind === "compacted") {
    backoff.failures = 0;
    backoff.skip = 0;
  } else if (outcome.kind === "skipped" && request.trigger === "auto" && !scope.signal.aborted) {
    noteFailure(s, backoff);
  }
  return outcome;
}

async function compactOnce(s: SessionServices, scope: FireScope & { readonly signal: AbortSignal }, request: CompactionRequest): Promise<CompactionOutcome> {
  const originalCount = request.messages.length;
  const pre = await s.fire(
    {
      event: "pre_compact",
      fields: { trigger: request.trigger, custom_instructions: request.customInstructions, original_message_count: originalCount },
    },
    scope,
  );
  if (pre.state.stopSession) return { kind: "stopped", reason: pre.state.stopSession.reason, stopKind: pre.state.stopSession.kind };
  if (pre.state.blocked) {
    s.emit({ type: "notice", kind: "info", text: `agent: compaction skipped by a pre_compact hook: ${pre.state.blocked.reason}` });
    return { kind: "skipped" };
  }

  // Hook text is neutralised and capped like any other hook context (D19's 4096 bytes).
  const hookText = joinContexts(pre.state.contexts.map((text) => text.trim()));
  const extra = [request.customInstructions.trim(), hookText].filter((text) => text !== "");
  const instructions = extra.length > 0 ? `${COMPACTION_INSTRUCTIONS}\n\nAdditional instructions:\n${extra.join("\n\n")}` : COMPACTION_INSTRUCTIONS;
  const summary = await summarize(request, instructions, scope.signal);
  if (!summary.ok) {
    if (!scope.signal.aborted) s.emit({ type: "notice", kind: "warning", text: `agent: compaction skipped: ${summary.error}` });
    return { kind: "skipped" };
  }
  return finishCompaction(s, scope, request, summary.text);
}

/** The summarizing request: the transcript and the instructions, no tools; a tool call or no text is a failure. */
async function summarize(
  request: CompactionRequest,
  instructions: string,
  signal: AbortSignal,
): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  let summary = "";
  let error: string | null = null;
  let calls = 0;
  const stream = request.provider.stream({
    system: request.system,
    messages: [{ role: "user", content: `<conversation>\n${transcriptText(request.messages)}\n</conversation>\n\n${instructions}` }],
    tools: [],
    signal,
    purpose: "compact",
  });
  for await (const event of stream) {
    if (event.type === "text_delta") summary += event.text;
    else if (event.type === "tool_call") calls += 1;
    else if (event.type === "usage" && request.usage) addUsage(request.usage, event);
    else if (event.type === "error") error = event.message;
  }
  if (error !== null) return { ok: false, error };
  if (calls > 0) return { ok: false, error: "the summarizing request answered with a tool call" };
  if (summary.trim() === "") return { ok: false, error: "the summarizing request returned no text" };
  return { ok: true, text: summary };
}

async function finishCompaction(
  s: SessionServices,
  scope: FireScope & { readonly signal: AbortSignal },
  request: CompactionRequest,
  summary: string,
): Promise<CompactionOutcome> {
  const originalCount = request.messages.length;

  s.writer.append("compaction", { trigger: request.trigger, summary, original_message_count: originalCount });
  // Built exactly as resume rebuilds it (src/session/replay.ts), so a resumed session matches.
  const messages: Message[] = [compactionSummaryMessage(summary)];
  const start = await s.fire({ event: "session_start", fields: { source: "compact" } }, scope);
  const context = hiddenContextMessage([...start.state.hidden]);
  if (context !== null) {
    s.writer.append("provider_context_item", { role: "user", content: context });
    messages.push({ role: "user", content: context });
  }
  if (start.state.stopSession) return { kind: "stopped", reason: start.state.stopSession.reason, stopKind: start.state.stopSession.kind };
  s.emit({ type: "notice", kind: "info", text: `agent: conversation compacted (${originalCount} messages summarized)` });
  return { kind: "compacted", messages };
}
