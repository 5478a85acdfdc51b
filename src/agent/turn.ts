/**
 * One prompt's turn, as steps over the session's state: user_prompt_submit → [compaction check →
 * provider request → reasoning/assistant (+ message-phase hooks) → tool calls | stop hooks]… Each
 * step either lets the turn go on or returns how it ended (a TurnOutcome); nothing here ends the
 * session itself: the AgentSession's `end()` does, when its driver decides.
 */
import type { Message, Provider, ToolDefinition } from "../providers/types.ts";
import { addUsage, type UsageTotals } from "./usage.ts";
import { callTargets, type NestedInstructions } from "./instructions.ts";
import { nestedInstructionsMessage } from "./system-prompt.ts";
import { escapeControls } from "../util/escape.ts";
import { hiddenContextMessage } from "../hooks/merge/context.ts";
import type { ContextInjection } from "../hooks/merge/merge.ts";
import { compactConversation, estimateContextTokens } from "./compaction.ts";
import { groupToolCalls, mapConcurrent, MAX_CONCURRENT_TASKS } from "./subagent.ts";
import { runToolCall, type ToolCallOutcome, type ToolCallRequest } from "./tool-call.ts";
import type { SessionServices } from "./session-services.ts";
import type { StopReason, TurnOutcome } from "./types.ts";

/** The conversation and counters of one session, owned by its AgentSession and changed only by its turns. */
export interface LoopState {
  readonly messages: Message[];
  /** The provider's last reported input tokens (the compaction estimate, when known). */
  lastInputTokens: number | undefined;
  requests: number;
  toolCalls: number;
  /** The envelope's `turn-<n>`: the index of the latest provider request. */
  turnIndex: number;
  /** The envelope's `message-<n>`: counts assistant messages. */
  messageIndex: number;
  /** The last final reply (the session's `result`). */
  result: string;
  /** Tokens of every provider request of this session (compaction's included). */
  readonly usage: UsageTotals;
  /** Milliseconds spent in provider requests. */
  apiMs: number;
}

/** What a turn runs with; `signal` is this prompt's (Ctrl-C in the interactive UI cancels only it). */
export interface TurnContext {
  readonly s: SessionServices;
  readonly provider: Provider;
  readonly system: string;
  readonly tools: readonly ToolDefinition[];
  /** MCP tools, appended per request (the list can change between requests: list_changed, a crash). */
  readonly mcpTools?: () => Promise<readonly ToolDefinition[]>;
  readonly state: LoopState;
  readonly signal: AbortSignal;
  /** Nested instruction files: a directory's files join the conversation when a tool call first works there. */
  readonly nested?: NestedInstructions | undefined;
  readonly projectRoot?: string;
  readonly limits: { readonly maxTurns?: number | undefined; readonly maxContextTokens?: number | undefined; readonly stopBlockCap: number };
}

interface TurnReply {
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  error: string | null;
  stopReason: string;
  /** Cut off at the output token limit (`length`, `max_tokens`). */
  truncated: boolean;
}

/** Replies cut off at the token limit in a row that end the session as `truncated`. */
export const TRUNCATED_REPLIES_LIMIT = 2;

const ended = (stopReason: StopReason, message: string | null): TurnOutcome => ({ stopReason, message, endsSession: true });
const over = (stopReason: StopReason, message: string | null): TurnOutcome => ({ stopReason, message, endsSession: false });

/** Runs one prompt to the end of its turn. Never throws. */
export async function runTurn(t: TurnContext, prompt: string): Promise<TurnOutcome> {
  const submitted = await submitPrompt(t, prompt);
  if (submitted !== null) return submitted;
  let stopBlocks = 0;
  let truncations = 0;
  for (;;) {
    const before = await beforeRequest(t);
    if (before !== null) return before;
    const reply = await requestReply(t);
    if (t.signal.aborted) return over("interrupted", null);
    if (reply.error !== null) return over("error", reply.error);
    if (reply.truncated) {
      truncations += 1;
      const cut = await recordTruncated(t, reply, truncations);
      if (cut !== null) return cut;
      continue;
    }
    truncations = 0;
    const recorded = await recordReply(t, reply);
    if (recorded.outcome !== null) return recorded.outcome;
    if (reply.toolCalls.length > 0) {
      const calls = await runCalls(t, reply.toolCalls, recorded.items);
      if (calls !== null) return calls;
      continue;
    }
    for (const item of recorded.items) t.state.messages.push({ role: "user", content: item });
    t.state.result = reply.text;
    const stopped = await runStopHooks(t, reply.text, stopBlocks);
    if (stopped !== "again") return stopped;
    stopBlocks += 1;
  }
}

function pushContext(t: TurnContext, hidden: readonly string[]): void {
  const content = hiddenContextMessage([...hidden]);
  if (content === null) return;
  t.s.writer.append("provider_context_item", { role: "user", content });
  t.state.messages.push({ role: "user", content });
}

/** user_prompt_submit: a block ends the turn (and the session when a hook stopped it); else the prompt joins the conversation. */
async function submitPrompt(t: TurnContext, prompt: string): Promise<TurnOutcome | null> {
  const submit = await t.s.fire(
    { event: "user_prompt_submit", fields: { prompt, turn_id: `turn-${t.state.turnIndex}` } },
    { turnIndex: t.state.turnIndex, messageIndex: t.state.messageIndex },
  );
  const { blocked, stopSession } = submit.state;
  if (blocked || stopSession) {
    const message = blocked?.reason ?? stopSession?.reason ?? "blocked by hook";
    return { stopReason: stopSession?.kind ?? "hook_blocked", message, endsSession: stopSession !== undefined };
  }
  pushContext(t, submit.state.hidden);
  // A hook's updatedPrompt is what the model gets; the record keeps what the user typed too.
  const sent = submit.state.prompt ?? prompt;
  t.s.writer.append("user", sent === prompt ? { content: sent } : { content: sent, original_prompt: prompt });
  t.state.messages.push({ role: "user", content: sent });
  return null;
}

/** Before each provider request: Ctrl-C, `--max-turns`, and compaction once the estimate passes the limit. */
async function beforeRequest(t: TurnContext): Promise<TurnOutcome | null> {
  const { state, limits } = t;
  if (t.signal.aborted) return over("interrupted", null);
  if (limits.maxTurns !== undefined && state.requests >= limits.maxTurns) return ended("max_turns", `reached --max-turns ${limits.maxTurns}`);
  // A conversation that is already a lone summary has nothing left to compact.
  if (
    limits.maxContextTokens === undefined ||
    state.messages.length <= 1 ||
    estimateContextTokens(state.messages, state.lastInputTokens) <= limits.maxContextTokens
  )
    return null;
  const compacted = await compactConversation(
    t.s,
    { signal: t.signal, turnIndex: state.turnIndex, messageIndex: state.messageIndex },
    { provider: t.provider, system: t.system, tools: t.tools, messages: state.messages, trigger: "auto", customInstructions: "", usage: state.usage },
  );
  if (compacted.kind === "stopped") return ended(compacted.stopKind, compacted.reason);
  if (compacted.kind === "compacted") {
    replaceConversation(state, compacted.messages);
    t.nested?.forget();
  }
  // A Ctrl-C during compaction ends the session (as it always has), not only the turn.
  return t.signal.aborted ? ended("interrupted", null) : null;
}

export function replaceConversation(state: LoopState, messages: readonly Message[]): void {
  state.messages.splice(0, state.messages.length, ...messages);
  state.lastInputTokens = undefined;
}

/** One provider request, streamed: deltas go out as they arrive; the reply is collected. */
async function requestReply(t: TurnContext): Promise<TurnReply> {
  const { s, state } = t;
  // MCP servers start in the background; the first request that needs their tools waits here (bounded per server).
  const tools = t.mcpTools ? [...t.tools, ...(await t.mcpTools())] : t.tools;
  state.requests += 1;
  s.emit({ type: "waiting", waiting: true });
  const reply: TurnReply = { text: "", reasoning: "", toolCalls: [], error: null, stopReason: "", truncated: false };
  const started = s.runtime.now();
  let first = true;
  for await (const event of t.provider.stream({ system: t.system, messages: state.messages, tools, signal: t.signal, purpose: "turn" })) {
    if (first) {
      s.emit({ type: "waiting", waiting: false });
      first = false;
    }
    if (event.type === "text_delta") {
      reply.text += event.text;
      s.emit({ type: "text_delta", text: event.text });
    } else if (event.type === "reasoning_delta") {
      reply.reasoning += event.text;
      s.emit({ type: "reasoning_delta", text: event.text });
    } else if (event.type === "tool_call") reply.toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
    else if (event.type === "usage") {
      state.lastInputTokens = event.inputTokens;
      addUsage(state.usage, event);
    } else if (event.type === "done") {
      reply.stopReason = event.stopReason;
      reply.truncated = event.truncated === true;
    } else if (event.type === "error") reply.error = event.message;
  }
  state.apiMs += Math.max(0, s.runtime.now() - started);
  if (first) s.emit({ type: "waiting", waiting: false });
  return reply;
}

/**
 * A reply cut off at the output token limit: its text is recorded, none of its tool calls run (their
 * arguments may be cut too), and the model is told why; the second such reply in a row ends the
 * session as `truncated`.
 */
async function recordTruncated(t: TurnContext, reply: TurnReply, count: number): Promise<TurnOutcome | null> {
  const { s, state } = t;
  const dropped = reply.toolCalls.length;
  const recorded = await recordReply(t, { ...reply, toolCalls: [] });
  for (const item of recorded.items) state.messages.push({ role: "user", content: item });
  if (recorded.outcome !== null) return recorded.outcome;
  const calls = dropped === 0 ? "" : `; its ${dropped} tool call${dropped === 1 ? " was" : "s were"} not run`;
  // The stop reason is the server's text: escaped before it reaches a terminal.
  const why = escapeControls(reply.stopReason);
  s.emit({ type: "notice", kind: "warning", text: `agent: the reply was cut off at the output token limit (${why})${calls}` });
  if (count >= TRUNCATED_REPLIES_LIMIT) {
    state.result = reply.text;
    return ended("truncated", `${count} replies in a row were cut off at the output token limit (${why})`);
  }
  const note = `Your previous reply was cut off because it reached the output token limit${dropped === 0 ? "" : `, so none of its ${dropped} tool call${dropped === 1 ? "" : "s"} ran`}. Continue from where it stopped in smaller steps: shorter text, and large file contents split over several smaller edits or writes.`;
  s.writer.append("user", { content: note });
  state.messages.push({ role: "user", content: note });
  return null;
}

/** Records reasoning and the assistant message and runs their hooks; `items` are the injected context items. */
async function recordReply(t: TurnContext, reply: TurnReply): Promise<{ outcome: TurnOutcome | null; items: string[] }> {
  const { s, state } = t;
  state.turnIndex = state.requests - 1;
  const items: string[] = [];
  if (reply.reasoning !== "") {
    s.writer.append("reasoning", { content: reply.reasoning });
    const after = await s.fire(
      { event: "after_reasoning", fields: { text: reply.reasoning } },
      { turnIndex: state.turnIndex, messageIndex: state.messageIndex },
    );
    items.push(...recordItems(s, after.state.injections));
    if (after.state.stopSession) return { outcome: ended(after.state.stopSession.kind, after.state.stopSession.reason), items };
  }
  s.writer.append("assistant", { message_id: `message-${state.messageIndex}`, content: reply.text, tool_calls: reply.toolCalls });
  s.emit({ type: "assistant_done", text: reply.text });
  const afterAssistant = await s.fire(
    { event: "after_assistant", fields: { text: reply.text } },
    { turnIndex: state.turnIndex, messageIndex: state.messageIndex },
  );
  state.messageIndex += 1;
  items.push(...recordItems(s, afterAssistant.state.injections));
  state.messages.push({ role: "assistant", content: reply.text, ...(reply.reasoning ? { reasoning: reply.reasoning } : {}), toolCalls: reply.toolCalls });
  const stop = afterAssistant.state.stopSession;
  return { outcome: stop ? ended(stop.kind, stop.reason) : null, items };
}

function recordItems(s: SessionServices, injections: readonly ContextInjection[]): string[] {
  const items: string[] = [];
  for (const injection of injections) {
    if (injection.status !== "success") continue;
    for (const item of injection.items) {
      s.writer.append("provider_context_item", { role: "user", content: item.content });
      items.push(item.content);
    }
  }
  return items;
}

/** D13: calls run in call order, except that consecutive `task` calls run together (at most 4 at once). */
async function runCalls(t: TurnContext, calls: readonly ToolCallRequest[], messageItems: readonly string[]): Promise<TurnOutcome | null> {
  const { state } = t;
  const toolMessages: Message[] = [];
  const postItems: string[] = [];
  const worked: string[] = [];
  let stop: ToolCallOutcome["stop"];
  const scope = { signal: t.signal, turnIndex: state.turnIndex };
  for (const group of groupToolCalls(calls)) {
    if (t.signal.aborted) break;
    state.toolCalls += group.length;
    const outcomes = await mapConcurrent(group, MAX_CONCURRENT_TASKS, (call) => runToolCall(t.s, scope, call));
    // Between calls no hook batch is in flight: the runtime may take its full collection here.
    t.s.runtime.collectGarbageIfDue?.();
    outcomes.forEach((outcome, index) => {
      toolMessages.push(outcome.message);
      postItems.push(...outcome.items);
      stop ??= outcome.stop;
      // A call that ran (not refused, not failed) took the agent into its path's directory.
      if (outcome.message.isError !== true) worked.push(...callTargets(group[index]?.arguments ?? ""));
    });
    if (stop) break;
  }
  state.messages.push(...toolMessages);
  for (const item of [...postItems, ...messageItems]) state.messages.push({ role: "user", content: item });
  addNestedInstructions(t, worked);
  if (t.signal.aborted) return over("interrupted", null);
  return stop ? ended(stop.kind, stop.reason) : null;
}

/** The instruction files of directories the calls first went into, as one context message. */
function addNestedInstructions(t: TurnContext, targets: readonly string[]): void {
  if (t.nested === undefined || targets.length === 0) return;
  const files = t.nested.discover(targets);
  if (files.length === 0) return;
  const content = nestedInstructionsMessage(files, t.projectRoot ?? "");
  t.s.writer.append("provider_context_item", { role: "user", content });
  t.state.messages.push({ role: "user", content });
}

/** Stop hooks at the drafted final reply (D11): a block sends the agent back, up to the cap. */
async function runStopHooks(t: TurnContext, text: string, stopBlocks: number): Promise<TurnOutcome | "again"> {
  const { s, state } = t;
  const stopped = await s.fire(
    { event: "stop", fields: { stop_hook_active: stopBlocks > 0, last_assistant_message: text } },
    { turnIndex: state.turnIndex, messageIndex: state.messageIndex },
  );
  const stopSession = stopped.state.stopSession;
  // D23: a stop hook failing under `fail` ends the run as hook_failed (exit 3), not as completed.
  if (stopSession?.kind === "hook_failed") return ended("hook_failed", stopSession.reason);
  if (stopSession) {
    // D8 / LIFE-61: continue:false at the stop point (stop, or a child's subagent_stop) ends the
    // session with the drafted reply, as completed.
    s.emit({ type: "notice", kind: "info", text: stopSession.reason });
    return ended("completed", null);
  }
  if (!stopped.state.blocked) return over("completed", null);
  if (stopBlocks + 1 > t.limits.stopBlockCap) {
    const cap = t.limits.stopBlockCap;
    s.emit({ type: "notice", kind: "warning", text: `agent: stop hook blocked ${cap} times in a row; stopping (hooks.stop_block_cap = ${cap})` });
    return ended("stop_block_cap", null);
  }
  const reason = stopped.state.blocked.reason;
  // Tell the user why the agent keeps going after what looked like its final reply.
  s.emit({ type: "notice", kind: "info", text: `agent: stop hook sent the agent back: ${reason}` });
  s.writer.append("user", { content: reason });
  state.messages.push({ role: "user", content: reason });
  return "again";
}
