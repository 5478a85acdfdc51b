/**
 * Turns a hook into the argv and cwd to spawn. Pure except for the injected file-system and PATH
 * lookups, so Windows plans are testable on Linux with fake platform facts. A failed plan is a
 * failure of category `runner` (never cached: hook dirs are checked again on every call, RUN-34).
 */
import type { FileSystem, PlatformFacts } from "../../runtime/types.ts";
import type { DirHookSpec } from "../types.ts";

export type SpawnPlan = { readonly ok: true; readonly argv: string[]; readonly cwd: string } | { readonly ok: false; readonly detail: string };

const POWERSHELL_FLAGS = ["-NoLogo", "-NoProfile", "-NonInteractive"] as const;
export const POWERSHELL_NOT_FOUND = "PowerShell not found (tried pwsh, powershell.exe)";

/** `pwsh` first, then Windows PowerShell; `cmd.exe` is never used (RUN-06). */
function findPowerShell(which: (cmd: string) => string | null): string | null {
  return which("pwsh") ?? which("powershell.exe");
}

function extensionOf(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

/**
 * Seed 000: `spec.run` is executed directly (never through a shell) with cwd = the hook dir.
 * Checked at call time: `not found: <abs>`, `not a file: <abs>`, `not executable: <abs> (chmod +x)`.
 * On win32: `.exe` runs directly, `.ps1` via PowerShell `-File`, `.cmd`/`.bat` are refused (RUN-08).
 */
export function planDirSpawn(fs: FileSystem, platform: PlatformFacts, which: (cmd: string) => string | null, spec: DirHookSpec): SpawnPlan {
  const run = spec.run;
  const stat = fs.stat(run);
  if (!stat) return { ok: false, detail: `not found: ${run}` };
  if (stat.kind !== "file") return { ok: false, detail: `not a file: ${run}` };
  if (platform.os === "win32") {
    const ext = extensionOf(run);
    if (ext === ".exe") return { ok: true, argv: [run], cwd: spec.dir };
    if (ext === ".ps1") {
      const shell = findPowerShell(which);
      if (!shell) return { ok: false, detail: POWERSHELL_NOT_FOUND };
      return { ok: true, argv: [shell, ...POWERSHELL_FLAGS, "-File", run], cwd: spec.dir };
    }
    if (ext === ".cmd" || ext === ".bat") return { ok: false, detail: "cannot run .cmd/.bat directly; use .exe or .ps1" };
    return { ok: false, detail: `cannot run ${ext === "" ? "a file without extension" : ext} directly on Windows; use .exe or .ps1: ${run}` };
  }
  if (!fs.isExecutable(run)) return { ok: false, detail: `not executable: ${run} (chmod +x)` };
  return { ok: true, argv: [run], cwd: spec.dir };
}

const PROJECT_DIR_VARIABLE = /\$\{(?:AGENT|CLAUDE|VT)_PROJECT_DIR\}|\$(?:AGENT|CLAUDE|VT)_PROJECT_DIR(?![A-Za-z0-9_])/g;

/** PowerShell single-quoted literal: no expansion inside; a `'` is written as `''`. */
export function powerShellQuote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * D23: PowerShell would read `$AGENT_PROJECT_DIR` as its own (empty) variable, so on win32 a
 * lifecycle command gets the project root, single-quoted, in place of each project-dir variable.
 */
export function substituteProjectDir(command: string, projectDir: string): string {
  const quoted = powerShellQuote(projectDir);
  return command.replace(PROJECT_DIR_VARIABLE, () => quoted);
}

/**
 * Shell forms. Unix: lifecycle `/bin/sh -c`, list `/bin/bash -lc` (seed 003; a hook engine runs it
 * as `/bin/bash -c` under the session's captured login environment, handlers/login-env.ts). win32: a
 * list hook runs in Git Bash (`gitBash`, found by runtime/shell.ts) when there is one; otherwise pwsh, else
 * powershell.exe, with `-NoLogo -NoProfile -NonInteractive -Command`; neither found is
 * `PowerShell not found (tried pwsh, powershell.exe)` (RUN-07). cwd is the agent cwd (RUN-04/05).
 */
export function planShellSpawn(
  platform: PlatformFacts,
  which: (cmd: string) => string | null,
  form: "lifecycle" | "list",
  command: string,
  cwd: string,
  projectDir: string,
  gitBash: string | null = null,
): SpawnPlan {
  // A list hook on Windows gets Git Bash when there is one (runtime/shell.ts), like the bash tool.
  if (platform.os === "win32" && form === "list" && gitBash !== null) return { ok: true, argv: [gitBash, "-lc", command], cwd };
  if (platform.os === "win32") {
    const shell = findPowerShell(which);
    if (!shell) return { ok: false, detail: POWERSHELL_NOT_FOUND };
    const text = form === "lifecycle" ? substituteProjectDir(command, projectDir) : command;
    return { ok: true, argv: [shell, ...POWERSHELL_FLAGS, "-Command", text], cwd };
  }
  return form === "lifecycle" ? { ok: true, argv: ["/bin/sh", "-c", command], cwd } : { ok: true, argv: ["/bin/bash", "-lc", command], cwd };
}
