// Fresh-eyes conformance audit: each test pins one place where the engine or the loop differed
// from a decision (D8, D9, D15, D23) and was fixed. Real CLI, real hook processes, real files.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { RUN, hookRuns, lastJson, ofType, sessionRecords } from "../e2e/helpers.ts";

function userConfig(world: World, toml: string): void {
  world.file(join(world.agentHome, "config.toml"), toml);
}

describe("audit: session end paths", () => {
  test("LIFE-73 D23 a stop hook failing under failure_policy fail ends the run with exit 3 and hook_failed", async () => {
    const world = makeWorld();
    userConfig(world, `[[hooks.lifecycle.stop]]\nhooks = [{ command = "exit 1", failure_policy = "fail" }]\n`);
    writeScript(world, [{ text: "draft" }]);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.stderr).toContain("failed: exit: exited 1 — session stopped");
    expect(r.code).toBe(3);
    const out = lastJson(r.stdout);
    expect(out.stop_reason).toBe("hook_failed");
    expect(out.is_error).toBe(true);
  });

  test("LIFE-61 D8 a stop hook's continue:false still completes with exit 0 (control for the fix above)", async () => {
    const world = makeWorld();
    userConfig(world, `[[hooks.lifecycle.stop]]\nhooks = [{ command = "echo '{\\"continue\\":false,\\"stopReason\\":\\"done\\"}'" }]\n`);
    writeScript(world, [{ text: "draft" }]);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.code).toBe(0);
    const out = lastJson(r.stdout);
    expect(out.stop_reason).toBe("completed");
    expect(out.result).toBe("draft");
    expect(r.stderr).toContain("done");
  });

  test("LIFE-67 D8 continue:false from a claude-protocol after_assistant list hook ends the turn as hook_blocked", async () => {
    const world = makeWorld();
    world.file(join(world.agentHome, "bin", "halt.sh"), `#!/bin/sh\ncat >/dev/null\necho '{"continue":false,"stopReason":"enough"}'\n`, { executable: true });
    world.file(
      join(world.agentHome, "settings.json"),
      JSON.stringify({ hooks: { enabled: true, after_assistant: [{ label: "halt", command: `${world.agentHome}/bin/halt.sh`, protocol: "claude" }] } }),
    );
    writeScript(world, [{ tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "never" }]);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.stderr).toContain("enough");
    expect(r.code).toBe(3);
    const out = lastJson(r.stdout);
    expect(out.stop_reason).toBe("hook_blocked");
    expect(out.turns).toBe(1);
  });
});

describe("audit: async hooks at exit", () => {
  test("DIR-62 D15 an async hook still running at exit is killed after the grace and recorded failed/timeout", async () => {
    const world = makeWorld();
    const dir = join(world.agentHome, "hooks", "late");
    world.file(join(dir, "hook.json"), JSON.stringify({ event: "post_tool", run: "./run.sh", async: true, timeout: "30s" }));
    world.file(join(dir, "run.sh"), `#!/bin/sh\ncat >/dev/null\nsleep 20\ntouch "${world.root}/late-finished"\n`, { executable: true });
    writeScript(world, [{ tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/agent: hook late \(post_tool\) failed: timeout: .* — ignored \(async\)/);
    const records = sessionRecords(world);
    const late = hookRuns(records).filter((x) => x.label === "late");
    expect(late.map((x) => [x.status, x.category])).toEqual([["failed", "timeout"]]);
    // Written before the session ends, never after.
    const endAt = records.findIndex((x) => x.type === "session_end");
    expect(records.indexOf(late[0] as Record<string, unknown>)).toBeLessThan(endAt);
    expect(ofType(records, "hook_diagnostic").some((x) => x.label === "late" && x.category === "timeout")).toBe(true);
    expect(existsSync(join(world.root, "late-finished"))).toBe(false);
  });
});

describe("audit: agent hooks test", () => {
  test("LIFE-41 D9 agent hooks test reports the ignored hookSpecificOutput warning, as a session does", async () => {
    const world = makeWorld();
    userConfig(
      world,
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PostToolUse\\",\\"permissionDecision\\":\\"deny\\"}}'" }]\n`,
    );
    const r = await runCliInProcess(world, ["hooks", "test", "pre_tool", "--tool", "bash", "--input", '{"command":"ls"}', "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).decision).toBe("allow");
    expect(r.stderr).toContain("hookSpecificOutput ignored");
    void readFileSync;
  });
});

describe("audit: continue:false on subagent events", () => {
  const script = (world: World): void => {
    world.file(
      "script.json",
      JSON.stringify({
        turns: [{ tool_calls: [{ id: "call_1", name: "task", arguments: { description: "d", prompt: "p" } }] }, { text: "parent went on" }],
        agents: { general: { turns: [{ text: "child done" }] } },
      }),
    );
  };

  test("LIFE-64 D8 continue:false from subagent_start spawns no child and ends the parent's turn with exit 3", async () => {
    const world = makeWorld();
    userConfig(world, `[[hooks.lifecycle.subagent_start]]\nhooks = [{ command = "echo '{\\"continue\\":false,\\"stopReason\\":\\"no more\\"}'" }]\n`);
    script(world);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.stderr).toContain("no more");
    expect(r.code).toBe(3);
    const out = lastJson(r.stdout);
    expect(out.stop_reason).toBe("hook_blocked");
    expect(out.turns).toBe(1);
    expect(existsSync(join(world.agentHome, "sessions", "subagents"))).toBe(false);
  });

  test("LIFE-65 D8 continue:false from subagent_stop keeps the child's reply and ends the parent's turn with exit 3", async () => {
    const world = makeWorld();
    world.file(
      join(world.agentHome, "bin", "stop.sh"),
      `#!/bin/sh\ncat >/dev/null\necho x >> "${world.root}/stop-runs"\necho '{"continue":false,"stopReason":"child is enough"}'\n`,
      { executable: true },
    );
    userConfig(world, `[[hooks.lifecycle.subagent_stop]]\nhooks = [{ command = "${world.agentHome}/bin/stop.sh" }]\n`);
    script(world);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.stderr).toContain("child is enough");
    expect(r.code).toBe(3);
    const out = lastJson(r.stdout);
    expect(out.stop_reason).toBe("hook_blocked");
    expect(out.turns).toBe(1);
    // The hook ran once: the child's stop, never a second report of the same end.
    expect(readFileSync(join(world.root, "stop-runs"), "utf8")).toBe("x\n");
    const delivered = ofType(sessionRecords(world), "tool_result_delivered");
    expect(String(delivered[0]?.content)).toContain("child done");
  });

  test("LIFE-73 D23 a subagent_stop hook failing under fail ends the parent's turn as hook_failed, fired once", async () => {
    const world = makeWorld();
    world.file(join(world.agentHome, "bin", "crash.sh"), `#!/bin/sh\ncat >/dev/null\necho x >> "${world.root}/stop-runs"\nexit 1\n`, { executable: true });
    userConfig(world, `[[hooks.lifecycle.subagent_stop]]\nhooks = [{ command = "${world.agentHome}/bin/crash.sh", failure_policy = "fail" }]\n`);
    script(world);
    const r = await runCliInProcess(world, [...RUN, "go"]);
    expect(r.code).toBe(3);
    expect(lastJson(r.stdout).stop_reason).toBe("hook_failed");
    expect(readFileSync(join(world.root, "stop-runs"), "utf8")).toBe("x\n");
  });
});
