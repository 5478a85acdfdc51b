// Which recorded events `agent hooks replay` fires again, and what it takes as "then".
import { describe, expect, test } from "bun:test";
import { replayItems } from "../../src/cli/commands/hooks-replay.ts";
import { finalThen, recordedMode } from "../../src/cli/commands/replay-gate.ts";
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

  test("a call refused by a rule or with nobody to ask had no post_tool event", () => {
    const result = (metadata: Record<string, unknown>): SessionRecord =>
      buildRecord("tool_result", { tool_call_id: "c1", tool_name: "bash", input: { command: "rm x" }, success: false, content: "no", metadata }, TS);
    const call = buildRecord("tool_call", { tool_call_id: "c1", tool_name: "bash", input: { command: "rm x" } }, TS);
    expect(replayItems([start, call, result({ rejected: true })]).map((item) => item.event)).toEqual(["pre_tool"]);
    expect(replayItems([start, call, result({})]).map((item) => item.event)).toEqual(["pre_tool", "post_tool_failure"]);
  });
});

describe("final decision then", () => {
  const result = (fields: {
    rejected: boolean;
    permission?: { mode: string; decision: "allow" | "deny" | "ask"; reason: string; rule?: string; answered_by?: "user" };
  }) =>
    buildRecord(
      "tool_result",
      {
        tool_call_id: "c1",
        tool_name: "bash",
        input: { command: "ls" },
        success: !fields.rejected,
        content: "",
        metadata: fields.rejected ? { rejected: true } : {},
        ...(fields.permission ? { permission: fields.permission } : {}),
      },
      TS,
    ) as Extract<SessionRecord, { type: "tool_result" }>;
  const hookDeny = decision("pre_tool", { decision: "deny", tool_call_id: "c1" }) as Extract<SessionRecord, { type: "hook_decision" }>;

  test("a hook's deny first; then the recorded gate with its rule and who answered an ask", () => {
    expect(finalThen(hookDeny, result({ rejected: true }))).toMatchObject({ decision: "deny", decided_by: "h", ran: false });
    const rule = { mode: "default", decision: "deny" as const, reason: "denied by permission rule bash(rm*)", rule: "bash(rm*)" };
    expect(finalThen(undefined, result({ rejected: true, permission: rule }))).toMatchObject({ decision: "deny", decided_by: "deny rule bash(rm*)" });
    const asked = { mode: "default", decision: "ask" as const, reason: "bash needs approval in default permission mode", answered_by: "user" as const };
    expect(finalThen(undefined, result({ rejected: false, permission: asked }))).toMatchObject({
      decision: "ask",
      decided_by: null,
      ran: true,
      answered_by: "user",
    });
    expect(recordedMode([start, result({ rejected: false, permission: asked })])).toBe("default");
  });

  test("a file without the gate's record: a call that ran was allowed, a refused one is unknown, and no mode is recorded", () => {
    expect(finalThen(undefined, result({ rejected: false }))).toMatchObject({ decision: "allow", ran: true });
    expect(finalThen(undefined, result({ rejected: true }))).toMatchObject({ decision: "unknown", ran: false });
    expect(finalThen(undefined, undefined).decision).toBe("unknown");
    expect(recordedMode([start, result({ rejected: false })])).toBeUndefined();
  });
});
