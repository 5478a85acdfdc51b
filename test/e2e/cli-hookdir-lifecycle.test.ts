// CLI, hook-dir and lifecycle cases: the real CLI in a temp world with the
// script provider and real hook processes.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript, readJsonl, REPO, type World } from "../support/cli.ts";
import { RUN, bashTurns, delivered, hookRuns, lastJson, lines, sessionRecords, type Rec } from "./helpers.ts";

setDefaultTimeout(60_000);

const SUMMARY_1 = "agent: 1 hook load warning (set AGENT_DEBUG=1 or run agent hooks list to see it)";
const SUMMARY_2 = "agent: 2 hook load warnings (set AGENT_DEBUG=1 or run agent hooks list to see them)";

describe("CLI", () => {
  test("CLI-23 a malformed hook.json gives one summary line on stderr; AGENT_DEBUG=1 prints the warning itself", () => {
    const w = makeWorld();
    w.file(".agent/hooks/broken/hook.json", "{ not json");
    writeScript(w, [{ text: "ok" }]);
    const quiet = runCli(w, RUN.concat(["go"]));
    expect(quiet.code).toBe(0);
    const quietLines = quiet.stderr.split("\n").filter((l) => l !== "");
    expect(quietLines).toEqual([SUMMARY_1]);

    const debug = runCli(w, RUN.concat(["go"]), { env: w.env({ AGENT_DEBUG: "1" }) });
    expect(debug.code).toBe(0);
    expect(debug.stderr).not.toContain("hook load warning");
    const warning = debug.stderr.split("\n").find((l) => l.includes(".agent/hooks/broken/hook.json"));
    expect(warning).toBeDefined();
    expect(warning).toContain("could not parse hook.json");

    w.file(".agent/hooks/broken2/hook.json", "[1,");
    const two = runCli(w, RUN.concat(["go"]));
    expect(two.code).toBe(0);
    expect(two.stderr.split("\n").filter((l) => l !== "")).toEqual([SUMMARY_2]);
  });

  test("CLI-29 agent --version with a missing AGENT_HOME prints the package version, reads and creates nothing", () => {
    const w = makeWorld();
    const missing = join(w.root, "nowhere", ".agent");
    const version = String(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version);
    // A broken config in HOME would be a load error if anything read it.
    w.file(join(w.home, ".agent", "config.toml"), "[[[ not toml");
    const r = runCli(w, ["--version"], { env: w.env({ AGENT_HOME: missing }) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`agent ${version}`);
    expect(r.stderr).toBe("");
    expect(existsSync(join(w.root, "nowhere"))).toBe(false);
    expect(readdirSync(w.home)).toEqual([".agent"]);
    expect(readdirSync(join(w.home, ".agent"))).toEqual(["config.toml"]);
    expect(readdirSync(w.project)).toEqual([".git"]);
  });
});

describe("hook dirs", () => {
  test("DIR-21 a missing or non-executable run target loads, fails validate, and fails at call time as runner", () => {
    const w = makeWorld();
    w.file(".agent/hooks/gone/hook.json", JSON.stringify({ event: "pre_tool", run: "./missing.sh" }));
    w.file(".agent/hooks/plain/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    const plainRun = w.file(".agent/hooks/plain/run.sh", '#!/bin/sh\necho \'{"action":"allow"}\'\n');
    const missingRun = join(w.project, ".agent/hooks/gone/missing.sh");

    const list = runCli(w, ["hooks", "list", "--json", "--trust"]);
    expect(list.code).toBe(0);
    const labels = (JSON.parse(list.stdout).hooks as Rec[]).map((h) => String(h.label));
    expect(labels).toContain("gone");
    expect(labels).toContain("plain");

    const validate = runCli(w, ["hooks", "validate", "--trust"]);
    expect(validate.code).toBe(1);
    const out = validate.stdout + validate.stderr;
    expect(out).toContain(".agent/hooks/gone/hook.json");
    expect(out).toContain(`not found: ${missingRun}`);
    expect(out).toContain(".agent/hooks/plain/hook.json");
    expect(out).toContain(`not executable: ${plainRun} (chmod +x)`);

    writeScript(w, bashTurns(["echo ran > ran.txt"]));
    const open = runCli(w, RUN.concat(["go"]));
    expect(open.code).toBe(0);
    expect(existsSync(join(w.project, "ran.txt"))).toBe(true);
    const failures = open.stderr.split("\n").filter((l) => l.startsWith("agent: hook "));
    expect(failures.length).toBe(2);
    for (const line of failures) {
      expect(line).toContain("runner");
      expect(line.endsWith("tool ran anyway")).toBe(true);
    }
    expect(open.stderr).toContain(`not found: ${missingRun}`);
    expect(open.stderr).toContain(`not executable: ${plainRun} (chmod +x)`);
    const runs = hookRuns(sessionRecords(w));
    expect(runs.map((r) => [r.label, r.status, r.category])).toEqual(
      expect.arrayContaining([
        ["gone", "failed", "runner"],
        ["plain", "failed", "runner"],
      ]),
    );

    // fail_closed: the same runner failure denies the call.
    const w2 = makeWorld();
    w2.file(".agent/hooks/gone/hook.json", JSON.stringify({ event: "pre_tool", run: "./missing.sh", fail_closed: true }));
    writeScript(w2, bashTurns(["echo ran > ran.txt"]));
    const closed = runCli(w2, RUN.concat(["go"]));
    expect(closed.code).toBe(0);
    expect(existsSync(join(w2.project, "ran.txt"))).toBe(false);
    expect(delivered(sessionRecords(w2))[0]).toContain("fail_closed");
  });

  test("DIR-34 a hook dir runs in its own directory while stdin cwd and AGENT_CWD hold the agent cwd", () => {
    const w = makeWorld();
    const dir = join(w.project, ".agent/hooks/where");
    w.file(join(dir, "hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(join(dir, "run.sh"), `#!/bin/sh\npwd > where.txt\ncat > '${w.root}/stdin.json'\nprintf '%s' "$AGENT_CWD" > '${w.root}/cwd.txt'\n`, {
      executable: true,
    });
    const work = join(w.project, "sub");
    w.file("sub/keep.txt", "");
    writeScript(w, bashTurns(["true"]));
    const r = runCli(w, RUN.concat(["--script", join(w.project, "script.json"), "--cwd", work, "go"]));
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "where.txt"), "utf8").trim()).toBe(dir);
    expect(existsSync(join(work, "where.txt"))).toBe(false);
    expect(JSON.parse(readFileSync(join(w.root, "stdin.json"), "utf8")).cwd).toBe(work);
    expect(readFileSync(join(w.root, "cwd.txt"), "utf8")).toBe(work);
  });

  test("DIR-36 only PATH, HOME and SAFE of the parent's variables reach a hook; stale AGENT_/PHI_HOOK_EVENT are replaced", () => {
    const w = makeWorld();
    w.file(".agent/hooks/env/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/env/run.sh", `#!/bin/sh\ncat >/dev/null\nenv > '${w.root}/env.txt'\n`, { executable: true });
    writeScript(w, bashTurns(["true"]));
    const parent = {
      OPENAI_API_KEY: "sk-x",
      openai_api_key: "sk-y",
      MY_TOKEN: "t",
      DB_PASSWORD: "p",
      MYSQL_PASSWD: "p",
      OPENAI_KEY: "k",
      GH_OAUTH_CLIENT: "c",
      AWS_SESSION_TOKEN: "a",
      TOKENIZERS_PARALLELISM: "false",
      SAFE: "1",
      AGENT_HOOK_EVENT: "stale",
      PHI_HOOK_EVENT: "stale",
    };
    const r = runCli(w, RUN.concat(["go"]), { env: w.env(parent) });
    expect(r.code).toBe(0);
    const env = new Map(
      lines(join(w.root, "env.txt")).map((l) => {
        const at = l.indexOf("=");
        return [l.slice(0, at), l.slice(at + 1)] as const;
      }),
    );
    for (const name of ["OPENAI_API_KEY", "openai_api_key", "MY_TOKEN", "DB_PASSWORD", "MYSQL_PASSWD", "OPENAI_KEY", "GH_OAUTH_CLIENT", "AWS_SESSION_TOKEN"]) {
      expect(env.has(name)).toBe(false);
    }
    // DIR-36's list names TOKENIZERS_PARALLELISM among the stripped, but D18 and RUN-10 say it is
    // never stripped; the decision wins (reported as a spec contradiction).
    expect(env.get("TOKENIZERS_PARALLELISM")).toBe("false");
    expect(env.get("PATH")).toBe(process.env.PATH ?? "");
    expect(env.get("HOME")).toBe(w.home);
    expect(env.get("SAFE")).toBe("1");
    expect(env.get("AGENT_HOOK_EVENT")).toBe("pre_tool");
    expect(env.get("PHI_HOOK_EVENT")).toBe("pre_tool");
  });

  test("DIR-70 each hook invocation is a fresh process: two bash calls write two different PIDs", () => {
    const w = makeWorld();
    w.file(".agent/hooks/pid/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/pid/run.sh", `#!/bin/sh\ncat >/dev/null\necho $$ >> '${w.root}/pids'\n`, { executable: true });
    writeScript(w, bashTurns(["true"], ["true"]));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    const pids = lines(join(w.root, "pids"));
    expect(pids.length).toBe(2);
    expect(pids[0]).not.toBe(pids[1]);
  });

  test("DIR-71 with no hooks the session, tool results and output equal those with AGENT_HOOKS=off", () => {
    const run = (extra: Record<string, string>): { records: Rec[]; stdout: string; stderr: string } => {
      const w = makeWorld();
      writeScript(w, bashTurns(["echo one"], ["printf two"]));
      const r = runCli(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "go"], { env: w.env(extra) });
      expect(r.code).toBe(0);
      return { records: normalize(sessionRecords(w), w), stdout: r.stdout, stderr: r.stderr };
    };
    const none = run({});
    const off = run({ AGENT_HOOKS: "off" });
    expect(none.records).toEqual(off.records);
    expect(none.stdout).toBe(off.stdout);
    // The only difference DIR-10 requires: AGENT_HOOKS=off announces itself on stderr.
    expect(off.stderr).toBe(`agent: hooks disabled (AGENT_HOOKS=off)\n${none.stderr}`);
    expect(none.stderr).toContain("ok: one");
    expect(none.stderr).not.toContain("hook");
    const text = JSON.stringify(none.records);
    expect(text).not.toContain("hook_context");
    expect(none.records.some((r) => String(r.type).startsWith("hook_"))).toBe(false);
    expect(delivered(none.records)).toEqual(["one\n", "two"]);
  });
});

/** Drops per-run values (timestamps, ids, temp paths) so two runs compare equal. */
function normalize(records: readonly Rec[], w: World): Rec[] {
  const ids = new Set<string>();
  for (const r of records) for (const key of ["session_id", "message_id", "id", "turn_id"]) if (typeof r[key] === "string") ids.add(String(r[key]));
  let text = JSON.stringify(records.map(({ timestamp: _t, ...rest }) => rest));
  text = text.split(w.root).join("<root>");
  for (const id of ids) text = text.split(id).join("<id>");
  return readJsonl(text.slice(1, -1).replace(/\},\{"/g, '}\n{"')).map((r) => {
    const { elapsed_ms: _e, duration_ms: _d, ...rest } = r;
    return rest;
  });
}

describe("lifecycle groups", () => {
  test("LIFE-09 lifecycle groups run without hooks.enabled; AGENT_HOOKS=off runs none", () => {
    const w = makeWorld();
    const log = join(w.root, "life.log");
    w.file(
      ".agent/config.toml",
      [
        `[[hooks.lifecycle.session_start]]`,
        `hooks = [{ command = "cat >/dev/null; echo start >> '${log}'" }]`,
        `[[hooks.lifecycle.pre_tool_use]]`,
        `hooks = [{ command = "cat >/dev/null; echo pre >> '${log}'" }]`,
        `[[hooks.lifecycle.stop]]`,
        `hooks = [{ command = "cat >/dev/null; echo stop >> '${log}'" }]`,
      ].join("\n"),
    );
    writeScript(w, bashTurns(["true"]));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(lines(log)).toEqual(["start", "pre", "stop"]);
    const off = runCli(w, RUN.concat(["go"]), { env: w.env({ AGENT_HOOKS: "off" }) });
    expect(off.code).toBe(0);
    expect(lines(log)).toEqual(["start", "pre", "stop"]);
  });

  test("LIFE-21 a lifecycle command runs through /bin/sh -c in the --cwd directory, pipes and $VAR working", () => {
    const w = makeWorld();
    const work = join(w.project, "pkg");
    w.file("pkg/keep.txt", "");
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = 'echo "$PWD" | tee w.txt && cat >/dev/null' }, { command = 'cat >/dev/null; echo "$0" > "${w.root}/shell.txt"' }]\n`,
    );
    writeScript(w, bashTurns(["true"]));
    const r = runCli(w, RUN.concat(["--script", join(w.project, "script.json"), "--cwd", work, "go"]));
    expect(r.code).toBe(0);
    expect(readFileSync(join(work, "w.txt"), "utf8")).toBe(`${work}\n`);
    expect(existsSync(join(w.project, "w.txt"))).toBe(false);
    expect(readFileSync(join(w.root, "shell.txt"), "utf8")).toBe("/bin/sh\n");
    expect(hookRuns(sessionRecords(w)).map((h) => h.status)).toEqual(["success", "success"]);
  });

  test("LIFE-73 list globals do not apply to lifecycle commands; a failing command warns, or stops with failure_policy fail", () => {
    const w = makeWorld();
    const command = `cat >/dev/null; sleep 2; echo slept >> '${w.root}/slept'; exit 1`;
    const config = (extra: string): string =>
      `[hooks]\ntimeout_seconds = 1\nfailure_policy = "block"\n[[hooks.lifecycle.post_tool_use]]\nhooks = [{ command = "${command}"${extra} }]\n`;
    w.file(".agent/config.toml", config(""));
    writeScript(w, bashTurns(["echo raw"], ["echo second"]));
    const validate = runCli(w, ["hooks", "validate", "--trust"]);
    expect(validate.code).toBe(0);
    const warn = runCli(w, RUN.concat(["go"]));
    expect(warn.code).toBe(0);
    const warnLines = warn.stderr.split("\n").filter((l) => l.startsWith("agent: hook "));
    expect(warnLines.length).toBe(2);
    for (const line of warnLines) {
      expect(line).toContain("exit");
      expect(line.endsWith("result kept")).toBe(true);
    }
    expect(lines(join(w.root, "slept")).length).toBe(2);
    const runs = hookRuns(sessionRecords(w));
    expect(runs.map((h) => [h.status, h.category, h.policy])).toEqual([
      ["failed", "exit", "warn"],
      ["failed", "exit", "warn"],
    ]);
    expect(delivered(sessionRecords(w))).toEqual(["raw\n", "second\n"]);

    const w2 = makeWorld();
    w2.file(".agent/config.toml", config(`, failure_policy = "fail"`).replace(w.root, w2.root));
    writeScript(w2, bashTurns(["echo raw"], ["echo second"]));
    const stop = runCli(w2, RUN.concat(["go"]));
    expect(stop.code).toBe(3);
    const stopLines = stop.stderr.split("\n").filter((l) => l.startsWith("agent: hook "));
    expect(stopLines.length).toBe(1);
    expect(stopLines[0]?.endsWith("session stopped")).toBe(true);
    expect(lastJson(stop.stdout)).toMatchObject({ stop_reason: "hook_failed", is_error: true, tool_calls: 1, turns: 1 });
  });
});
