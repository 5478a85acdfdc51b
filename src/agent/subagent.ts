/**
 * Subagents: the `task` tool runs a child AgentSession (its own messages, engine and file) with the parent's
 * hooks of every form, in the child's own cwd, file (`sessions/subagents/<start>-<id>.jsonl`) and envelope
 * identity (`subagent: true`, `invocation_mode: "subagent"`, `agent_id` = its name). The parent
 * fires subagent_start before the child exists (block: no child; updatedInput: a new task input;
 * additionalContext: the child's first request) and subagent_stop at the child's stop point (block:
 * the child goes on, D11; additionalContext: the parent's task result, D19). Nothing of the child's
 * hook records or injected items reaches the parent: only its final answer (LOOP-24, TOOL-30).
 * Also here: D13's grouping of consecutive `task` calls, which run concurrently (at most 4).
 */
import type { EventOutcome } from "../hooks/dispatch.ts";
import type { SubagentFields } from "../hooks/event-fields.ts";
import { providerForChild } from "../providers/index.ts";
import { newSessionId, sessionPath } from "../session/store.ts";
import { canonicalTool } from "../tools/names.ts";
import { escapeControls } from "../util/escape.ts";
import type { ToolResult } from "../tools/types.ts";
import type { StopKind } from "../hooks/merge/merge.ts";
import type { CallScope, SessionServices, TaskRunner } from "./session-services.ts";
import { subagentSettings, type SubagentSettings } from "./agent-definition.ts";
import { agentSkillsSection } from "./agent-skills.ts";
import { agentSystemPrompt, childCwd, taskRequest, type TaskRequest } from "./task-tool.ts";
import type { AgentEvent, AgentSessionOptions, ChildRun, SessionResult, StopReason } from "./types.ts";

/** D13: at most this many children of one assistant message run at once. */
export const MAX_CONCURRENT_TASKS = 4;

/** One message's calls in runs (D13): each non-task call alone, consecutive `task` calls together. */
export function groupToolCalls<T extends { readonly name: string }>(calls: readonly T[]): T[][] {
  const groups: T[][] = [];
  const isTask = (call: T | undefined): boolean => call !== undefined && canonicalTool(call.name) === "task";
  for (const call of calls) {
    const last = groups[groups.length - 1];
    if (last !== undefined && isTask(call) && isTask(last[0])) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

/** `fn` over `items`, started in order with at most `limit` running at once; results in item order. */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Map<number, R>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) {
      const item = items[index];
      if (item !== undefined) results.set(index, await fn(item));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  const ordered: R[] = [];
  for (let index = 0; index < items.length; index += 1) {
    const result = results.get(index);
    if (result !== undefined) ordered.push(result);
  }
  return ordered;
}

interface ChildSetup {
  readonly request: TaskRequest;
  readonly systemPrompt: string;
  readonly cwd: string;
  /** Its definition's tools and model (src/agent/agent-definition.ts). */
  readonly settings: SubagentSettings;
  /** The name its own front-matter hooks carry: `plugin:name` for a plugin's agent, else the name asked for. */
  readonly hookName: string;
}

/** `plugin:name` when `path` is a plugin agent's file (the qualified key of `agentFiles`), else undefined. */
function pluginAgentName(agentFiles: ReadonlyMap<string, string> | undefined, path: string | undefined): string | undefined {
  if (agentFiles === undefined || path === undefined) return undefined;
  for (const [name, file] of agentFiles) if (file === path && name.includes(":")) return name;
  return undefined;
}

/** Runs a child AgentSession to its end with `prompt`, passing its events to `forward` (src/agent/agent-session.ts). */
export type RunChild = (
  options: AgentSessionOptions,
  run: { readonly prompt: string; readonly signal: AbortSignal; readonly forward: (event: AgentEvent) => void },
) => Promise<SessionResult>;

/** What the task runner of one session works with. */
interface TaskContext {
  readonly parent: AgentSessionOptions;
  readonly s: SessionServices;
  readonly runChild: RunChild;
  readonly fallbackPrompt: string;
}

function setUp(t: TaskContext, request: TaskRequest): { ok: true; setup: ChildSetup } | { ok: false; error: string } {
  const { parent } = t;
  const prompt = agentSystemPrompt(parent.runtime.fs, {
    projectDir: parent.projectDir,
    home: parent.home,
    name: request.agentName,
    fallback: t.fallbackPrompt,
    ...(parent.agentFiles ? { extra: parent.agentFiles } : {}),
  });
  if (!prompt.ok) return prompt;
  const cwd = childCwd(parent.runtime.fs, { parentCwd: t.s.cwd, projectDir: parent.projectDir, cwd: request.cwd });
  if (!cwd.ok) return cwd;
  const provider = providerForChild(parent.provider, request.agentName);
  const found = subagentSettings(request.agentName, prompt.definition, provider, t.s.permissionMode, parent.modelRefusal);
  const pluginName = pluginAgentName(parent.agentFiles, prompt.definition?.path);
  const hookName = pluginName ?? request.agentName;
  // `skills:` bodies join the system prompt now; the model reads no SKILL.md for them.
  const skills =
    prompt.definition === undefined
      ? { section: "", warnings: [] }
      : agentSkillsSection(parent.runtime.fs, { ...prompt.definition, plugin: pluginName?.split(":")[0] }, parent.skillFiles ?? new Map());
  const systemPrompt = skills.section === "" ? prompt.systemPrompt : `${prompt.systemPrompt}\n\n${skills.section}`;
  const settings = { ...found, warnings: [...found.warnings, ...skills.warnings] };
  return { ok: true, setup: { request, systemPrompt, cwd: cwd.cwd, settings, hookName } };
}

/** A parent-side subagent hook that ends the parent's turn (D8 `continue: false`, D23 `fail`); merge already chose the kind. */
function hookStopOf(stop: { readonly reason: string; readonly kind: StopKind } | undefined): ToolResult["hookStop"] {
  if (stop === undefined) return undefined;
  return { reason: stop.reason, kind: stop.kind === "hook_failed" ? "hook_failed" : "hook_blocked" };
}

/** The parent's task result text for a child that did not finish at its stop point. */
function endedEarly(name: string, result: SessionResult): string {
  switch (result.stopReason) {
    case "hook_blocked":
    case "hook_failed":
      // Sanitized (seed 003): the parent never sees the child's hook output or reasons.
      return `subagent "${name}" was stopped by local hook policy`;
    case "interrupted":
      return `subagent "${name}" was interrupted`;
    case "max_turns":
      return `subagent "${name}" stopped: ${result.message ?? "turn limit reached"}`;
    default:
      return `subagent "${name}" failed: ${result.message ?? result.stopReason}`;
  }
}

/** The `task` tool of a session (never throws; every failure is an error result naming its cause). */
export function createTaskRunner(parent: AgentSessionOptions, runChild: RunChild, fallbackPrompt: string): (s: SessionServices) => TaskRunner {
  return (s) => (input, scope) => runTask({ parent, s, runChild, fallbackPrompt }, input, scope);
}

/** One task call's identity: the child's id, where its transcript goes, and the event fields naming it. */
interface TaskRun {
  readonly t: TaskContext;
  readonly childId: string;
  readonly transcriptPath: string | null;
  readonly at: { readonly turnIndex: number; readonly callId: string };
  readonly fields: (request: TaskRequest, status: string) => SubagentFields;
  readonly metadata: (name: string, stopReason: StopReason | "blocked") => Record<string, unknown>;
}

function taskRun(t: TaskContext, scope: CallScope): TaskRun {
  const { parent, s } = t;
  const childId = newSessionId(parent.runtime);
  return {
    t,
    childId,
    transcriptPath: parent.persist ? sessionPath(parent.home, childId, { child: true }) : null,
    at: { turnIndex: scope.turnIndex, callId: scope.callId },
    fields: (request, status) => ({
      parent_session_id: s.writer.id,
      child_session_id: childId,
      child_thread_id: childId,
      agent_name: request.agentName,
      // Claude Code's names for the same.
      agent_id: childId,
      agent_type: request.agentName,
      display_label: request.description,
      background: false,
      status,
    }),
    metadata: (name, stopReason) => ({ agent_name: name, child_session_id: childId, stop_reason: stopReason }),
  };
}

async function runTask(t: TaskContext, input: Record<string, unknown>, scope: CallScope): Promise<ToolResult> {
  const first = setUp(t, taskRequest(input));
  if (!first.ok) return { success: false, content: first.error };
  const run = taskRun(t, scope);
  // The task input rides along as the event's tool input so a replacing updatedInput is schema-checked (D8).
  const start = await t.s.fire(
    {
      event: "subagent_start",
      tool: { name: "task", callId: scope.callId, input },
      fields: { ...run.fields(first.setup.request, "starting"), prompt: first.setup.request.prompt },
      transcriptPath: run.transcriptPath,
    },
    run.at,
  );
  const blocked = start.state.blocked?.reason ?? start.state.stopSession?.reason;
  if (blocked !== undefined) {
    const hookStop = hookStopOf(start.state.stopSession);
    return {
      success: false,
      content: `subagent blocked by hook: ${blocked}`,
      metadata: run.metadata(first.setup.request.agentName, "blocked"),
      ...(hookStop ? { hookStop } : {}),
    };
  }
  const replaced = start.state.toolInput !== undefined && start.state.toolInput !== input ? setUp(t, taskRequest(start.state.toolInput)) : first;
  if (!replaced.ok) return { success: false, content: replaced.error };
  return runChildTask(run, replaced.setup, start.state.contexts, scope);
}

/** Runs the child session; subagent_stop fires at its stop point, or after it when it ended elsewhere. */
async function runChildTask(run: TaskRun, setup: ChildSetup, promptContext: readonly string[], scope: CallScope): Promise<ToolResult> {
  const { t, at, transcriptPath } = run;
  const { parent, s } = t;
  const { request, systemPrompt, cwd, settings } = setup;
  const name = request.agentName;
  for (const warning of settings.warnings) s.emit({ type: "notice", kind: "warning", text: escapeControls(`agent: ${warning}`) });
  let lastStop: EventOutcome | undefined;
  /** The child's end was already reported by its own stop (continue:false or a `fail` failure). */
  let endedAtStop = false;
  const fireStop = async (status: string, extra: Readonly<Record<string, unknown>>): Promise<EventOutcome> => {
    lastStop = await s.fire({ event: "subagent_stop", fields: { ...run.fields(request, status), ...extra }, transcriptPath }, at);
    if (lastStop.state.stopSession) endedAtStop = true;
    return lastStop;
  };
  const child: ChildRun = {
    sessionId: run.childId,
    parentSessionId: s.writer.id,
    agentName: setup.hookName,
    promptContext,
    env: s.sessionEnv.vars(),
    stop: (stopFields) =>
      fireStop("completed", { last_assistant_message: stopFields.last_assistant_message ?? "", stop_hook_active: stopFields.stop_hook_active ?? false }),
  };
  // Each child is its own AgentSession; its visible notices (hook failure lines, warnings) reach the parent's UI.
  const options: AgentSessionOptions = {
    ...parent,
    provider: settings.provider,
    permissionMode: settings.permissionMode,
    // dontAsk: nobody answers, so an ask is refused (LOOP-13), and so for its own children.
    ...(settings.neverAsks ? { askPermission: undefined, noApprover: `the ${name} subagent runs with permissionMode dontAsk` } : {}),
    ...(settings.access ? { toolAccess: settings.access } : {}),
    cwd,
    systemPrompt,
    rules: s.rules(),
    resume: undefined,
    onLine: undefined,
    onEvent: undefined,
    signal: scope.signal,
    child,
  };
  const result = await t.runChild(options, { prompt: request.prompt, signal: scope.signal, forward: (event) => event.type === "notice" && s.emit(event) });
  // The parent's usage and cost include what its children spent.
  s.addChildUsage?.(result.usage, result.apiMs);
  const finished = result.stopReason === "completed" || result.stopReason === "stop_block_cap";
  // A child that ended anywhere but its stop point still ends: subagent_stop reports how (a block changes nothing now).
  if (!finished && !endedAtStop) await fireStop(result.stopReason, { last_assistant_message: result.result, stop_hook_active: false });
  // D8: subagent_stop `continue: false` is "any other event": the child keeps its reply, the parent's turn ends.
  const hookStop = hookStopOf(lastStop?.state.stopSession);
  const kept = finished || (endedAtStop && hookStop?.kind === "hook_blocked");
  return {
    success: kept,
    content: kept ? result.result : endedEarly(name, result),
    metadata: run.metadata(name, result.stopReason),
    hookContext: lastStop?.state.contexts ?? [],
    ...(hookStop ? { hookStop } : {}),
  };
}
