/**
 * The per-session services a turn uses: the session writer, hook firing with the D25 record
 * ordering, the permission rules (configured plus the session's own), and tool execution. Owns no
 * control flow and no per-turn state: the AgentSession (src/agent/agent-session.ts) passes the turn
 * signal and counters with every call, so concurrent `task` calls share nothing mutable here but
 * the per-call map of held injection records. Events go to the session's one queue through `emit`.
 */
import type { Runtime } from "../runtime/types.ts";
import { isBuiltin, type ToolId } from "../tools/names.ts";
import type { ToolResult } from "../tools/types.ts";
import type { CallPlace } from "../tools/call.ts";
import { getTool } from "../tools/index.ts";
import type { HookEventInput, PermissionRuleUpdate, EnvelopeContext } from "../hooks/dialects/types.ts";
import type { HookEngine } from "../hooks/engine.ts";
import type { EventFields } from "../hooks/event-fields.ts";
import type { CanonicalEvent } from "../util/events.ts";
import { dispatchEvent, type EventOutcome, type HookRecord } from "../hooks/dispatch.ts";
import { decisionOf, initialState, verdictOf } from "../hooks/merge/merge.ts";
import { DECISION_EVENTS } from "../session/records.ts";
import type { SessionWriter } from "../session/store.ts";
import { applyPermissionUpdates, saveUserRules } from "../permissions/updates.ts";
import type { Rule, RuleSet } from "../permissions/rules.ts";
import type { PermissionMode } from "../permissions/mode.ts";
import type { ApplyPermissionUpdatesResult } from "../permissions/updates.ts";
import type { AgentEvent, ChildRun, HookDecisionKind, PermissionAnswer, PermissionAsk, ToolAccess } from "./types.ts";
import type { McpTools } from "../mcp/manager.ts";
import type { BackgroundShells } from "../tools/background-shells.ts";
import type { TodoList } from "../tools/todo-list.ts";
import type { WebFetchSettings } from "../tools/types.ts";
import type { EnvFileSlot, SessionEnv } from "./session-env.ts";
import type { UsageTotals } from "./usage.ts";

/** One event to fire, with that event's own typed fields (hooks/event-fields.ts). */
export type FireRequest = {
  readonly [E in CanonicalEvent]: {
    readonly event: E;
    readonly tool?: HookEventInput["tool"];
    readonly result?: HookEventInput["result"];
    readonly fields?: EventFields[E];
    /** subagent_start/subagent_stop: the child's JSONL (LIFE-26) instead of this session's. */
    readonly transcriptPath?: string | null;
  };
}[CanonicalEvent];

/** Where in the session an event fires: the envelope's `turn_id` and `message_id` come from it. */
export interface FireScope {
  readonly turnIndex: number;
  /** Without a call id the envelope names message `message-<messageIndex>`. */
  readonly messageIndex?: number;
  readonly callId?: string;
  /** post_tool: hold this call's injection records until its delivered result is written (D25). */
  readonly deferInjections?: boolean;
}

/** What one tool call runs under: the turn's signal and index, and its own call id. */
export interface CallScope {
  readonly signal: AbortSignal;
  readonly turnIndex: number;
  readonly callId: string;
}

/** Runs one `task` call (src/agent/subagent.ts); set on sessions that may start subagents. */
export type TaskRunner = (input: Record<string, unknown>, scope: CallScope) => Promise<ToolResult>;

// A child has no session or prompt events of its own: its parent fires subagent_start/subagent_stop.
const CHILD_SKIPPED_EVENTS: ReadonlySet<string> = new Set(["session_start", "user_prompt_submit", "session_end"]);

export interface SessionServicesOptions {
  readonly runtime: Runtime;
  readonly writer: SessionWriter;
  readonly permissionMode: PermissionMode;
  readonly cwd: string;
  readonly projectDir: string;
  /** `$AGENT_HOME`: no file tool writes inside it. */
  readonly agentHome: string;
  readonly rules: RuleSet;
  readonly providerId: string;
  readonly modelId: string;
  /** The session's current engine (replaced by `/hooks reload` and after a cancelled turn). */
  readonly engine: () => HookEngine;
  readonly emit: (event: AgentEvent) => void;
  readonly askPermission?: (request: PermissionAsk) => Promise<PermissionAnswer>;
  readonly noApprover?: string | undefined;
  readonly onProjectSettingsWritten?: (applied: ApplyPermissionUpdatesResult) => void;
  readonly child?: ChildRun;
  /** Builds the `task` tool of this session (top-level sessions only; children do not nest). */
  readonly taskRunner?: (services: SessionServices) => TaskRunner;
  /** The MCP servers' tools (src/mcp/manager.ts), when any are configured. */
  readonly mcp?: McpTools;
  /** Read-only roots beside the workspace for `read` (loaded plugins). */
  readonly readRoots?: readonly string[];
  /** The CLAUDE_ENV_FILE variables of this session. */
  readonly sessionEnv: SessionEnv;
  /** This session's `run_in_background` shells. */
  readonly shells: BackgroundShells;
  /** Adds a finished subagent's usage and API time to this session's totals. */
  readonly addChildUsage?: (usage: UsageTotals, apiMs: number) => void;
  /** This session's plan (`todo_write`). */
  readonly todos: TodoList;
  /** The user's `tools.web_fetch`; absent: the tool is off. */
  readonly webFetch?: WebFetchSettings;
  /** A subagent's tool list; absent: every tool. */
  readonly toolAccess?: ToolAccess;
}

export class SessionServices {
  readonly runtime: Runtime;
  readonly writer: SessionWriter;
  readonly permissionMode: PermissionMode;
  readonly cwd: string;
  readonly projectDir: string;
  /** Where this session's calls are normalised (tools/call.ts). */
  readonly place: CallPlace;
  /** Interactive: asks the user when no hook decided a permission ask. */
  readonly askPermission: ((request: PermissionAsk) => Promise<PermissionAnswer>) | undefined;
  /** Why nobody is asked in a session a person may be watching (a `dontAsk` subagent). */
  readonly noApprover: string | undefined;
  readonly taskRunner: TaskRunner | undefined;
  readonly mcp: McpTools | undefined;
  private readonly readRoots: readonly string[];
  readonly emit: (event: AgentEvent) => void;
  readonly sessionEnv: SessionEnv;
  readonly shells: BackgroundShells;
  readonly addChildUsage: ((usage: UsageTotals, apiMs: number) => void) | undefined;
  readonly todos: TodoList;
  /** A subagent's tool list (its definition's `tools:`); undefined: every tool. */
  readonly toolAccess: ToolAccess | undefined;
  private readonly webFetch: WebFetchSettings | undefined;
  private readonly engine: () => HookEngine;
  private sessionRules: RuleSet = { allow: [], ask: [], deny: [] };
  private commandAllow: readonly Rule[] = [];
  private readonly configuredRules: RuleSet;
  /** Injection records held per tool call until its delivered result is written (D25); concurrent task calls each hold their own. */
  private readonly deferred = new Map<string, HookRecord[]>();
  private readonly child: ChildRun | undefined;
  private readonly envelope: Omit<EnvelopeContext, "turnId" | "messageId">;
  private readonly onProjectSettingsWritten: ((applied: ApplyPermissionUpdatesResult) => void) | undefined;

  constructor(options: SessionServicesOptions) {
    this.runtime = options.runtime;
    this.writer = options.writer;
    this.permissionMode = options.permissionMode;
    this.cwd = options.cwd;
    this.projectDir = options.projectDir;
    this.place = { cwd: options.cwd, projectDir: options.projectDir, home: options.runtime.platform.homedir, agentHome: options.agentHome };
    this.askPermission = options.askPermission;
    this.noApprover = options.noApprover;
    this.emit = options.emit;
    this.engine = options.engine;
    this.configuredRules = options.rules;
    this.onProjectSettingsWritten = options.onProjectSettingsWritten;
    this.child = options.child;
    this.sessionEnv = options.sessionEnv;
    this.shells = options.shells;
    this.addChildUsage = options.addChildUsage;
    this.todos = options.todos;
    this.webFetch = options.webFetch;
    this.toolAccess = options.toolAccess;
    this.envelope = {
      sessionPath: options.writer.path,
      providerId: options.providerId,
      modelId: options.modelId,
      agentId: options.child?.agentName ?? null,
      invocationMode: options.child ? "subagent" : "print",
      subagent: options.child !== undefined,
    };
    this.mcp = options.mcp;
    this.readRoots = options.readRoots ?? [];
    this.taskRunner = options.taskRunner?.(this);
  }

  /** A slash command's `allowed-tools:` for the turn it starts (src/agent/command-prompt.ts); [] clears them. */
  setCommandRules(allow: readonly Rule[]): void {
    this.commandAllow = allow;
  }

  rules(): RuleSet {
    return {
      allow: [...this.configuredRules.allow, ...this.sessionRules.allow, ...this.commandAllow],
      ask: [...this.configuredRules.ask, ...this.sessionRules.ask],
      deny: [...this.configuredRules.deny, ...this.sessionRules.deny],
    };
  }

  /** The person's "always for me": the rule saved to `$AGENT_HOME/settings.json` (a failure is a warning). */
  saveUserRules(update: PermissionRuleUpdate): void {
    const saved = saveUserRules(this.runtime.fs, this.place.agentHome, update);
    if (!saved.ok) this.emit({ type: "notice", kind: "warning", text: `agent: ${saved.error}` });
  }

  applyUpdates(updates: readonly PermissionRuleUpdate[]): void {
    const applied = applyPermissionUpdates({ runtime: this.runtime, projectDir: this.projectDir, session: this.sessionRules, updates });
    this.sessionRules = applied.session;
    for (const warning of applied.warnings) this.emit({ type: "notice", kind: "warning", text: `agent: ${warning}` });
    if (applied.projectSettingsPath !== null) this.onProjectSettingsWritten?.(applied);
  }

  /** Writes a hook record, or holds an injection record of a deferring call until its delivered result is written (D25). */
  record(record: HookRecord, deferKey?: string): void {
    const held = deferKey === undefined ? undefined : this.deferred.get(deferKey);
    if (held && record.type === "hook_context_injection") {
      held.push(record);
      return;
    }
    // Typed where dispatch built it (src/hooks/dispatch.ts), so it is written as is, never re-validated.
    const written =
      record.type === "hook_lifecycle"
        ? this.writer.append("hook_lifecycle", record.fields).record
        : record.type === "hook_diagnostic"
          ? this.writer.append("hook_diagnostic", record.fields).record
          : this.writer.append("hook_context_injection", record.fields).record;
    this.emit({ type: "hook_record", record: written });
  }

  /** Writes the held injection records of `callId` (of every call when omitted). */
  flushDeferred(callId?: string): void {
    const keys = callId === undefined ? [...this.deferred.keys()] : [callId];
    for (const key of keys) {
      const held = this.deferred.get(key) ?? [];
      this.deferred.delete(key);
      for (const record of held) this.record(record);
    }
  }

  /** In a child: the session/prompt events it does not fire, and `stop`, which becomes the parent's subagent_stop. */
  private childEvent(request: FireRequest): Promise<EventOutcome> | undefined {
    const child = this.child;
    if (child === undefined) return undefined;
    if (request.event === "stop") return child.stop(request.fields ?? { stop_hook_active: false, last_assistant_message: "" });
    if (!CHILD_SKIPPED_EVENTS.has(request.event)) return undefined;
    const base = initialState(request.event);
    const state = request.event === "user_prompt_submit" ? { ...base, hidden: [...child.promptContext] } : base;
    return Promise.resolve({ state, ...decisionOf(state), rows: [], asyncRows: Promise.resolve([]) });
  }

  async fire(request: FireRequest, scope: FireScope): Promise<EventOutcome> {
    const replaced = this.childEvent(request);
    if (replaced) return replaced;
    const { callId } = scope;
    const deferKey = scope.deferInjections ? (callId ?? "") : undefined;
    if (deferKey !== undefined && !this.deferred.has(deferKey)) this.deferred.set(deferKey, []);
    const engine = this.engine();
    // Records go through a per-fire sink so each call's injection records are held for that call only;
    // the session's CLAUDE_ENV_FILE variables go on top of the stripped env of project hooks only.
    const context = {
      ...engine.context,
      sessionEnv: this.sessionEnv.vars(),
      sinks: { ...engine.context.sinks, record: (record: HookRecord) => this.record(record, deferKey) },
    };
    const slot = request.event === "session_start" ? this.openEnvFile() : null;
    const outcome = await dispatchEvent(context, {
      strippedEnvValues: engine.strippedValues,
      event: request.event,
      sessionId: this.writer.id,
      transcriptPath: request.transcriptPath !== undefined ? request.transcriptPath : this.writer.path,
      cwd: this.cwd,
      projectDir: this.projectDir,
      permissionMode: this.permissionMode,
      ...(request.tool ? { tool: request.tool } : {}),
      ...(request.result ? { result: request.result } : {}),
      fields: request.fields ?? {},
      context: { ...this.envelope, turnId: `turn-${scope.turnIndex}`, messageId: callId ? `tool-${callId}` : `message-${scope.messageIndex ?? 0}` },
      ...(slot !== null ? { envFile: slot.path } : {}),
    });
    if (slot !== null) this.absorbEnvFile(slot, engine.context.baseEnv);
    this.emitDecision(request, scope, outcome.state);
    this.recordDecision(request, outcome);
    for (const text of outcome.state.infos) this.emit({ type: "notice", kind: "info", text });
    for (const text of outcome.state.systemMessages) this.emit({ type: "notice", kind: "system", text });
    for (const text of outcome.state.warnings) this.emit({ type: "notice", kind: "warning", text: `agent: ${text}` });
    return outcome;
  }

  /** What the event's hooks decided, as one `hook_decision` event (headless output lists denials from it). */
  private emitDecision(request: FireRequest, scope: FireScope, state: EventOutcome["state"]): void {
    const decided: { decision: HookDecisionKind; reason: string | null } | null = state.denied
      ? { decision: "deny", reason: state.denied.reason }
      : state.permission?.behavior === "deny"
        ? { decision: "deny", reason: state.permission.message ?? null }
        : state.stopSession
          ? { decision: "stop", reason: state.stopSession.reason }
          : state.blocked
            ? { decision: "block", reason: state.blocked.reason }
            : state.asked
              ? { decision: "ask", reason: null }
              : state.allowed || state.permission?.behavior === "allow"
                ? { decision: "allow", reason: null }
                : null;
    if (decided === null) return;
    this.emit({ type: "hook_decision", event: request.event, ...decided, toolName: request.tool?.name ?? null, toolCallId: scope.callId ?? null });
  }

  /** `hook_decision` after the hook records of a decision event that ran hooks (`agent hooks replay` reads it). */
  private recordDecision(request: FireRequest, outcome: EventOutcome): void {
    const event = DECISION_EVENTS.find((name) => name === request.event);
    if (event === undefined || outcome.rows.length === 0) return;
    const decidedBy = outcome.state.decidedBy;
    const prompt = request.event === "user_prompt_submit" ? request.fields?.prompt : undefined;
    this.writer.append("hook_decision", {
      event,
      tool_call_id: request.tool?.callId ?? null,
      decision: verdictOf(outcome.state),
      reason: outcome.reason,
      decided_by: decidedBy?.label ?? null,
      decided_by_scope: decidedBy?.scope ?? null,
      ...(typeof prompt === "string" ? { prompt } : {}),
    });
  }

  private openEnvFile(): EnvFileSlot | null {
    const opened = this.sessionEnv.openFile(this.runtime);
    if (opened.ok) return opened.slot;
    this.emit({ type: "notice", kind: "warning", text: `agent: no CLAUDE_ENV_FILE for session_start hooks: ${opened.error}` });
    return null;
  }

  /** After session_start: the lines the hooks appended become session variables, recorded for resume. */
  private absorbEnvFile(slot: EnvFileSlot, stripped: Readonly<Record<string, string>>): void {
    const absorbed = this.sessionEnv.absorb(this.runtime, slot, stripped);
    for (const text of absorbed.warnings) this.emit({ type: "notice", kind: "warning", text: `agent: ${text}` });
    if (absorbed.changed) this.writer.append("session_env", { env: this.sessionEnv.vars() });
  }

  async execute(tool: ToolId, input: Record<string, unknown>, scope: CallScope): Promise<ToolResult> {
    if (!isBuiltin(tool)) return this.mcp ? this.mcp.call(tool, input, scope.signal) : { success: false, content: `${tool} is not available (no MCP servers)` };
    if (tool === "task" && this.taskRunner) return this.taskRunner(input, scope);
    const implementation = getTool(tool);
    if (implementation === undefined) return { success: false, content: `the ${tool} tool is not available in this build` };
    return implementation.execute(input, {
      runtime: this.runtime,
      cwd: this.cwd,
      workspaceRoot: this.projectDir,
      env: { ...this.engine().baseEnv, ...this.sessionEnv.vars() },
      signal: scope.signal,
      shells: this.shells,
      // Large bash outputs go beside the session file (`<session>.outputs/`); none without a session file.
      ...(this.writer.path !== null ? { outputDir: `${this.writer.path.replace(/\.jsonl$/, "")}.outputs` } : {}),
      readRoots: this.readRoots,
      todos: this.todos,
      ...(this.webFetch ? { webFetch: this.webFetch } : {}),
      onOutput: progressOf(this.runtime, (lines, last) => this.emit({ type: "tool_progress", id: scope.callId, lines, last })),
    });
  }
}

/** A running tool's progress is reported at most this often. */
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_LAST_LINE_CHARS = 200;

/** Counts the lines of a tool's output as it arrives and reports the count and the last line, throttled. */
function progressOf(runtime: Runtime, report: (lines: number, last: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let lines = 0;
  let partial = "";
  let last = "";
  let reportedAt = Number.NEGATIVE_INFINITY;
  return (chunk) => {
    const text = partial + decoder.decode(chunk, { stream: true });
    const parts = text.split("\n");
    partial = (parts.pop() ?? "").slice(-PROGRESS_LAST_LINE_CHARS);
    lines += parts.length;
    const complete = parts.filter((line) => line.trim() !== "").at(-1);
    if (complete !== undefined) last = complete.slice(0, PROGRESS_LAST_LINE_CHARS);
    const now = runtime.now();
    if (now - reportedAt < PROGRESS_INTERVAL_MS) return;
    reportedAt = now;
    report(lines, last);
  };
}
