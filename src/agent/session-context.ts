/**
 * The per-session services a turn uses: the session writer, the hook engine with the D25 record
 * ordering, the permission rules (configured plus the session's own), tool execution, and the event
 * queue the loop yields from. Owns no control flow; src/agent/session.ts drives it.
 */
import type { Runtime } from "../runtime/types.ts";
import type { ToolName } from "../tools/names.ts";
import type { ToolResult } from "../tools/types.ts";
import { getTool } from "../tools/index.ts";
import type { HookEventInput, PermissionRuleUpdate, EnvelopeContext } from "../hooks/dialects/types.ts";
import type { HookEngine } from "../hooks/engine.ts";
import { dispatchEvent, type EventOutcome, type HookRecord } from "../hooks/dispatch.ts";
import { decisionOf, initialState } from "../hooks/merge.ts";
import { parseRecord } from "../session/records.ts";
import type { SessionWriter } from "../session/store.ts";
import { applyPermissionUpdates, type RuleSet, type Mode } from "../permissions/gate.ts";
import type { ApplyPermissionUpdatesResult } from "../permissions/updates.ts";
import type { AgentEvent, ChildRun, PermissionAnswer, PermissionAsk } from "./types.ts";

export interface FireRequest {
  readonly event: HookEventInput["event"];
  readonly tool?: HookEventInput["tool"];
  readonly result?: HookEventInput["result"];
  readonly fields?: Readonly<Record<string, unknown>>;
  /** subagent_start/subagent_stop: the child's JSONL (LIFE-26) instead of this session's. */
  readonly transcriptPath?: string | null;
}

/** Runs one `task` call (src/agent/subagent.ts); set on sessions that may start subagents. */
export type TaskRunner = (input: Record<string, unknown>, callId: string) => Promise<ToolResult>;

// A child has no session or prompt events of its own: its parent fires subagent_start/subagent_stop.
const CHILD_SKIPPED_EVENTS: ReadonlySet<string> = new Set(["session_start", "user_prompt_submit", "session_end"]);

export class SessionContext {
  readonly runtime: Runtime;
  readonly writer: SessionWriter;
  readonly permissionMode: Mode;
  readonly cwd: string;
  readonly projectDir: string;
  /** Replaced per prompt in an interactive session (Ctrl-C cancels one turn). */
  signal: AbortSignal;
  engine!: HookEngine;
  /** Interactive: asks the user when no hook decided a permission ask. */
  askPermission: ((request: PermissionAsk) => Promise<PermissionAnswer>) | undefined;
  turnIndex = 0;
  messageIndex = 0;
  private readonly queue: AgentEvent[] = [];
  /** When set, events go straight to the UI instead of the queue (AgentOptions.onEvent). */
  private readonly live: ((event: AgentEvent) => void) | undefined;
  private sessionRules: RuleSet = { allow: [], ask: [], deny: [] };
  private readonly configuredRules: RuleSet;
  /** Injection records held per tool call until its delivered result is written (D25); concurrent task calls each hold their own. */
  private readonly deferred = new Map<string, HookRecord[]>();
  private readonly child: ChildRun | undefined;
  taskRunner: TaskRunner | undefined;
  private readonly envelope: Omit<EnvelopeContext, "turnId" | "messageId">;
  private readonly onProjectSettingsWritten: ((applied: ApplyPermissionUpdatesResult) => void) | undefined;

  constructor(options: {
    live?: (event: AgentEvent) => void;
    runtime: Runtime;
    writer: SessionWriter;
    permissionMode: Mode;
    cwd: string;
    projectDir: string;
    signal: AbortSignal;
    rules: RuleSet;
    providerId: string;
    modelId: string;
    onProjectSettingsWritten?: (applied: ApplyPermissionUpdatesResult) => void;
    child?: ChildRun;
  }) {
    this.runtime = options.runtime;
    this.live = options.live;
    this.writer = options.writer;
    this.permissionMode = options.permissionMode;
    this.cwd = options.cwd;
    this.projectDir = options.projectDir;
    this.signal = options.signal;
    this.configuredRules = options.rules;
    this.onProjectSettingsWritten = options.onProjectSettingsWritten;
    this.child = options.child;
    this.envelope = {
      sessionPath: options.writer.path,
      providerId: options.providerId,
      modelId: options.modelId,
      agentId: options.child?.agentName ?? null,
      invocationMode: options.child ? "subagent" : "print",
      subagent: options.child !== undefined,
    };
  }

  emit(event: AgentEvent): void {
    if (this.live) this.live(event);
    else this.queue.push(event);
  }

  drain(): AgentEvent[] {
    return this.queue.splice(0, this.queue.length);
  }

  rules(): RuleSet {
    return {
      allow: [...this.configuredRules.allow, ...this.sessionRules.allow],
      ask: [...this.configuredRules.ask, ...this.sessionRules.ask],
      deny: [...this.configuredRules.deny, ...this.sessionRules.deny],
    };
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
    const parsed = parseRecord({ type: record.type, timestamp: new Date().toISOString(), ...record.fields });
    if (parsed.ok) {
      this.writer.write(parsed.record);
      this.emit({ type: "hook_record", record: parsed.record });
    } else this.emit({ type: "notice", kind: "warning", text: `agent: dropped a malformed ${record.type} record (${parsed.error})` });
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
    if (request.event === "stop") return child.stop(request.fields ?? {});
    if (!CHILD_SKIPPED_EVENTS.has(request.event)) return undefined;
    const base = initialState(request.event);
    const state = request.event === "user_prompt_submit" ? { ...base, hidden: [...child.promptContext] } : base;
    return Promise.resolve({ state, ...decisionOf(state), rows: [] });
  }

  async fire(request: FireRequest, callId?: string, options: { deferInjections?: boolean } = {}): Promise<EventOutcome> {
    const replaced = this.childEvent(request);
    if (replaced) return replaced;
    const deferKey = options.deferInjections ? (callId ?? "") : undefined;
    if (deferKey !== undefined && !this.deferred.has(deferKey)) this.deferred.set(deferKey, []);
    // Records go through a per-fire sink so each call's injection records are held for that call only.
    const context = { ...this.engine.context, sinks: { ...this.engine.context.sinks, record: (record: HookRecord) => this.record(record, deferKey) } };
    const outcome = await dispatchEvent(context, {
      strippedEnvValues: this.engine.strippedValues,
      event: request.event,
      sessionId: this.writer.id,
      transcriptPath: request.transcriptPath !== undefined ? request.transcriptPath : this.writer.path,
      cwd: this.cwd,
      projectDir: this.projectDir,
      permissionMode: this.permissionMode,
      ...(request.tool ? { tool: request.tool } : {}),
      ...(request.result ? { result: request.result } : {}),
      fields: request.fields ?? {},
      context: { ...this.envelope, turnId: `turn-${this.turnIndex}`, messageId: callId ? `tool-${callId}` : `message-${this.messageIndex}` },
    });
    for (const text of outcome.state.infos) this.emit({ type: "notice", kind: "info", text });
    for (const text of outcome.state.systemMessages) this.emit({ type: "notice", kind: "system", text });
    for (const text of outcome.state.warnings) this.emit({ type: "notice", kind: "warning", text: `agent: ${text}` });
    return outcome;
  }

  async execute(tool: ToolName, input: Record<string, unknown>, callId = ""): Promise<ToolResult> {
    if (tool === "task" && this.taskRunner) return this.taskRunner(input, callId);
    const implementation = getTool(tool);
    if (implementation === undefined) return { success: false, content: `the ${tool} tool is not available in this build` };
    return implementation.execute(input, {
      runtime: this.runtime,
      cwd: this.cwd,
      workspaceRoot: this.projectDir,
      env: { ...this.engine.baseEnv },
      signal: this.signal,
    });
  }
}
