/**
 * Which shell runs a command string: the bash tool and tool-call list hooks. Unix: `/bin/bash`.
 * Windows: Git Bash when found (where Git for Windows installs, or beside `git.exe` on PATH, or
 * `bash.exe` on PATH unless it is WSL's launcher in System32, which would run the command in a Linux
 * VM with other paths), else PowerShell: `pwsh`, then `powershell.exe`, with
 * `-NoProfile -NonInteractive -Command` (never cmd.exe, RUN-06). Pure over the injected lookups, so
 * the Windows choice is testable on Linux.
 */
import type { FileSystem, PlatformFacts } from "./types.ts";

export interface ShellChoice {
  readonly kind: "bash" | "powershell";
  /** The program; a bare name when nothing was found (the spawn then fails with ENOENT, naming it). */
  readonly program: string;
  /** argv for one command string (`bash -c CMD`, `pwsh -NoProfile -NonInteractive -Command CMD`). */
  argv(command: string, options?: { login?: boolean }): string[];
  /** One line for `hooks validate` and errors: what was chosen, or what was tried. */
  readonly describe: string;
}

/** What the choice looks at: a Runtime, or test facts. */
export interface ShellProbe {
  readonly platform: PlatformFacts;
  readonly fs: Pick<FileSystem, "stat">;
  which(command: string, pathValue?: string): string | null;
}

export const POWERSHELL_FLAGS = ["-NoLogo", "-NoProfile", "-NonInteractive"] as const;

function bashChoice(program: string): ShellChoice {
  return {
    kind: "bash",
    program,
    argv: (command, options) => [program, options?.login ? "-lc" : "-c", command],
    describe: `bash (${program})`,
  };
}

function powerShellChoice(program: string, found: boolean): ShellChoice {
  return {
    kind: "powershell",
    program,
    argv: (command) => [program, ...POWERSHELL_FLAGS, "-Command", command],
    describe: found ? `PowerShell (${program}); Git Bash not found` : "none found (tried Git Bash, pwsh, powershell.exe)",
  };
}

/** The env value of a name, matched without case as Windows does (`Path`, `ProgramFiles`). */
function envValue(env: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(env).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : env[key];
}

/** Git Bash on Windows, or null. `env` gives PATH and the install folders. */
export function findGitBash(probe: ShellProbe, env: Readonly<Record<string, string>>): string | null {
  const isFile = (path: string): boolean => probe.fs.stat(path)?.kind === "file";
  const path = envValue(env, "PATH");
  const candidates: string[] = [];
  for (const root of ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"]) {
    const dir = envValue(env, root);
    if (dir) candidates.push(`${dir}\\Git\\bin\\bash.exe`);
  }
  const local = envValue(env, "LOCALAPPDATA");
  if (local) candidates.push(`${local}\\Programs\\Git\\bin\\bash.exe`);
  // git.exe lives in <Git>\cmd or <Git>\bin (or <Git>\mingw64\bin); bash.exe in <Git>\bin.
  const git = probe.which("git.exe", path) ?? probe.which("git", path);
  if (git !== null) {
    const parts = git.split(/[\\/]/);
    for (const up of [2, 3]) if (parts.length > up) candidates.push([...parts.slice(0, parts.length - up), "bin", "bash.exe"].join("\\"));
  }
  const found = candidates.find(isFile);
  if (found !== undefined) return found;
  const onPath = probe.which("bash.exe", path) ?? probe.which("bash", path);
  if (onPath !== null && !/[\\/]system32[\\/]bash(\.exe)?$/i.test(onPath)) return onPath;
  return null;
}

export function shellFor(probe: ShellProbe, env: Readonly<Record<string, string>>): ShellChoice {
  if (probe.platform.os !== "win32") return bashChoice("/bin/bash");
  const bash = findGitBash(probe, env);
  if (bash !== null) return bashChoice(bash);
  const path = envValue(env, "PATH");
  const powershell = probe.which("pwsh", path) ?? probe.which("powershell.exe", path);
  return powerShellChoice(powershell ?? "powershell.exe", powershell !== null);
}
