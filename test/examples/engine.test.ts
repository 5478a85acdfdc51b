/**
 * Each example installed into a temp project exactly as its README says, then fired through the
 * real engine: `agent hooks test EVENT … --json --trust --cwd <project>` (discovery, trust,
 * preflight, spawn, decode, merge). `agent hooks init` is checked against the template files.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { EXAMPLES, fakeCommand } from "./helpers.ts";

interface HookRow {
  readonly label: string;
  readonly form: string;
  readonly dialect: string;
  readonly status: string;
  readonly category: string | null;
}
interface Outcome {
  readonly code: number | null;
  readonly decision: string;
  readonly reason: string | null;
  readonly context: string;
  readonly hooks: readonly HookRow[];
  readonly raw: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Runs `agent hooks test … --json --trust --cwd <project>` and parses the one JSON object. */
async function hooksTest(world: World, args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  const run = await runCliInProcess(world, ["hooks", "test", ...args, "--json", "--trust", "--cwd", world.project], { env: world.env(env) });
  let parsed: unknown;
  try {
    parsed = JSON.parse(run.stdout);
  } catch {
    throw new Error(`hooks test printed no JSON (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.hooks)) throw new Error(`unexpected output: ${run.stdout}`);
  const hooks = parsed.hooks.filter(isRecord).map((row) => ({
    label: String(row.label),
    form: String(row.form),
    dialect: String(row.dialect),
    status: String(row.status),
    category: typeof row.category === "string" ? row.category : null,
  }));
  return {
    code: run.code,
    decision: String(parsed.decision),
    reason: typeof parsed.reason === "string" ? parsed.reason : null,
    context: typeof parsed.context === "string" ? parsed.context : "",
    hooks,
    raw: `${run.stdout}\n${run.stderr}`,
  };
}

/** Copies a hook-directory example into `<project>/.agent/hooks/<name>/`, modes kept. */
function installHookDir(world: World, name: string): void {
  cpSync(join(EXAMPLES, name), join(world.project, ".agent", "hooks", name), { recursive: true });
}

/** Installs a script example: script into `.agent/scripts/`, snippet appended to config.toml. */
function installLifecycle(world: World, name: string): void {
  mkdirSync(join(world.project, ".agent", "scripts"), { recursive: true });
  copyFileSync(join(EXAMPLES, name, `${name}.sh`), join(world.project, ".agent", "scripts", `${name}.sh`));
  const config = join(world.project, ".agent", "config.toml");
  const before = existsSync(config) ? readFileSync(config, "utf8") : "";
  writeFileSync(config, before + readFileSync(join(EXAMPLES, name, "config.toml"), "utf8"));
}

describe("examples through agent hooks test", () => {
  test("D2 guard-bash denies rm -rf / and allows ls", async () => {
    const world = makeWorld();
    installHookDir(world, "guard-bash");
    const denied = await hooksTest(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"rm -rf /"}']);
    expect(denied.code).toBe(2);
    expect(denied.decision).toBe("deny");
    expect(denied.reason ?? "").toStartWith("guard-bash: rm -r of /");
    expect(denied.hooks).toEqual([{ label: "guard-bash", form: "dir", dialect: "action", status: "success", category: null }]);
    const allowed = await hooksTest(world, ["pre_tool", "--tool", "Bash", "--input", '{"command":"ls -la"}']);
    expect(allowed.code).toBe(0);
    expect(allowed.decision).toBe("allow");
  });

  test("D2 protect-secrets denies a write to .env and ignores reads", async () => {
    const world = makeWorld();
    installHookDir(world, "protect-secrets");
    const write = await hooksTest(world, ["pre_tool", "--tool", "write", "--input", '{"file_path":".env","content":"X=1"}']);
    expect(write.code).toBe(2);
    expect(write.decision).toBe("deny");
    expect(write.reason ?? "").toContain(".env looks like a secrets file");
    const read = await hooksTest(world, ["pre_tool", "--tool", "read", "--input", '{"file_path":".env"}']);
    expect(read.decision).toBe("allow");
    expect(read.hooks.map((row) => row.status)).toEqual(["success"]);
  });

  test("D12 audit-log passes preflight and appends redacted envelopes", async () => {
    const world = makeWorld();
    mkdirSync(join(world.project, ".agent", "scripts"), { recursive: true });
    copyFileSync(join(EXAMPLES, "audit-log", "audit-jsonl.sh"), join(world.project, ".agent", "scripts", "audit-jsonl.sh"));
    copyFileSync(join(EXAMPLES, "audit-log", "settings.json"), join(world.project, ".agent", "settings.json"));
    const before = await hooksTest(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"echo top-secret-value"}']);
    expect(before.decision).toBe("allow");
    expect(before.hooks).toEqual([{ label: "audit-before", form: "list", dialect: "envelope", status: "success", category: null }]);
    const after = await hooksTest(world, ["post_tool", "--tool", "bash", "--input", '{"command":"ls"}', "--result", '{"success":true,"content":"a.txt"}']);
    expect(after.hooks.map((row) => `${row.label}:${row.status}`)).toEqual(["audit-after:success"]);
    const text = readFileSync(join(world.project, ".agent", "audit.jsonl"), "utf8");
    expect(text).not.toContain("top-secret-value");
    const lines = text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.schema, line.phase, line.tool?.name])).toEqual([
      ["agent.tool_hook", "before_tool", "bash"],
      ["agent.tool_hook", "after_tool", "bash"],
    ]);
  });

  test("D7 format-on-write runs the installed formatter on the written file", async () => {
    const world = makeWorld();
    installLifecycle(world, "format-on-write");
    writeFileSync(join(world.project, "main.go"), "package main\n");
    const bin = fakeCommand(join(world.root, "bin"), "gofmt", `printf '%s\\n' "$*" >> "${world.root}/gofmt.calls"`);
    const outcome = await hooksTest(world, ["post_tool", "--tool", "write", "--input", '{"file_path":"main.go","content":"package main\\n"}'], {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
    });
    expect(outcome.code).toBe(0);
    expect(outcome.decision).toBe("continue");
    expect(outcome.hooks.map((row) => `${row.form}:${row.dialect}:${row.status}`)).toEqual(["lifecycle:claude:success"]);
    expect(readFileSync(join(world.root, "gofmt.calls"), "utf8")).toBe("-w main.go\n");
    // Matcher Write|Edit: a read never spawns it.
    expect((await hooksTest(world, ["post_tool", "--tool", "read", "--input", '{"file_path":"main.go"}'])).hooks).toEqual([]);
  });

  test("CLI-11 session-context gives the git branch as hidden context", async () => {
    const world = makeWorld({ git: false });
    spawnSync("git", ["init", "-q", "-b", "main", world.project]);
    installLifecycle(world, "session-context");
    const outcome = await hooksTest(world, ["session_start"]);
    expect(outcome.code).toBe(0);
    expect(outcome.decision).toBe("continue");
    expect(outcome.context).toStartWith("git branch: main\ngit status (1 changed):\n?? .agent/");
  });

  test("CLI-11 LIFE-59 keep-going-until-tests-pass blocks the stop while tests fail", async () => {
    const world = makeWorld();
    installLifecycle(world, "keep-going-until-tests-pass");
    const env = { AGENT_TEST_COMMAND: "echo '2 failing'; exit 1" };
    const failing = await hooksTest(world, ["stop"], env);
    expect(failing.code).toBe(2);
    expect(failing.decision).toBe("block");
    expect(failing.reason).toBe("tests are failing (echo '2 failing'; exit 1 exited 1):\n2 failing");
    const active = await hooksTest(world, ["stop", "--field", "stop_hook_active=true"], env);
    expect(active.code).toBe(0);
    expect(active.decision).toBe("continue");
    expect((await hooksTest(world, ["stop"], { AGENT_TEST_COMMAND: "true" })).decision).toBe("continue");
  });

  test("CLI-11 prompt-guard blocks a prompt holding a password", async () => {
    const world = makeWorld();
    installLifecycle(world, "prompt-guard");
    const blocked = await hooksTest(world, ["user_prompt_submit", "--prompt", "deploy it, my password is hunter2"]);
    expect(blocked.code).toBe(2);
    expect(blocked.decision).toBe("block");
    expect(blocked.reason ?? "").toStartWith("prompt-guard: the prompt seems to contain a password");
    expect(blocked.reason ?? "").not.toContain("hunter2");
    const fine = await hooksTest(world, ["user_prompt_submit", "--prompt", "add a password field to the form"]);
    expect(fine.code).toBe(0);
    expect(fine.decision).toBe("continue");
  });

  test("D6 notify calls notify-send and never changes the notification", async () => {
    const world = makeWorld();
    installLifecycle(world, "notify");
    const bin = fakeCommand(join(world.root, "bin"), "notify-send", `printf '[%s]' "$@" >> "${world.root}/notify.calls"`);
    const outcome = await hooksTest(world, ["notification", "--field", 'title="Build"', "--field", 'message="tests passed"'], {
      PATH: `${bin}:${process.env.PATH ?? ""}`,
    });
    expect(outcome.code).toBe(0);
    expect(outcome.decision).toBe("continue");
    expect(outcome.hooks.map((row) => row.status)).toEqual(["success"]);
    expect(readFileSync(join(world.root, "notify.calls"), "utf8")).toBe("[--][Build][tests passed]");
  });
});

describe("agent hooks init", () => {
  test("CLI-18 init guard-bash copies the template with executable bits and stays untrusted", async () => {
    const world = makeWorld();
    const first = await runCliInProcess(world, ["hooks", "init", "guard-bash", "--cwd", world.project]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("agent hooks trust");
    const target = join(world.project, ".agent", "hooks", "guard-bash");
    for (const file of ["hook.json", "run.sh"]) {
      expect(readFileSync(join(target, file), "utf8")).toBe(readFileSync(join(EXAMPLES, "guard-bash", file), "utf8"));
    }
    expect(statSync(join(target, "run.sh")).mode & 0o111).toBe(0o111);
    const hookJsonBefore = readFileSync(join(target, "hook.json"), "utf8");
    writeFileSync(join(target, "hook.json"), `${hookJsonBefore} `);
    const again = await runCliInProcess(world, ["hooks", "init", "guard-bash", "--cwd", world.project]);
    expect(again.code).toBe(1);
    expect(readFileSync(join(target, "hook.json"), "utf8")).toBe(`${hookJsonBefore} `);
    const unknown = await runCliInProcess(world, ["hooks", "init", "nope", "--cwd", world.project]);
    expect(unknown.code).toBe(1);
    expect(`${unknown.stdout}${unknown.stderr}`).toContain("guard-bash");
    expect(`${unknown.stdout}${unknown.stderr}`).toContain("protect-secrets");
    // Untrusted: hooks test refuses to run project hooks without --trust.
    const untrusted = await runCliInProcess(world, [
      "hooks",
      "test",
      "pre_tool",
      "--tool",
      "bash",
      "--input",
      '{"command":"rm -rf /"}',
      "--json",
      "--cwd",
      world.project,
    ]);
    expect(untrusted.code).toBe(1);
    expect(readdirSync(target).sort()).toEqual(readdirSync(join(EXAMPLES, "guard-bash")).sort());
  });
});
