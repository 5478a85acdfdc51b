// Policy for teams, end to end through the real CLI: the managed layer (a deny nobody below can
// lift, a refused user-writable file), policy case suites, replay of a recorded session after a hook
// change, and the OTLP audit export to a collector stub on 127.0.0.1. Hooks are real scripts.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, chownSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { makeWorld, REPO, runCli, runCliAsync, writeScript, type World } from "../support/cli.ts";
import { listenLocal } from "../support/listen.ts";
import { RUN, delivered, ofType, sessionRecords, type Rec } from "./helpers.ts";

setDefaultTimeout(90_000);

/** A managed policy file in the world (root-owned, mode 0644: the tests run as root) and its env. */
function managed(w: World, toml: string, name = "managed.toml"): { path: string; env: Record<string, string> } {
  const path = w.file(join(w.root, "policy", name), toml);
  chmodSync(join(w.root, "policy"), 0o755);
  chmodSync(path, 0o644);
  return { path, env: w.env({ AGENT_MANAGED_FILE: path }) };
}

const NO_CURL_HOOK = `#!/bin/sh\nif grep -q curl; then echo 'managed: no curl' >&2; exit 2; fi\nexit 0\n`;

describe("managed layer", () => {
  test("a managed deny rule and a managed hook hold against a project allow, --no-hooks and AGENT_HOOKS=off", () => {
    const w = makeWorld();
    const hook = w.file(join(w.root, "policy", "no-curl.sh"), NO_CURL_HOOK, { executable: true });
    const policy = managed(
      w,
      `[permissions]\ndeny = ["bash(rm *)"]\n\n[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "${hook}" }]\n`,
    );
    w.file(".agent/settings.json", JSON.stringify({ permissions: { allow: ["bash(rm *)", "bash(curl *)"] } }));
    w.file("victim", "keep me\n");
    for (const off of [["--no-hooks"], []]) {
      writeScript(w, [
        {
          tool_calls: [
            { id: "c1", name: "bash", arguments: { command: "rm -f victim" } },
            { id: "c2", name: "bash", arguments: { command: "curl http://example.invalid" } },
            { id: "c3", name: "bash", arguments: { command: "echo fine" } },
          ],
        },
        { text: "done" },
      ]);
      const env = off.length === 0 ? { ...policy.env, AGENT_HOOKS: "off" } : policy.env;
      const r = runCli(w, [...RUN, ...off, "go"], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("hooks disabled");
      expect(existsSync(join(w.project, "victim"))).toBe(true);
      const records = sessionRecordsLatest(w);
      const out = delivered(records);
      expect(out[0]).toContain("denied by permission rule bash(rm *)");
      expect(out[1]).toContain("managed: no curl");
      expect(out[2]).toContain("fine");
      const decision = ofType(records, "hook_decision").find((rec) => rec.tool_call_id === "c2");
      expect(decision).toMatchObject({ event: "pre_tool", decision: "deny", decided_by_scope: "managed" });
    }
  });

  test("readonly mode, which runs only fail-closed hooks on tool events, still runs a managed audit hook", () => {
    const w = makeWorld();
    const log = join(w.root, "audit.log");
    const policy = managed(w, `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "cat >> '${log}'" }]\n`);
    w.file(join(w.agentHome, "config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "touch '${w.root}/user-ran'" }]\n`);
    w.file("notes.txt", "hello\n");
    writeScript(w, [{ tool_calls: [{ id: "r1", name: "read", arguments: { file_path: "notes.txt" } }] }, { text: "done" }]);
    const r = runCli(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "readonly", "go"], { env: policy.env });
    expect(r.code).toBe(0);
    expect(readFileSync(log, "utf8")).toContain("notes.txt");
    expect(existsSync(join(w.root, "user-ran"))).toBe(false);
  });

  test("the interactive session with AGENT_HOOKS=off: the managed hook denies, /hooks lists it, /hooks reload keeps it", async () => {
    const w = makeWorld();
    const hook = w.file(join(w.root, "policy", "no-curl.sh"), NO_CURL_HOOK, { executable: true });
    const policy = managed(w, `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "${hook}" }]\n`);
    writeScript(w, [
      { tool_calls: [{ id: "c1", name: "bash", arguments: { command: "curl http://example.invalid" } }] },
      { text: "ok then" },
      { tool_calls: [{ id: "c2", name: "bash", arguments: { command: "curl http://again.invalid" } }] },
      { text: "still no" },
    ]);
    const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), "--script", "script.json"], {
      cwd: w.project,
      env: { ...policy.env, AGENT_INTERACTIVE: "1", AGENT_HOOKS: "off" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.write("fetch it\n/hooks\n/hooks reload\nagain\n/exit\n");
    const code = await done;
    expect(code).toBe(0);
    expect(stderr).toContain("hooks disabled (AGENT_HOOKS=off)");
    expect(stderr).toContain("hooks disabled; the managed policy's hooks still run:");
    expect(stderr).toMatch(/pre_tool pre_tool_use\[0\]\.hooks\[0\] \(managed lifecycle/);
    expect(stderr).toContain("agent: hooks reloaded (1 loaded");
    const records = sessionRecordsLatest(w);
    expect(delivered(records).filter((text) => text.includes("managed: no curl"))).toHaveLength(2);
    expect(stdout).toContain("still no");
  });

  test("a user-writable or not root-owned managed file is refused with one clear error; nothing runs", () => {
    const w = makeWorld();
    const canary = join(w.root, "canary");
    const policy = managed(w, `[[hooks.lifecycle.session_start]]\nhooks = [{ command = "touch '${canary}'" }]\n`);
    writeScript(w, [{ text: "done" }]);
    chmodSync(policy.path, 0o666);
    const writable = runCli(w, [...RUN, "go"], { env: policy.env });
    expect(writable.code).toBe(1);
    expect(writable.stderr).toContain(policy.path);
    expect(writable.stderr).toContain("managed policy refused: the file is writable by everyone (mode 0666)");
    expect(writable.stderr).toContain("chown root");
    expect(existsSync(canary)).toBe(false);

    chmodSync(policy.path, 0o644);
    chownSync(policy.path, 65534, 65534);
    const foreign = runCli(w, [...RUN, "go"], { env: policy.env });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain("managed policy refused: the file is owned by uid 65534, not root");
    const validate = runCli(w, ["hooks", "validate"], { env: policy.env });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain("owned by uid 65534");
    expect(existsSync(canary)).toBe(false);

    chownSync(policy.path, 0, 0);
    const accepted = runCli(w, [...RUN, "go"], { env: policy.env });
    expect(accepted.code).toBe(0);
    expect(existsSync(canary)).toBe(true);
  });

  test("a managed deny rule that does not parse stops sessions and is a validate error; config show lists managed rules", () => {
    const w = makeWorld();
    const policy = managed(w, `[permissions]\ndeny = ["bash(rm *)", "bogus_tool(x)"]\n`);
    writeScript(w, [{ text: "done" }]);
    const r = runCli(w, [...RUN, "go"], { env: policy.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('agent: managed policy: invalid permission rule "bogus_tool(x)"');
    const validate = runCli(w, ["hooks", "validate"], { env: policy.env });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain("permissions.deny[1]: invalid permission rule");
  });

  test("disable_bypass_mode refuses bypass from a flag and from config; provider_policy refuses a base URL and a model", () => {
    const w = makeWorld();
    const policy = managed(w, `disable_bypass_mode = true\n\n[provider_policy]\nallowed_base_urls = ["http://127.0.0.1:*"]\nallowed_models = ["good-*"]\n`);
    writeScript(w, [{ text: "done" }]);
    const flag = runCli(w, [...RUN, "go"], { env: policy.env });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain(`bypass permission mode is disabled by managed policy (${policy.path})`);
    w.file(join(w.agentHome, "config.toml"), `[permissions]\nmode = "bypass"\n`);
    const config = runCli(w, ["run", "--provider", "script", "--script", "script.json", "go"], { env: policy.env });
    expect(config.code).toBe(1);
    expect(config.stderr).toContain("set permissions.mode to");
    w.file(join(w.agentHome, "config.toml"), "");
    const url = runCli(w, ["run", "--provider", "openai", "--base-url", "http://10.255.255.1:9", "--model", "good-1", "go"], { env: policy.env });
    expect(url.code).toBe(1);
    expect(url.stderr).toContain("base URL http://10.255.255.1:9 is not allowed by managed policy");
    const model = runCli(w, ["run", "--provider", "openai", "--base-url", "http://127.0.0.1:9", "--model", "bad-1", "go"], { env: policy.env });
    expect(model.code).toBe(1);
    expect(model.stderr).toContain("model bad-1 is not allowed by managed policy");
  });

  test("hooks list and config show mark managed items; managed_hooks_only drops user and project hooks; the override adds to nothing it hides", () => {
    const w = makeWorld();
    const policy = managed(
      w,
      `managed_hooks_only = true\n\n[permissions]\ndeny = ["bash(sudo *)"]\n\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "true" }]\n`,
    );
    w.file(
      join(w.agentHome, "config.toml"),
      `[permissions]\nallow = ["bash(ls *)"]\n\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "true # user" }]\n`,
    );
    const list = JSON.parse(runCli(w, ["hooks", "list", "--json"], { env: policy.env }).stdout) as { hooks: Rec[]; managed_files: string[] };
    expect(list.hooks.map((h) => [h.scope, h.command])).toEqual([["managed", "true"]]);
    expect(list.managed_files).toEqual([policy.path]);
    const text = runCli(w, ["hooks", "list"], { env: { ...policy.env, AGENT_HOOKS: "off" } }).stdout;
    expect(text).toContain("hooks disabled (AGENT_HOOKS=off); the managed policy's hooks still run:");
    expect(text).toMatch(/managed\s+lifecycle.*managed\n/);
    const shown = JSON.parse(runCli(w, ["config", "show"], { env: policy.env }).stdout) as { permissions: { deny: string[]; allow: string[] }; managed: Rec };
    expect(shown.permissions.deny).toEqual(["bash(sudo *)"]);
    expect(shown.permissions.allow).toEqual(["bash(ls *)"]);
    expect(shown.managed).toMatchObject({ files: [policy.path], managed_hooks_only: true, permissions: { deny: ["bash(sudo *)"] } });
    const path = runCli(w, ["config", "path"], { env: policy.env }).stdout;
    expect(path).not.toContain("/etc/agent/managed.toml");
    expect(path).toContain(`${policy.path} (present) [managed]`);
    // Switches are the managed file's alone.
    w.file(join(w.agentHome, "config.toml"), `managed_hooks_only = false\n`);
    const validate = runCli(w, ["hooks", "validate"], { env: policy.env });
    expect(validate.stdout).toContain(`note: managed policy: ${policy.path}`);
    expect(validate.stdout).toContain("managed_hooks_only: is read from the managed policy file only");
  });
});

/** The records of the newest top-level session file. */
function sessionRecordsLatest(w: World): Rec[] {
  const dir = join(w.agentHome, "sessions");
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
  const last = files[files.length - 1] ?? "";
  return readFileSync(join(dir, last), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Rec);
}

describe("policy case suites", () => {
  const guard = `#!/bin/sh\nif grep -q 'rm -rf'; then echo '{"action":"deny","reason":"no rm -rf"}'; fi\nexit 0\n`;

  function suiteWorld(): World {
    const w = makeWorld();
    const dir = join(w.project, ".agent/hooks/guard");
    w.file(join(dir, "hook.json"), JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
    w.file(join(dir, "run.sh"), guard, { executable: true });
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.user_prompt_submit]]\nhooks = [{ command = "cat >/dev/null; echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"UserPromptSubmit\\",\\"additionalContext\\":\\"ticket required\\"}}'" }]\n`,
    );
    return w;
  }

  test("a passing JSONL suite: table with the deciding hook, exit 0; --json", () => {
    const w = suiteWorld();
    w.file(
      "cases.jsonl",
      [
        { name: "blocks rm -rf", event: "pre_tool", tool: "bash", input: { command: "rm -rf /" }, expect: { decision: "deny", reason_contains: "rm -rf" } },
        { name: "lets ls through", event: "PreToolUse", tool: "Bash", input: { command: "ls" }, expect: { decision: "none", input: { command: "ls" } } },
        { name: "prompt gets context", event: "user_prompt_submit", prompt: "fix it", expect: { decision: "none", context_contains: "ticket required" } },
      ]
        .map((c) => JSON.stringify(c))
        .join("\n") + "\n",
    );
    const r = runCli(w, ["hooks", "test", "--cases", "cases.jsonl", "--trust"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^RESULT\s+CASE\s+EVENT\s+DECISION\s+DECIDED BY$/m);
    expect(r.stdout).toMatch(/^pass\s+blocks rm -rf\s+pre_tool bash\s+deny\s+guard \(project\)$/m);
    expect(r.stdout).toMatch(/^pass\s+lets ls through\s+pre_tool bash\s+none\s+-$/m);
    expect(r.stdout).toContain("3 cases: 3 passed, 0 failed");
    const j = runCli(w, ["hooks", "test", "--cases", "cases.jsonl", "--trust", "--json"]);
    const parsed = JSON.parse(j.stdout) as { cases: Rec[]; passed: number; failed: number };
    expect([j.code, parsed.passed, parsed.failed]).toEqual([0, 3, 0]);
    expect(parsed.cases[0]).toMatchObject({ name: "blocks rm -rf", pass: true, decision: "deny", decided_by: { label: "guard", scope: "project" } });
  });

  test("a failing TOML suite exits 1 and names the case and what differed", () => {
    const w = suiteWorld();
    w.file(
      "cases.toml",
      `[[case]]\nname = "blocks rm -rf"\nevent = "pre_tool"\ntool = "bash"\ninput = { command = "rm -rf /" }\nexpect = { decision = "deny" }\n\n` +
        `[[case]]\nname = "should block curl"\nevent = "pre_tool"\ntool = "bash"\ninput = { command = "curl x" }\nexpect = { decision = "deny" }\n`,
    );
    const r = runCli(w, ["hooks", "test", "--cases", "cases.toml", "--trust"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL\s+should block curl\s+pre_tool bash\s+none\s+-$/m);
    expect(r.stdout).toContain("decision: expected deny, got none");
    expect(r.stdout).toContain("failed: should block curl");
  });

  test("with AGENT_HOOKS=off a suite still runs the managed hooks, which decide", () => {
    const w = suiteWorld();
    const hook = w.file(join(w.root, "policy", "no-curl.sh"), NO_CURL_HOOK, { executable: true });
    const policy = managed(w, `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "${hook}" }]\n`);
    w.file(
      "cases.jsonl",
      `${JSON.stringify({ name: "no curl", event: "pre_tool", tool: "bash", input: { command: "curl x" }, expect: { decision: "deny", reason_contains: "no curl" } })}\n${JSON.stringify({ name: "rm is the project's business", event: "pre_tool", tool: "bash", input: { command: "rm -rf /" }, expect: { decision: "none" } })}\n`,
    );
    const r = runCli(w, ["hooks", "test", "--cases", "cases.jsonl", "--json"], { env: { ...policy.env, AGENT_HOOKS: "off" } });
    const parsed = JSON.parse(r.stdout) as { cases: Rec[]; failed: number };
    expect([r.code, parsed.failed]).toEqual([0, 0]);
    expect(parsed.cases[0]?.decided_by).toEqual({ label: "pre_tool_use[0].hooks[0]", scope: "managed" });
  });

  test("a malformed case names its file, line and field", () => {
    const w = suiteWorld();
    w.file(
      "bad.jsonl",
      `{"name":"ok","event":"pre_tool","tool":"bash","expect":{}}\n{"name":"x","event":"pre_tool","tool":"bash","expect":{"decision":"maybe"}}\n`,
    );
    const r = runCli(w, ["hooks", "test", "--cases", "bad.jsonl", "--trust"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(w.project, "bad.jsonl")}:2: field expect.decision: must be one of allow, deny, ask, block, none`);
  });
});

describe("replay", () => {
  test("a recorded session replayed after a hook change shows the changed decision; --from and --json", () => {
    const w = makeWorld();
    const dir = join(w.project, ".agent/hooks/guard");
    w.file(join(dir, "hook.json"), JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
    w.file(join(dir, "run.sh"), `#!/bin/sh\nif grep -q 'rm -rf'; then echo '{"action":"deny","reason":"no rm -rf"}'; fi\nexit 0\n`, { executable: true });
    writeScript(w, [
      {
        tool_calls: [
          { id: "c1", name: "bash", arguments: { command: "rm -rf build" } },
          { id: "c2", name: "bash", arguments: { command: "git push" } },
        ],
      },
      { text: "done" },
    ]);
    const ran = runCli(w, [...RUN, "ship it"]);
    expect(ran.code).toBe(0);
    const records = sessionRecords(w);
    const id = String(records[0]?.session_id);
    expect(ofType(records, "hook_decision").map((rec) => [rec.tool_call_id, rec.decision])).toEqual([
      ["c1", "deny"],
      ["c2", "none"],
    ]);

    const same = runCli(w, ["hooks", "replay", id, "--trust"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("0 changed");

    // Today's policy also stops pushes, and lets rm -rf through.
    w.file(join(dir, "run.sh"), `#!/bin/sh\nif grep -q 'git push'; then echo '{"action":"deny","reason":"no pushes"}'; fi\nexit 0\n`, { executable: true });
    const changed = runCli(w, ["hooks", "replay", id.slice(0, 8), "--trust"]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/pre_tool bash\s+rm -rf build\s+deny \(guard\)\s+none\s+CHANGED/);
    expect(changed.stdout).toMatch(/pre_tool bash\s+git push\s+none\s+deny \(guard\)\s+CHANGED/);
    expect(changed.stdout).toContain("now: no pushes");
    const json = JSON.parse(runCli(w, ["hooks", "replay", id, "--trust", "--json"]).stdout) as { events: Rec[]; changed: number };
    // Each call's final decision (hooks, then the gate in the recorded bypass mode) changed too.
    expect(changed.stdout).toMatch(/decision bash\s+git push\s+allow \(bash is allowed in bypass permission mode\)\s+deny \(guard\)\s+CHANGED/);
    expect(json.changed).toBe(4);
    expect(json.events.find((e) => e.tool_call_id === "c2")).toMatchObject({
      event: "pre_tool",
      then: { decision: "none" },
      now: { decision: "deny", reason: "no pushes", decided_by: "guard" },
      changed: true,
    });
    const callTwo = records.findIndex((rec) => rec.type === "tool_call" && rec.tool_call_id === "c2") + 1;
    const from = JSON.parse(runCli(w, ["hooks", "replay", id, "--trust", "--json", "--from", String(callTwo)]).stdout) as { events: Rec[] };
    expect(from.events.every((e) => Number(e.record) >= callTwo)).toBe(true);
    expect(from.events.some((e) => e.tool_call_id === "c1")).toBe(false);
  });
});

describe("replay of prompts", () => {
  test("a prompt blocked then and allowed now is a change; the blocked prompt comes from its decision record", () => {
    const w = makeWorld();
    const gate = w.file("gate.sh", `#!/bin/sh\nif grep -q deploy; then echo 'no deploys on friday' >&2; exit 2; fi\nexit 0\n`, { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.user_prompt_submit]]\nhooks = [{ command = "${gate}" }]\n`);
    writeScript(w, [{ text: "ok" }]);
    const ran = runCli(w, [...RUN, "deploy the app"]);
    expect(ran.code).toBe(3);
    const records = sessionRecords(w);
    expect(ofType(records, "user")).toHaveLength(0);
    expect(ofType(records, "hook_decision")).toEqual([
      expect.objectContaining({ event: "user_prompt_submit", decision: "block", reason: "no deploys on friday", prompt: "deploy the app" }),
    ]);
    w.file("gate.sh", `#!/bin/sh\nexit 0\n`, { executable: true });
    const replay = runCli(w, ["hooks", "replay", String(records[0]?.session_id), "--trust"]);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/user_prompt_submit\s+deploy the app\s+block \(user_prompt_submit\[0\]\.hooks\[0\]\)\s+none\s+CHANGED/);
  });
});

describe("OTLP audit export", () => {
  test("hook decisions and tool calls reach a local collector as OTLP/HTTP JSON logs, redacted", async () => {
    const w = makeWorld();
    const bodies: Rec[] = [];
    const seen: { path: string; type: string; auth: string }[] = [];
    const server = createServer((req, res) => {
      let data = "";
      req.on("data", (chunk: Buffer) => (data += chunk.toString()));
      req.on("end", () => {
        seen.push({ path: req.url ?? "", type: String(req.headers["content-type"]), auth: String(req.headers.authorization) });
        bodies.push(JSON.parse(data) as Rec);
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    const collector = await listenLocal(server);
    try {
      w.file(join(w.agentHome, "config.toml"), `[audit.otlp]\nendpoint = "${collector.url}/v1/logs"\nheaders = { authorization = "Bearer \${AUDIT_TOKEN}" }\n`);
      const dir = join(w.project, ".agent/hooks/guard");
      w.file(join(dir, "hook.json"), JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
      w.file(join(dir, "run.sh"), `#!/bin/sh\nif grep -q 'rm -rf'; then echo '{"action":"deny","reason":"no rm -rf"}'; fi\nexit 0\n`, { executable: true });
      writeScript(w, [
        {
          tool_calls: [
            { id: "c1", name: "bash", arguments: { command: "rm -rf build" } },
            { id: "c2", name: "bash", arguments: { command: "echo ghp_0123456789abcdefghijABCDEFGHIJ012345" } },
          ],
        },
        { text: "done" },
      ]);
      const r = await runCliAsync(w, [...RUN, "plan-7f3a for the release"], { env: w.env({ AUDIT_TOKEN: "t0k3n" }) });
      expect(r.code).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]).toEqual({ path: "/v1/logs", type: "application/json", auth: "Bearer t0k3n" });
      const logs = bodies.flatMap((b) => (b.resourceLogs as Rec[]).flatMap((rl) => (rl.scopeLogs as Rec[]).flatMap((sl) => sl.logRecords as Rec[])));
      const attrs = (log: Rec): Record<string, unknown> =>
        Object.fromEntries((log.attributes as { key: string; value: Record<string, unknown> }[]).map((a) => [a.key, Object.values(a.value)[0]]));
      const named = (name: string): Record<string, unknown>[] => logs.filter((log) => (log.body as Rec).stringValue === name).map(attrs);
      expect(named("agent.hook_decision").find((a) => a["tool.call_id"] === "c1")).toMatchObject({
        "hook.event": "pre_tool",
        "hook.decision": "deny",
        "hook.reason": "no rm -rf",
        "hook.decided_by": "guard",
      });
      expect(named("agent.tool_call").map((a) => a["tool.call_id"])).toEqual(["c1", "c2"]);
      expect(named("agent.tool_result").find((a) => a["tool.call_id"] === "c2")).toMatchObject({ "tool.name": "bash", "tool.success": true });
      const everything = JSON.stringify(bodies);
      expect(everything).not.toContain("ghp_0123456789abcdefghijABCDEFGHIJ012345");
      expect(everything).not.toContain("plan-7f3a");
      expect(everything).not.toContain("t0k3n");
      expect(logs.every((log) => typeof log.timeUnixNano === "string" || typeof log.timeUnixNano === "number")).toBe(true);
    } finally {
      await collector.close();
    }
  });

  test("a project cannot configure an audit endpoint", () => {
    const w = makeWorld();
    w.file(".agent/config.toml", `[audit.otlp]\nendpoint = "http://127.0.0.1:9/v1/logs"\n`);
    const r = runCli(w, ["hooks", "validate"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("audit: is read from user or managed config only");
  });
});
