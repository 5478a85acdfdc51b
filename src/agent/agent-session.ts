/**
 * The agent as an object (in the spirit of pi-mono's agent): an AgentSession owns the conversation,
 * the permission rules, the hook engine and the counters of one session, and every operation hands
 * out one EventStream that yields what happens while it runs (streamed text, tool lines, hook rows,
 * notices: all through one queue) and then its result. `agent run`, the interactive UI and the
 * `task` tool (each child its own session) drive it:
 *
 *   start() → prompt(text, {signal}) … → end()        (+ compact(), notify(), reloadHooks() between turns)
 *
 * session_start fires in `start()`; each `prompt()` is one turn (src/agent/turn.ts); `end()` waits
 * for async hooks (D15), fires session_end and writes the `session_end` record. Operations run one
 * at a time; the driver reads each stream to its end before starting the next.
 */
import type { ToolDefinition } from "../providers/types.ts";
import { toolJsonSchema, BUILTIN_TOOLS } from "../tools/index.ts";
import { createHookEngine, type HookEngine } from "../hooks/engine.ts";
import type { HookSpec } from "../hooks/types.ts";
import { activeHooks } from "../hooks/agent-scope.ts";
import { hiddenContextMessage } from "../hooks/merge/context.ts";
import { SessionWriter, newSessionId, replayMessages } from "../session/store.ts";
import { ClaudeTranscript } from "../session/transcript.ts";
import { compactConversation } from "./compaction.ts";
import { EventQueue, type EventStream } from "./event-queue.ts";
import { SessionServices } from "./session-services.ts";
import { createTaskRunner, type RunChild } from "./subagent.ts";
import { TASK_TOOL_DEFINITION } from "./task-tool.ts";
import { prepareCommandTurn, type CommandTurn } from "./command-prompt.ts";
import type { PreparedCommand } from "../plugins/commands.ts";
import { SessionEnv, sessionEnvOf } from "./session-env.ts";
import { BackgroundShells } from "../tools/background-shells.ts";
import { TodoList, todosOfMetadata, type TodoItem } from "../tools/todo-list.ts";
import type { WebFetchSettings } from "../tools/types.ts";
import type { McpToolName } from "../tools/names.ts";
import type { SessionRecord } from "../session/records.ts";
import { PROVIDER_KEY_VARS } from "../hooks/engine.ts";
import { replaceConversation, runTurn, type LoopState } from "./turn.ts";
import { BASE_PROMPT, buildSystemPrompt } from "./system-prompt.ts";
import { environmentBlock, gitFacts, localDate } from "./environment.ts";
import { loadInstructions, NestedInstructions, type InstructionSources } from "./instructions.ts";
import { compactionThresholdOf, contextWindowOf, costOf, emptyUsage, type UsageTotals } from "./usage.ts";
import {
  isErrorStop,
  type AgentEvent,
  type AgentSessionOptions,
  type PermissionAnswer,
  type PermissionAsk,
  type SessionResult,
  type TurnOutcome,
} from "./types.ts";

/** The base of every system prompt (src/agent/system-prompt.ts adds tool guidance, the environment and instruction files). */
export const DEFAULT_SYSTEM_PROMPT = BASE_PROMPT;

export interface EndOptions {
  /** Why the driver ends the session (interactive `/exit` or `/clear`); default `completed`. */
  readonly reason?: "exit" | "clear";
  /** The turn that ended the session, if one did (its stop reason and message become the result's). */
  readonly stop?: TurnOutcome | null;
}

/** How long session_end hooks may run once the session was stopped by Ctrl-C, SIGTERM or SIGHUP (the D15 exit grace). */
export const SESSION_END_AFTER_STOP_MS = 2000;

export class AgentSession {
  readonly sessionId: string;
  readonly transcriptPath: string | null;
  private readonly options: AgentSessionOptions;
  private readonly queue = new EventQueue();
  private readonly writer: SessionWriter;
  /** The Claude Code-shaped copy of the conversation that claude hooks' `transcript_path` names. */
  private readonly transcript: ClaudeTranscript;
  private readonly services: SessionServices;
  private readonly state: LoopState;
  private readonly tools: ToolDefinition[];
  private system: string;
  private readonly instructionSources: InstructionSources;
  private readonly nested: NestedInstructions;
  private hooks: readonly HookSpec[];
  private engine: HookEngine;
  /** `once` hooks that started in this session, shared by every engine it makes. */
  private readonly onceStarted = new Set<string>();
  private readonly cancelHooks = (): void => this.engine.cancel();
  private readonly shells: BackgroundShells;

  constructor(options: AgentSessionOptions) {
    this.options = options;
    const { runtime } = options;
    this.sessionId = options.child?.sessionId ?? options.resume?.sessionId ?? newSessionId(runtime);
    this.writer = this.openWriter(options);
    this.transcriptPath = this.writer.path;
    this.transcript = this.openTranscript(options);
    this.hooks = activeHooks(options.hooks, options.child?.agentName);
    this.engine = this.makeEngine();
    this.system = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    this.instructionSources = {
      fs: runtime.fs,
      agentHome: options.home,
      projectRoot: options.projectDir,
      cwd: options.cwd,
      ...(options.contextFiles ? { names: options.contextFiles } : {}),
    };
    this.nested = new NestedInstructions(this.instructionSources);
    this.state = {
      messages: options.resume ? replayMessages(options.resume.records) : [],
      lastInputTokens: undefined,
      requests: 0,
      toolCalls: 0,
      turnIndex: 0,
      messageIndex: 0,
      result: "",
      usage: emptyUsage(),
      apiMs: 0,
    };
    this.nested.markGiven(this.state.messages);
    this.shells = new BackgroundShells(runtime);
    this.services = this.makeServices(options);
    const offers = options.toolAccess?.offers ?? (() => true);
    this.tools = BUILTIN_TOOLS.filter((tool) => (tool.name !== "web_fetch" || webFetchOn(options)) && offers(tool.name)).map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: toolJsonSchema(tool.name),
    }));
    if (this.services.taskRunner) this.tools.push(TASK_TOOL_DEFINITION);
    options.signal.addEventListener("abort", this.cancelHooks, { once: true });
  }

  /** The session's JSONL writer; every record also feeds the Claude-shaped transcript and the audit export. */
  private openWriter(options: AgentSessionOptions): SessionWriter {
    return new SessionWriter({
      runtime: options.runtime,
      home: options.home,
      id: this.sessionId,
      child: options.child !== undefined,
      persist: options.persist,
      ...(options.onLine ? { listener: options.onLine } : {}),
      onWriteError: (error) => this.emit({ type: "notice", kind: "error", text: `agent: session file not written: ${error}` }),
      observer: (record) => {
        this.transcript.observe(record);
        options.audit?.(record, this.sessionId);
      },
    });
  }

  private openTranscript(options: AgentSessionOptions): ClaudeTranscript {
    const { runtime } = options;
    return new ClaudeTranscript({
      fs: runtime.fs,
      sessionPath: this.writer.path,
      sessionId: this.sessionId,
      cwd: options.cwd,
      model: options.provider.model,
      randomHex: (bytes) => runtime.randomId(bytes),
      ...(options.child ? { parentSessionId: options.child.parentSessionId } : {}),
      onWriteError: (error) => this.emit({ type: "notice", kind: "warning", text: `agent: Claude-format transcript not written: ${error}` }),
    });
  }

  /** The per-session services: hook firing, rules, tools, the task runner, background shells, the plan. */
  private makeServices(options: AgentSessionOptions): SessionServices {
    const askPermission = options.askPermission ? this.afterRendering(options.askPermission) : undefined;
    // Subagents: only a top-level session offers `task` (children do not nest).
    const taskRunner = options.child
      ? undefined
      : createTaskRunner({ ...options, ...(askPermission ? { askPermission } : {}) }, runChildSession, DEFAULT_SYSTEM_PROMPT);
    // A child starts with its parent's variables; a resumed session with those it recorded.
    const initialEnv = options.child?.env ?? (options.resume ? sessionEnvOf(options.resume.records) : {});
    return new SessionServices({
      sessionEnv: new SessionEnv(initialEnv, options.providerKeyVars ?? PROVIDER_KEY_VARS),
      shells: this.shells,
      // A resumed session picks its plan up where the last todo_write left it.
      todos: new TodoList(options.resume ? lastPlan(options.resume.records) : []),
      ...(webFetchOn(options) ? { webFetch: options.webFetch } : {}),
      runtime: options.runtime,
      writer: this.writer,
      permissionMode: options.permissionMode,
      cwd: options.cwd,
      projectDir: options.projectDir,
      agentHome: options.home,
      rules: options.rules,
      providerId: options.provider.id,
      modelId: options.provider.model,
      engine: () => this.engine,
      emit: (event) => this.emit(event),
      ...(askPermission ? { askPermission } : {}),
      noApprover: options.noApprover,
      ...(options.onProjectSettingsWritten ? { onProjectSettingsWritten: options.onProjectSettingsWritten } : {}),
      ...(options.child ? { child: options.child } : {}),
      ...(taskRunner ? { taskRunner } : {}),
      ...(options.mcp ? { mcp: options.mcp } : {}),
      addChildUsage: (usage, apiMs) => this.addChildUsage(usage, apiMs),
      ...(options.readRoots ? { readRoots: options.readRoots } : {}),
      ...(options.toolAccess ? { toolAccess: options.toolAccess } : {}),
    });
  }

  /** A finished subagent's usage and API time count toward this session's totals. */
  private addChildUsage(usage: UsageTotals, apiMs: number): void {
    const totals = this.state.usage;
    totals.input += usage.input;
    totals.output += usage.output;
    totals.cacheRead += usage.cacheRead;
    totals.cacheWrite += usage.cacheWrite;
    this.state.apiMs += apiMs;
  }

  /** session_start (record and hooks). The result is non-null when a hook already ended the session. */
  start(): EventStream<TurnOutcome | null> {
    return this.queue.stream(async () => {
      const { options } = this;
      this.emit({ type: "session", sessionId: this.sessionId, transcriptPath: this.transcriptPath });
      const source = options.resume ? "resume" : (options.startSource ?? "startup");
      await this.buildSystemPrompt();
      this.transcript.open(options.resume?.records ?? []);
      this.writer.append("session_start", {
        session_id: this.sessionId,
        source,
        cwd: options.cwd,
        project_dir: options.projectDir,
        provider: options.provider.id,
        model: options.provider.model,
        ...(options.child ? { parent_session_id: options.child.parentSessionId, agent_name: options.child.agentName } : {}),
      });
      const start = await this.services.fire({ event: "session_start", fields: { source } }, this.scope());
      const content = hiddenContextMessage([...start.state.hidden]);
      if (content !== null) {
        this.writer.append("provider_context_item", { role: "user", content });
        this.state.messages.push({ role: "user", content });
      }
      const stop = start.state.stopSession;
      return stop ? { stopReason: stop.kind, message: stop.reason, endsSession: true } : null;
    });
  }

  /**
   * One turn for `text`. `signal` cancels this turn only (default: the session's signal). `command`:
   * `text` is that slash command's, whose lines, files, rules and model are settled first (command-prompt.ts).
   */
  prompt(text: string, options: { readonly signal?: AbortSignal; readonly command?: PreparedCommand } = {}): EventStream<TurnOutcome> {
    const signal = options.signal ?? this.options.signal;
    return this.queue.stream(async () => {
      const own = signal !== this.options.signal;
      if (own) signal.addEventListener("abort", this.cancelHooks, { once: true });
      try {
        const { maxTurns, stopBlockCap } = this.options;
        // An explicit limit wins; else compaction starts at the documented share of the model's context window.
        const maxContextTokens = this.options.maxContextTokens ?? compactionThresholdOf(contextWindowOf(this.options.provider.model, this.options.models));
        const limits = { maxTurns, maxContextTokens, stopBlockCap };
        const command = options.command ? await this.commandTurn(options.command, signal) : undefined;
        if (command?.stop) return { stopReason: command.stop.kind, message: command.stop.reason, endsSession: true };
        const mcp = this.options.mcp;
        const offers = this.options.toolAccess?.offers;
        const mcpTools = mcp ? async () => (await mcp.toolDefinitions()).filter((tool) => offers === undefined || offers(tool.name as McpToolName)) : undefined;
        const outcome = await runTurn(
          {
            s: this.services,
            provider: command?.provider ?? this.options.provider,
            system: this.system,
            tools: this.tools,
            ...(mcpTools ? { mcpTools } : {}),
            state: this.state,
            signal,
            limits,
            nested: this.nested,
            projectRoot: this.options.projectDir,
          },
          command?.text ?? text,
        );
        return signal.aborted && outcome.stopReason !== "interrupted" ? { ...outcome, stopReason: "interrupted" as const } : outcome;
      } finally {
        this.services.setCommandRules([]);
        if (own) signal.removeEventListener("abort", this.cancelHooks);
        // A cancelled turn cancelled the engine's hooks too: the next operation gets a fresh engine.
        if (own && signal.aborted && !this.options.signal.aborted) this.engine = this.makeEngine();
      }
    });
  }

  /** A slash command's turn: its `!` lines run and `@` files read through the tool-call policy, its rules and model. */
  private commandTurn(command: PreparedCommand, signal: AbortSignal): Promise<CommandTurn> {
    return prepareCommandTurn(this.services, command, {
      provider: this.options.provider,
      modelRefusal: this.options.modelRefusal ?? (() => null),
      signal,
      turnIndex: this.state.turnIndex,
    });
  }

  /** `/compact [instructions]`: pre_compact `manual`, the summary, then session_start `compact`. */
  compact(instructions: string): EventStream<void> {
    return this.queue.stream(async () => {
      const compacted = await compactConversation(
        this.services,
        { ...this.scope(), signal: this.options.signal },
        {
          provider: this.options.provider,
          system: this.system,
          tools: this.tools,
          messages: this.state.messages,
          trigger: "manual",
          customInstructions: instructions,
          usage: this.state.usage,
        },
      );
      if (compacted.kind === "compacted") replaceConversation(this.state, compacted.messages);
    });
  }

  /** A notification (`idle_prompt`) through notification hooks: what to show, or null when a hook suppressed it. */
  notify(type: "idle_prompt", title: string, message: string): EventStream<{ readonly title: string; readonly message: string } | null> {
    return this.queue.stream(async () => {
      const outcome = await this.services.fire({ event: "notification", fields: { notification_type: type, title, message } }, this.scope());
      const n = outcome.state.notification;
      return n.suppress ? null : { title: n.title ?? title, message: n.message ?? message };
    });
  }

  /** `/hooks reload`: the next event uses `hooks` (nothing is running between turns). */
  reloadHooks(hooks: readonly HookSpec[]): EventStream<void> {
    return this.queue.stream(async () => {
      await this.engine.close();
      this.hooks = activeHooks(hooks, this.options.child?.agentName);
      this.engine = this.makeEngine();
    });
  }

  /**
   * Ends the session: async hooks get at most 2 s (none after Ctrl-C, D15), session_end hooks run
   * (even after Ctrl-C, on a fresh engine, LOOP-36), then the `session_end` record. A session file
   * that could not be written makes an otherwise successful session an `error` (exit 1, is_error).
   */
  end(options: EndOptions = {}): EventStream<SessionResult> {
    return this.queue.stream(async () => {
      let stopReason = this.options.signal.aborted ? "interrupted" : (options.stop?.stopReason ?? "completed");
      let message = options.stop?.message ?? null;
      const reason = stopReason === "interrupted" ? "cancelled" : stopReason === "error" ? "error" : (options.reason ?? "completed");
      this.options.signal.removeEventListener("abort", this.cancelHooks);
      // Background shells never outlive their session.
      await this.shells.killAll();
      await this.engine.close(stopReason === "interrupted" ? 0 : undefined);
      if (stopReason === "interrupted") this.engine = this.makeEngine();
      // After Ctrl-C, SIGTERM or SIGHUP the session_end hooks still run, but a supervisor is waiting:
      // they get at most SESSION_END_AFTER_STOP_MS, then their groups are killed.
      const engine = this.engine;
      const bound = stopReason === "interrupted" ? setTimeout(() => engine.cancel(), SESSION_END_AFTER_STOP_MS) : undefined;
      try {
        await this.services.fire({ event: "session_end", fields: { reason, turn_id: `turn-${this.state.turnIndex}` } }, this.scope());
      } finally {
        clearTimeout(bound);
      }
      const failure = this.writer.failure;
      if (failure !== null && !isErrorStop(stopReason)) {
        stopReason = "error";
        message = `the session file could not be written: ${failure}`;
      }
      const isError = isErrorStop(stopReason);
      this.writer.append("session_end", { reason, stop_reason: stopReason, is_error: isError });
      const { state } = this;
      const usage = { ...state.usage };
      const costUsd = costOf(usage, this.options.models?.[this.options.provider.model]);
      return {
        sessionId: this.sessionId,
        result: state.result,
        turns: state.requests,
        toolCalls: state.toolCalls,
        isError,
        stopReason,
        message,
        usage,
        costUsd,
        apiMs: state.apiMs,
      };
    });
  }

  private emit(event: AgentEvent): void {
    this.options.onEvent?.(event);
    this.queue.push(event);
  }

  /** The session's system prompt: base, tool guidance, the environment (git read now, bounded) and the instruction files. */
  private async buildSystemPrompt(): Promise<void> {
    const { options } = this;
    const git = await gitFacts(options.runtime, options.cwd, options.signal);
    const environment = environmentBlock(
      options.runtime,
      {
        cwd: options.cwd,
        projectRoot: options.projectDir,
        model: options.provider.model,
        provider: options.provider.id,
        permissionMode: options.permissionMode,
        hooks: this.hooks,
      },
      git,
      localDate(new Date()),
    );
    const instructions = loadInstructions(this.instructionSources);
    this.system = buildSystemPrompt({
      base: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      tools: this.tools,
      environment,
      instructions,
      projectRoot: options.projectDir,
    });
  }

  private scope(): { turnIndex: number; messageIndex: number } {
    return { turnIndex: this.state.turnIndex, messageIndex: this.state.messageIndex };
  }

  private makeEngine(): HookEngine {
    return createHookEngine(this.options.runtime, {
      hooks: this.hooks,
      readonlyMode: this.options.permissionMode === "readonly",
      quietSuccessOutput: this.options.quietSuccessOutput,
      ...(this.options.providerKeyVars ? { providerKeyVars: this.options.providerKeyVars } : {}),
      // A fresh engine (after Ctrl-C, /hooks reload) still knows which `once` hooks already ran.
      onceStarted: this.onceStarted,
      // Prompt hooks ask this session's own provider.
      promptProvider: () => this.options.provider,
      sinks: {
        failureLine: (text) => this.emit({ type: "notice", kind: "failure", text }),
        record: (record) => this.services.record(record),
        statusLine: (text) => this.emit({ type: "notice", kind: "info", text }),
      },
    });
  }

  /** A permission question waits until the driver has shown every event before it (rows, notices). */
  private afterRendering(ask: (request: PermissionAsk) => Promise<PermissionAnswer>): (request: PermissionAsk) => Promise<PermissionAnswer> {
    return async (request) => {
      await this.queue.idle();
      return ask(request);
    };
  }
}

/** A subagent's session, run to its end: start, its one prompt, end; its events go to `forward`. */
export const runChildSession: RunChild = async (options, run) => {
  const child = new AgentSession(options);
  const drive = async <R>(stream: EventStream<R>): Promise<R> => {
    for await (const event of stream) run.forward(event);
    return stream.result;
  };
  const started = await drive(child.start());
  const stop = started ?? (await drive(child.prompt(run.prompt, { signal: run.signal })));
  return drive(child.end({ stop }));
};

/** `web_fetch` is offered only when the user's config allows at least one host. */
function webFetchOn(options: AgentSessionOptions): options is AgentSessionOptions & { webFetch: WebFetchSettings } {
  return options.webFetch !== undefined && options.webFetch.allow.length > 0;
}

/** The plan the last successful `todo_write` of an earlier run left (its result metadata). */
function lastPlan(records: readonly SessionRecord[]): TodoItem[] {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    if (record?.type !== "tool_result" || record.tool_name !== "todo_write" || !record.success) continue;
    const items = todosOfMetadata(record.metadata);
    if (items !== undefined) return items;
  }
  return [];
}
