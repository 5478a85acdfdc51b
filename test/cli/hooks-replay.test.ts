// Which recorded events `agent hooks replay` fires again, and what it takes as "then".
import { describe, expect, test } from "bun:test";
import { replayItems } from "../../src/cli/commands/hooks-replay.ts";
import { buildRecord, type SessionRecord } from "../../src/session/records.ts";

const TS = "2026-12-05T10:00:00.000Z";
const start = buildRecord("session_start", { session_id: "s", source: "startup", cwd: "/p", project_dir: "/p", provider: "script", model: "m" }, TS);
const decision = (
  event: "user_prompt_submit" | "stop" | "pre_tool" | "post_tool",
  fields: { decision: "allow" | "deny" | "ask" | "block" | "none"; tool_call_id?: string; prompt?: string },
): SessionRecord =>
  buildRecord(
    "hook_decision",
    {
      event,
      tool_call_id: fields.tool_call_id ?? null,
      decision: fields.decision,
      reason: null,
      decided_by: "h",
      decided_by_scope: "user",
      ...(fields.prompt !== undefined ? { prompt: fields.prompt } : {}),
    },
    TS,
  );
const lifecycle = (phase: "pre_tool", callId: string): SessionRecord =>
  buildRecord(
    "hook_lifecycle",
    {
      phase,
      label: "h",
      target_tool: "bash",
      status: "success",
      policy: "warn",
      category: null,
      target_ran: null,
      tool_call_id: callId,
      activity_id: callId,
      hook_index: 0,
      elapsed_ms: 1,
      message: null,
    },
    TS,
  );

describe("replay items", () => {
  test("prompts: from decisions (a context item between is fine), stop continuations skipped, a later hook-less prompt kept", () => {
    const records: SessionRecord[] = [
      start,
      decision("user_prompt_submit", { decision: "none", prompt: "one" }),
      buildRecord("provider_context_item", { role: "user", content: "ctx" }, TS),
      buildRecord("user", { content: "one" }, TS),
      buildRecord("assistant", { message_id: "m1", content: "done", tool_calls: [] }, TS),
      decision("stop", { decision: "block" }),
      buildRecord("user", { content: "keep going" }, TS),
      buildRecord("assistant", { message_id: "m2", content: "done", tool_calls: [] }, TS),
      decision("stop", { decision: "block" }),
      start,
      buildRecord("user", { content: "two" }, TS),
    ];
    expect(replayItems(records).map((item) => [item.event, item.subject, item.then.decision])).toEqual([
      ["user_prompt_submit", "one", "none"],
      ["user_prompt_submit", "two", "none"],
    ]);
  });

  test("tool calls: validated input, then from the decision, unknown when hooks ran without one; no post_tool after a pre_tool deny", () => {
    const records: SessionRecord[] = [
      start,
      buildRecord("tool_call", { tool_call_id: "c1", tool_name: "bash", input: { command: "rm -rf /" } }, TS),
      decision("pre_tool", { decision: "deny", tool_call_id: "c1" }),
      buildRecord(
        "tool_result",
        { tool_call_id: "c1", tool_name: "bash", input: { command: "rm -rf /" }, success: false, content: "denied", metadata: {} },
        TS,
      ),
      buildRecord("tool_call", { tool_call_id: "c2", tool_name: "bash", input: { command: "ls" } }, TS),
      lifecycle("pre_tool", "c2"),
      buildRecord("tool_result", { tool_call_id: "c2", tool_name: "bash", input: { command: "ls" }, success: true, content: "a", metadata: {} }, TS),
      buildRecord("tool_call", { tool_call_id: "c3", tool_name: "bash", input: "{not json" }, TS),
      buildRecord("tool_call", { tool_call_id: "c4", tool_name: "nope", input: {} }, TS),
    ];
    expect(replayItems(records).map((item) => [item.record, item.event, item.callId, item.then.decision])).toEqual([
      [2, "pre_tool", "c1", "deny"],
      [5, "pre_tool", "c2", "unknown"],
      [7, "post_tool", "c2", "none"],
    ]);
  });
});
