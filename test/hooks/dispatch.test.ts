/**
 * Decision merge, failure lines and failure policies through real hook processes: each case writes
 * real hooks into a temp world, loads them with the registry and fires one event through
 * `createHookEngine` (the path `agent run` and `agent hooks test` use), then checks the merged
 * outcome, the D21 failure lines and the records the sinks received.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { appendHookContext } from "../../src/hooks/merge/context.ts";
import { LIST_BLOCK_MESSAGE } from "../../src/hooks/merge/merge.ts";
import { fire, hookDir, listHooks, logLines, script, toml, type Fired } from "./harness.ts";
import { BASH, decided, lifecycle, post, preDir } from "./dispatch-helpers.ts";
import { isAlive, waitForFile } from "../support/procs.ts";

// Real processes on 2 shared cores: generous per-test bounds (no timed assertions rely on them).
setDefaultTimeout(60_000);

describe("hook dirs (action dialect) through dispatch", () => {
  test("DIR-37 DIR-38 DIR-39 DIR-41 replies: allow, deny, modify, empty, first non-empty line, case", async () => {
    expect(decided(await preDir(`echo '{"action":"allow"}'`))).toEqual(["allow", null]);
    expect(decided(await preDir(`echo '{"action":"deny","reason":"blocked by script"}'`))).toEqual(["deny", "blocked by script"]);
    const modified = await preDir(`echo '{"action":"modify","input":{"command":"echo safe"}}'`);
    expect([modified.outcome.decision, modified.outcome.state.toolInput]).toEqual(["allow", { command: "echo safe" }]);
    for (const body of ["true", "printf '  \\n\\t\\n'", "echo '{}'", `echo '{"action":""}'`, `echo '{"action":"ALLOW"}'`]) {
      const fired = await preDir(body);
      expect([body, fired.outcome.decision, fired.lines]).toEqual([body, "allow", []]);
    }
    expect(decided(await preDir(`printf '\\n\\n{"action":"deny","reason":"r"}\\n'`))).toEqual(["deny", "r"]);
    expect(decided(await preDir(`printf '{"action":"allow"}\\n{"action":"deny"}\\n'`))).toEqual(["allow", null]);
    expect(decided(await preDir(`echo '{"action":" Deny "}'`))).toEqual(["deny", "tool execution denied by hook guard"]);
  });

  test("DIR-40 DIR-41 DIR-68 invalid JSON and unknown actions fail open with a line, or deny under fail_closed", async () => {
    const bodies = [`printf '{\\n  "action": "deny"\\n}\\n'`, "echo not json", `echo '{"action":"block"}'`, "printf '\\377\\376\\n'"];
    for (const body of bodies) {
      const open = await preDir(body);
      expect([body, open.outcome.decision, open.outcome.rows[0]?.category]).toEqual([body, "allow", "exit"]);
      expect(open.lines.length).toBe(1);
      expect(open.lines[0]).toMatch(/^agent: hook guard \(pre_tool\) failed: exit: .*(invalid json|unknown action).* — tool ran anyway$/);
      const closed = await preDir(body, { fail_closed: true });
      expect(closed.outcome.decision).toBe("deny");
      expect(closed.outcome.reason ?? "").toStartWith("hook guard failed (fail_closed): ");
      expect(closed.lines[0]).toEndWith("— tool blocked");
    }
  });

  test("DIR-42 MERGE-07 exit 2 denies whatever the body says, with D2's reasons", async () => {
    expect(decided(await preDir(`echo '{"action":"deny","reason":"exit two"}'; exit 2`))).toEqual(["deny", "exit two"]);
    expect(decided(await preDir(`echo '{"action":"allow"}'; exit 2`))).toEqual(["deny", "denied by hook guard (exit 2)"]);
    expect(decided(await preDir(`printf 'nope\\nmore\\n' >&2; exit 2`))).toEqual(["deny", "nope"]);
    expect(decided(await preDir("exit 2"))).toEqual(["deny", "denied by hook guard (exit 2)"]);
    const modify = await preDir(`echo '{"action":"modify","input":{"command":"x"}}'; exit 2`);
    expect([modify.outcome.decision, modify.outcome.state.toolInput, modify.outcome.rows[0]?.status, modify.lines]).toEqual([
      "deny",
      { command: "ls" },
      "success",
      [],
    ]);
    expect(decided(await preDir(`echo '{"action":"deny"}'`, {}, "a"))).toEqual(["deny", "tool execution denied by hook a"]);
  });

  test("DIR-43 DIR-44 exit 1 and death by signal are failures: open with a line, or denied under fail_closed", async () => {
    const open = await preDir("echo oops >&2; exit 1");
    expect([open.outcome.decision, open.outcome.rows[0]?.status, open.outcome.rows[0]?.category]).toEqual(["allow", "failed", "exit"]);
    expect(open.lines).toEqual(["agent: hook guard (pre_tool) failed: exit: exited 1 (stderr: oops) — tool ran anyway"]);
    const closed = await preDir("exit 1", { fail_closed: true });
    expect(decided(closed)).toEqual(["deny", "hook guard failed (fail_closed): exited 1"]);
    expect(closed.lines).toEqual(["agent: hook guard (pre_tool) failed: exit: exited 1 — tool blocked"]);
    const killed = await preDir("kill -9 $$");
    expect([killed.outcome.decision, killed.outcome.rows[0]?.category]).toEqual(["allow", "exit"]);
    expect(killed.lines[0]).toMatch(/SIGKILL/);
    expect(decided(await preDir("kill -9 $$", { fail_closed: true }))[0]).toBe("deny");
  });

  test("DIR-46 MERGE-10 a modify without a valid input fails; the previous input is kept, or denied", async () => {
    const bodies = [
      '{"action":"modify"}',
      '{"action":"modify","input":null}',
      '{"action":"modify","input":"ls"}',
      '{"action":"modify","input":{"cmd":"ls"}}',
      '{"action":"modify","input":{}}',
    ];
    for (const body of bodies) {
      const open = await preDir(`echo '${body}'`);
      expect([body, open.outcome.decision, open.outcome.state.toolInput, open.outcome.rows[0]?.category]).toEqual([body, "allow", { command: "ls" }, "exit"]);
      expect(open.lines[0]).toEndWith("— tool ran anyway");
      expect(decided(await preDir(`echo '${body}'`, { fail_closed: true }))[0]).toBe("deny");
    }
  });

  test("DIR-47 MERGE-11 a deny stops the chain: b is never spawned; a modify before a deny does not run", async () => {
    const world = makeWorld();
    const canary = join(world.root, "canary");
    hookDir(world, "user", "a", { event: "pre_tool" }, `echo '{"action":"modify","input":{"command":"echo x"}}'`);
    hookDir(world, "user", "b", { event: "pre_tool" }, `echo '{"action":"deny","reason":"no"}'`);
    hookDir(world, "user", "c", { event: "pre_tool" }, `touch '${canary}'`);
    const fired = await fire(world, "pre_tool", BASH);
    expect(decided(fired)).toEqual(["deny", "no"]);
    expect(fired.outcome.rows.map((r) => r.status)).toEqual(["success", "success", "skipped"]);
    expect(existsSync(canary)).toBe(false);
  });

  test("DIR-50 DIR-51 MERGE-19 context is appended to the result; none leaves it byte for byte", async () => {
    const world = makeWorld();
    hookDir(world, "user", "n1", { event: "post_tool" }, `echo '{"context":"n1"}'`);
    hookDir(world, "user", "n2", { event: "post_tool" }, `echo '{"context":"n2"}'`);
    const fired = await fire(world, "post_tool", post("ok"));
    expect(appendHookContext("ok", fired.context)).toBe("ok\n\n<hook_context>\nn1\n\nn2\n</hook_context>");
    const pre = await preDir(`echo '{"action":"allow","context":"note"}'`);
    expect(appendHookContext("hi\n", pre.context)).toBe("hi\n\n\n<hook_context>\nnote\n</hook_context>");
    const silent = makeWorld();
    hookDir(silent, "user", "quiet", { event: "post_tool" }, "true");
    const none = await fire(silent, "post_tool", post("hi\n"));
    expect(appendHookContext("hi\n", none.context)).toBe("hi\n");
  });

  test("DIR-52 DIR-53 MERGE-18 MERGE-21 contexts are capped on UTF-8 boundaries and closing tags neutralised", async () => {
    const world = makeWorld();
    const e3000 = "é".repeat(1500);
    hookDir(world, "user", "a", { event: "post_tool" }, `echo '{"context":"a${e3000}"}'`);
    hookDir(world, "user", "b", { event: "post_tool" }, `echo '{"context":"b${e3000}"}'`);
    const accented = (await fire(world, "post_tool", post())).context;
    expect(Buffer.byteLength(accented)).toBeLessThanOrEqual(4096);
    expect(accented).not.toContain("\uFFFD");
    expect(accented).toStartWith(`a${e3000}\n\nb`);

    const ascii = makeWorld();
    hookDir(ascii, "user", "a", { event: "post_tool" }, `echo '{"context":"${"x".repeat(3000)}"}'`);
    hookDir(ascii, "user", "b", { event: "post_tool" }, `echo '{"context":"${"y".repeat(3000)}"}'`);
    expect((await fire(ascii, "post_tool", post())).context).toBe(`${"x".repeat(3000)}\n\n${"y".repeat(3000)}`.slice(0, 4096));
    const edge = makeWorld();
    hookDir(edge, "user", "a", { event: "post_tool" }, `echo '{"context":"${"x".repeat(4095)}é"}'`);
    expect((await fire(edge, "post_tool", post())).context).toBe("x".repeat(4095));

    const tags = makeWorld();
    hookDir(tags, "user", "a", { event: "post_tool" }, `echo '{"context":"x</hook_context>y"}'`);
    hookDir(tags, "user", "b", { event: "post_tool" }, `echo '{"context":"</HOOK_CONTEXT>"}'`);
    const content = appendHookContext("ok", (await fire(tags, "post_tool", post("ok"))).context);
    expect(content).toBe("ok\n\n<hook_context>\nx<\u200B/hook_context>y\n\n<\u200B/hook_context>\n</hook_context>");
  });

  test("DIR-56 DIR-57 MERGE-27 post stops: reasons join in declared order; contexts still merge; result kept", async () => {
    const world = makeWorld();
    hookDir(world, "user", "a", { event: "post_tool" }, `echo '{"stop":true,"reason":"r1","context":"CA"}'`);
    hookDir(world, "user", "b", { event: "post_tool" }, `echo '{"reason":"r2","output":"X","context":"CB"}'; exit 2`);
    hookDir(world, "user", "c", { event: "post_tool", fail_closed: true }, "exit 1");
    hookDir(world, "user", "d", { event: "post_tool" }, `echo '{"stop":false,"reason":"x"}'`);
    const fired = await fire(world, "post_tool", post());
    expect(decided(fired)).toEqual(["block", "r1; r2; hook c failed (fail_closed): exited 1"]);
    expect(fired.context).toBe("CA\n\nCB");
    expect(fired.outcome.state.output).toBeUndefined();
    expect(fired.lines).toEqual(["agent: hook c (post_tool) failed: exit: exited 1 — session stopped"]);
    const bare = makeWorld();
    hookDir(bare, "user", "halt", { event: "post_tool" }, "exit 2");
    expect(decided(await fire(bare, "post_tool", post()))).toEqual(["block", "stopped by hook halt (exit 2)"]);
  });

  test("DIR-58 DIR-59 a failing post hook keeps the result; fail_closed joins the stop reasons", async () => {
    const world = makeWorld();
    hookDir(world, "user", "a", { event: "post_tool" }, "exit 1");
    hookDir(world, "user", "b", { event: "post_tool" }, `echo '{"context":"B","output":"Y"}'`);
    const fired = await fire(world, "post_tool", post());
    expect([fired.outcome.decision, fired.context, fired.outcome.state.output]).toEqual(["continue", "B", "Y"]);
    expect(fired.lines).toEqual(["agent: hook a (post_tool) failed: exit: exited 1 — result kept"]);
    const strict = makeWorld();
    hookDir(strict, "user", "other", { event: "post_tool" }, `echo '{"stop":true,"reason":"x"}'`);
    hookDir(strict, "user", "strict", { event: "post_tool", fail_closed: true }, "exit 1");
    const reason = (await fire(strict, "post_tool", post())).outcome.reason ?? "";
    expect(reason).toContain("x");
    expect(reason).toContain("hook strict failed (fail_closed): exited 1");
  });

  test("DIR-60 DIR-62 async stdout is never parsed; async timeouts and crashes are ignored (async) lines", async () => {
    const world = makeWorld();
    hookDir(world, "user", "a", { event: "post_tool", async: true }, `echo '{"context":"A","output":"B","stop":true}'`);
    hookDir(world, "user", "s", { event: "post_tool" }, `echo '{"context":"S"}'`);
    const fired = await fire(world, "post_tool", post());
    expect([fired.outcome.decision, fired.context, fired.outcome.state.output]).toEqual(["continue", "S", undefined]);

    const failing = makeWorld();
    const pidFile = join(failing.root, "pid");
    hookDir(failing, "user", "slow", { event: "post_tool", async: true, timeout: "1s" }, `echo $$ > '${pidFile}'; exec sleep 100`);
    hookDir(failing, "user", "crash", { event: "post_tool", async: true }, "exit 1");
    const out = await fire(failing, "post_tool", { ...post(), graceMs: 10_000 });
    expect(out.outcome.decision).toBe("continue");
    expect(out.lines.sort()).toEqual([
      "agent: hook crash (post_tool) failed: exit: exited 1 — ignored (async)",
      "agent: hook slow (post_tool) failed: timeout: timed out after 1s — ignored (async)",
    ]);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  test("DIR-61 an async hook never delays the event; close waits at most the grace and kills the rest", async () => {
    const world = makeWorld();
    const marker = join(world.root, "marker");
    const pidFile = join(world.root, "pid");
    const release = join(world.root, "release");
    // The hook finishes only after the test releases it, so the event cannot have waited for it.
    hookDir(
      world,
      "user",
      "later",
      { event: "post_tool", async: true, timeout: "30s" },
      `echo $$ > '${pidFile}.tmp'; mv '${pidFile}.tmp' '${pidFile}'; while [ ! -e '${release}' ]; do sleep 0.05; done; touch '${marker}'`,
    );
    const fired = await fire(world, "post_tool", { ...post(), close: false });
    expect(fired.outcome.decision).toBe("continue");
    expect(existsSync(marker)).toBe(false);
    await waitForFile(pidFile);
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(true);
    writeFileSync(release, "");
    await waitForFile(marker);
    const quick = makeWorld();
    const quickPid = join(quick.root, "pid");
    hookDir(quick, "user", "forever", { event: "post_tool", async: true, timeout: "30s" }, `echo $$ > '${quickPid}'; exec sleep 100`);
    const closed = await fire(quick, "post_tool", { ...post(), graceMs: 300 });
    expect(isAlive(Number(readFileSync(quickPid, "utf8")))).toBe(false);
    expect(closed.lines.length).toBe(1);
    expect(closed.lines[0]).toBe("agent: hook forever (post_tool) failed: timeout: cancelled — ignored (async)");
    expect(closed.outcome.rows.map((r) => [r.status, r.category])).toEqual([["failed", "timeout"]]);
  });

  test("DIR-63 LIFE-45 timeouts: the hook is killed and fails open, or denies under fail_closed", async () => {
    const open = await preDir("exec sleep 10", { timeout: "200ms" });
    expect([open.outcome.decision, open.outcome.rows[0]?.category]).toEqual(["allow", "timeout"]);
    expect(open.lines).toEqual(["agent: hook guard (pre_tool) failed: timeout: timed out after 200ms — tool ran anyway"]);
    expect(decided(await preDir("exec sleep 10", { timeout: "200ms", fail_closed: true }))).toEqual([
      "deny",
      "hook guard failed (fail_closed): timed out after 200ms",
    ]);
    const life = await lifecycle("pre_tool_use", "sleep 5", { ...BASH, extra: ", timeout_seconds = 1" });
    expect([life.outcome.decision, life.outcome.rows[0]?.category]).toEqual(["allow", "timeout"]);
    expect(life.lines).toEqual(["agent: hook pre_tool_use[0].hooks[0] (pre_tool) failed: timeout: timed out after 1s — tool ran anyway"]);
  });

  test("DIR-69 MERGE-29 readonly: on tool events only fail-closed hooks of each form are spawned", async () => {
    const world = makeWorld();
    const log = join(world.root, "log");
    hookDir(world, "user", "audit", { event: "pre_tool" }, `echo audit >> '${log}'`);
    hookDir(world, "user", "strict", { event: "pre_tool", fail_closed: true }, `echo strict >> '${log}'; echo '{"action":"deny","reason":"readonly"}'`);
    toml(
      world,
      "user",
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "echo lc-warn >> '${log}'" }, { command = "echo lc-block >> '${log}'", failure_policy = "block" }, { command = "echo lc-fail >> '${log}'", failure_policy = "fail" }]`,
    );
    script(world, "scripts/log.sh", `echo "$1" >> '${log}'`);
    listHooks(world, "user", { before_tool: [{ command: "./scripts/log.sh l-warn" }, { command: "./scripts/log.sh l-block", failure_policy: "block" }] });
    const ro = await fire(world, "pre_tool", { ...BASH, readonly: true });
    // strict denies, so the chain stops there: nothing after it is spawned.
    expect(logLines(log)).toEqual(["strict"]);
    expect(decided(ro)).toEqual(["deny", "readonly"]);
    hookDir(world, "user", "strict", { event: "pre_tool", fail_closed: true }, `echo strict >> '${log}'`);
    await fire(world, "pre_tool", { ...BASH, readonly: true });
    // Lifecycle commands of one event run together: their lines may come in either order.
    const inOrder = (lines: string[], from: number, to: number): string[] => [...lines.slice(0, from), ...lines.slice(from, to).sort(), ...lines.slice(to)];
    expect(inOrder(logLines(log), 2, 4)).toEqual(["strict", "strict", "lc-block", "lc-fail", "l-block"]);
    await fire(world, "session_start", { readonly: true });
    await fire(world, "pre_tool", BASH);
    expect(inOrder(logLines(log).slice(5), 2, 5)).toEqual(["audit", "strict", "lc-block", "lc-fail", "lc-warn", "l-warn", "l-block"]);
  });
});

describe("tool-call lists (envelope) through dispatch", () => {
  test("MERGE-30 MERGE-07 a list hook that exits 1 under each failure policy", async () => {
    const run = async (policy: string): Promise<Fired> => {
      const world = makeWorld();
      script(world, "scripts/fail.sh", "exit 1");
      listHooks(world, "user", { before_tool: [{ label: "f", command: "./scripts/fail.sh", failure_policy: policy }] });
      return fire(world, "pre_tool", BASH);
    };
    const diagnostics = (f: Fired): number => f.records.filter((r) => r.type === "hook_diagnostic").length;
    const ignore = await run("ignore");
    expect([ignore.outcome.decision, ignore.lines, diagnostics(ignore)]).toEqual(["allow", [], 0]);
    const warn = await run("warn");
    expect([warn.outcome.decision, warn.lines, diagnostics(warn)]).toEqual(["allow", ["agent: hook f (pre_tool) failed: exit: exited 1 — tool ran anyway"], 1]);
    const block = await run("block");
    expect([block.outcome.decision, block.outcome.state.denied?.modelReason, block.lines[0]?.endsWith("— tool blocked")]).toEqual([
      "deny",
      LIST_BLOCK_MESSAGE,
      true,
    ]);
    const fail = await run("fail");
    expect([fail.outcome.decision, fail.outcome.state.stopSession?.kind, fail.outcome.reason]).toEqual(["deny", "hook_failed", "hook f failed: exit"]);
  });

  test("MERGE-24 MERGE-25 MERGE-23 context items are all-or-nothing per hook, in config then JSON order", async () => {
    const world = makeWorld();
    const items = (contents: string[], role = "user"): string => JSON.stringify({ context_items: contents.map((content) => ({ role, content })) });
    const reply = (name: string, text: string, code = 0): string =>
      script(world, `scripts/${name}.sh`, `cat > /dev/null; printf '%s\\n' '${text}'; exit ${code}`);
    reply("m1", items(["u1", "u2"]));
    reply("bad", "{bad");
    reply("shape", '{"items":[]}');
    reply("role", items(["s"], "system"));
    reply("empty", items([""]));
    reply("big", items(["12345678901"]));
    reply("crash", items(["c"]), 1);
    reply("m2", items(["u3"]));
    reply("off", items(["never"]));
    const hook = (name: string, extra: Record<string, unknown> = {}) => ({
      label: name,
      command: `./scripts/${name}.sh`,
      provider_context_injection: true,
      ...extra,
    });
    listHooks(world, "user", {
      before_tool: [hook("m1")],
      after_tool: [
        hook("m1"),
        hook("bad"),
        hook("shape"),
        hook("role"),
        hook("empty"),
        hook("big", { provider_context_max_bytes: 10 }),
        hook("crash"),
        hook("m2"),
        { label: "off", command: "./scripts/off.sh" },
      ],
    });
    const fired = await fire(world, "post_tool", post());
    const injected = fired.outcome.state.injections.filter((i) => i.status === "success").flatMap((i) => i.items.map((item) => item.content));
    expect(injected).toEqual(["u1", "u2", "u3"]);
    const statuses = fired.records.filter((r) => r.type === "hook_context_injection").map((r) => [r.fields.label, r.fields.status]);
    expect(statuses).toEqual([
      ["m1", "success"],
      ["bad", "invalid_json"],
      ["shape", "invalid_shape"],
      ["role", "unsupported_role"],
      ["empty", "empty_content"],
      ["big", "over_limit"],
      ["crash", "hook_failed"],
      ["m2", "success"],
    ]);
    const pre = await fire(world, "pre_tool", BASH);
    expect(pre.outcome.state.injections.flatMap((i) => i.items)).toEqual([]);
  });
});
