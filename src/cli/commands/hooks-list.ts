/**
 * `agent hooks list [--json]` (CLI-01/02/03/22, SEC-34): every loaded hook in run order with its
 * form, dialect, matcher, policy and source, marked disabled or untrusted, then the load warnings.
 * Runs nothing. Exit 0 whatever the warnings.
 */
import { escapeControls, escapeJsonText } from "../../util/escape.ts";
import { displayPath, formatWarning } from "../../config/warnings.ts";
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import type { HookSpec } from "../../hooks/types.ts";
import { commandText, handlerType, matcherText, policyText } from "../../hooks/describe.ts";
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { trustDecision } from "../../trust/decision.ts";

export interface HooksListOptions {
  readonly cwd: string;
  readonly json: boolean;
  readonly noHooks?: boolean;
  /** `--plugin-dir` values (absolute). */
  readonly pluginDirs?: readonly string[];
  /** Whether the project's hooks are trusted (D17); defaults to the pinned digest in `$AGENT_HOME/trust.json`. */
  readonly isTrusted?: (loaded: LoadedConfig) => boolean;
}

// The columns' text lives beside the hook specs, so the interactive `/hooks` shows the same words.
export { commandText, matcherText, policyText };

/** Hook dirs' `async`, or Claude Code's `async` on a lifecycle command. */
function isAsync(spec: HookSpec): boolean {
  return spec.form === "dir" ? spec.async : spec.form === "lifecycle" && spec.async === true;
}

export function formatTimeout(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : ms < 1000 ? `${ms}ms` : `${ms / 1000}s`;
}

/** What the review must say about a project hook beyond its command. */
function reviewNotes(spec: HookSpec, loaded: LoadedConfig): string[] {
  if (spec.scope !== "project") return [];
  const material = loaded.projectTrustMaterial;
  const notes = (material?.outside ?? []).filter((entry) => entry.hook === spec.label).map((entry) => `    outside the project (pinned): ${entry.path}`);
  for (const shadow of material?.shadows ?? []) {
    if (shadow.name !== spec.label || spec.form !== "dir") continue;
    notes.push(`    replaces your ${shadow.userFailClosed ? "fail_closed " : ""}hook ${shadow.name} (${shadow.userRun}), which does not run in this project`);
  }
  return notes;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join("  "));
}

/** One hook as `hooks list --json` prints it. */
function hookJson(spec: HookSpec, trusted: boolean): Record<string, unknown> {
  return {
    label: spec.label,
    scope: spec.scope,
    form: spec.form,
    dialect: spec.dialect,
    event: spec.event,
    matcher: matcherText(spec),
    policy: policyText(spec),
    async: isAsync(spec),
    // Claude Code's keys exist on lifecycle commands only.
    ...(spec.form === "lifecycle" ? { once: spec.once === true, status_message: spec.statusMessage ?? null, plugin: spec.plugin ?? null } : {}),
    timeout_ms: spec.timeoutMs,
    source: spec.source,
    field: spec.field,
    command: commandText(spec),
    // Command, http or prompt; the URL of an http hook.
    type: handlerType(spec),
    ...(spec.form === "lifecycle" && spec.handler?.type === "http" ? { url: spec.handler.url } : {}),
    trusted: spec.scope === "project" ? trusted : true,
    disabled: spec.disabled,
  };
}

/** One hook's table row and the detail lines under it, escaped cell by cell. */
function hookRow(
  spec: HookSpec,
  trusted: boolean,
  loaded: LoadedConfig,
  places: { projectRoot: string; userHome: string },
): { row: string[]; details: string[] } {
  const status =
    [spec.scope === "project" && !trusted ? "untrusted" : "", spec.disabled ? "disabled" : "", spec.scope === "managed" ? "managed" : ""]
      .filter(Boolean)
      .join(",") || "active";
  const row = [
    spec.label,
    spec.scope,
    spec.form,
    spec.dialect,
    spec.event,
    matcherText(spec),
    policyText(spec),
    isAsync(spec) ? "yes" : "no",
    formatTimeout(spec.timeoutMs),
    status,
  ];
  const source = spec.field === "" ? displayPath(spec.source, places) : `${displayPath(spec.source, places)} ${spec.field}`;
  const claudeKeys =
    spec.form === "lifecycle"
      ? [...(spec.once === true ? ["    once: yes"] : []), ...(spec.statusMessage !== undefined ? [`    statusMessage: ${spec.statusMessage}`] : [])]
      : [];
  const details = [
    `    source: ${source}`,
    handlerType(spec) === "command" ? `    ${spec.form === "dir" ? "run" : "command"}: ${commandText(spec)}` : `    ${commandText(spec)}`,
    ...claudeKeys,
    ...reviewNotes(spec, loaded),
  ];
  // Config text is escaped cell by cell, so a `\r` or ESC in a label or command cannot redraw the table.
  return { row: row.map(escapeControls), details: details.map(escapeControls) };
}

export async function runHooksList(runtime: Runtime, io: CliIO, options: HooksListOptions): Promise<number> {
  const loaded = loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [], ...(options.noHooks ? { noHooks: true } : {}) });
  // With hooks off only managed hooks loaded; they still run, so they are still listed.
  if (loaded.hooksOff !== null && loaded.hooks.length === 0) {
    if (options.json) io.out(`${JSON.stringify({ enabled: false, hooks: [], warnings: [] }, null, 2)}\n`);
    else io.out(`hooks disabled (${loaded.hooksOff})\n`);
    return 0;
  }
  const projectHooks = loaded.hooks.some((spec) => spec.scope === "project");
  const decision = projectHooks && options.isTrusted === undefined ? trustDecision(runtime, loaded) : undefined;
  const trusted = projectHooks ? (options.isTrusted ? options.isTrusted(loaded) : decision?.ok === true) : true;
  // An unreadable trust.json (or a tree over its bound) is said here too, not only as "untrusted".
  const trustProblem = decision !== undefined && !decision.ok && !decision.askable ? decision.message : undefined;
  const places = { projectRoot: loaded.projectRoot, userHome: runtime.env().HOME ?? runtime.platform.homedir };

  if (options.json) {
    const hooks = loaded.hooks.map((spec) => hookJson(spec, trusted));
    const warnings = loaded.warnings.map((w) => ({ severity: w.severity, file: w.file, field: w.field, message: w.message }));
    io.out(`${escapeJsonText(JSON.stringify({ enabled: loaded.hooksOff === null, hooks, warnings, managed_files: loaded.managed.files }, null, 2))}\n`);
    return 0;
  }

  const lines: string[] = [];
  if (loaded.hooksOff !== null) lines.push(`hooks disabled (${loaded.hooksOff}); the managed policy's hooks still run:`);
  if (loaded.hooks.length === 0) lines.push("no hooks loaded");
  else {
    const built = loaded.hooks.map((spec) => hookRow(spec, trusted, loaded, places));
    const rendered = table([["LABEL", "SCOPE", "FORM", "DIALECT", "EVENT", "MATCHER", "POLICY", "ASYNC", "TIMEOUT", "STATUS"], ...built.map((b) => b.row)]);
    lines.push(rendered[0] ?? "");
    rendered.slice(1).forEach((row, index) => lines.push(row, ...(built[index]?.details ?? [])));
    if (projectHooks && !trusted) lines.push("", trustProblem ?? "project hooks are untrusted: review them above, then run `agent hooks trust`");
  }
  if (loaded.warnings.length > 0) {
    lines.push("", `${loaded.warnings.length} load warning${loaded.warnings.length === 1 ? "" : "s"}:`);
    for (const warning of loaded.warnings) lines.push(`  ${warning.severity}: ${formatWarning(warning, places)}`);
  }
  io.out(`${lines.join("\n")}\n`);
  return 0;
}
