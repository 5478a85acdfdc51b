import { describe, expect, test } from "bun:test";
import { buildRecord, parseRecord, RECORD_TYPES, recordLine, type HookContextInjectionFields, type HookLifecycleFields } from "../../src/session/records.ts";

const TS = "2026-11-30T08:22:33.123Z";
const LIFECYCLE_KEYS = [
  "phase",
  "label",
  "target_tool",
  "status",
  "policy",
  "category",
  "target_ran",
  "tool_call_id",
  "activity_id",
  "hook_index",
  "elapsed_ms",
  "message",
];
const INJECTION_KEYS = ["schema_version", "phase", "label", "target_tool", "status", "item_count", "byte_count", "max_bytes", "hook_index"];

const lifecycle: HookLifecycleFields = {
  phase: "before_tool",
  label: "gate",
  target_tool: "bash",
  status: "failed",
  policy: "block",
  category: "exit",
  target_ran: false,
  tool_call_id: "call_1",
  activity_id: "call_1",
  hook_index: 0,
  elapsed_ms: 12,
  message: "exited with code 1",
};

describe("session records (D25)", () => {
  test("D25 every record type builds as {type, timestamp, ...fields} and validates", () => {
    const samples = [
      buildRecord("session_start", { session_id: "s1", source: "startup", cwd: "/w", project_dir: "/w", provider: "script", model: "m" }, TS),
      buildRecord(
        "session_start",
        {
          session_id: "c1",
          source: "startup",
          cwd: "/w/sub",
          project_dir: "/w",
          provider: "script",
          model: "m",
          parent_session_id: "s1",
          agent_name: "reviewer",
        },
        TS,
      ),
      buildRecord("user", { content: "hi" }, TS),
      buildRecord("reasoning", { content: "think" }, TS),
      buildRecord("assistant", { message_id: "msg_1", content: "ok", tool_calls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }] }, TS),
      buildRecord("tool_call", { tool_call_id: "call_1", tool_name: "bash", input: { command: "ls" } }, TS),
      buildRecord("tool_call", { tool_call_id: "call_2", tool_name: "bash", input: "{not json" }, TS),
      buildRecord(
        "tool_result",
        { tool_call_id: "call_1", tool_name: "bash", input: { command: "ls" }, success: true, content: "a\nb", metadata: { exit_code: 0 } },
        TS,
      ),
      buildRecord("tool_result_delivered", { tool_call_id: "call_1", content: "a\nb", output: "a\nb" }, TS),
      buildRecord("hook_lifecycle", lifecycle, TS),
      buildRecord("hook_diagnostic", { ...lifecycle, status: "warning", category: null, message: "stdout truncated at 1 MiB" }, TS),
      buildRecord(
        "hook_context_injection",
        {
          schema_version: 1,
          phase: "after_tool",
          label: "mem",
          target_tool: "read",
          status: "success",
          item_count: 1,
          byte_count: 5,
          max_bytes: 4096,
          hook_index: 0,
        },
        TS,
      ),
      buildRecord("provider_context_item", { role: "user", content: "note" }, TS),
      buildRecord("compaction", { trigger: "manual", summary: "sum", original_message_count: 7 }, TS),
      buildRecord("session_env", { env: { FOO: "bar" } }, TS),
      buildRecord("session_end", { reason: "completed", stop_reason: "completed", is_error: false }, TS),
      buildRecord(
        "hook_decision",
        { event: "pre_tool", tool_call_id: "call_1", decision: "deny", reason: "no rm", decided_by: "guard", decided_by_scope: "managed" },
        TS,
      ),
    ];
    expect(new Set(samples.map((r) => r.type))).toEqual(new Set(RECORD_TYPES));
    for (const record of samples) {
      const keys = Object.keys(record);
      expect(keys.slice(0, 2)).toEqual(["type", "timestamp"]);
      const line = recordLine(record);
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1)).not.toContain("\n");
      const parsed = parseRecord(JSON.parse(line));
      expect(parsed).toEqual({ ok: true, record });
    }
    // A parent-less session_start has no child fields at all (not null, not undefined).
    expect(Object.keys(samples[0] ?? {})).not.toContain("parent_session_id");
  });

  test("TOOL-63 SEC-38 hook builders keep exactly the allowlist, dropping smuggled fields", () => {
    const smuggled = {
      ...lifecycle,
      command: "./scripts/canary-cmd-7f3a.sh",
      stdout: "canary-out-7f3a",
      stderr: "canary-err-7f3a",
      input: { command: "echo canary-arg-7f3a" },
      env: { CANARY_TOKEN: "canary-env-7f3a" },
    };
    for (const type of ["hook_lifecycle", "hook_diagnostic"] as const) {
      const record = buildRecord(type, type === "hook_diagnostic" ? { ...smuggled, status: "failed" } : smuggled, TS);
      expect(Object.keys(record)).toEqual(["type", "timestamp", ...LIFECYCLE_KEYS]);
      expect(JSON.stringify(record)).not.toContain("canary-");
    }
    const injection: HookContextInjectionFields & Record<string, unknown> = {
      schema_version: 1,
      phase: "after_tool",
      label: "mem",
      target_tool: "bash",
      status: "success",
      item_count: 1,
      byte_count: 16,
      max_bytes: 4096,
      hook_index: 1,
      items: [{ role: "user", content: "canary-item-7f3a" }],
      result: "canary-res-7f3a",
    };
    const record = buildRecord("hook_context_injection", injection, TS);
    expect(Object.keys(record)).toEqual(["type", "timestamp", ...INJECTION_KEYS]);
    expect(JSON.stringify(record)).not.toContain("canary-");
  });

  test("SEC-39 reading rejects hook records with fields outside the allowlist", () => {
    const good = buildRecord("hook_lifecycle", lifecycle, TS);
    expect(parseRecord({ ...good, stdout: "x" }).ok).toBe(false);
    const injection = buildRecord(
      "hook_context_injection",
      {
        schema_version: 1,
        phase: "after_assistant",
        label: "l",
        target_tool: "assistant",
        status: "over_limit",
        item_count: 0,
        byte_count: 9000,
        max_bytes: 4096,
        hook_index: 0,
      },
      TS,
    );
    expect(parseRecord(injection).ok).toBe(true);
    expect(parseRecord({ ...injection, content: "x" }).ok).toBe(false);
    // A record missing an allowlisted field is invalid too.
    const { message: _message, ...partial } = good;
    expect(parseRecord(partial).ok).toBe(false);
  });

  test("D25 parse errors name the field; unknown types and bad timestamps are rejected", () => {
    const bad = parseRecord({ type: "tool_result_delivered", timestamp: TS, tool_call_id: "c", content: 5, output: "" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("content");
    expect(parseRecord({ type: "transcript", timestamp: TS }).ok).toBe(false);
    expect(parseRecord({ type: "user", timestamp: "yesterday", content: "x" }).ok).toBe(false);
    expect(parseRecord({ type: "hook_lifecycle", ...lifecycle, timestamp: TS, phase: "not_an_event" }).ok).toBe(false);
    expect(parseRecord("user").ok).toBe(false);
  });
});
