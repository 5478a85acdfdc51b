/**
 * `agent hooks test --cases FILE [--json]`: a policy's test suite. Each case fires one event through
 * the hooks that would run here (the shared harness: no model, no tools) and checks what they
 * decided. JSONL (one case a line) or TOML (`[[case]]`). Prints a pass/fail table naming the hook
 * that decided each case; exit 1 when any case fails, so a team's CI can gate a policy change.
 */
import * as v from "valibot";
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { escapeControls, escapeJsonText } from "../../util/escape.ts";
import { canonicalEvent, CANONICAL_EVENTS, TOOL_EVENTS, type CanonicalEvent } from "../../util/events.ts";
import { toolIdOf, type ToolId } from "../../tools/names.ts";
import { EVENT_FIELD_DEFAULTS } from "../../hooks/event-fields.ts";
import { parseJson, parseToml } from "../../config/parse.ts";
import { resolvePath } from "../../util/path-utils.ts";
import { openHarness, type HarnessOptions, type HarnessResult } from "./hook-harness.ts";
import type { ToolResultInfo } from "../../hooks/dialects/types.ts";

const DECISIONS = ["allow", "deny", "ask", "block", "none"] as const;
const JsonObject = v.record(v.string(), v.unknown());

const CaseSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1, "must be a non-empty string")),
  event: v.string(),
  tool: v.optional(v.string()),
  input: v.optional(JsonObject),
  prompt: v.optional(v.string()),
  result: v.optional(v.strictObject({ success: v.boolean(), content: v.string(), metadata: v.optional(JsonObject) })),
  fields: v.optional(JsonObject),
  expect: v.strictObject({
    decision: v.optional(v.picklist(DECISIONS, `must be one of ${DECISIONS.join(", ")}`)),
    reason_contains: v.optional(v.string()),
    context_contains: v.optional(v.string()),
    input: v.optional(JsonObject),
  }),
});

type RawCase = v.InferOutput<typeof CaseSchema>;

/** A case checked against the event catalog, ready to fire. */
export interface PolicyCase {
  readonly name: string;
  /** `FILE:LINE` for JSONL, `FILE case[N]` for TOML: where an error or a failure points. */
  readonly where: string;
  readonly named: CanonicalEvent;
  readonly tool: ToolId | undefined;
  readonly input: Readonly<Record<string, unknown>>;
  readonly result: ToolResultInfo | undefined;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly expect: RawCase["expect"];
}

export interface CaseOutcome {
  readonly name: string;
  readonly event: CanonicalEvent;
  readonly tool: string | null;
  readonly pass: boolean;
  readonly decision: HarnessResult["verdict"];
  readonly reason: string | null;
  readonly decided_by: { readonly label: string; readonly scope: string } | null;
  readonly context: string;
  readonly input: Readonly<Record<string, unknown>> | null;
  readonly failures: readonly string[];
}

const FORMAT_FIX =
  'one JSON object a line, e.g. {"name":"no rm","event":"pre_tool","tool":"bash","input":{"command":"rm -rf /"},"expect":{"decision":"deny"}} (or TOML [[case]] tables)';

function caseError(where: string, message: string): AgentError {
  return new AgentError("usage", `${where}: ${message}`, { fix: FORMAT_FIX });
}

/** Raw case objects with where each one is, from JSONL or TOML text. */
function rawCases(path: string, text: string): { where: string; value: unknown }[] {
  if (path.toLowerCase().endsWith(".toml")) {
    const parsed = parseToml(text);
    if (!parsed.ok) throw caseError(`${path}:${parsed.line}:${parsed.column}`, `could not parse TOML: ${parsed.message}`);
    const doc = parsed.value;
    const list = typeof doc === "object" && doc !== null && "case" in doc ? doc.case : undefined;
    if (!Array.isArray(list)) throw caseError(path, "no [[case]] tables");
    return list.map((value, index) => ({ where: `${path} case[${index}]`, value }));
  }
  const out: { where: string; value: unknown }[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const parsed = parseJson(line);
    if (!parsed.ok) throw caseError(`${path}:${index + 1}:${parsed.column}`, `not a JSON object: ${parsed.message}`);
    out.push({ where: `${path}:${index + 1}`, value: parsed.value });
  });
  return out;
}

function checkCase(where: string, value: unknown): PolicyCase {
  const parsed = v.safeParse(CaseSchema, value);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue ? (v.getDotPath(issue) ?? "") : "";
    throw caseError(where, `${field ? `field ${field}: ` : ""}${issue?.message ?? "invalid case"}`);
  }
  const raw = parsed.output;
  const named = canonicalEvent(raw.event);
  if (named === undefined) throw caseError(where, `field event: unknown event "${raw.event}" (use one of ${CANONICAL_EVENTS.join(", ")})`);
  const isToolEvent = TOOL_EVENTS.has(named);
  let tool: ToolId | undefined;
  if (raw.tool !== undefined) {
    if (!isToolEvent) throw caseError(where, `field tool: only tool events take a tool, not ${named}`);
    tool = toolIdOf(raw.tool);
    if (tool === undefined) throw caseError(where, `field tool: unknown tool "${raw.tool}"`);
  } else if (isToolEvent) throw caseError(where, `field tool: ${named} needs a tool`);
  const fields: Record<string, unknown> = { ...EVENT_FIELD_DEFAULTS[named], ...(raw.fields ?? {}) };
  if (raw.prompt !== undefined) {
    if (!("prompt" in EVENT_FIELD_DEFAULTS[named])) throw caseError(where, `field prompt: only user_prompt_submit takes a prompt, not ${named}`);
    fields.prompt = raw.prompt;
  }
  let result: ToolResultInfo | undefined;
  if (named === "post_tool" || named === "post_tool_failure") result = raw.result ?? { success: named === "post_tool", content: "" };
  else if (raw.result !== undefined) throw caseError(where, `field result: only post_tool and post_tool_failure take a result, not ${named}`);
  return { name: raw.name, where, named, tool, input: raw.input ?? {}, result, fields, expect: raw.expect };
}

/** Reads and checks a whole suite before anything runs: a bad case is a usage error naming its line. */
export function readCases(runtime: Runtime, cwd: string, file: string): PolicyCase[] {
  const path = resolvePath(cwd, file);
  const text = runtime.fs.readText(path);
  if (text === undefined) throw new AgentError("usage", `--cases: cannot read ${path}`, { fix: "give a JSONL or .toml file of cases" });
  const cases = rawCases(path, text).map(({ where, value }) => checkCase(where, value));
  if (cases.length === 0) throw caseError(path, "holds no cases");
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.name)) throw caseError(c.where, `duplicate case name "${c.name}" (names must be unique: failures are reported by name)`);
    seen.add(c.name);
  }
  return cases;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    const ra: Record<string, unknown> = { ...a };
    const rb: Record<string, unknown> = { ...b };
    return sameJson(ka, kb) && ka.every((key) => sameJson(ra[key], rb[key]));
  }
  return a === b;
}

/** Every way `fired` differs from what `c` expects; [] when the case passes. */
export function caseFailures(c: PolicyCase, fired: HarnessResult): string[] {
  const failures: string[] = [];
  const e = c.expect;
  if (e.decision !== undefined && e.decision !== fired.verdict)
    failures.push(`decision: expected ${e.decision}, got ${fired.verdict}${fired.reason ? ` (${fired.reason})` : ""}`);
  if (e.reason_contains !== undefined && !(fired.reason ?? "").includes(e.reason_contains))
    failures.push(`reason: expected to contain ${JSON.stringify(e.reason_contains)}, got ${JSON.stringify(fired.reason)}`);
  if (e.context_contains !== undefined && !fired.context.includes(e.context_contains))
    failures.push(`context: expected to contain ${JSON.stringify(e.context_contains)}, got ${JSON.stringify(fired.context)}`);
  if (e.input !== undefined && !sameJson(fired.input, e.input)) failures.push(`input: expected ${JSON.stringify(e.input)}, got ${JSON.stringify(fired.input)}`);
  return failures;
}

function decider(outcome: CaseOutcome): string {
  return outcome.decided_by ? `${outcome.decided_by.label} (${outcome.decided_by.scope})` : "-";
}

function table(rows: readonly string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  "));
}

function report(io: CliIO, outcomes: readonly CaseOutcome[], json: boolean): void {
  const failed = outcomes.filter((o) => !o.pass).length;
  if (json) {
    io.out(`${escapeJsonText(JSON.stringify({ cases: outcomes, passed: outcomes.length - failed, failed }))}\n`);
    return;
  }
  const rows = [["RESULT", "CASE", "EVENT", "DECISION", "DECIDED BY"]];
  for (const o of outcomes)
    rows.push([o.pass ? "pass" : "FAIL", o.name, `${o.event}${o.tool ? ` ${o.tool}` : ""}`, o.decision, decider(o)].map(escapeControls));
  const lines = table(rows);
  const out = [lines[0] ?? ""];
  outcomes.forEach((o, index) => out.push(lines[index + 1] ?? "", ...o.failures.map((f) => `      ${escapeControls(f)}`)));
  out.push("", `${outcomes.length} case${outcomes.length === 1 ? "" : "s"}: ${outcomes.length - failed} passed, ${failed} failed`);
  if (failed > 0)
    out.push(
      `failed: ${outcomes
        .filter((o) => !o.pass)
        .map((o) => escapeControls(o.name))
        .join(", ")}`,
    );
  io.out(`${out.join("\n")}\n`);
}

export async function runHooksCases(
  runtime: Runtime,
  io: CliIO,
  options: HarnessOptions & { readonly cases: string; readonly json: boolean },
): Promise<number> {
  const cases = readCases(runtime, options.cwd, options.cases);
  const harness = openHarness(runtime, io, options);
  if (harness === null) return 1;
  const outcomes: CaseOutcome[] = [];
  try {
    for (const c of cases) {
      // Each case is its own session: `once` hooks and session-keyed state never leak between cases.
      const fired = await harness.fire({
        named: c.named,
        tool: c.tool,
        input: c.input,
        result: c.result,
        fields: c.fields,
        sessionId: `hooks-case-${runtime.randomId(4)}`,
      });
      for (const line of harness.takeFailureLines()) io.err(`${line}\n`);
      const failures = caseFailures(c, fired);
      outcomes.push({
        name: c.name,
        event: c.named,
        tool: c.tool ?? null,
        pass: failures.length === 0,
        decision: fired.verdict,
        reason: fired.reason,
        decided_by: fired.decidedBy,
        context: fired.context,
        input: fired.input,
        failures,
      });
    }
  } finally {
    await harness.close();
  }
  report(io, outcomes, options.json);
  return outcomes.every((o) => o.pass) ? 0 : 1;
}
