// Readonly filtering and each mode's defaults in real sessions (D24, DIR-69, MERGE-29, TOOL-22,
// LOOP-44), through `agent run` with the script provider and real hook processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { group, logTo, ofType, readLog, recordsOf, runScriptInProcess } from "./support.ts";

function settings(world: World, value: Record<string, unknown>): void {
  world.file(".agent/settings.json", JSON.stringify(value));
}

function delivered(world: World, result: { stdout: string }): string[] {
  return ofType(recordsOf(world, { code: 0, stderr: "", stdout: result.stdout }), "tool_result_delivered").map((record) => String(record.content));
}

function bashOnce(world: World, command: string): void {
  writeScript(world, [{ tool_calls: [{ name: "bash", arguments: { command } }] }, { text: "ok" }]);
}

describe("permission modes in a session", () => {
  test("DIR-69 MERGE-29 readonly mode spawns only fail-closed hooks on tool events, and their deny applies", async () => {
    const w = makeWorld();
    bashOnce(w, "echo hi");
    w.file("spawn.sh", `#!/bin/sh\ncat >/dev/null\necho "$1" >> '${join(w.root, "spawned")}'\n`, { executable: true });
    // Project scope: hook dirs audit (fail open) and strict (fail closed, denies bash).
    w.file(".agent/hooks/audit/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/audit/run.sh", `#!/bin/sh\n${w.project}/spawn.sh audit\n`, { executable: true });
    w.file(".agent/hooks/strict/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh", fail_closed: true }));
    w.file(".agent/hooks/strict/run.sh", `#!/bin/sh\n${w.project}/spawn.sh strict\necho '{"action":"deny","reason":"strict says no"}'\n`, { executable: true });
    // User scope (runs first, D13): list hooks warn/block, lifecycle commands with and without block.
    w.file(
      join(w.agentHome, "settings.json"),
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [
            { label: "lwarn", command: `${w.project}/spawn.sh lwarn`, failure_policy: "warn" },
            { label: "lblock", command: `${w.project}/spawn.sh lblock`, failure_policy: "block" },
          ],
          lifecycle: { pre_tool_use: [group([`${w.project}/spawn.sh cplain`, { command: `${w.project}/spawn.sh cblock`, failure_policy: "block" }])] },
        },
      }),
    );
    const spawned = (): string[] => (existsSync(join(w.root, "spawned")) ? readFileSync(join(w.root, "spawned"), "utf8").trim().split("\n").sort() : []);
    const r = await runScriptInProcess(w, "readonly");
    expect(r.code).toBe(0);
    expect(spawned()).toEqual(["cblock", "lblock", "strict"]);
    expect(delivered(w, r)).toEqual(["strict says no"]);
    for (const mode of ["default", "bypass"]) {
      w.file(join(w.root, "spawned"), "");
      await runScriptInProcess(w, mode);
      expect(spawned()).toEqual(["audit", "cblock", "cplain", "lblock", "lwarn", "strict"]);
    }
  });

  test("TOOL-22 readonly: lists run only block/fail hooks on tool events and every hook on message phases", async () => {
    const w = makeWorld();
    w.file("a.txt", "alpha\n");
    writeScript(w, [{ text: "reading", tool_calls: [{ name: "read", arguments: { file_path: "a.txt" } }] }, { text: "ok" }]);
    w.file("spawn.sh", `#!/bin/sh\ncat >/dev/null\necho "$1" >> '${join(w.root, "spawned")}'\n`, { executable: true });
    settings(w, {
      hooks: {
        enabled: true,
        before_tool: [
          { label: "audit", command: "./spawn.sh audit", failure_policy: "warn" },
          { label: "gate", command: "./spawn.sh gate", failure_policy: "block" },
        ],
        after_tool: [{ label: "final", command: "./spawn.sh final", failure_policy: "fail" }],
        after_assistant: [{ label: "note", command: "./spawn.sh note", failure_policy: "warn" }],
      },
    });
    const spawned = (): string[] => [...new Set(readFileSync(join(w.root, "spawned"), "utf8").trim().split("\n"))].sort();
    const r = await runScriptInProcess(w, "readonly");
    expect(r.code).toBe(0);
    expect(spawned()).toEqual(["final", "gate", "note"]);
    w.file(join(w.root, "spawned"), "");
    await runScriptInProcess(w, "bypass");
    expect(spawned()).toEqual(["audit", "final", "gate", "note"]);
  });

  test("LOOP-44 D24 each mode's defaults for all seven tools; a deny rule holds in every mode", async () => {
    const w = makeWorld();
    const calls = [
      { name: "read", arguments: { file_path: "a.txt" } },
      { name: "grep", arguments: { pattern: "alpha" } },
      { name: "glob", arguments: { pattern: "*.txt" } },
      { name: "write", arguments: { file_path: "b.txt", content: "new\n" } },
      { name: "edit", arguments: { file_path: "a.txt", old_string: "alpha", new_string: "beta" } },
      { name: "bash", arguments: { command: "touch t" } },
      { name: "task", arguments: { description: "d", prompt: "p" } },
    ];
    writeScript(w, [{ tool_calls: calls }, { text: "ok" }]);
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { lifecycle: { permission_request: [group([{ command: logTo(w, "pr.log"), failure_policy: "block" }])] } } }),
    );
    const verdicts = async (mode: string): Promise<string[]> => {
      w.file("a.txt", "alpha\n");
      const r = await runScriptInProcess(w, mode);
      expect(r.code).toBe(0);
      return delivered(w, r).map((text) => (text.includes("needs approval") ? "ask" : text.includes("readonly permission mode") ? "deny" : "ran"));
    };
    expect(await verdicts("default")).toEqual(["ran", "ran", "ran", "ask", "ask", "ask", "ask"]);
    const asked = readLog(w, "pr.log").length;
    expect(asked).toBe(4);
    expect(await verdicts("accept-edits")).toEqual(["ran", "ran", "ran", "ran", "ran", "ask", "ask"]);
    expect(await verdicts("readonly")).toEqual(["ran", "ran", "ran", "deny", "deny", "deny", "deny"]);
    expect(readLog(w, "pr.log").length).toBe(asked + 2);
    // bypass: none is held back by the gate (task's own result depends on subagent support).
    expect(await verdicts("bypass")).toEqual(["ran", "ran", "ran", "ran", "ran", "ran", "ran"]);

    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "rm x" } }] }, { text: "ok" }]);
    w.file(".agent/settings.json", JSON.stringify({ permissions: { deny: ["bash(rm *)"] } }));
    for (const mode of ["default", "accept-edits", "readonly", "bypass"]) {
      w.file("x", "x");
      const r = await runScriptInProcess(w, mode);
      expect(existsSync(join(w.project, "x"))).toBe(true);
      expect(delivered(w, r)[0]).toContain("bash(rm *)");
    }
  });
});
