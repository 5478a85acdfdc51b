// The audit export's mapping of session records to log entries: what is exported, and redacted.
import { describe, expect, test } from "bun:test";
import { auditEntry } from "../../src/hooks/otlp.ts";
import { buildRecord } from "../../src/session/records.ts";

const TS = "2026-12-05T10:00:00.000Z";
const TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

describe("audit entries", () => {
  test("tool calls and results: inputs and metadata redacted, output never exported", () => {
    const call = auditEntry(buildRecord("tool_call", { tool_call_id: "c1", tool_name: "bash", input: { command: `echo ${TOKEN} $SECRET_VALUE_X` } }, TS), [
      "value-of-stripped-9",
    ]);
    expect(call?.name).toBe("agent.tool_call");
    expect(String(call?.attributes["tool.input"])).not.toContain(TOKEN);
    const result = auditEntry(
      buildRecord(
        "tool_result",
        {
          tool_call_id: "c1",
          tool_name: "bash",
          input: { command: "cat .env" },
          success: false,
          content: `KEY=${TOKEN} value-of-stripped-9`,
          metadata: { note: "value-of-stripped-9" },
        },
        TS,
      ),
      ["value-of-stripped-9"],
    );
    expect(result).toMatchObject({ name: "agent.tool_result", severity: "WARN", attributes: { "tool.success": false } });
    const text = JSON.stringify(result);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("value-of-stripped-9");
  });

  test("hook decisions and finished hook runs are exported; started runs, prompts and model text are not", () => {
    const decision = auditEntry(
      buildRecord(
        "hook_decision",
        {
          event: "user_prompt_submit",
          tool_call_id: null,
          decision: "block",
          reason: `leaked ${TOKEN}`,
          decided_by: "gate",
          decided_by_scope: "managed",
          prompt: "my secret plan",
        },
        TS,
      ),
      [],
    );
    expect(decision).toMatchObject({
      name: "agent.hook_decision",
      severity: "WARN",
      attributes: { "hook.decision": "block", "hook.decided_by": "gate", "hook.decided_by_scope": "managed" },
    });
    expect(JSON.stringify(decision)).not.toContain(TOKEN);
    expect(JSON.stringify(decision)).not.toContain("secret plan");
    const lifecycle = {
      phase: "pre_tool",
      label: "g",
      target_tool: "bash",
      policy: "warn",
      category: null,
      target_ran: null,
      tool_call_id: "c1",
      activity_id: "c1",
      hook_index: 0,
      elapsed_ms: null,
      message: null,
    } as const;
    expect(auditEntry(buildRecord("hook_lifecycle", { ...lifecycle, status: "started" }, TS), [])).toBeNull();
    expect(auditEntry(buildRecord("hook_lifecycle", { ...lifecycle, status: "failed", category: "exit", elapsed_ms: 3 }, TS), [])).toMatchObject({
      name: "agent.hook_run",
      severity: "ERROR",
      attributes: { "hook.label": "g", "hook.category": "exit" },
    });
    expect(auditEntry(buildRecord("user", { content: "my secret plan" }, TS), [])).toBeNull();
    expect(auditEntry(buildRecord("assistant", { message_id: "m", content: "sure", tool_calls: [] }, TS), [])).toBeNull();
  });
});
