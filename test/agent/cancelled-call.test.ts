// D29: a tool call that a stop signal (Ctrl-C/SIGINT, SIGTERM) cancels did not run to its end, so no
// post_tool, post_tool_failure or after_tool hook fires for it (Claude Code runs no PostToolUse for
// an interrupted call), and the session file records the call as cancelled. A call that ended
// before the signal gets its post hooks as always; a signal during the pre phase runs no tool.
// Real `bun src/main.ts run` processes with the script provider; real hook scripts.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO, makeWorld, runCli, writeScript, type World } from "../support/cli.ts";
import { killGroup, waitForText, waitGroupGone } from "../support/procs.ts";
import { group, lastJson, logTo, readLog, recordsOf, ofType } from "./support.ts";

setDefaultTimeout(60_000);

interface Ended {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(world: World): { child: ReturnType<typeof spawn>; done: Promise<Ended> } {
  const args = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--trust", "--output-format", "json", "go"];
  const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), ...args], { cwd: world.project, env: world.env() });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk) => (stderr += chunk.toString()));
  const done = new Promise<Ended>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  child.stdin?.end("");
  return { child, done };
}

/** Post hooks of all three forms, each logging what it got: lifecycle success and failure groups, an after_tool list hook. */
function postHooks(w: World, pre: string[] = []): void {
  w.file("after.sh", `#!/bin/sh\n${logTo(w, "after.log")}\n`, { executable: true });
  w.file(
    ".agent/settings.json",
    JSON.stringify({
      hooks: {
        enabled: true,
        after_tool: [{ label: "after", command: "./after.sh" }],
        lifecycle: {
          ...(pre.length > 0 ? { pre_tool_use: [group(pre, "Write")] } : {}),
          post_tool_use: [group([logTo(w, "post.log")])],
          post_tool_use_failure: [group([logTo(w, "failure.log")])],
        },
      },
    }),
  );
}

function callIds(w: World, name: string): unknown[] {
  return readLog(w, name).map((entry) => entry.tool_use_id ?? (entry.tool as Record<string, unknown> | undefined)?.call_id ?? entry);
}

describe("D29 a cancelled tool call fires no post hooks", () => {
  test("SIGINT during a bash call: the finished call before it got its post hooks, the cancelled one none, and is recorded cancelled", async () => {
    const w = makeWorld();
    const pidFile = join(w.root, "bash-pid");
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "echo first" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: `echo $$ > '${pidFile}'; sleep 300` } }] },
      { text: "never" },
    ]);
    postHooks(w);
    const run = start(w);
    const pgid = Number(await waitForText(pidFile));
    try {
      run.child.kill("SIGINT");
      const r = await run.done;
      expect(r.code).toBe(130);
      expect(await waitGroupGone(pgid)).toEqual([]);
      // The legitimate neighbour: the first call ran to its end, and its post hooks ran.
      expect(readLog(w, "post.log").map((p) => p.tool_use_id)).toEqual(["call_1"]);
      expect(readLog(w, "after.log")).toHaveLength(1);
      // The cancelled call: no post hook of any form, no false failure line.
      expect(readLog(w, "failure.log")).toEqual([]);
      expect(r.stderr).not.toContain("failed: timeout");
      const records = recordsOf(w, r);
      const lifecycle = ofType(records, "hook_lifecycle").filter((rec) => rec.tool_call_id === "call_2");
      expect(lifecycle).toEqual([]);
      const result = ofType(records, "tool_result").find((rec) => rec.tool_call_id === "call_2");
      expect(result).toMatchObject({ success: false, metadata: { cancelled: true } });
      expect(ofType(records, "tool_result_delivered").map((rec) => rec.tool_call_id)).toEqual(["call_1", "call_2"]);
      // A replay through today's hooks has no post event for the cancelled call either.
      expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
      const replay = runCli(w, ["hooks", "replay", String(lastJson(r.stdout).session_id), "--json"]);
      const events = (JSON.parse(replay.stdout) as { events: { event: string; tool_call_id: string | null }[] }).events;
      expect(events.filter((e) => e.event.startsWith("post_tool")).map((e) => e.tool_call_id)).toEqual(["call_1"]);
    } finally {
      killGroup(pgid);
    }
  });

  test("SIGINT during a pre_tool hook of a write call: the write never happens, no post hook fires, the call is recorded cancelled", async () => {
    const w = makeWorld();
    const pidFile = join(w.root, "hook-pid");
    const canary = join(w.project, "canary.txt");
    writeScript(w, [{ tool_calls: [{ name: "write", arguments: { file_path: canary, content: "x" } }] }, { text: "never" }]);
    // A fail-open pre hook: its failure alone would let the tool run ("tool ran anyway").
    postHooks(w, [`cat >/dev/null; echo $$ > '${pidFile}'; sleep 300`]);
    const run = start(w);
    const pgid = Number(await waitForText(pidFile));
    try {
      run.child.kill("SIGINT");
      const r = await run.done;
      expect(r.code).toBe(130);
      expect(await waitGroupGone(pgid)).toEqual([]);
      expect(existsSync(canary)).toBe(false);
      expect(callIds(w, "post.log")).toEqual([]);
      expect(callIds(w, "failure.log")).toEqual([]);
      expect(callIds(w, "after.log")).toEqual([]);
      const result = ofType(recordsOf(w, r), "tool_result");
      expect(result).toHaveLength(1);
      expect(result[0]).toMatchObject({ tool_call_id: "call_1", success: false, metadata: { cancelled: true } });
    } finally {
      killGroup(pgid);
    }
  });

  test("without a signal the same hooks fire for a failing and a succeeding call", async () => {
    const w = makeWorld();
    const canary = join(w.project, "made.txt");
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "exit 3" } }] },
      { tool_calls: [{ name: "write", arguments: { file_path: canary, content: "x" } }] },
      { text: "done" },
    ]);
    postHooks(w, ["cat >/dev/null"]);
    const run = start(w);
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(existsSync(canary)).toBe(true);
    expect(readLog(w, "failure.log").map((p) => p.tool_use_id)).toEqual(["call_1"]);
    expect(readLog(w, "post.log").map((p) => p.tool_use_id)).toEqual(["call_2"]);
    expect(readLog(w, "after.log")).toHaveLength(2);
    for (const result of ofType(recordsOf(w, r), "tool_result")) expect(result.metadata).not.toHaveProperty("cancelled");
  });
});
