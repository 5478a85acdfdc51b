/**
 * The agent loop. `runAgent` yields one typed event union while it runs a session and returns the
 * result: session_start → user_prompt_submit → [provider request → reasoning/assistant (+ message-phase
 * hooks) → tool calls | stop hooks]… → session_end, firing every hook event where the seeds place it.
 */
import type { Message, ToolDefinition } from "../providers/types.ts";
import { toolJsonSchema } from "../tools/index.ts";
import { BUILTIN_TOOLS } from "../tools/index.ts";
import { createHookEngine } from "../hooks/engine.ts";
import { hiddenContextMessage } from "../hooks/context.ts";
import { SessionWriter, newSessionId, replayMessages } from "../session/store.ts";
import { SessionContext } from "./session-context.ts";
import { runToolCall, type ToolCallRequest } from "./tool-call.ts";
import { compactConversation, estimateContextTokens } from "./compaction.ts";
import { createTaskRunner, groupToolCalls, mapConcurrent, MAX_CONCURRENT_TASKS } from "./subagent.ts";
import { TASK_TOOL_DEFINITION } from "./task-tool.ts";
import { isErrorStop, type AgentEvent, type AgentOptions, type PromptControl, type SessionResult, type StopReason } from "./types.ts";

export const DEFAULT_SYSTEM_PROMPT =
  "You are agent, a coding assistant working in the user's project. Use the tools to inspect and change files and to run commands. Be concise.";

interface TurnReply {
  text: string;
  reasoning: string;
  toolCalls: ToolCallRequest[];
  error: string | null;
}

export async function* runAgent(options: AgentOptions): AsyncGenerator<AgentEvent, SessionResult> {
  const { runtime, provider } = options;
  const sessionId = options.child?.sessionId ?? options.resume?.sessionId ?? newSessionId(runtime);
  const writer = new SessionWriter({ runtime, home: options.home, id: sessionId, child: options.child !== undefined, persist: options.persist, ...(options.onLine ? { listener: options.onLine } : {}) });
  const s = new SessionContext({
    runtime,
    writer,
    permissionMode: options.permissionMode,
    cwd: options.cwd,
    projectDir: options.projectDir,
    signal: options.signal,
    rules: options.rules,
    providerId: provider.id,
    modelId: provider.model,
    ...(options.onProjectSettingsWritten ? { onProjectSettingsWritten: options.onProjectSettingsWritten } : {}),
    ...(options.child ? { child: options.child } : {}),
    ...(options.onEvent && !options.child ? { live: options.onEvent } : {}),
  });
  // Interactive mode (several prompts, `/hooks reload`, per-turn Ctrl-C); never in a child.
  const interactive = options.child ? undefined : options.nextPrompt;
  let hooks = options.hooks;
  const makeEngine = (readonlyMode: boolean) =>
    createHookEngine(runtime, {
      hooks,
      readonlyMode,
      quietSuccessOutput: options.quietSuccessOutput,
      sinks: { failureLine: (text) => s.emit({ type: "notice", kind: "failure", text }), record: (record) => s.record(record), statusLine: (text) => s.emit({ type: "notice", kind: "info", text }) },
    });
  s.engine = makeEngine(options.permissionMode === "readonly");
  if (options.askPermission) s.askPermission = options.askPermission;
  const cancelHooks = (): void => s.engine.cancel();
  options.signal.addEventListener("abort", cancelHooks, { once: true });
  let turnSignal = options.signal;

  yield { type: "session", sessionId, transcriptPath: writer.path };
  // Subagents: only a top-level session offers `task` (children do not nest).
  if (!options.child) s.taskRunner = createTaskRunner(options, s, runAgent, DEFAULT_SYSTEM_PROMPT);
  const tools: ToolDefinition[] = BUILTIN_TOOLS.map((tool) => ({ name: tool.name, description: tool.description, parameters: toolJsonSchema(tool.name) }));
  if (s.taskRunner) tools.push(TASK_TOOL_DEFINITION);
  const messages: Message[] = options.resume ? replayMessages(options.resume.records) : [];
  let stopReason: StopReason = "completed";
  let message: string | null = null;
  let result = "";
  let requests = 0;
  let toolCallCount = 0;
  const interrupted = (): boolean => turnSignal.aborted;
  let endReason: "exit" | "clear" | undefined;

  const finish = async function* (): AsyncGenerator<AgentEvent, SessionResult> {
    if (interrupted()) stopReason = "interrupted";
    const reason = stopReason === "interrupted" ? "cancelled" : stopReason === "error" ? "error" : (endReason ?? "completed");
    options.signal.removeEventListener("abort", cancelHooks);
    turnSignal.removeEventListener("abort", cancelHooks);
    // D15: async hooks get at most 2 s after the final reply (none after Ctrl-C), then are killed and
    // recorded failed; only then the session_end hooks run.
    await s.engine.close(stopReason === "interrupted" ? 0 : undefined);
    yield* s.drain();
    // session_end hooks run even after Ctrl-C (within their own timeout, LOOP-36), on a fresh engine signal.
    if (stopReason === "interrupted") s.engine = makeEngine(false);
    await s.fire({ event: "session_end", fields: { reason, turn_id: `turn-${s.turnIndex}` } });
    yield* s.drain();
    const isError = isErrorStop(stopReason);
    writer.append("session_end", { reason, stop_reason: stopReason, is_error: isError });
    return { sessionId, result, turns: requests, toolCalls: toolCallCount, isError, stopReason, message };
  };

  const source = options.resume ? "resume" : (options.startSource ?? "startup");
  writer.append("session_start", {
    session_id: sessionId,
    source,
    cwd: options.cwd,
    project_dir: options.projectDir,
    provider: provider.id,
    model: provider.model,
    ...(options.child ? { parent_session_id: options.child.parentSessionId, agent_name: options.child.agentName } : {}),
  });
  const start = await s.fire({ event: "session_start", fields: { source } });
  yield* s.drain();
  const startContext = hiddenContextMessage([...start.state.hidden]);
  if (startContext !== null) {
    const content = startContext;
    writer.append("provider_context_item", { role: "user", content });
    messages.push({ role: "user", content });
  }
  if (start.state.stopSession) {
    stopReason = start.state.stopSession.kind === "hook_failed" ? "hook_failed" : "hook_blocked";
    message = start.state.stopSession.reason;
    return yield* finish();
  }

  const system = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  /** The provider's last reported input tokens (the compaction estimate, when known). */
  let lastInputTokens: number | undefined;
  const control: PromptControl = {
    notify: async (type, title, text) => {
      const outcome = await s.fire({ event: "notification", fields: { notification_type: type, title, message: text } });
      const n = outcome.state.notification;
      return { events: s.drain(), shown: n.suppress ? null : { title: n.title ?? title, message: n.message ?? text } };
    },
    compact: async (instructions) => {
      const compacted = await compactConversation(s, { provider, system, tools, messages, trigger: "manual", customInstructions: instructions });
      if (compacted.kind === "compacted") {
        messages.splice(0, messages.length, ...compacted.messages);
        lastInputTokens = undefined;
      }
      return s.drain();
    },
    reloadHooks: async (next) => {
      await s.engine.close();
      hooks = next;
      s.engine = makeEngine(options.permissionMode === "readonly");
      return s.drain();
    },
  };
  /** Interactive: a turn that ended without ending the session goes back to the prompt. */
  const turnOver = function* (): Generator<AgentEvent> {
    if (turnSignal.aborted) yield { type: "notice", kind: "info", text: "agent: turn cancelled" };
    else if (message !== null) yield { type: "notice", kind: "warning", text: `agent: turn ended (${stopReason}): ${message}` };
    stopReason = "completed";
    message = null;
  };

  let pending: string | null = interactive ? null : options.prompt;
  prompts: for (;;) {
    if (interactive) {
      // Each prompt gets a fresh turn signal; a cancelled turn also cancelled the engine's hooks.
      if (turnSignal !== options.signal) {
        turnSignal.removeEventListener("abort", cancelHooks);
        if (turnSignal.aborted) s.engine = makeEngine(options.permissionMode === "readonly");
        turnSignal = options.signal;
        s.signal = turnSignal;
      }
      const next = await interactive(control);
      yield* s.drain();
      if (next.type === "end") {
        endReason = next.reason;
        return yield* finish();
      }
      pending = next.text;
      turnSignal = options.turnSignal?.() ?? options.signal;
      s.signal = turnSignal;
      turnSignal.addEventListener("abort", cancelHooks, { once: true });
    }
    const prompt = pending ?? "";
    const submit = await s.fire({ event: "user_prompt_submit", fields: { prompt, turn_id: `turn-${s.turnIndex}` } });
    yield* s.drain();
    if (submit.state.blocked || submit.state.stopSession) {
      stopReason = submit.state.stopSession?.kind === "hook_failed" ? "hook_failed" : "hook_blocked";
      message = submit.state.blocked?.reason ?? submit.state.stopSession?.reason ?? "blocked by hook";
      if (interactive && !submit.state.stopSession) {
        yield* turnOver();
        continue prompts;
      }
      return yield* finish();
    }
    const submitContext = hiddenContextMessage([...submit.state.hidden]);
    if (submitContext !== null) {
      const content = submitContext;
      writer.append("provider_context_item", { role: "user", content });
      messages.push({ role: "user", content });
    }
    const sent = submit.state.prompt ?? prompt;
    writer.append("user", sent === prompt ? { content: sent } : { content: sent, original_prompt: prompt });
    messages.push({ role: "user", content: sent });

    let stopBlocks = 0;
    let stopHookActive = false;
    for (;;) {
      if (interrupted()) {
        if (interactive) {
          yield* turnOver();
          continue prompts;
        }
        return yield* finish();
      }
      if (options.maxTurns !== undefined && requests >= options.maxTurns) {
        stopReason = "max_turns";
        message = `reached --max-turns ${options.maxTurns}`;
        return yield* finish();
      }
      // Compaction runs before a provider request once the estimate passes the limit; a conversation
      // that is already a lone summary has nothing left to compact.
      if (options.maxContextTokens !== undefined && messages.length > 1 && estimateContextTokens(messages, lastInputTokens) > options.maxContextTokens) {
        const compacted = await compactConversation(s, { provider, system, tools, messages, trigger: "auto", customInstructions: "" });
        yield* s.drain();
        if (compacted.kind === "stopped") {
          stopReason = compacted.stopKind;
          message = compacted.reason;
          return yield* finish();
        }
        if (compacted.kind === "compacted") {
          messages.splice(0, messages.length, ...compacted.messages);
          lastInputTokens = undefined;
        }
        if (interrupted()) return yield* finish();
      }
      requests += 1;
      yield { type: "waiting", waiting: true };
      const reply: TurnReply = { text: "", reasoning: "", toolCalls: [], error: null };
      const stream = provider.stream({ system, messages, tools, signal: turnSignal, purpose: "turn" });
      let first = true;
      for await (const event of stream) {
        if (first) {
          yield { type: "waiting", waiting: false };
          first = false;
        }
        if (event.type === "text_delta") {
          reply.text += event.text;
          yield { type: "text_delta", text: event.text };
        } else if (event.type === "reasoning_delta") {
          reply.reasoning += event.text;
          yield { type: "reasoning_delta", text: event.text };
        } else if (event.type === "tool_call") {
          reply.toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
        } else if (event.type === "usage") {
          lastInputTokens = event.inputTokens;
        } else if (event.type === "error") {
          reply.error = event.message;
        }
      }
      if (first) yield { type: "waiting", waiting: false };
      if (interrupted() || reply.error !== null) {
        if (reply.error !== null && !interrupted()) {
          stopReason = "error";
          message = reply.error;
        }
        if (interactive) {
          yield* turnOver();
          continue prompts;
        }
        return yield* finish();
      }

      s.turnIndex = requests - 1;
      const messageItems: string[] = [];
      if (reply.reasoning !== "") {
        writer.append("reasoning", { content: reply.reasoning });
        const after = await s.fire({ event: "after_reasoning", fields: { text: reply.reasoning } });
        messageItems.push(...recordItems(s, after.state.injections));
        yield* s.drain();
        if (after.state.stopSession) {
          stopReason = endKind(after.state.stopSession.kind);
          message = after.state.stopSession.reason;
          return yield* finish();
        }
      }
      const messageId = `message-${s.messageIndex}`;
      writer.append("assistant", { message_id: messageId, content: reply.text, tool_calls: reply.toolCalls });
      yield { type: "assistant_done", text: reply.text };
      const afterAssistant = await s.fire({ event: "after_assistant", fields: { text: reply.text } });
      s.messageIndex += 1;
      messageItems.push(...recordItems(s, afterAssistant.state.injections));
      yield* s.drain();
      messages.push({ role: "assistant", content: reply.text, ...(reply.reasoning ? { reasoning: reply.reasoning } : {}), toolCalls: reply.toolCalls });
      if (afterAssistant.state.stopSession) {
        stopReason = endKind(afterAssistant.state.stopSession.kind);
        message = afterAssistant.state.stopSession.reason;
        return yield* finish();
      }

      if (reply.toolCalls.length > 0) {
        const toolMessages: Message[] = [];
        const postItems: string[] = [];
        let stop: { reason: string; kind: "hook_blocked" | "hook_failed" } | undefined;
        // D13: calls run in call order, except that consecutive `task` calls run together (at most 4 at once).
        for (const group of groupToolCalls(reply.toolCalls)) {
          if (interrupted()) break;
          toolCallCount += group.length;
          const outcomes = await mapConcurrent(group, MAX_CONCURRENT_TASKS, (call) => runToolCall(s, call));
          yield* s.drain();
          for (const outcome of outcomes) {
            toolMessages.push(outcome.message);
            postItems.push(...outcome.items);
            stop ??= outcome.stop;
          }
          if (stop) break;
        }
        messages.push(...toolMessages);
        for (const item of [...postItems, ...messageItems]) messages.push({ role: "user", content: item });
        if (interrupted()) {
          if (interactive) {
            yield* turnOver();
            continue prompts;
          }
          return yield* finish();
        }
        if (stop) {
          stopReason = stop.kind;
          message = stop.reason;
          return yield* finish();
        }
        continue;
      }

      for (const item of messageItems) messages.push({ role: "user", content: item });
      result = reply.text;
      const stopOutcome = await s.fire({ event: "stop", fields: { stop_hook_active: stopHookActive, last_assistant_message: reply.text } });
      yield* s.drain();
      if (stopOutcome.state.stopSession?.kind === "hook_failed") {
        // D23: a stop hook failing under `fail` ends the run as hook_failed (exit 3), not as completed.
        stopReason = "hook_failed";
        message = stopOutcome.state.stopSession.reason;
        return yield* finish();
      }
      if (stopOutcome.state.stopSession) {
        // D8 / LIFE-61: continue:false on stop ends the session with the drafted reply, as completed.
        yield { type: "notice", kind: "info", text: stopOutcome.state.stopSession.reason };
        return yield* finish();
      }
      if (stopOutcome.state.blocked) {
        stopBlocks += 1;
        if (stopBlocks > options.stopBlockCap) {
          stopReason = "stop_block_cap";
          yield {
            type: "notice",
            kind: "warning",
            text: `agent: stop hook blocked ${options.stopBlockCap} times in a row; stopping (hooks.stop_block_cap = ${options.stopBlockCap})`,
          };
          return yield* finish();
        }
        const reason = stopOutcome.state.blocked.reason;
        // Tell the user why the agent keeps going after what looked like its final reply.
        yield { type: "notice", kind: "info", text: `agent: stop hook sent the agent back: ${reason}` };
        writer.append("user", { content: reason });
        messages.push({ role: "user", content: reason });
        stopHookActive = true;
        continue;
      }
      if (interactive) {
        yield* turnOver();
        continue prompts;
      }
      return yield* finish();
    }
  }
}

/** D8: `continue: false` ends a turn as hook_blocked; a failure under `fail` as hook_failed (D23). */
function endKind(kind: "hook_blocked" | "hook_failed" | "continue_false"): "hook_blocked" | "hook_failed" {
  return kind === "hook_failed" ? "hook_failed" : "hook_blocked";
}

function recordItems(s: SessionContext, injections: readonly { status: string; items: readonly { content: string }[] }[]): string[] {
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
