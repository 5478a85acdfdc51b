import { describe, expect, test } from "bun:test";
import { findGitBash, shellFor, type ShellProbe } from "../../src/runtime/shell.ts";
import { planShellSpawn } from "../../src/hooks/shell/spawn-plan.ts";
import type { FileStat, PlatformFacts } from "../../src/runtime/types.ts";

const WIN: PlatformFacts = { os: "win32", arch: "x64", tmpdir: "C:\\Users\\ana\\AppData\\Local\\Temp", homedir: "C:\\Users\\ana", uid: null };
const LINUX: PlatformFacts = { os: "linux", arch: "x64", tmpdir: "/tmp", homedir: "/home/ana", uid: 1000 };
const FILE: FileStat = { kind: "file", mode: 0o755, size: 1, mtimeMs: 0 };

/** A Windows machine whose files and PATH entries are the given paths (compared without case, as NTFS does). */
function windows(files: string[], onPath: Record<string, string> = {}): ShellProbe {
  const lower = new Set(files.map((file) => file.toLowerCase()));
  return {
    platform: WIN,
    fs: { stat: (path: string) => (lower.has(path.toLowerCase()) ? FILE : undefined) },
    which: (command: string) => onPath[command] ?? null,
  };
}

const ENV = {
  ProgramFiles: "C:\\Program Files",
  "ProgramFiles(x86)": "C:\\Program Files (x86)",
  LOCALAPPDATA: "C:\\Users\\ana\\AppData\\Local",
  Path: "C:\\Windows\\System32",
};

describe("shellFor: the shell of the bash tool and of list hooks", () => {
  test("Unix: /bin/bash -c, and -lc for a login shell", () => {
    const shell = shellFor({ platform: LINUX, fs: { stat: () => undefined }, which: () => null }, {});
    expect(shell.argv("ls -la")).toEqual(["/bin/bash", "-c", "ls -la"]);
    expect(shell.argv("ls", { login: true })).toEqual(["/bin/bash", "-lc", "ls"]);
  });

  test("Windows: Git Bash where Git for Windows installs it", () => {
    const shell = shellFor(windows(["C:\\Program Files\\Git\\bin\\bash.exe"], { pwsh: "C:\\Program Files\\PowerShell\\7\\pwsh.exe" }), ENV);
    expect(shell.kind).toBe("bash");
    expect(shell.argv("echo hi")).toEqual(["C:\\Program Files\\Git\\bin\\bash.exe", "-c", "echo hi"]);
    expect(shell.describe).toBe("bash (C:\\Program Files\\Git\\bin\\bash.exe)");
  });

  test("Windows: a per-user Git install, and bash.exe beside git.exe on PATH", () => {
    expect(findGitBash(windows(["C:\\Users\\ana\\AppData\\Local\\Programs\\Git\\bin\\bash.exe"]), ENV)).toBe(
      "C:\\Users\\ana\\AppData\\Local\\Programs\\Git\\bin\\bash.exe",
    );
    expect(findGitBash(windows(["D:\\tools\\Git\\bin\\bash.exe"], { "git.exe": "D:\\tools\\Git\\cmd\\git.exe" }), ENV)).toBe("D:\\tools\\Git\\bin\\bash.exe");
    expect(findGitBash(windows(["D:\\tools\\Git\\bin\\bash.exe"], { "git.exe": "D:\\tools\\Git\\mingw64\\bin\\git.exe" }), ENV)).toBe(
      "D:\\tools\\Git\\bin\\bash.exe",
    );
  });

  test("Windows: WSL's System32 bash.exe is not Git Bash; PowerShell comes next, with -NoProfile -NonInteractive -Command", () => {
    const probe = windows([], { "bash.exe": "C:\\Windows\\System32\\bash.exe", pwsh: "C:\\Program Files\\PowerShell\\7\\pwsh.exe" });
    expect(findGitBash(probe, ENV)).toBeNull();
    const shell = shellFor(probe, ENV);
    expect(shell.kind).toBe("powershell");
    expect(shell.argv("Get-ChildItem")).toEqual([
      "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
      "-NoLogo",
      "-NoProfile",
      "-NonInteractive",
      "-Command",
      "Get-ChildItem",
    ]);
  });

  test("Windows: powershell.exe when there is no pwsh; nothing found names what was tried", () => {
    const legacy = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";
    expect(shellFor(windows([], { "powershell.exe": legacy }), ENV).program).toBe(legacy);
    const none = shellFor(windows([]), ENV);
    expect(none.program).toBe("powershell.exe");
    expect(none.describe).toBe("none found (tried Git Bash, pwsh, powershell.exe)");
  });

  test("Windows list hooks run in Git Bash when found, lifecycle commands stay in PowerShell", () => {
    const which = (command: string) => (command === "pwsh" ? "C:\\pwsh.exe" : null);
    const bash = "C:\\Program Files\\Git\\bin\\bash.exe";
    const list = planShellSpawn(WIN, which, "list", "./check.sh", "C:\\repo", "C:\\repo", bash);
    expect(list).toEqual({ ok: true, argv: [bash, "-lc", "./check.sh"], cwd: "C:\\repo" });
    const lifecycle = planShellSpawn(WIN, which, "lifecycle", "echo $AGENT_PROJECT_DIR", "C:\\repo", "C:\\repo", bash);
    expect(lifecycle).toEqual({ ok: true, argv: ["C:\\pwsh.exe", "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "echo 'C:\\repo'"], cwd: "C:\\repo" });
    const noBash = planShellSpawn(WIN, which, "list", "Get-Date", "C:\\repo", "C:\\repo", null);
    expect(noBash.ok && noBash.argv[0]).toBe("C:\\pwsh.exe");
  });
});
