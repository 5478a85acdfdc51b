// `agent run` for CI: the json object (session id, result, stop reason, turns, usage, cost,
// durations, permission and hook denials, next to the keys it always had), the stream-json lines
// (text deltas, tool calls and results, hook decisions, one final result line) and the prompt from
// stdin when none is given and stdin is not a terminal.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeWorld, readJsonl, runCli, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { lastJson, ofType, recordsOf } from "../agent/support.ts";

const DENY_BASH = `echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"deny\\",\\"permissionDecisionReason\\":\\"no bash here\\"}}'`;

/** A session whose write is refused by the permission gate (default mode, no one to ask) and whose bash a hook denies. */
function deniedWorld(): World {
  const w = makeWorld();
  w.file(join(w.agentHome, "config.toml"), ["[[hooks.lifecycle.pre_tool]]", 'matcher = "bash"', `hooks = [{ command = "${DENY_BASH}" }]`].join("\n"));
  writeScript(w, [
    {
      tool_calls: [
        { id: "w1", name: "write", arguments: { file_path: "a.txt", content: "x" } },
        { id: "b1", name: "bash", arguments: { command: "echo hi" } },
      ],
    },
    { text: "all done" },
  ]);
  return w;
}

const runArgs = (format: string, prompt: string[] = ["go"]): string[] => [
  "run",
  "--provider",
  "script",
  "--script",
  "script.json",
  "--output-format",
  format,
  "--trust",
  ...prompt,
];

describe("--output-format json", () => {
  test("has the session's usage, cost, durations, turns and both kinds of denial next to the keys it always had", async () => {
    const w = deniedWorld();
    const r = await runCliInProcess(w, runArgs("json"));
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const out = lastJson(r.stdout);
    expect(Object.keys(out)).toEqual([
      "type",
      "session_id",
      "result",
      "turns",
      "tool_calls",
      "is_error",
      "stop_reason",
      "message",
      "model",
      "usage",
      "cost_usd",
      "duration_ms",
      "duration_api_ms",
      "permission_denials",
      "hook_denials",
    ]);
    expect(out).toMatchObject({
      type: "result",
      result: "all done",
      turns: 2,
      tool_calls: 2,
      is_error: false,
      stop_reason: "completed",
      message: null,
      model: "script",
      cost_usd: null,
    });
    expect(out.usage).toEqual({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(out.permission_denials).toEqual([{ tool_name: "write", tool_use_id: "w1", reason: expect.stringContaining("write") }]);
    expect(out.hook_denials).toEqual([{ event: "pre_tool", decision: "deny", tool_name: "bash", tool_use_id: "b1", reason: "no bash here" }]);
    expect(recordsOf(w, r).length).toBeGreaterThan(0);
  });
});

describe("--output-format stream-json", () => {
  test("session lines with text deltas and hook decisions where they happened, and one final result line", async () => {
    const w = deniedWorld();
    const r = await runCliInProcess(w, runArgs("stream-json"));
    expect(r.code).toBe(0);
    const lines = readJsonl(r.stdout);
    const types = lines.map((line) => line.type);
    expect(types.filter((type) => type === "result")).toHaveLength(1);
    expect(types[types.length - 1]).toBe("result");
    expect(lines[lines.length - 1]).toMatchObject({
      type: "result",
      result: "all done",
      stop_reason: "completed",
      hook_denials: [{ tool_use_id: "b1" }],
      permission_denials: [{ tool_use_id: "w1" }],
    });

    // Tool calls and results are the session's own records, in order, with the hook's decision between them.
    const at = (predicate: (line: Record<string, unknown>) => boolean): number => lines.findIndex(predicate);
    const bashCall = at((line) => line.type === "tool_call" && line.tool_call_id === "b1");
    const decision = at((line) => line.type === "hook_decision");
    const bashResult = at((line) => line.type === "tool_result" && line.tool_call_id === "b1");
    expect([bashCall < decision, decision < bashResult]).toEqual([true, true]);
    expect(lines[decision]).toMatchObject({
      type: "hook_decision",
      event: "pre_tool",
      decision: "deny",
      tool_call_id: "b1",
      reason: "no bash here",
      decided_by_scope: "user",
    });
    expect(at((line) => line.type === "tool_result" && line.tool_call_id === "w1")).toBeGreaterThan(
      at((line) => line.type === "tool_call" && line.tool_call_id === "w1"),
    );

    // The final text streams as deltas before its assistant record.
    const delta = at((line) => line.type === "text_delta");
    expect(
      lines
        .filter((line) => line.type === "text_delta")
        .map((line) => line.text)
        .join(""),
    ).toBe("all done");
    expect(delta).toBeLessThan(lines.findLastIndex((line) => line.type === "assistant"));
    // Every session record is there, unchanged.
    const sessionLines = lines.filter((line) => !["text_delta", "result"].includes(String(line.type)));
    expect(sessionLines).toEqual(recordsOf(w, { ...r, stdout: JSON.stringify(lines[lines.length - 1]) }));
  });
});

describe("prompt from stdin", () => {
  test("no prompt and stdin not a terminal: stdin is the prompt", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "ok" }]);
    const r = await runCliInProcess(w, runArgs("json", []), { input: "fix the build\n" });
    expect(r.code).toBe(0);
    expect(ofType(recordsOf(w, r), "user")[0]).toMatchObject({ content: "fix the build" });
  });

  test("the real process reads a piped prompt", () => {
    const w = makeWorld();
    writeScript(w, [{ text: "ok" }]);
    const r = runCli(w, runArgs("json", []), { input: "piped prompt\n" });
    expect(r.code).toBe(0);
    expect(ofType(recordsOf(w, r), "user")[0]).toMatchObject({ content: "piped prompt" });
  });

  test("no prompt and empty stdin is a usage error", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "ok" }]);
    const r = await runCliInProcess(w, runArgs("json", []), { input: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no prompt given");
  });
});
