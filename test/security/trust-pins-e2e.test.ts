// What trust pins, through the real CLI (`hooks trust`, `agent run`, `hooks list`), each next to
// the legitimate use that keeps working: a symlinked hook directory is pinned by the contents of
// the files under its target; files under .claude/hooks/ are pinned when Claude Code settings give
// the project hooks; a hook dir's absolute `run` outside the project is pinned; `/dev/stdin`, a FIFO
// and `/dev/zero` under .agent/ are pinned as what they are and never read, so nothing hangs or grows.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, makeWorld, runCli, type World } from "../support/cli.ts";

setDefaultTimeout(120_000);

const RUN = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "go"];

function bashTurn(w: World): void {
  w.file("script.json", JSON.stringify({ turns: [{ tool_calls: [{ id: "b1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }] }));
}

/** Trusts, runs (the hook leaves `ok`), swaps the sourced file for one that leaves `evil`, runs again. */
function trustRunTamper(w: World, sourced: string): { second: { code: number | null; stderr: string } } {
  const trusted = runCli(w, ["hooks", "trust"]);
  expect(trusted.stderr).toBe("");
  expect(trusted.code).toBe(0);
  const first = runCli(w, RUN);
  expect(first.stderr).not.toContain("trust");
  expect(first.code).toBe(0);
  expect(existsSync(join(w.root, "ok"))).toBe(true);
  writeFileSync(sourced, `touch "${w.root}/evil"\n`);
  const second = runCli(w, RUN);
  expect(existsSync(join(w.root, "evil"))).toBe(false);
  return { second };
}

const SOURCING = (lib: string) => `#!/bin/sh\ncat >/dev/null\n. "${lib}"\n`;

describe("trust pins what runs", () => {
  test("a symlinked hook dir is pinned by the files under its target, not by the link's name", () => {
    const w = makeWorld();
    const lib = w.file("tools/fmt/lib.sh", `touch "${w.root}/ok"\n`);
    w.file("tools/fmt/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file("tools/fmt/run.sh", SOURCING(lib), { executable: true });
    w.file(".agent/hooks/.keep", "");
    symlinkSync("../../tools/fmt", join(w.project, ".agent/hooks/fmt"));
    bashTurn(w);
    const { second } = trustRunTamper(w, lib);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`file ${join(w.project, ".agent/hooks/fmt/lib.sh")}`);
  });

  test("files under .claude/hooks/ read through compat.claude_settings are pinned", () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "config.toml"), "[compat]\nclaude_settings = true\n");
    const lib = w.file(".claude/hooks/lib.sh", `touch "${w.root}/ok"\n`);
    w.file(".claude/hooks/run.sh", SOURCING(lib), { executable: true });
    w.file(
      ".claude/settings.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/.claude/hooks/run.sh" }] }] } }),
    );
    bashTurn(w);
    const { second } = trustRunTamper(w, lib);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(lib);
  });

  test("a hook dir's absolute run outside the project is pinned: an edit to it asks for trust again", () => {
    const w = makeWorld();
    const tool = w.file(join(w.root, "elsewhere", "tool.sh"), `#!/bin/sh\ncat >/dev/null\ntouch "${w.root}/ok"\n`, { executable: true });
    w.file(".agent/hooks/ext/hook.json", JSON.stringify({ event: "pre_tool", run: tool }));
    bashTurn(w);
    const { second } = trustRunTamper(w, tool);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(tool);
  });
});

/** Runs the CLI with stdin held open (a terminal that never types), killed only by the bound. */
function runHeld(
  w: World,
  args: readonly string[],
  boundMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), ...args], { cwd: w.project, env: w.env(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
    const bound = setTimeout(() => child.kill("SIGKILL"), boundMs);
    child.on("close", (code, signal) => {
      clearTimeout(bound);
      child.stdin.destroy();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe("only regular files are read", () => {
  test("/dev/stdin, a FIFO and /dev/zero under .agent/ hang and grow nothing; the real hook next to them runs", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/x/run.sh", `#!/bin/sh\ncat >/dev/null\ntouch "${w.root}/ok"\n`, { executable: true });
    symlinkSync("/dev/stdin", join(w.project, ".agent/in.sh"));
    symlinkSync("/dev/zero", join(w.project, ".agent/zero"));
    expect(spawnSync("mkfifo", [join(w.project, ".agent/fifo")]).status).toBe(0);
    bashTurn(w);
    // A bound far above what these take (a second or two), far below what a hang would.
    const list = await runHeld(w, ["hooks", "list"], 60_000);
    expect(list.signal).toBeNull();
    expect(list.code).toBe(0);
    const trusted = await runHeld(w, ["hooks", "trust"], 60_000);
    expect(trusted.signal).toBeNull();
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(join(w.project, ".agent/fifo"));
    const run = await runHeld(w, RUN, 60_000);
    expect(run.signal).toBeNull();
    expect(run.stderr).not.toContain("trust");
    expect(run.code).toBe(0);
    expect(existsSync(join(w.root, "ok"))).toBe(true);
  });

  test("a hook.json that is a FIFO or /dev/zero is one load error naming it, not a hang", async () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "hooks/.keep"), "");
    w.file(join(w.agentHome, "hooks/fifo/.keep"), "");
    expect(spawnSync("mkfifo", [join(w.agentHome, "hooks/fifo/hook.json")]).status).toBe(0);
    w.file(join(w.agentHome, "hooks/zero/.keep"), "");
    symlinkSync("/dev/zero", join(w.agentHome, "hooks/zero/hook.json"));
    const validate = await runHeld(w, ["hooks", "validate"], 60_000);
    expect(validate.signal).toBeNull();
    expect(validate.stdout + validate.stderr).toContain(`${join(w.agentHome, "hooks/fifo/hook.json")}`);
    expect(validate.stdout + validate.stderr).toContain("not a regular file");
    expect(validate.stdout + validate.stderr).toContain(`${join(w.agentHome, "hooks/zero/hook.json")}`);
  });
});
