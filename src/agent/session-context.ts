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
import type { EventOutcome, HookRecord } from "../hooks/dispatch.ts";
import { parseRecord } from "../session/records.ts";
import type { SessionWriter } from "../session/store.ts";
import { applyPermissionUpdates, type RuleSet, type Mode } from "../permissions/gate.ts";
import type { AgentEvent } from "./types.ts";

export interface FireRequest {
  readonly event: HookEventInput["event"];
  readonly tool?: HookEventInput["tool"];
  readonly result?: HookEventInput["result"];
  readonly fields?: Readonly<Record<string, unknown>>;
}

export class SessionContext {
  readonly runtime: Runtime;
  readonly writer: SessionWriter;
  readonly permissionMode: Mode;
  readonly cwd: string;
  readonly projectDir: string;
  readonly signal: AbortSignal;
  engine!: HookEngine;
  turnIndex = 0;
  messageIndex = 0;
  private readonly queue: AgentEvent[] = [];
  private sessionRules: RuleSet = { allow: [], ask: [], deny: [] };
  private readonly configuredRules: RuleSet;
  private deferring = false;
  private deferred: HookRecord[] = [];
  private readonly envelope: Omit<EnvelopeContext, "turnId" | "messageId">;
  private readonly onProjectSettingsWritten: (() => void) | undefined;

  constructor(options: {
    runtime: Runtime;
    writer: SessionWriter;
    permissionMode: Mode;
    cwd: string;
    projectDir: string;
    signal: AbortSignal;
    rules: RuleSet;
    providerId: string;
    modelId: string;
    onProjectSettingsWritten?: () => void;
  }) {
    this.runtime = options.runtime;
    this.writer = options.writer;
    this.permissionMode = options.permissionMode;
    this.cwd = options.cwd;
    this.projectDir = options.projectDir;
    this.signal = options.signal;
    this.configuredRules = options.rules;
    this.onProjectSettingsWritten = options.onProjectSettingsWritten;
    this.envelope = {
      sessionPath: options.writer.path,
      providerId: options.providerId,
      modelId: options.modelId,
      agentId: null,
      invocationMode: "print",
      subagent: false,
    };
  }

  emit(event: AgentEvent): void {
    this.queue.push(event);
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
    if (applied.projectSettingsPath !== null) this.onProjectSettingsWritten?.();
  }

  /** Writes a hook record, or holds an injection record until the delivered result is written (D25). */
  record(record: HookRecord): void {
    if (this.deferring && record.type === "hook_context_injection") {
      this.deferred.push(record);
      return;
    }
    const parsed = parseRecord({ type: record.type, timestamp: new Date().toISOString(), ...record.fields });
    if (parsed.ok) this.writer.write(parsed.record);
    else this.emit({ type: "notice", kind: "warning", text: `agent: dropped a malformed ${record.type} record (${parsed.error})` });
  }

  flushDeferred(): void {
    this.deferring = false;
    const held = this.deferred;
    this.deferred = [];
    for (const record of held) this.record(record);
  }

  async fire(request: FireRequest, callId?: string, options: { deferInjections?: boolean } = {}): Promise<EventOutcome> {
    this.deferring = options.deferInjections ?? false;
    const outcome = await this.engine.fire({
      event: request.event,
      sessionId: this.writer.id,
      transcriptPath: this.writer.path,
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

  async execute(tool: ToolName, input: Record<string, unknown>): Promise<ToolResult> {
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
