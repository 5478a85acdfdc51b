/**
 * The permission half of `agent hooks replay`: what finally decided each recorded call then (its
 * pre_tool hooks' deny, else the gate's decision recorded on its `tool_result`), and what decides it
 * today (the same judgement the live loop makes after its pre_tool hooks, agent/tool-policy.ts, over
 * today's rules). A rule that decides today is named with the file it comes from, so a team sees which
 * line of which settings file changed the outcome.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { LoadedConfig } from "../../config/load.ts";
import { readSettingsFile } from "../../config/settings.ts";
import { displayPath, WarningSink } from "../../config/warnings.ts";
import type { PreHookJudgement } from "../../agent/tool-policy.ts";
import { PERMISSION_MODES, type PermissionMode } from "../../permissions/mode.ts";
import type { RuleSet } from "../../permissions/rules.ts";
import type { RecordOf, SessionRecord } from "../../session/records.ts";

export type FinalDecision = "allow" | "deny" | "ask" | "unknown";

/** One side of a call's final decision: `decided_by` is a hook label, a rule, or null for a mode's default. */
export interface FinalVerdict {
  readonly decision: FinalDecision;
  readonly reason: string | null;
  readonly decided_by: string | null;
  /** Then only: whether the tool ran, and for an ask who answered it (`hook`, `user`, `nobody`). */
  readonly ran?: boolean;
  readonly answered_by?: string;
}

/**
 * What decided a call then. A pre_tool hook's deny comes first; else the gate's recorded decision. A
 * file written before the gate's decision was recorded tells only whether the tool ran: a call that
 * ran counts as allowed, a refused one as unknown (a rule, a person or nobody may have refused it).
 */
export function finalThen(pre: RecordOf<"hook_decision"> | undefined, result: RecordOf<"tool_result"> | undefined): FinalVerdict {
  if (pre?.decision === "deny") return { decision: "deny", reason: pre.reason, decided_by: pre.decided_by, ran: false };
  if (result === undefined) return { decision: "unknown", reason: "the session ended before the call's result was recorded", decided_by: null };
  const ran = result.metadata.rejected !== true;
  const fact = result.permission;
  if (fact === undefined) return { decision: ran ? "allow" : "unknown", reason: null, decided_by: null, ran };
  const hookDecided = fact.rule === undefined && (fact.reason === "allowed by a hook" || fact.reason.includes("a hook asked"));
  const decidedBy = fact.rule !== undefined ? `${fact.decision} rule ${fact.rule}` : hookDecided ? (pre?.decided_by ?? null) : null;
  return { decision: fact.decision, reason: fact.reason, decided_by: decidedBy, ran, ...(fact.answered_by ? { answered_by: fact.answered_by } : {}) };
}

/** Which settings file holds a rule, for the label `deny rule bash(rm*) in .agent/settings.json`. */
export type RuleLabeler = (list: "allow" | "ask" | "deny", text: string) => string;

/**
 * Reads the loaded settings files again (managed first, as the rule lists are merged) and names the
 * first that lists the rule; a project's rules count only where they were loaded (hooks on, D17).
 */
export function ruleLabeler(runtime: Runtime, loaded: LoadedConfig): RuleLabeler {
  const origins = new Map<string, { path: string; managed: boolean }>();
  const sink = new WarningSink();
  for (const file of loaded.files) {
    if (!file.present || (file.scope === "project" && loaded.hooksOff !== null)) continue;
    const format = file.path.endsWith(".toml") ? "toml" : "json";
    const data = readSettingsFile(runtime.fs, { path: file.path, scope: file.scope, format }, sink).data;
    const permissions = data?.permissions;
    if (permissions === null || typeof permissions !== "object" || Array.isArray(permissions)) continue;
    for (const list of ["allow", "ask", "deny"] as const) {
      const rules = (permissions as Record<string, unknown>)[list];
      if (!Array.isArray(rules)) continue;
      for (const rule of rules) {
        const key = `${list} ${typeof rule === "string" ? rule.trim() : ""}`;
        if (typeof rule === "string" && !origins.has(key)) origins.set(key, { path: file.path, managed: file.scope === "managed" });
      }
    }
  }
  const places = { projectRoot: loaded.projectRoot, userHome: runtime.platform.homedir };
  return (list, text) => {
    const origin = origins.get(`${list} ${text}`);
    const label = `${origin?.managed ? "managed " : ""}${list} rule ${text}`;
    return origin === undefined ? label : `${label} in ${displayPath(origin.path, places)}`;
  };
}

/** What decides the call today: the hook that denied, else the gate (its rule, the hook it passed on, or the mode). */
export function finalNow(judgement: PreHookJudgement, hook: { label: string | null; reason: string | null }, rules: RuleSet, label: RuleLabeler): FinalVerdict {
  if (judgement.denied) return { decision: "deny", reason: hook.reason, decided_by: hook.label };
  const { gate, hookDecision } = judgement;
  if (gate.rule !== undefined) {
    // The gate looks at deny, then ask, then allow rules; an ask rule in bypass mode allows, but it still decided.
    const text = gate.rule;
    const list = gate.decision === "deny" ? "deny" : rules.ask.some((rule) => rule.text === text) ? "ask" : "allow";
    return { decision: gate.decision, reason: gate.reason, decided_by: label(list, text) };
  }
  // With a hook's allow or ask the gate passes it on unless a deny, or a protected path's question, comes first.
  const byHook = hookDecision !== undefined && gate.because === undefined && gate.decision !== "deny";
  return { decision: gate.decision, reason: gate.reason, decided_by: byHook ? hook.label : null };
}

/** The permission mode the session ran in, from its recorded gate decisions; undefined when none was recorded. */
export function recordedMode(records: readonly SessionRecord[]): PermissionMode | undefined {
  for (const record of records) {
    if (record.type !== "tool_result" || record.permission === undefined) continue;
    const mode = PERMISSION_MODES.find((candidate) => candidate === record.permission?.mode);
    if (mode !== undefined) return mode;
  }
  return undefined;
}

/** The mode one recorded call is judged in today: `--permission-mode`, else the call's own, else the session's. */
export function callMode(flag: PermissionMode | undefined, result: RecordOf<"tool_result"> | undefined, session: PermissionMode): PermissionMode {
  return flag ?? PERMISSION_MODES.find((candidate) => candidate === result?.permission?.mode) ?? session;
}
