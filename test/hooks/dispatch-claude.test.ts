/**
 * Lifecycle commands (claude dialect) through dispatch with real processes: plain stdout, exit 2,
 * JSON decisions, replaced inputs, hookEventName checks, quiet output, failure policies, feedback.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { appendHookContext, joinContexts } from "../../src/hooks/merge/context.ts";
import { fire, hookDir, listHooks, script, toml, type FireOptions } from "./harness.ts";
import { BASH, claude, decided, lifecycle, post } from "./dispatch-helpers.ts";

// Real processes on 2 shared cores: generous per-test bounds (no timed assertions rely on them).
setDefaultTimeout(60_000);

describe("lifecycle commands (claude dialect) through dispatch", () => {
  test("LIFE-30 LIFE-42 LIFE-43 plain stdout is an info; systemMessage is visible; suppressOutput hides it", async () => {
    const ok = await lifecycle("pre_tool_use", "echo ok", BASH);
    expect([ok.outcome.decision, ok.outcome.state.infos, ok.lines]).toEqual(["allow", ["ok"], []]);
    const message = await lifecycle("session_start", claude({ systemMessage: "hello" }));
    expect([message.outcome.state.systemMessages, message.context]).toEqual([["hello"], ""]);
    const suppressed = await lifecycle(
      "post_tool_use",
      claude({ suppressOutput: true, systemMessage: "x", hookSpecificOutput: { additionalContext: "c" } }),
      post(),
    );
    expect([suppressed.outcome.state.systemMessages, suppressed.context]).toEqual([[], "c"]);
  });

  test("LIFE-31 LIFE-38 MERGE-07 exit 2 and JSON denials and their reasons", async () => {
    expect(decided(await lifecycle("pre_tool_use", "echo 'no rm' >&2; exit 2", BASH))).toEqual(["deny", "no rm"]);
    expect(decided(await lifecycle("pre_tool_use", "printf 'a\\nb\\n' >&2; exit 2", BASH))).toEqual(["deny", "a\nb"]);
    expect(decided(await lifecycle("pre_tool_use", "exit 2", BASH))).toEqual(["deny", "blocked by hook (exit 2)"]);
    expect(decided(await lifecycle("pre_tool_use", `${claude({ hookSpecificOutput: { permissionDecision: "allow" } })}; exit 2`, BASH))).toEqual([
      "deny",
      "blocked by hook (exit 2)",
    ]);
    expect(decided(await lifecycle("pre_tool_use", claude({ decision: "approve" }), BASH))).toEqual(["allow", null]);
    expect(decided(await lifecycle("pre_tool_use", claude({ decision: "block", reason: "r" }), BASH))).toEqual(["deny", "r"]);
    expect(decided(await lifecycle("pre_tool_use", claude({ hookSpecificOutput: { permissionDecision: "deny" } }), BASH))).toEqual(["deny", "blocked by hook"]);
  });

  test("LIFE-32 exit 1 is a failure, but schema-valid JSON still takes effect", async () => {
    const deny = await lifecycle(
      "pre_tool_use",
      `${claude({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "x" } })}; exit 1`,
      BASH,
    );
    expect(decided(deny)).toEqual(["deny", "x"]);
    // The failure line reports `exited 1`; its outcome words say what happened: the JSON deny held.
    expect(deny.lines).toEqual(["agent: hook pre_tool_use[0].hooks[0] (pre_tool) failed: exit: exited 1 — tool blocked"]);
    const plain = await lifecycle("pre_tool_use", "echo plain; exit 1", BASH);
    expect([plain.outcome.decision, plain.lines.length]).toEqual(["allow", 1]);
  });

  test("LIFE-33 session_start stdout: cut JSON and schema failures are failures; leading spaces and pretty JSON parse", async () => {
    const cut = await lifecycle("session_start", `echo '{"continue": tru'`);
    expect([cut.outcome.rows[0]?.status, cut.outcome.rows[0]?.category, cut.context]).toEqual(["failed", "exit", ""]);
    expect(cut.lines[0]).toContain("invalid JSON");
    expect((await lifecycle("session_start", `echo '  {"systemMessage":"hi"}'`)).outcome.state.systemMessages).toEqual(["hi"]);
    expect((await lifecycle("session_start", `printf '{\\n  "systemMessage": "hi"\\n}\\n'`)).outcome.state.systemMessages).toEqual(["hi"]);
    expect((await lifecycle("session_start", "echo '[1,2]'")).context).toBe("[1,2]");
    const schema = await lifecycle("session_start", claude({ continue: "no" }));
    expect([schema.outcome.decision, schema.outcome.rows[0]?.category]).toEqual(["continue", "exit"]);
    expect(schema.lines[0]).toContain("schema: continue");
    expect((await lifecycle("session_start", claude({ systemMessage: "hi", updatedMCPToolOutput: 1 }))).outcome.state.systemMessages).toEqual(["hi"]);
  });

  test("LIFE-35 LIFE-39 deny and continue:false stop the chain; continue:false stops the session", async () => {
    const world = makeWorld();
    const canary = join(world.root, "canary");
    const beside = join(world.root, "beside");
    // The second command runs beside the deny (one concurrent batch); the list hook after it never starts.
    toml(
      world,
      "user",
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = ${JSON.stringify(claude({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "nope" } }))} }, { command = "touch '${beside}'" }]`,
    );
    script(world, "scripts/canary.sh", `touch '${canary}'`);
    listHooks(world, "user", { before_tool: [{ command: "./scripts/canary.sh" }] });
    const denied = await fire(world, "pre_tool", BASH);
    expect(decided(denied)).toEqual(["deny", "nope"]);
    expect(denied.outcome.rows.map((row) => row.status)).toEqual(["success", "success", "skipped"]);
    expect(existsSync(beside)).toBe(true);
    expect(existsSync(canary)).toBe(false);
    const stopped = await lifecycle("pre_tool_use", claude({ continue: false, stopReason: "policy" }), BASH);
    expect(decided(stopped)).toEqual(["deny", "policy"]);
    expect(stopped.outcome.state.stopSession).toEqual({ reason: "policy", kind: "hook_blocked" });
  });

  test("LIFE-37 MERGE-09 updatedInput replaces the whole input and later hooks see it", async () => {
    const world = makeWorld();
    const seen = join(world.root, "seen.json");
    const beside = join(world.root, "beside.json");
    // A command of the same batch sees the input as the batch started; a later list hook sees the rewrite.
    toml(
      world,
      "user",
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = ${JSON.stringify(claude({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecisionReason: "rewrite", updatedInput: { command: "rtk cargo build" } } }))} }, { command = "cat > '${beside}'" }]`,
    );
    script(world, "scripts/save.sh", `cat > '${seen}'`);
    listHooks(world, "user", { before_tool: [{ command: "./scripts/save.sh", payload: "full" }] });
    const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "cargo build", description: "d", timeout: 5000 } });
    expect(fired.outcome.state.toolInput).toEqual({ command: "rtk cargo build" });
    expect(JSON.parse(readFileSync(beside, "utf8")).tool_input).toEqual({ command: "cargo build", description: "d", timeout: 5000 });
    expect(JSON.parse(readFileSync(seen, "utf8")).request.command).toBe("rtk cargo build");
  });

  test("LIFE-40 MERGE-20 pre contexts come first in the one block", async () => {
    const world = makeWorld();
    toml(
      world,
      "user",
      [
        `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = ${JSON.stringify(claude({ hookSpecificOutput: { additionalContext: "A" } }))} }]`,
        `[[hooks.lifecycle.post_tool_use]]\nhooks = [{ command = ${JSON.stringify(claude({ hookSpecificOutput: { additionalContext: "B" } }))} }]`,
      ].join("\n"),
    );
    const pre = await fire(world, "pre_tool", BASH);
    const after = await fire(world, "post_tool", post("ok"));
    const context = joinContexts([...pre.outcome.state.contexts, ...after.outcome.state.contexts]);
    expect(appendHookContext("ok", context)).toBe("ok\n\n<hook_context>\nA\n\nB\n</hook_context>");
  });

  test("LIFE-41 a hookSpecificOutput for another event is ignored with a warning", async () => {
    const other = await lifecycle("pre_tool_use", claude({ hookSpecificOutput: { hookEventName: "PostToolUse", permissionDecision: "deny" } }), BASH);
    expect(other.outcome.decision).toBe("allow");
    expect(other.outcome.state.warnings.join("\n")).toContain("PostToolUse");
    for (const name of ["pretooluse", "pre_tool"]) {
      expect(
        (await lifecycle("pre_tool_use", claude({ hookSpecificOutput: { hookEventName: name, permissionDecision: "deny" } }), BASH)).outcome.decision,
      ).toBe("deny");
    }
  });

  test("LIFE-44 quiet_success_output hides success infos only", async () => {
    const world = makeWorld();
    toml(world, "user", "[hooks.lifecycle]\nquiet_success_output = true");
    const quiet = await lifecycle("post_tool_use", "echo formatted", { ...post(), world });
    expect(quiet.outcome.state.infos).toEqual([]);
    const failed = makeWorld();
    toml(failed, "user", "[hooks.lifecycle]\nquiet_success_output = true");
    expect((await lifecycle("post_tool_use", "echo formatted; exit 1", { ...post(), world: failed })).outcome.state.infos).toEqual(["formatted"]);
    const start = makeWorld();
    toml(start, "user", "[hooks.lifecycle]\nquiet_success_output = true");
    expect((await lifecycle("session_start", "echo ctx", { world: start })).context).toBe("ctx");
  });

  test("LIFE-46 MERGE-32 failure_policy block turns timeouts, crashes and spawn failures into denials", async () => {
    for (const command of ["sleep 5", "exit 1", "/nonexistent/hook.sh"]) {
      const blocked = await lifecycle("pre_tool_use", command, { ...BASH, extra: ', timeout_seconds = 1, failure_policy = "block"' });
      expect(blocked.outcome.decision).toBe("deny");
      expect(blocked.outcome.reason).toMatch(/^hook pre_tool_use\[0\]\.hooks\[0\] failed: (timeout|exit|runner)$/);
      expect(blocked.lines[0]).toEndWith("— tool blocked");
      const open = await lifecycle("pre_tool_use", command, { ...BASH, extra: ", timeout_seconds = 1" });
      expect(open.outcome.decision).toBe("allow");
      expect(open.lines[0]).toEndWith("— tool ran anyway");
    }
    expect(decided(await lifecycle("pre_tool_use", "sleep 5", { ...BASH, extra: ', timeout_seconds = 1, failure_policy = "block"' }))).toEqual([
      "deny",
      "hook pre_tool_use[0].hooks[0] failed: timeout",
    ]);
  });

  test("LIFE-48 MERGE-22 post_tool blocks are feedback: context in declared order, decision continue", async () => {
    const world = makeWorld();
    hookDir(world, "user", "d", { event: "post_tool" }, `echo '{"context":"A"}'`);
    toml(
      world,
      "user",
      `[[hooks.lifecycle.post_tool_use]]\nhooks = [{ command = ${JSON.stringify(claude({ hookSpecificOutput: { additionalContext: "B" } }))} }, { command = "echo 'lint failed' >&2; exit 2" }, { command = "echo formatted" }]`,
    );
    const fired = await fire(world, "post_tool", post());
    expect([fired.outcome.decision, fired.context, fired.outcome.state.infos]).toEqual(["continue", "A\n\nB\n\nlint failed", ["formatted"]]);
    expect((await lifecycle("post_tool_use", claude({ decision: "block", reason: "lint failed" }), post())).context).toBe("lint failed");
    const bare = await lifecycle("post_tool_use", claude({ decision: "block" }), post());
    expect([bare.outcome.decision, bare.context]).toEqual(["continue", "blocked by hook"]);
  });

  test("LIFE-49 LIFE-50 user_prompt_submit: stdout is hidden context; blocks stop the chain with their reasons", async () => {
    const prompt: FireOptions = { fields: { prompt: "hello" } };
    const ctx = await lifecycle("user_prompt_submit", "echo 'Today is Monday'", prompt);
    expect([ctx.outcome.decision, ctx.outcome.state.hidden, ctx.outcome.state.contexts]).toEqual(["continue", ["Today is Monday"], []]);
    expect((await lifecycle("user_prompt_submit", claude({ hookSpecificOutput: { additionalContext: "Monday" } }), prompt)).outcome.state.hidden).toEqual([
      "Monday",
    ]);

    const world = makeWorld();
    const canary = join(world.root, "canary");
    // Both block, concurrently: the first in declared order wins even though it finishes last.
    toml(
      world,
      "user",
      `[[hooks.lifecycle.user_prompt_submit]]\nhooks = [{ command = "sleep 0.3; echo 'no secrets' >&2; exit 2" }, { command = "touch '${canary}'; echo 'second' >&2; exit 2" }]`,
    );
    expect(decided(await fire(world, "user_prompt_submit", prompt))).toEqual(["block", "no secrets"]);
    expect(existsSync(canary)).toBe(true);
    expect(decided(await lifecycle("user_prompt_submit", "exit 2", prompt))).toEqual(["block", "blocked by hook (exit 2)"]);
    expect(decided(await lifecycle("user_prompt_submit", claude({ decision: "block" }), prompt))).toEqual(["block", "blocked by hook"]);
    expect(decided(await lifecycle("user_prompt_submit", claude({ decision: "block", reason: "r" }), prompt))).toEqual(["block", "r"]);
    expect(decided(await lifecycle("user_prompt_submit", claude({ continue: false, stopReason: "r" }), prompt))).toEqual(["block", "r"]);
  });

  test("MERGE-26 system messages keep their order", async () => {
    const world = makeWorld();
    toml(
      world,
      "user",
      `[[hooks.lifecycle.stop]]\nhooks = [{ command = ${JSON.stringify(claude({ systemMessage: "m1" }))} }, { command = ${JSON.stringify(claude({ systemMessage: "m2" }))} }]`,
    );
    expect((await fire(world, "stop")).outcome.state.systemMessages).toEqual(["m1", "m2"]);
  });
});
