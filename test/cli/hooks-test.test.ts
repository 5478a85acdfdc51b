/**
 * `agent hooks test EVENT …` through the CLI (in-process: test/support/in-process.ts), with real hook processes of
 * every form in a temp world: arguments, `@file` inputs, the JSON object, the text rows, exit codes.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { isAlive } from "../support/procs.ts";
import { hookDir, hooksTestInProcess, listHooks, script, toml } from "../hooks/harness.ts";

// Real processes on 2 shared cores: generous per-test bounds (no timed assertions rely on them).
setDefaultTimeout(60_000);

const DENY_RM = `grep -q '"rm ' && echo '{"action":"deny","reason":"no rm"}' || echo '{}'`;

describe("agent hooks test", () => {
  test("CLI-04 a project hook dir denies rm: the exact JSON object and exit 2", async () => {
    const world = makeWorld();
    hookDir(world, "project", "guard", { event: "pre_tool", match: "bash" }, DENY_RM);
    const r = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"rm -rf /"}']);
    expect(r.code).toBe(2);
    expect(Object.keys(r.json)).toEqual([
      "event",
      "tool",
      "decision",
      "reason",
      "input",
      "prompt",
      "context",
      "output",
      "context_items",
      "system_messages",
      "hooks",
      "decided_by",
    ]);
    const { hooks, ...rest } = r.json;
    expect(rest).toEqual({
      event: "pre_tool",
      tool: "bash",
      decision: "deny",
      reason: "no rm",
      input: { command: "rm -rf /" },
      prompt: null,
      context: "",
      output: null,
      context_items: [],
      system_messages: [],
      decided_by: "guard",
    });
    const rawRows: unknown[] = Array.isArray(hooks) ? hooks : [];
    expect(rawRows.length).toBe(1);
    expect(Object.keys(rawRows[0] ?? {})).toEqual(["label", "scope", "form", "dialect", "status", "category", "elapsed_ms"]);
    const row = r.hooks[0];
    expect(row).toMatchObject({ label: "guard", scope: "project", form: "dir", dialect: "action", status: "success", category: null });
    expect(Number.isInteger(row?.elapsed_ms)).toBe(true);
    expect(row?.elapsed_ms ?? -1).toBeGreaterThanOrEqual(0);
  });

  test("CLI-05 no hooks allows unchanged; a modify shows the final input; a lifecycle ask gives ask", async () => {
    const world = makeWorld();
    const none = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([none.code, none.json.decision, none.json.reason, none.json.input, none.json.hooks]).toEqual([0, "allow", null, { command: "ls" }, []]);

    hookDir(world, "user", "mod", { event: "pre_tool" }, `echo '{"action":"modify","input":{"command":"ls -la"}}'`);
    const modified = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([modified.code, modified.json.decision, modified.json.input]).toEqual([0, "allow", { command: "ls -la" }]);

    const asking = makeWorld();
    toml(asking, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"permissionDecision\\":\\"ask\\"}}'" }]`);
    const asked = await hooksTestInProcess(asking, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([asked.code, asked.json.decision, asked.json.reason]).toEqual([0, "ask", null]);
  });

  test("CLI-06 post_tool output and context, a stop gives block, and the default result", async () => {
    const world = makeWorld();
    const dir = hookDir(world, "user", "post", { event: "post_tool" }, `cat > stdin.json; echo '{"output":"Y","context":"note"}'`);
    const r = await hooksTestInProcess(world, ["post_tool", "--tool", "bash", "--result", '{"success":true,"content":"ok"}']);
    expect([r.code, r.json.decision, r.json.output, r.json.context, r.json.reason]).toEqual([0, "continue", "Y", "note", null]);
    expect(JSON.parse(readFileSync(join(dir, "stdin.json"), "utf8"))).toMatchObject({ hook_event: "post_tool", output: "ok", error: "" });

    await hooksTestInProcess(world, ["post_tool", "--tool", "bash"]);
    const stdin = JSON.parse(readFileSync(join(dir, "stdin.json"), "utf8"));
    expect(stdin.error).toBe("");
    expect("output" in stdin).toBe(false);

    const stopping = makeWorld();
    hookDir(stopping, "user", "stop", { event: "post_tool" }, `echo '{"stop":true,"reason":"r"}'`);
    const stopped = await hooksTestInProcess(stopping, ["post_tool", "--tool", "bash", "--result", '{"success":true,"content":"ok"}']);
    expect([stopped.code, stopped.json.decision, stopped.json.reason]).toEqual([2, "block", "r"]);
  });

  test("CLI-07 --input @file, and errors naming the flag, the position, the path and the field", async () => {
    const world = makeWorld();
    const dir = hookDir(world, "user", "save", { event: "pre_tool" }, "cat > stdin.json");
    world.file("in.json", '{"command":"ls"}');
    const fromFile = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", "@in.json"]);
    expect(fromFile.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "stdin.json"), "utf8")).input).toEqual({ command: "ls" });

    const bad = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", "{bad"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--input");
    expect(bad.stderr).toMatch(/position 1\b/);
    const missing = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", "@missing.json"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(join(world.project, "missing.json"));
    const noSuccess = await hooksTestInProcess(world, ["post_tool", "--tool", "bash", "--result", '{"content":"x"}']);
    expect(noSuccess.code).toBe(1);
    expect(noSuccess.stderr).toContain("success");
    expect(noSuccess.stdout).toBe("");
  });

  test("CLI-08 event and tool aliases; unknown events and --tool on a non-tool event exit 1", async () => {
    const world = makeWorld();
    for (const event of ["PreToolUse", "before_tool", "pre_tool_use"]) {
      for (const tool of ["Bash", "shell"]) {
        const r = await hooksTestInProcess(world, [event, "--tool", tool, "--input", '{"command":"ls"}']);
        expect([r.code, r.json.event, r.json.tool]).toEqual([0, "pre_tool", "bash"]);
      }
    }
    const unknown = await hooksTestInProcess(world, ["pre_tools", "--tool", "bash"]);
    expect(unknown.code).toBe(1);
    for (const name of ["pre_tool", "post_tool", "session_start", "stop", "notification", "subagent_stop"]) expect(unknown.stderr).toContain(name);
    const misplaced = await hooksTestInProcess(world, ["session_start", "--tool", "bash"]);
    expect(misplaced.code).toBe(1);
    expect(misplaced.stderr).toContain("--tool");
  });

  test("CLI-09 PLUS-08 every canonical event completes offline with no provider or key", async () => {
    const world = makeWorld();
    const events = [
      ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}'],
      ["post_tool", "--tool", "bash"],
      ["post_tool_failure", "--tool", "read"],
      ["after_assistant"],
      ["after_reasoning"],
      ["user_prompt_submit", "--prompt", "hi"],
      ["session_start"],
      ["session_end"],
      ["permission_request", "--tool", "bash", "--input", '{"command":"ls"}'],
      ["stop"],
      ["pre_compact"],
      ["notification"],
      ["subagent_start"],
      ["subagent_stop"],
    ];
    // An unroutable proxy and base URL: any attempt to reach the network would fail loudly, not hang.
    const env = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", OPENAI_BASE_URL: "http://127.0.0.1:9" };
    const expected: Record<string, string> = { pre_tool: "allow", permission_request: "ask", notification: "continue" };
    for (const args of events) {
      const r = await hooksTestInProcess(world, args, { env });
      const event = args[0] ?? "";
      expect([event, r.code, r.json.decision]).toEqual([event, 0, expected[event] ?? "continue"]);
    }
  });

  test("CLI-10 timeout, output-limit and preflight rows are failed with their categories; policies decide", async () => {
    const world = makeWorld();
    script(world, "scripts/slow.sh", "sleep 5");
    script(world, "scripts/loud.sh", "head -c 200 /dev/zero | tr '\\000' x");
    script(world, "scripts/ok.sh", "exit 0");
    listHooks(world, "user", {
      before_tool: [
        { label: "slow", command: "./scripts/slow.sh", timeout_seconds: 1 },
        { label: "loud", command: "./scripts/loud.sh", stdout_max_bytes: 10 },
        { label: "pre", command: "./scripts/ok.sh $HOME" },
      ],
    });
    const warned = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect(warned.code).toBe(0);
    expect(warned.json.decision).toBe("allow");
    expect(warned.hooks.map((h) => [h.label, h.status, h.category])).toEqual([
      ["slow", "failed", "timeout"],
      ["loud", "failed", "output-limit"],
      ["pre", "failed", "runner"],
    ]);
    expect(warned.stderr).toContain("agent: hook slow (pre_tool) failed: timeout");
    expect(warned.stderr).toContain("agent: hook pre (pre_tool) failed: runner: preflight:");

    const blocking = makeWorld();
    script(blocking, "scripts/loud.sh", "head -c 200 /dev/zero | tr '\\000' x");
    listHooks(blocking, "user", { before_tool: [{ label: "loud", command: "./scripts/loud.sh", stdout_max_bytes: 10, failure_policy: "block" }] });
    const blocked = await hooksTestInProcess(blocking, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([blocked.code, blocked.json.decision, blocked.json.reason]).toEqual([2, "deny", "hook loud failed: output-limit"]);
  });

  test("CLI-11 --cwd makes DIR the agent cwd and the start of project discovery", async () => {
    const world = makeWorld();
    const other = join(world.root, "other");
    mkdirSync(join(other, ".git"), { recursive: true });
    mkdirSync(join(other, "src"), { recursive: true });
    world.file(
      join(other, ".agent", "config.toml"),
      `[[hooks.lifecycle.session_start]]\nhooks = [{ command = "echo repo: acme; pwd > \\"$AGENT_PROJECT_DIR/cwd.txt\\"" }]\n`,
    );
    const r = await hooksTestInProcess(world, ["session_start", "--cwd", join(other, "src")]);
    expect([r.code, r.json.decision, r.json.context]).toEqual([0, "continue", "repo: acme"]);
    expect(readFileSync(join(other, "cwd.txt"), "utf8").trim()).toBe(join(other, "src"));
    const here = await hooksTestInProcess(world, ["session_start"]);
    expect([here.code, here.json.context, here.json.hooks]).toEqual([0, "", []]);
  });

  test("CLI-12 without --json: the merged outcome and one row per hook, exit 2", async () => {
    const world = makeWorld();
    hookDir(world, "project", "guard", { event: "pre_tool", match: "bash" }, DENY_RM);
    const r = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"rm -rf /"}'], { json: false });
    expect(r.code).toBe(2);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("pre_tool bash: deny: no rm");
    expect(lines[1]).toMatch(/^\s+guard\s+project\s+dir\s+action\s+success\s+\d+ms$/);
    expect(lines.length).toBe(2);
  });

  test("CLI-22 AGENT_HOOKS off: nothing discovered or spawned, allow, hooks [] and exit 0", async () => {
    const world = makeWorld();
    const canary = join(world.root, "canary");
    hookDir(world, "user", "u", { event: "pre_tool" }, `touch '${canary}'`);
    hookDir(world, "project", "p", { event: "pre_tool" }, `touch '${canary}'`);
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "touch '${canary}'" }]`);
    script(world, "scripts/c.sh", `touch '${canary}'`);
    listHooks(world, "project", { before_tool: [{ command: "./scripts/c.sh" }] });
    world.file(join(world.agentHome, "hooks", "broken", "hook.json"), "{not json");
    for (const value of ["off", "OFF", " off "]) {
      const r = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}'], { env: { AGENT_HOOKS: value } });
      expect([r.code, r.json.decision, r.json.hooks]).toEqual([0, "allow", []]);
      expect(r.stderr).not.toContain("warning");
    }
    expect(existsSync(canary)).toBe(false);
    const on = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect(on.hooks.length).toBe(4);
    expect(existsSync(canary)).toBe(true);
  });

  test("CLI-25 --field sets event fields; defaults apply; bad --field exits 1", async () => {
    const world = makeWorld();
    const log = join(world.root, "log");
    toml(
      world,
      "user",
      [
        `[[hooks.lifecycle.session_start]]\nmatcher = "resume"\nhooks = [{ command = "cat >> '${log}.start'" }]`,
        `[[hooks.lifecycle.stop]]\nhooks = [{ command = "cat > '${log}.stop'" }]`,
      ].join("\n"),
    );
    script(world, "scripts/msg.sh", `cat > '${log}.msg'`);
    listHooks(world, "user", { payload: "full", after_assistant: [{ command: "./scripts/msg.sh" }] });

    const startup = await hooksTestInProcess(world, ["session_start"]);
    expect([startup.code, startup.hooks]).toEqual([0, []]);
    expect(existsSync(`${log}.start`)).toBe(false);
    const resumed = await hooksTestInProcess(world, ["session_start", "--field", 'source="resume"']);
    expect(resumed.hooks.map((h) => h.status)).toEqual(["success"]);
    expect(JSON.parse(readFileSync(`${log}.start`, "utf8")).source).toBe("resume");

    await hooksTestInProcess(world, ["stop", "--field", "stop_hook_active=true", "--field", 'last_assistant_message="draft"']);
    expect(JSON.parse(readFileSync(`${log}.stop`, "utf8"))).toMatchObject({ stop_hook_active: true, last_assistant_message: "draft" });

    await hooksTestInProcess(world, ["after_assistant", "--field", 'text="hello"']);
    expect(JSON.parse(readFileSync(`${log}.msg`, "utf8")).request.text).toBe("hello");

    const nope = await hooksTestInProcess(world, ["session_start", "--field", "nope=1"]);
    expect(nope.code).toBe(1);
    expect(nope.stderr).toContain("source");
    const notJson = await hooksTestInProcess(world, ["session_start", "--field", "source=resume"]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain("--field");
  });

  test("CLI-26 LIFE-47 D10 a failed result reaches hook dirs, lists and post_tool_use_failure groups only", async () => {
    const world = makeWorld();
    const log = join(world.root, "log");
    const dir = hookDir(world, "user", "post", { event: "post_tool" }, `cat > stdin.json; echo dir >> '${log}'`);
    toml(
      world,
      "user",
      [
        `[[hooks.lifecycle.post_tool_use]]\nhooks = [{ command = "echo ok-group >> '${log}'" }]`,
        `[[hooks.lifecycle.post_tool_use_failure]]\nhooks = [{ command = "echo fail-group >> '${log}'" }]`,
      ].join("\n"),
    );
    script(world, "scripts/list.sh", `echo list >> '${log}'`);
    listHooks(world, "user", { after_tool: [{ command: "./scripts/list.sh" }] });
    const ok = await hooksTestInProcess(world, ["post_tool", "--tool", "bash", "--result", '{"success":true,"content":"hi"}']);
    expect(ok.code).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("dir\nok-group\nlist\n");
    writeFileSync(log, "");
    const r = await hooksTestInProcess(world, ["post_tool", "--tool", "read", "--result", '{"success":false,"content":"no such file"}']);
    expect(r.code).toBe(0);
    expect(readFileSync(log, "utf8")).toBe("dir\nfail-group\nlist\n");
    expect(JSON.parse(readFileSync(join(dir, "stdin.json"), "utf8")).error).toBe("no such file");

    const again = await hooksTestInProcess(world, ["post_tool_failure", "--tool", "read"]);
    expect([again.code, again.json.event, again.hooks.length]).toEqual([0, "post_tool_failure", 3]);
    expect(readFileSync(log, "utf8")).toBe("dir\nfail-group\nlist\ndir\nfail-group\nlist\n");
    expect(JSON.parse(readFileSync(join(dir, "stdin.json"), "utf8")).error).toBe("");

    const wrong = await hooksTestInProcess(world, ["post_tool_failure", "--tool", "read", "--result", '{"success":true,"content":""}']);
    expect(wrong.code).toBe(1);
  });

  test("CLI-27 decisions of permission_request, notification, fail policy, continue:false and post_tool exit 2", async () => {
    const lifecycle = (event: string, command: string, extra = ""): ReturnType<typeof makeWorld> => {
      const world = makeWorld();
      toml(world, "user", `[[hooks.lifecycle.${event}]]\nhooks = [{ command = ${JSON.stringify(command)}${extra} }]`);
      return world;
    };
    const permission = async (body: string | null) => {
      const world = body === null ? makeWorld() : lifecycle("permission_request", `echo '${body}'`);
      return await hooksTestInProcess(world, ["permission_request", "--tool", "bash", "--input", '{"command":"ls"}']);
    };
    const allow = await permission('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    expect([allow.json.decision, allow.code]).toEqual(["allow", 0]);
    const deny = await permission('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m"}}}');
    expect([deny.json.decision, deny.code]).toEqual(["deny", 2]);
    const none = await permission(null);
    expect([none.json.decision, none.code]).toEqual(["ask", 0]);

    const quiet = await hooksTestInProcess(lifecycle("notification", `echo '{"suppressOutput":true}'`), ["notification"]);
    expect([quiet.json.decision, quiet.code]).toEqual(["suppress", 0]);

    const failing = makeWorld();
    script(failing, "scripts/f.sh", "exit 1");
    listHooks(failing, "user", { before_tool: [{ label: "f", command: "./scripts/f.sh", failure_policy: "fail" }] });
    const failed = await hooksTestInProcess(failing, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([failed.json.decision, failed.json.reason, failed.code]).toEqual(["deny", "hook f failed: exit", 2]);

    const stopped = await hooksTestInProcess(lifecycle("session_start", `echo '{"continue":false,"stopReason":"x"}'`), ["session_start"]);
    expect([stopped.json.decision, stopped.json.reason, stopped.code]).toEqual(["block", "x", 2]);

    const lint = await hooksTestInProcess(lifecycle("post_tool_use", "echo 'lint failed' >&2; exit 2"), [
      "post_tool",
      "--tool",
      "bash",
      "--result",
      '{"success":true,"content":"ok"}',
    ]);
    expect([lint.json.decision, lint.json.context, lint.code]).toEqual(["continue", "lint failed", 0]);
  });

  test("PLUS-14 a crashing stop hook is failed/exit and continue; a deliberate block is block", async () => {
    const crash = makeWorld();
    toml(crash, "user", `[[hooks.lifecycle.stop]]\nhooks = [{ command = "echo oops >&2; exit 1" }]`);
    const crashed = await hooksTestInProcess(crash, ["stop"]);
    expect([crashed.code, crashed.json.decision]).toEqual([0, "continue"]);
    expect(crashed.hooks.map((h) => [h.status, h.category])).toEqual([["failed", "exit"]]);
    expect(crashed.stderr).toContain("agent: hook stop[0].hooks[0] (stop) failed: exit: exited 1 — continued");

    const deliberate = makeWorld();
    toml(deliberate, "user", `[[hooks.lifecycle.stop]]\nhooks = [{ command = "echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"keep going\\"}'" }]`);
    const blocked = await hooksTestInProcess(deliberate, ["stop"]);
    expect([blocked.code, blocked.json.decision, blocked.json.reason]).toEqual([2, "block", "keep going"]);
    expect(blocked.hooks.map((h) => [h.status, h.category])).toEqual([["success", null]]);
  });

  test("MERGE-28 an async hook is waited for at most 2 s and never changes the outcome", async () => {
    const world = makeWorld();
    const pidFile = join(world.root, "pid");
    hookDir(
      world,
      "user",
      "a-slow",
      { event: "post_tool", async: true, timeout: "30s" },
      `echo $$ > '${pidFile}'; echo '{"stop":true,"context":"late","output":"Z"}'; exec sleep 60`,
    );
    hookDir(world, "user", "a-fast", { event: "post_tool", async: true }, `echo '{"stop":true,"context":"A","output":"Z"}'`);
    hookDir(world, "user", "sync", { event: "post_tool" }, `echo '{"context":"S"}'`);
    const r = await hooksTestInProcess(world, ["post_tool", "--tool", "bash", "--result", '{"success":true,"content":"ok"}']);
    expect([r.code, r.json.decision, r.json.context, r.json.output, r.json.reason]).toEqual([0, "continue", "S", null, null]);
    const rows = Object.fromEntries(r.hooks.map((h) => [h.label, [h.status, h.category]]));
    expect(rows).toEqual({ "a-slow": ["failed", "timeout"], "a-fast": ["success", null], sync: ["success", null] });
    expect(r.stderr).toContain("agent: hook a-slow (post_tool) failed: timeout:");
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  test("MERGE-33 a list hook under block stops the chain: later hooks skipped, the line ends tool blocked", async () => {
    const world = makeWorld();
    const canary = join(world.root, "canary");
    script(world, "scripts/b.sh", "exit 1");
    script(world, "scripts/c.sh", `touch '${canary}'`);
    listHooks(world, "user", {
      before_tool: [
        { label: "b", command: "./scripts/b.sh", failure_policy: "block" },
        { label: "c", command: "./scripts/c.sh" },
      ],
    });
    const r = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([r.code, r.json.decision, r.json.reason]).toEqual([2, "deny", "hook b failed: exit"]);
    expect(r.hooks.map((h) => [h.label, h.status, h.category])).toEqual([
      ["b", "failed", "exit"],
      ["c", "skipped", null],
    ]);
    expect(r.stderr).toContain("agent: hook b (pre_tool) failed: exit: exited 1 — tool blocked");
    expect(existsSync(canary)).toBe(false);
  });
});
