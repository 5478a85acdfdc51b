/**
 * Through the real CLI: a settings file that does not parse stops
 * every command that would run hooks or the model, `agent run -` reads the prompt from stdin,
 * `--continue` stays in the current project, usage errors exit 2, and the help texts say what the
 * flags and the interactive session do.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CANONICAL_EVENTS } from "../../src/util/events.ts";
import { HOOK_TEMPLATES } from "../../src/hooks/templates.ts";
import { makeWorld, readJsonl, runCli, sessionFileOf, sessionIdOfName, writeScript, type World } from "../support/cli.ts";

const SCRIPT_RUN = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--output-format", "json"];

function sessionIds(world: World): string[] {
  const dir = join(world.agentHome, "sessions");
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith(".jsonl"))
        .map(sessionIdOfName)
    : [];
}

function records(world: World, id: string): Record<string, unknown>[] {
  return readJsonl(readFileSync(sessionFileOf(join(world.agentHome, "sessions"), id), "utf8"));
}

describe("a config file that does not parse stops the run", () => {
  test("CLI-15 a trailing comma in settings.json: agent run refuses with file:line:col as hooks validate prints it, and rm never runs", () => {
    const w = makeWorld();
    const victim = w.file("victim.txt", "keep me\n");
    w.file(".agent/settings.json", '{\n  "permissions": { "deny": ["bash(rm*)"], },\n  "hooks": {}\n}\n');
    writeScript(w, [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: `rm -f '${victim}'` } }] }, { text: "done" }]);

    const validate = runCli(w, ["hooks", "validate"]);
    expect(validate.code).toBe(1);
    const validateLine = validate.stdout.split("\n").find((line) => line.startsWith("error: ")) ?? "";
    expect(validateLine).toMatch(/^error: \.agent\/settings\.json:2:\d+: could not parse JSON: /);

    for (const extra of [[], ["--no-hooks"], ["--trust"]]) {
      const run = runCli(w, [...SCRIPT_RUN, ...extra, "clean up"]);
      expect(run.code).toBe(1);
      const first = run.stderr.split("\n")[0] ?? "";
      expect(first).toStartWith(`agent: ${validateLine.slice("error: ".length)}`);
      expect(first).toContain("agent hooks validate");
      expect(run.stdout).toBe("");
      expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    }
    expect(sessionIds(w)).toEqual([]);
  });

  test("a TOML syntax error in the user config.toml stops agent run, agent hooks test and agent notify", () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "config.toml"), '[permissions]\ndeny = ["bash(rm*)"\n');
    writeScript(w, [{ text: "never" }]);
    const run = runCli(w, [...SCRIPT_RUN, "hi"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^agent: ~\/\.agent\/config\.toml:\d+:\d+: could not parse TOML: /);
    const hooksTest = runCli(w, ["hooks", "test", "pre_tool", "--tool", "bash", "--input", '{"command":"rm -rf x"}', "--json"]);
    expect(hooksTest.code).toBe(1);
    expect(hooksTest.stdout).toBe("");
    expect(hooksTest.stderr).toContain("config.toml:");
    const notify = runCli(w, ["notify", "hello"]);
    expect(notify.code).toBe(1);
    expect(notify.stderr).toContain("could not parse TOML");
  });
});

describe("the interactive session (AGENT_INTERACTIVE=1 stands in for a terminal)", () => {
  test("refuses a settings file that does not parse, and --continue resumes this project's newest session", () => {
    const w = makeWorld();
    writeScript(w, [{ text: "hello" }]);
    expect(runCli(w, [...SCRIPT_RUN, "remember me"]).code).toBe(0);
    const [id] = sessionIds(w);
    const env = w.env({ AGENT_INTERACTIVE: "1" });
    const resumed = runCli(w, ["--provider", "script", "--script", "script.json", "--continue"], { env, input: "/exit\n" });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming session ${id}`);
    w.file(".agent/settings.json", "{,}\n");
    const broken = runCli(w, ["--provider", "script", "--script", "script.json"], { env, input: "/exit\n" });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toStartWith("agent: .agent/settings.json:1:2: could not parse JSON");
  });
});

describe("agent run -", () => {
  test("reads the prompt from stdin, trailing newline dropped; empty stdin is a usage error", () => {
    const w = makeWorld();
    writeScript(w, [{ text: "read it" }]);
    const run = runCli(w, [...SCRIPT_RUN, "-"], { input: "prompt from a pipe\n" });
    expect(run.code).toBe(0);
    const [id] = sessionIds(w);
    const users = records(w, id ?? "")
      .filter((r) => r.type === "user")
      .map((r) => r.content);
    expect(users).toEqual(["prompt from a pipe"]);
    const empty = runCli(w, [...SCRIPT_RUN, "-"], { input: "" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("no prompt given");
  });
});

describe("--continue picks the newest session of this project", () => {
  test("LIFE-16 a newer session elsewhere is not resumed; a project without sessions says so", () => {
    const w = makeWorld();
    const other = join(w.root, "other");
    mkdirSync(join(other, ".git"), { recursive: true });
    const empty = join(w.root, "empty");
    mkdirSync(join(empty, ".git"), { recursive: true });
    const script = writeScript(w, [{ text: "ok" }, { text: "again" }]);
    const run = (cwd: string, extra: string[], prompt: string) =>
      runCli(w, ["run", "--provider", "script", "--script", script, "--output-format", "json", ...extra, prompt], { cwd });

    const here = run(w.project, [], "first here");
    expect(here.code).toBe(0);
    const hereId = String(JSON.parse(here.stdout).session_id);
    const elsewhere = run(other, [], "newer, elsewhere");
    expect(elsewhere.code).toBe(0);
    const elsewhereId = String(JSON.parse(elsewhere.stdout).session_id);
    expect(elsewhereId).not.toBe(hereId);
    // Both ran within the same second or so; date the other project's session later so "newest of
    // any directory" would pick it for sure.
    const elsewherePath = sessionFileOf(join(w.agentHome, "sessions"), elsewhereId);
    writeFileSync(elsewherePath, readFileSync(elsewherePath, "utf8").replace(/"timestamp":"\d{4}-/g, '"timestamp":"2099-'));
    expect(runCli(w, ["sessions", "list"]).stdout.split("\n")[0]).toStartWith(elsewhereId);

    const resumed = run(w.project, ["--continue"], "continue here");
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).session_id).toBe(hereId);
    expect(
      records(w, hereId)
        .filter((r) => r.type === "user")
        .map((r) => r.content),
    ).toEqual(["first here", "continue here"]);
    expect(
      records(w, elsewhereId)
        .filter((r) => r.type === "user")
        .map((r) => r.content),
    ).toEqual(["newer, elsewhere"]);

    const none = run(empty, ["--continue"], "nothing to continue");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`--continue: no earlier session in ${empty}`);
  });
});

describe("usage errors exit 2 everywhere", () => {
  const usage: string[][] = [
    ["bogus"],
    ["--bogus"],
    ["run", "--bogus", "hi"],
    ["run", "--provider", "script", "hi"],
    ["run"],
    ["hooks"],
    ["hooks", "bogus"],
    ["hooks", "list", "--bogus"],
    ["hooks", "validate", "--bogus"],
    ["hooks", "trust", "--bogus"],
    ["hooks", "init"],
    ["hooks", "init", "guard-bash", "--bogus"],
    ["config"],
    ["config", "bogus"],
    ["config", "path", "--bogus"],
    ["config", "show", "--bogus"],
    ["config", "schema", "--bogus"],
    ["sessions"],
    ["sessions", "bogus"],
    ["sessions", "list", "--bogus"],
    ["sessions", "show"],
    ["sessions", "show", "x", "--bogus"],
    ["notify"],
    ["notify", "--bogus", "hi"],
  ];
  test("unknown commands, unknown options, missing arguments and a missing --script: exit 2, one line naming the problem", () => {
    const w = makeWorld();
    for (const args of usage) {
      const r = runCli(w, args);
      if (r.code !== 2) throw new Error(`agent ${args.join(" ")} exited ${r.code}:\n${r.stderr}`);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n").length).toBe(1);
      expect(r.stderr).toStartWith("agent: ");
    }
    expect(runCli(w, ["run", "--provider", "script", "hi"]).stderr).toContain("--script FILE");
    expect(runCli(w, ["run", "--bogus", "hi"]).stderr).toContain("--bogus");
    expect(runCli(w, ["bogus"]).stderr).toContain('unknown command "bogus"');
  });

  test("CLI-07 CLI-08 CLI-18 agent hooks test keeps exit 1 for bad arguments (its 2 means deny), unknown values exit 1", () => {
    const w = makeWorld();
    for (const args of [
      ["hooks", "test"],
      ["hooks", "test", "pre_tools"],
      ["hooks", "test", "pre_tool", "--bogus"],
      ["hooks", "init", "nope"],
      ["sessions", "show", "nope"],
    ]) {
      const r = runCli(w, args);
      if (r.code !== 1) throw new Error(`agent ${args.join(" ")} exited ${r.code}:\n${r.stderr}`);
    }
  });

  test("agent without a terminal says the interactive session needs one and exits 2", () => {
    const w = makeWorld();
    for (const args of [[], ["--provider", "script", "--script", "script.json"]]) {
      const r = runCli(w, args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain("the interactive session needs a terminal");
      expect(r.stderr).toContain("agent run");
    }
  });
});

describe("help texts", () => {
  test("--no-hooks and --no-session do not claim a default of true; --continue says this project", () => {
    const w = makeWorld();
    const help = runCli(w, ["run", "--help"]);
    expect(help.code).toBe(0);
    const lines = help.stdout.split("\n");
    for (const flag of ["--no-hooks", "--no-session"]) {
      const line = lines.find((l) => l.trimStart().startsWith(flag)) ?? "";
      expect(line).not.toBe("");
      expect(line).not.toContain("default");
    }
    expect(lines.find((l) => l.includes("--continue"))).toContain("this project");
  });

  test("agent --help describes the interactive session", () => {
    const r = runCli(makeWorld(), ["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Interactive session:");
    expect(r.stdout).toContain("With no command, agent opens the interactive session");
    expect(r.stdout).toContain("--continue");
  });

  test("agent hooks --help lists the actions, every template and every event", () => {
    const r = runCli(makeWorld(), ["hooks", "--help"]);
    expect(r.code).toBe(0);
    for (const action of ["list [--json]", "validate", "test EVENT", "trust", "init TEMPLATE"]) expect(r.stdout).toContain(`  ${action}`);
    const templates = Object.keys(HOOK_TEMPLATES);
    expect(templates.length).toBe(8);
    for (const name of templates) expect(r.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
    for (const event of CANONICAL_EVENTS) expect(r.stdout).toContain(event);
  });
});
