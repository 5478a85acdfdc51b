/**
 * `agent hooks validate` (D21, CLI-13/14/15/16): every config and hook.json problem plus static
 * checks of what the hooks would run (targets, interpreters, preflight), sorted into errors (exit 1)
 * and warnings (exit 0 when alone). Spawns nothing, trusted or not.
 */
import { escapeControls } from "../../util/escape.ts";
import { formatWarning } from "../../config/warnings.ts";
import { hooksOffByEnv } from "../../config/paths.ts";
import { checkCommandTargets, checkRunTarget } from "../../hooks/shell/command-words.ts";
import { preflight } from "../../hooks/shell/preflight.ts";
import { loadConfig } from "../../config/load.ts";
import { expandPluginRoot } from "../../config/plugins.ts";
import type { LoadWarning } from "../../hooks/types.ts";
import type { Runtime } from "../../runtime/types.ts";
import { subreaperStatus } from "../../runtime/subreaper.ts";
import { memoryProtectionStatus } from "../../runtime/credentials.ts";
import { shellFor } from "../../runtime/shell.ts";
import type { CliIO } from "../io.ts";

export async function runHooksValidate(runtime: Runtime, io: CliIO, options: { cwd: string; pluginDirs?: readonly string[] }): Promise<number> {
  const loaded = loadConfig(runtime, { cwd: options.cwd, ignoreHooksOff: true, pluginDirs: options.pluginDirs ?? [] });
  const env = runtime.env();
  const problems: LoadWarning[] = [...loaded.warnings];
  const add = (file: string, field: string, message: string): void => {
    problems.push({ severity: "error", file, field, message });
  };
  let needsShell = false;
  for (const spec of loaded.hooks) {
    if (spec.disabled) continue;
    if (spec.form === "dir") {
      const problem = checkRunTarget(runtime.fs, spec.run);
      if (problem) add(spec.source, "run", problem);
      continue;
    }
    // http and prompt hooks spawn nothing; their URL was checked at load time.
    if (spec.form === "lifecycle" && spec.handler !== undefined) continue;
    needsShell = true;
    const field = `${spec.field}.command`;
    if (spec.form === "list") {
      const verdict = preflight(spec.command, { absolutePaths: spec.absolutePaths });
      if (!verdict.ok) {
        // A rejected command never spawns, so its targets do not matter.
        add(spec.source, field, `rejected by preflight (${verdict.rule})`);
        continue;
      }
    }
    if (runtime.platform.os !== "win32") {
      const pathValue = env.PATH;
      // A plugin hook's `${CLAUDE_PLUGIN_ROOT}` is known here, so its script is checked like any other.
      const command = spec.form === "lifecycle" && spec.pluginRoot !== undefined ? expandPluginRoot(spec.command, spec.pluginRoot) : spec.command;
      for (const problem of checkCommandTargets(runtime, command, {
        projectDir: loaded.projectRoot,
        cwd: loaded.cwd,
        ...(pathValue !== undefined ? { pathValue } : {}),
      })) {
        add(spec.source, field, problem);
      }
    }
  }
  if (needsShell && runtime.platform.os === "win32" && runtime.which("pwsh") === null && runtime.which("powershell.exe") === null) {
    add(loaded.home, "", "PowerShell not found (tried pwsh, powershell.exe)");
  }
  const shellNote =
    runtime.platform.os === "win32"
      ? `note: list hooks and the bash tool run in ${shellFor(runtime, env).describe}; lifecycle commands in PowerShell`
      : undefined;

  const places = { projectRoot: loaded.projectRoot, userHome: env.HOME ?? runtime.platform.homedir };
  const errors = problems.filter((p) => p.severity === "error");
  const warnings = problems.filter((p) => p.severity === "warning");
  const lines: string[] = [];
  if (loaded.hooksOff === null && hooksOffByEnv(env)) {
    lines.push("note: hooks are disabled (AGENT_HOOKS=off); validating anyway");
  }
  if (shellNote !== undefined) lines.push(shellNote);
  // The managed files were checked with the rest (their owner check too); say which ones apply.
  if (loaded.managed.files.length > 0) lines.push(`note: managed policy: ${loaded.managed.files.join(", ")}`);
  const reaper = subreaperStatus();
  if (loaded.hooks.length > 0 && !reaper.active) {
    // Say where a `setsid` escape from a hook's group cannot be cleaned up.
    lines.push(`note: a hook's descendant that leaves its process group (setsid) is not killed when the agent exits here: ${reaper.reason}`);
  }
  const memory = memoryProtectionStatus();
  if (!memory.possible) {
    // Information, not a problem of the config: docs/security.md says what this leaves open.
    lines.push(
      `note: secrets in the agent's memory (provider keys, handed-over credentials) are readable by other processes of your user, hooks and bash commands included: the agent cannot make itself undumpable here (${memory.reason}; docs/security.md)`,
    );
  }
  for (const problem of errors) lines.push(`error: ${formatWarning(problem, places)}`);
  for (const problem of warnings) lines.push(`warning: ${formatWarning(problem, places)}`);
  const fileCount = loaded.files.filter((file) => file.present).length + loaded.manifests.length;
  const hookCount = loaded.hooks.length;
  const counts = `${hookCount} hook${hookCount === 1 ? "" : "s"} in ${fileCount} file${fileCount === 1 ? "" : "s"}`;
  if (errors.length > 0) {
    lines.push(`${errors.length} error${errors.length === 1 ? "" : "s"}, ${warnings.length} warning${warnings.length === 1 ? "" : "s"} (${counts})`);
    io.out(`${lines.map(escapeControls).join("\n")}\n`);
    return 1;
  }
  lines.push(`ok: ${counts}${warnings.length > 0 ? ` (${warnings.length} warning${warnings.length === 1 ? "" : "s"})` : ""}`);
  io.out(`${lines.map(escapeControls).join("\n")}\n`);
  return 0;
}
