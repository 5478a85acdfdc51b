/**
 * `agent hooks replay SESSION [--from N] [--permission-mode MODE] [--json]`: feeds a recorded
 * session's prompts, tool calls and tool results through today's hooks (the shared harness: no
 * model, no tool runs) and shows where today's decisions differ from the recorded ones
 * (`hook_decision` records). Each tool call is also judged by today's permission gate after its
 * pre_tool hooks, as the live loop judges it (replay-gate.ts), and its final decision compared with
 * what happened then. The hooks and rules are those of the session's directory unless `--cwd` names
 * another. Exit 0 when nothing differs, 1 when a decision changed (like diff), so a team can see what
 * a policy change would have done.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { escapeControls, escapeJsonText } from "../../util/escape.ts";
import { agentHomeDir } from "../../config/paths.ts";
import { readSession, resolveSession } from "../../session/store.ts";
import type { RecordOf, SessionRecord } from "../../session/records.ts";
import { toolIdOf, type ToolId } from "../../tools/names.ts";
import { validateToolInput } from "../../tools/index.ts";
import { EVENT_FIELD_DEFAULTS } from "../../hooks/event-fields.ts";
import type { Verdict } from "../../hooks/merge/merge.ts";
import { openHarness, type Harness, type HarnessEvent } from "./hook-harness.ts";
import { configuredRules, parsePermissionMode } from "../session-setup.ts";
import { bypassRefusal } from "../../config/managed.ts";
import { normalizeCall, type CallPlace } from "../../tools/call.ts";
import { judgeAfterPreHooks, preToolFields } from "../../agent/tool-policy.ts";
import type { PermissionMode } from "../../permissions/mode.ts";
import type { RuleSet } from "../../permissions/rules.ts";
import { callMode, finalNow, finalThen, recordedMode, ruleLabeler, type FinalVerdict, type RuleLabeler } from "./replay-gate.ts";

export interface HooksReplayOptions {
  /** `--cwd`; default: the directory the session ran in. */
  readonly cwd: string | undefined;
  readonly json: boolean;
  readonly session: string | undefined;
  readonly extra: readonly string[];
  readonly from: string | undefined;
  readonly trust: boolean;
  /** `--permission-mode`: judge every call in this mode instead of the recorded one. */
  readonly permissionMode?: string | undefined;
}

interface Then {
  readonly decision: Verdict | "unknown";
  readonly reason: string | null;
  readonly decidedBy: string | null;
}

/** One recorded event to fire again. */
interface ReplayItem {
  /** 1-based index of the record it comes from. */
  readonly record: number;
  readonly event: HarnessEvent["named"];
  readonly tool: ToolId | undefined;
  readonly callId: string | null;
  readonly subject: string;
  readonly fire: Omit<HarnessEvent, "sessionId">;
  readonly then: Then;
  /** pre_tool only: the call's records, for its final decision then. */
  readonly call?: { readonly pre: RecordOf<"hook_decision"> | undefined; readonly result: RecordOf<"tool_result"> | undefined };
}

const NONE: Then = { decision: "none", reason: null, decidedBy: null };

function thenOf(record: RecordOf<"hook_decision"> | undefined, hooksRan: boolean): Then {
  if (record !== undefined) return { decision: record.decision, reason: record.reason, decidedBy: record.decided_by };
  // Hooks ran but left no decision record: the session predates them.
  return hooksRan ? { decision: "unknown", reason: null, decidedBy: null } : NONE;
}

function subjectOf(input: Readonly<Record<string, unknown>>): string {
  const first = input.command ?? input.file_path ?? input.pattern ?? input.path;
  const text = typeof first === "string" ? first : JSON.stringify(input);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Indexes of the session: decisions by event and call, and which calls' events ran hooks. */
function indexRecords(records: readonly SessionRecord[]): {
  decision: (event: string, callId: string | null) => RecordOf<"hook_decision"> | undefined;
  ran: (phase: string, callId: string) => boolean;
  result: (callId: string) => RecordOf<"tool_result"> | undefined;
} {
  const decisions = new Map<string, RecordOf<"hook_decision">>();
  const ran = new Set<string>();
  const results = new Map<string, RecordOf<"tool_result">>();
  for (const record of records) {
    if (record.type === "tool_result") results.set(record.tool_call_id, record);
    if (record.type === "hook_decision" && record.tool_call_id !== null) decisions.set(`${record.event} ${record.tool_call_id}`, record);
    if (record.type === "hook_lifecycle" && record.tool_call_id !== null) ran.add(`${record.phase} ${record.tool_call_id}`);
  }
  return {
    decision: (event, callId) => decisions.get(`${event} ${callId}`),
    ran: (phase, callId) => ran.has(`${phase} ${callId}`),
    result: (callId) => results.get(callId),
  };
}

function promptItem(record: number, prompt: string, then: Then): ReplayItem {
  const fields = { ...EVENT_FIELD_DEFAULTS.user_prompt_submit, prompt };
  return {
    record,
    event: "user_prompt_submit",
    tool: undefined,
    callId: null,
    subject: subjectOf({ command: prompt }),
    fire: { named: "user_prompt_submit", fields },
    then,
  };
}

/** The replayable events of a session, in record order. */
export function replayItems(records: readonly SessionRecord[]): ReplayItem[] {
  const index = indexRecords(records);
  const items: ReplayItem[] = [];
  const inputs = new Map<string, { tool: ToolId; input: Record<string, unknown> }>();
  // The next `user` record after a prompt's decision is that prompt; after a stop hook's block it is the hook's reason.
  let skipNextUser = false;
  records.forEach((record, i) => {
    const at = i + 1;
    if (record.type === "hook_decision" && record.event === "user_prompt_submit" && record.prompt !== undefined) {
      items.push(promptItem(at, record.prompt, thenOf(record, true)));
      skipNextUser = record.decision !== "block";
    } else if (record.type === "hook_decision" && record.event === "stop") {
      skipNextUser = record.decision === "block";
    } else if (record.type === "assistant" || record.type === "session_start") {
      // Either `user` record comes before the next reply; a stop that ended the session leaves none.
      skipNextUser = false;
    } else if (record.type === "user") {
      if (skipNextUser) {
        skipNextUser = false;
        return;
      }
      items.push(promptItem(at, record.original_prompt ?? record.content, NONE));
    } else if (record.type === "tool_call") {
      const tool = toolIdOf(record.tool_name);
      // Calls that never reached hooks (unknown tool, arguments that do not parse or validate) are skipped.
      const checked = tool === undefined || typeof record.input === "string" ? undefined : validateToolInput(tool, record.input);
      if (tool === undefined || checked === undefined || !checked.ok) return;
      inputs.set(record.tool_call_id, { tool, input: checked.input });
      const pre = index.decision("pre_tool", record.tool_call_id);
      const then = thenOf(pre, index.ran("pre_tool", record.tool_call_id) || index.ran("before_tool", record.tool_call_id));
      items.push({
        record: at,
        event: "pre_tool",
        tool,
        callId: record.tool_call_id,
        subject: subjectOf(checked.input),
        fire: { named: "pre_tool", tool, input: checked.input, fields: EVENT_FIELD_DEFAULTS.pre_tool, callId: record.tool_call_id },
        then,
        call: { pre, result: index.result(record.tool_call_id) },
      });
    } else if (record.type === "tool_result") {
      const call = inputs.get(record.tool_call_id);
      const pre = index.decision("pre_tool", record.tool_call_id);
      // A call refused before it ran (by its pre_tool hooks, a rule, a person, or nobody to ask) had no
      // post_tool event; nor has a call a stop signal cancelled (D29).
      const refused = pre?.decision === "deny" || record.metadata.rejected === true;
      if (call === undefined || refused || typeof record.input === "string" || record.metadata.cancelled === true) return;
      const then = thenOf(
        index.decision("post_tool", record.tool_call_id),
        index.ran("post_tool", record.tool_call_id) || index.ran("after_tool", record.tool_call_id),
      );
      const result = { success: record.success, content: record.content, metadata: record.metadata };
      const named = record.success ? "post_tool" : "post_tool_failure";
      items.push({
        record: at,
        event: named,
        tool: call.tool,
        callId: record.tool_call_id,
        subject: subjectOf(record.input),
        fire: { named, tool: call.tool, input: record.input, result, fields: EVENT_FIELD_DEFAULTS[named], callId: record.tool_call_id },
        then,
      });
    }
  });
  return items;
}

function parseFrom(raw: string | undefined): number {
  if (raw === undefined) return 1;
  if (!/^[1-9]\d*$/.test(raw))
    throw new AgentError("usage", `--from: "${raw}" is not a record number`, { fix: "give a positive integer, e.g. --from 12 (records are numbered from 1)" });
  return Number(raw);
}

function loadRecords(runtime: Runtime, query: string): { id: string; records: SessionRecord[] } {
  const home = agentHomeDir(runtime.env(), runtime.platform.homedir, runtime.cwd());
  const found = resolveSession(runtime, home, query);
  if (!found.ok) throw new AgentError("config", found.message, { fix: "agent sessions list shows every session" });
  const read = readSession(runtime, found.path);
  if (!read.ok) throw new AgentError("config", read.error);
  return { id: found.id, records: read.records };
}

/** What judges the recorded calls today: the place calls resolve in, today's rules, the modes and the rule labels. */
interface Judge {
  readonly place: CallPlace;
  readonly rules: RuleSet;
  readonly flagMode: PermissionMode | undefined;
  readonly sessionMode: PermissionMode;
  readonly label: RuleLabeler;
}

/**
 * The session's mode (recorded, else today's configured one), unless `--permission-mode` overrides
 * it; a recorded bypass the managed policy now disables is judged in the configured mode instead.
 */
function sessionModeOf(records: readonly SessionRecord[], harness: Harness, flag: PermissionMode | undefined): { mode: PermissionMode; note: string } {
  const settings = harness.loaded.settings;
  if (flag !== undefined) {
    const refusal = bypassRefusal(flag, harness.loaded.managed);
    if (refusal !== null) throw new AgentError("config", refusal, { fix: "drop --permission-mode bypass" });
    return { mode: flag, note: "--permission-mode" };
  }
  const recorded = recordedMode(records);
  if (recorded === undefined) return { mode: settings.permissions.mode, note: "not recorded; the configured mode" };
  if (bypassRefusal(recorded, harness.loaded.managed) !== null)
    return { mode: settings.permissions.mode, note: "recorded bypass is disabled by managed policy now" };
  return { mode: recorded, note: "recorded" };
}

/** A tool call: its pre_tool hooks today, as in the live loop, then the gate over what they leave; two rows. */
async function replayCall(runtime: Runtime, harness: Harness, judge: Judge, item: ReplayItem, sessionId: string): Promise<ReplayRow[]> {
  const tool = item.tool;
  const recorded = item.call;
  if (tool === undefined || recorded === undefined) return [];
  const mode = callMode(judge.flagMode, recorded.result, judge.sessionMode);
  const call = normalizeCall(runtime.fs, judge.place, tool, item.fire.input ?? {});
  const fields = { ...item.fire.fields, ...preToolFields(mode, judge.rules, call) };
  const now = await harness.fire({ ...item.fire, input: call.input, fields, sessionId, permissionMode: mode });
  const hookRow = rowOf(item, { decision: now.verdict, reason: now.reason, decided_by: now.decidedBy?.label ?? null });
  const judgement = judgeAfterPreHooks(runtime.fs, { mode, rules: judge.rules }, call, now.outcome.state);
  const then = finalThen(recorded.pre, recorded.result);
  const final = finalNow(judgement, { label: now.decidedBy?.label ?? null, reason: now.reason }, judge.rules, judge.label);
  const decisionRow: ReplayRow = {
    ...rowOf(item, final),
    event: "decision",
    then,
    mode,
    changed: then.decision !== "unknown" && then.decision !== final.decision,
  };
  return [hookRow, decisionRow];
}

function rowOf(item: ReplayItem, now: FinalVerdict | ReplayRow["now"]): ReplayRow {
  const then = item.then;
  return {
    record: item.record,
    event: item.event,
    tool: item.tool ?? null,
    tool_call_id: item.callId,
    subject: item.subject,
    then: { decision: then.decision, reason: then.reason, decided_by: then.decidedBy },
    now,
    changed: then.decision !== "unknown" && then.decision !== now.decision,
  };
}

export async function runHooksReplay(runtime: Runtime, io: CliIO, options: HooksReplayOptions): Promise<number> {
  if (options.session === undefined)
    throw new AgentError("usage", "missing SESSION", { fix: "agent hooks replay SESSION (an id or unique prefix from agent sessions list)" });
  if (options.extra.length > 0)
    throw new AgentError("usage", `unexpected argument "${options.extra[0]}"`, {
      fix: "agent hooks replay SESSION [--from N] [--permission-mode MODE] [--json]",
    });
  const from = parseFrom(options.from);
  const flagMode = parsePermissionMode(options.permissionMode);
  const { id, records } = loadRecords(runtime, options.session);
  const start = records.find((record) => record.type === "session_start");
  const cwd = options.cwd ?? (start?.type === "session_start" ? start.cwd : runtime.cwd());
  if (runtime.fs.stat(cwd)?.kind !== "dir")
    throw new AgentError("config", `the session ran in ${cwd}, which is gone`, { fix: "pass --cwd DIR: the directory whose hooks to replay through" });
  const items = replayItems(records).filter((item) => item.record >= from);
  const readonlyMode = (flagMode ?? recordedMode(records)) === "readonly";
  const harness = openHarness(runtime, io, { cwd, trust: options.trust, readonlyMode });
  if (harness === null) return 1;
  const sessionId = `replay-${runtime.randomId(4)}`;
  const rows: ReplayRow[] = [];
  try {
    const loaded = harness.loaded;
    const session = sessionModeOf(records, harness, flagMode);
    const judge: Judge = {
      place: { cwd, projectDir: loaded.projectRoot, home: runtime.platform.homedir, agentHome: loaded.home },
      rules: configuredRules(io, loaded.settings),
      flagMode,
      sessionMode: session.mode,
      label: ruleLabeler(runtime, loaded),
    };
    for (const item of items) {
      if (item.call !== undefined) rows.push(...(await replayCall(runtime, harness, judge, item, sessionId)));
      else {
        const now = await harness.fire({ ...item.fire, sessionId, permissionMode: judge.sessionMode });
        rows.push(rowOf(item, { decision: now.verdict, reason: now.reason, decided_by: now.decidedBy?.label ?? null }));
      }
      for (const line of harness.takeFailureLines()) io.err(`${line}\n`);
    }
    report(io, { id, cwd, from, rows, json: options.json, mode: session });
  } finally {
    await harness.close();
  }
  return rows.some((row) => row.changed) ? 1 : 0;
}

interface ReplayRow {
  readonly record: number;
  readonly event: string;
  readonly tool: string | null;
  readonly tool_call_id: string | null;
  readonly subject: string;
  readonly then: FinalVerdict | { readonly decision: string; readonly reason: string | null; readonly decided_by: string | null };
  readonly now: { readonly decision: string; readonly reason: string | null; readonly decided_by: string | null };
  /** decision rows: the permission mode the call was judged in today. */
  readonly mode?: PermissionMode;
  readonly changed: boolean;
}

function verdictText(v: ReplayRow["then"], decisionRow: boolean): string {
  const base = v.decided_by ? `${v.decision} (${v.decided_by})` : decisionRow && v.reason ? `${v.decision} (${v.reason})` : v.decision;
  if (!("answered_by" in v) || v.answered_by === undefined) return base;
  const answer = { hook: "a permission_request hook", user: "the user", nobody: "nobody" }[v.answered_by] ?? v.answered_by;
  return `${base}; ${answer} ${v.answered_by === "nobody" ? "answered: refused" : v.ran ? "allowed" : "refused"}`;
}

function report(
  io: CliIO,
  r: { id: string; cwd: string; from: number; rows: readonly ReplayRow[]; json: boolean; mode: { mode: PermissionMode; note: string } },
): void {
  const changed = r.rows.filter((row) => row.changed).length;
  if (r.json) {
    const head = { session: r.id, cwd: r.cwd, from: r.from, permission_mode: r.mode.mode, permission_mode_source: r.mode.note };
    io.out(`${escapeJsonText(JSON.stringify({ ...head, events: r.rows, changed }))}\n`);
    return;
  }
  const table = [["RECORD", "EVENT", "SUBJECT", "THEN", "NOW", ""]];
  for (const row of r.rows) {
    const decisionRow = row.event === "decision";
    table.push(
      [
        String(row.record),
        `${row.event}${row.tool ? ` ${row.tool}` : ""}`,
        row.subject,
        verdictText(row.then, decisionRow),
        verdictText(row.now, decisionRow),
        row.changed ? "CHANGED" : "",
      ].map(escapeControls),
    );
  }
  const widths = table[0]?.map((_, column) => Math.max(...table.map((cells) => (cells[column] ?? "").length))) ?? [];
  const lines = [
    `replay of session ${r.id} through today's hooks and permission rules in ${escapeControls(r.cwd)}${r.from > 1 ? ` from record ${r.from}` : ""}`,
    `permission mode: ${r.mode.mode} (${r.mode.note})`,
  ];
  for (const cells of table)
    lines.push(
      cells
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    );
  // A call's hook row and decision row often give one reason: it is said once.
  const reasons = new Set(r.rows.filter((x) => x.changed && x.now.reason).map((row) => `record ${row.record} now: ${escapeControls(row.now.reason ?? "")}`));
  lines.push(...reasons);
  lines.push("", `${r.rows.length} event${r.rows.length === 1 ? "" : "s"} replayed: ${changed} changed`);
  io.out(`${lines.join("\n")}\n`);
}
