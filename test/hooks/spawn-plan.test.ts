import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planDirSpawn, planShellSpawn, powerShellQuote, substituteProjectDir } from "../../src/hooks/shell/spawn-plan.ts";
import type { DirHookSpec } from "../../src/hooks/types.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import type { FileStat, FileSystem, PlatformFacts } from "../../src/runtime/types.ts";

const runtime = createRuntime();
const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-plan-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const linux: PlatformFacts = { os: "linux", arch: "x64", tmpdir: "/tmp", homedir: "/home/u", uid: 1000 };
const win32: PlatformFacts = { os: "win32", arch: "x64", tmpdir: "C:\\Temp", homedir: "C:\\Users\\u", uid: null };
const PWSH = "C:\\Program Files\\PowerShell\\7\\pwsh.exe";
const WINPS = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";

function whichOf(found: Record<string, string>): (cmd: string) => string | null {
  return (cmd) => found[cmd] ?? null;
}

function dirSpec(dir: string, run: string): DirHookSpec {
  return {
    label: "guard",
    scope: "project",
    form: "dir",
    dialect: "action",
    event: "pre_tool",
    source: join(dir, "hook.json"),
    field: "",
    disabled: false,
    timeoutMs: 5000,
    name: "guard",
    dir,
    run,
    match: "*",
    failClosed: false,
    async: false,
  };
}

/** A Windows-ish file system: every listed path is a regular file, nothing else exists. */
function fakeFs(files: string[]): FileSystem {
  const stat = (path: string): FileStat | undefined => (files.includes(path) ? { kind: "file", mode: 0o644, size: 1, mtimeMs: 0 } : undefined);
  return { ...runtime.fs, stat, lstat: stat, isExecutable: () => false };
}

describe("planDirSpawn", () => {
  test("RUN-01 RUN-03 planning part: run is exec'd directly with the hook dir as cwd", () => {
    const dir = join(root, "probe");
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(join(dir, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(dir, "bin", "guard"), "#!/bin/sh\n", { mode: 0o755 });
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, join(dir, "run.sh")))).toEqual({ ok: true, argv: [join(dir, "run.sh")], cwd: dir });
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, join(dir, "bin", "guard")))).toEqual({
      ok: true,
      argv: [join(dir, "bin", "guard")],
      cwd: dir,
    });
  });

  test("RUN-34 RUN-02 missing, non-executable and directory targets, checked on every call", () => {
    const dir = join(root, "broken");
    mkdirSync(join(dir, "adir"), { recursive: true });
    const noexec = join(dir, "noexec.sh");
    writeFileSync(noexec, "#!/bin/sh\n");
    chmodSync(noexec, 0o644);
    const missing = join(dir, "run.sh; touch pwned");
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, missing))).toEqual({ ok: false, detail: `not found: ${missing}` });
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, noexec))).toEqual({ ok: false, detail: `not executable: ${noexec} (chmod +x)` });
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, join(dir, "adir")))).toEqual({ ok: false, detail: `not a file: ${join(dir, "adir")}` });
    // Never cached: fixing the file fixes the next call, breaking it breaks the next call.
    chmodSync(noexec, 0o755);
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, noexec)).ok).toBe(true);
    chmodSync(noexec, 0o644);
    expect(planDirSpawn(runtime.fs, linux, runtime.which, dirSpec(dir, noexec)).ok).toBe(false);
  });

  test("RUN-08 win32: .exe direct, .ps1 via PowerShell -File, .cmd/.bat refused", () => {
    const dir = "C:\\p\\.agent\\hooks\\guard";
    const exe = `${dir}\\guard.exe`;
    const ps1 = `${dir}\\guard.ps1`;
    const cmd = `${dir}\\guard.cmd`;
    const bat = `${dir}\\GUARD.BAT`;
    const fs = fakeFs([exe, ps1, cmd, bat]);
    const which = whichOf({ pwsh: PWSH });
    expect(planDirSpawn(fs, win32, which, dirSpec(dir, exe))).toEqual({ ok: true, argv: [exe], cwd: dir });
    expect(planDirSpawn(fs, win32, which, dirSpec(dir, ps1))).toEqual({
      ok: true,
      argv: [PWSH, "-NoLogo", "-NoProfile", "-NonInteractive", "-File", ps1],
      cwd: dir,
    });
    for (const target of [cmd, bat]) {
      expect(planDirSpawn(fs, win32, which, dirSpec(dir, target))).toEqual({ ok: false, detail: "cannot run .cmd/.bat directly; use .exe or .ps1" });
    }
    expect(planDirSpawn(fs, win32, whichOf({ "powershell.exe": WINPS }), dirSpec(dir, ps1))).toMatchObject({
      ok: true,
      argv: [WINPS, "-NoLogo", "-NoProfile", "-NonInteractive", "-File", ps1],
    });
    expect(planDirSpawn(fs, win32, whichOf({}), dirSpec(dir, ps1))).toEqual({ ok: false, detail: "PowerShell not found (tried pwsh, powershell.exe)" });
    expect(planDirSpawn(fs, win32, which, dirSpec(dir, `${dir}\\missing.exe`))).toEqual({ ok: false, detail: `not found: ${dir}\\missing.exe` });
  });
});

describe("planShellSpawn", () => {
  test("RUN-04 RUN-05 unix: lifecycle via /bin/sh -c, list via /bin/bash -lc, text unchanged, agent cwd", () => {
    const command = 'pwd -P > "$AGENT_PROJECT_DIR/where.txt"';
    expect(planShellSpawn(linux, runtime.which, "lifecycle", command, "/p/pkg/sub", "/p")).toEqual({
      ok: true,
      argv: ["/bin/sh", "-c", command],
      cwd: "/p/pkg/sub",
    });
    expect(planShellSpawn(linux, runtime.which, "list", "./scripts/where.sh", "/p/pkg", "/p")).toEqual({
      ok: true,
      argv: ["/bin/bash", "-lc", "./scripts/where.sh"],
      cwd: "/p/pkg",
    });
  });

  test("RUN-06 win32: pwsh first, else powershell.exe; lifecycle project-dir variables become the quoted root", () => {
    const flags = ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command"];
    const both = whichOf({ pwsh: PWSH, "powershell.exe": WINPS });
    expect(planShellSpawn(win32, both, "list", "./scripts/h.ps1", "C:\\p", "C:\\p")).toEqual({
      ok: true,
      argv: [PWSH, ...flags, "./scripts/h.ps1"],
      cwd: "C:\\p",
    });
    expect(planShellSpawn(win32, whichOf({ "powershell.exe": WINPS }), "list", "./scripts/h.ps1", "C:\\p", "C:\\p")).toMatchObject({
      argv: [WINPS, ...flags, "./scripts/h.ps1"],
    });
    expect(planShellSpawn(win32, both, "lifecycle", "$AGENT_PROJECT_DIR/.agent/hooks/a.ps1", "C:\\p\\pkg", "C:\\p")).toEqual({
      ok: true,
      argv: [PWSH, ...flags, "'C:\\p'/.agent/hooks/a.ps1"],
      cwd: "C:\\p\\pkg",
    });
    expect(planShellSpawn(win32, both, "lifecycle", "& ${CLAUDE_PROJECT_DIR}/x.ps1 $VT_PROJECT_DIR", "C:\\O'Neil", "C:\\O'Neil")).toMatchObject({
      argv: [PWSH, ...flags, "& 'C:\\O''Neil'/x.ps1 'C:\\O''Neil'"],
    });
    // List commands are never rewritten; neither are longer variable names.
    expect(planShellSpawn(win32, both, "list", "$AGENT_PROJECT_DIR/x.ps1", "C:\\p", "C:\\p")).toMatchObject({
      argv: [PWSH, ...flags, "$AGENT_PROJECT_DIR/x.ps1"],
    });
    expect(substituteProjectDir("$AGENT_PROJECT_DIRS $AGENT_PROJECT_DIR", "C:\\p")).toBe("$AGENT_PROJECT_DIRS 'C:\\p'");
    expect(substituteProjectDir("$AGENT_PROJECT_DIR", "C:\\$&x")).toBe("'C:\\$&x'");
    expect(powerShellQuote("a'b''c")).toBe("'a''b''''c'");
  });

  test("RUN-07 PLUS-03 win32 without PowerShell: plan fails with the runner detail, nothing to spawn", () => {
    for (const form of ["list", "lifecycle"] as const) {
      expect(planShellSpawn(win32, whichOf({ "cmd.exe": "C:\\Windows\\System32\\cmd.exe" }), form, "./h.ps1", "C:\\p", "C:\\p")).toEqual({
        ok: false,
        detail: "PowerShell not found (tried pwsh, powershell.exe)",
      });
    }
  });
});
