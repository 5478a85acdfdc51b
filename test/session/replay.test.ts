import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import { compactionSummaryMessage, readSession, replayMessages, SessionWriter } from "../../src/session/store.ts";
import { MISSING_RESULT_TEXT } from "../../src/session/replay.ts";

const runtime = createRuntime();

function sessionWithHooks(): SessionWriter {
  const writer = new SessionWriter({ runtime, home: mkdtempSync(join(tmpdir(), "agent-replay-")), id: "s-replay", persist: true });
  const hook = { label: "lbl-9c1e", target_tool: "bash", policy: "warn", tool_call_id: "call_1", activity_id: "call_1", hook_index: 0 } as const;
  writer.append("session_start", { session_id: "s-replay", source: "startup", cwd: "/w", project_dir: "/w", provider: "script", model: "m" });
  writer.append("user", { content: "run ls" });
  writer.append("reasoning", { content: "secret thoughts" });
  writer.append("assistant", { message_id: "msg_1", content: "running", tool_calls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }] });
  writer.append("tool_call", { tool_call_id: "call_1", tool_name: "bash", input: { command: "ls" } });
  writer.append("hook_lifecycle", { ...hook, phase: "before_tool", status: "started", category: null, target_ran: null, elapsed_ms: null, message: null });
  writer.append("hook_lifecycle", {
    ...hook,
    phase: "before_tool",
    status: "failed",
    category: "exit",
    target_ran: null,
    elapsed_ms: 2,
    message: "exited with code 1",
  });
  writer.append("hook_diagnostic", {
    ...hook,
    phase: "before_tool",
    status: "failed",
    category: "exit",
    target_ran: null,
    elapsed_ms: 2,
    message: "exited with code 1",
  });
  writer.append("tool_result", { tool_call_id: "call_1", tool_name: "bash", input: { command: "ls" }, success: true, content: "RAW-OUTPUT", metadata: {} });
  writer.append("tool_result_delivered", { tool_call_id: "call_1", content: "REWRITTEN\n<hook_context>\nctx\n</hook_context>", output: "REWRITTEN" });
  writer.append("hook_context_injection", {
    schema_version: 1,
    phase: "after_tool",
    label: "lbl-9c1e",
    target_tool: "bash",
    status: "success",
    item_count: 1,
    byte_count: 13,
    max_bytes: 4096,
    hook_index: 1,
  });
  writer.append("provider_context_item", { role: "user", content: "injected item" });
  writer.append("assistant", { message_id: "msg_2", content: "done", tool_calls: [] });
  writer.append("session_end", { reason: "completed", stop_reason: "completed", is_error: false });
  return writer;
}

function records(writer: SessionWriter) {
  const read = readSession(runtime, writer.path ?? "");
  if (!read.ok) throw new Error(read.error);
  expect(read.problems).toEqual([]);
  return read.records;
}

describe("resume replay (D25)", () => {
  test("TOOL-61 LOOP-28 replays delivered results and injected items, never tool_result or hook records", () => {
    const messages = replayMessages(records(sessionWithHooks()));
    expect(messages).toEqual([
      { role: "user", content: "run ls" },
      { role: "assistant", content: "running", toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }] },
      { role: "tool", toolCallId: "call_1", name: "bash", content: "REWRITTEN\n<hook_context>\nctx\n</hook_context>" },
      { role: "user", content: "injected item" },
      { role: "assistant", content: "done", toolCalls: [] },
    ]);
    const text = JSON.stringify(messages);
    for (const leaked of ["RAW-OUTPUT", "lbl-9c1e", "exited with code", "secret thoughts"]) expect(text).not.toContain(leaked);
  });

  test("D25 replay starts from the last compaction summary", () => {
    const writer = sessionWithHooks();
    writer.append("compaction", { trigger: "manual", summary: "first summary", original_message_count: 5 });
    writer.append("user", { content: "between" });
    writer.append("compaction", { trigger: "auto", summary: "second summary", original_message_count: 7 });
    writer.append("user", { content: "after" });
    expect(replayMessages(records(writer))).toEqual([compactionSummaryMessage("second summary"), { role: "user", content: "after" }]);
    expect(compactionSummaryMessage("s")).toMatchObject({ role: "user" });
  });

  test("D25 failed results replay as errors; a call without a delivered result gets a stand-in error", () => {
    const writer = new SessionWriter({ runtime, home: mkdtempSync(join(tmpdir(), "agent-replay-")), id: "s-cut", persist: true });
    writer.append("user", { content: "go" });
    writer.append("assistant", {
      message_id: "m1",
      content: "",
      tool_calls: [
        { id: "call_1", name: "bash", arguments: '{"command":"rm x"}' },
        { id: "call_2", name: "read", arguments: '{"file_path":"a"}' },
      ],
    });
    writer.append("tool_result", { tool_call_id: "call_1", tool_name: "bash", input: { command: "rm x" }, success: false, content: "denied", metadata: {} });
    writer.append("tool_result_delivered", { tool_call_id: "call_1", content: "Tool call blocked by local hook policy.", output: "blocked" });
    // call_2's result was never written (the process died); the next prompt comes from a resume.
    writer.append("user", { content: "again" });
    expect(replayMessages(records(writer)).slice(2)).toEqual([
      { role: "tool", toolCallId: "call_1", name: "bash", content: "Tool call blocked by local hook policy.", isError: true },
      { role: "tool", toolCallId: "call_2", name: "read", content: MISSING_RESULT_TEXT, isError: true },
      { role: "user", content: "again" },
    ]);
  });
});
