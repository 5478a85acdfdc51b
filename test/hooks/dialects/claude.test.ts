import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { claudeDialect, encodeClaudePayload } from "../../../src/hooks/dialects/claude.ts";
import type { HookEventInput, ProcessRun } from "../../../src/hooks/dialects/types.ts";
import type { DirHookSpec, LifecycleHookSpec } from "../../../src/hooks/types.ts";
import type { CanonicalEvent } from "../../../src/util/events.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function spec(event: CanonicalEvent, overrides: Partial<LifecycleHookSpec> = {}): LifecycleHookSpec {
  return {
    label: "pre_tool_use[0].hooks[0]",
    scope: "project",
    form: "lifecycle",
    dialect: "claude",
    event,
    source: "/p/.agent/config.toml",
    field: "hooks.lifecycle.pre_tool_use[0].hooks[0]",
    disabled: false,
    timeoutMs: 60000,
    command: "./check.sh",
    matcher: undefined,
    matcherRegex: null,
    eventKey: event,
    groupIndex: 0,
    hookIndex: 0,
    failurePolicy: "warn",
    ...overrides,
  };
}

function eventInput(event: CanonicalEvent, overrides: Partial<HookEventInput> = {}): HookEventInput {
  return {
    event,
    sessionId: "sess-1",
    transcriptPath: "/h/sessions/sess-1.jsonl",
    cwd: "/p/work",
    projectDir: "/p",
    permissionMode: "default",
    fields: {},
    context: {
      sessionPath: null,
      providerId: null,
      modelId: null,
      agentId: null,
      invocationMode: "print",
      turnId: "t1",
      messageId: "m1",
      subagent: false,
    },
    strippedEnvValues: [],
    ...overrides,
  };
}

const bashTool = { name: "bash", callId: "call_1", input: { command: "ls" } } as const;

function run(stdout: string | Uint8Array, code: number | null = 0, stderr: string | Uint8Array = "", signal: string | null = null): ProcessRun {
  return {
    kind: "ok",
    exit: { code, signal },
    stdout: typeof stdout === "string" ? enc.encode(stdout) : stdout,
    stderr: typeof stderr === "string" ? enc.encode(stderr) : stderr,
    detail: "",
  };
}

function runScript(script: string, stdin: Uint8Array): ProcessRun {
  const result = spawnSync("/bin/sh", ["-c", script], { input: stdin });
  return {
    kind: "ok",
    exit: { code: result.status, signal: result.signal },
    stdout: new Uint8Array(result.stdout),
    stderr: new Uint8Array(result.stderr),
    detail: "",
  };
}

const opts = { hookIndex: 0, timestamp: "2025-01-01T00:00:00Z" };
const preSpec = spec("pre_tool");
const preInput = eventInput("pre_tool", { tool: bashTool, fields: { permission_decision: "ask" } });
const decode = (event: CanonicalEvent, r: ProcessRun, input: HookEventInput = eventInput(event, { tool: bashTool })) =>
  claudeDialect.decode(spec(event), input, r);

function payloadOf(bytes: Uint8Array): Record<string, unknown> {
  const text = dec.decode(bytes);
  expect(text.endsWith("\n")).toBe(true);
  expect(text.slice(0, -1).includes("\n")).toBe(false);
  return JSON.parse(text);
}

describe("claude encode", () => {
  test("LIFE-22 LIFE-23 pre_tool payload: common keys, Claude tool name, both ids, permission_decision", () => {
    expect(payloadOf(claudeDialect.encode(preSpec, preInput, opts).stdin)).toEqual({
      session_id: "sess-1",
      // The Claude-shaped transcript beside the session file.
      transcript_path: "/h/sessions/claude/sess-1.jsonl",
      cwd: "/p/work",
      hook_event_name: "PreToolUse",
      permission_mode: "default",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "call_1",
      tool_call_id: "call_1",
      permission_decision: "ask",
    });
  });

  test("LIFE-22 permission modes map to Claude names; transcript_path null without a session", () => {
    const modes = { default: "default", "accept-edits": "acceptEdits", readonly: "plan", bypass: "bypassPermissions" } as const;
    for (const [mode, name] of Object.entries(modes)) {
      const input = eventInput("session_start", { permissionMode: mode as keyof typeof modes, transcriptPath: null, fields: { source: "startup" } });
      const payload = payloadOf(claudeDialect.encode(spec("session_start"), input, opts).stdin);
      expect(payload.permission_mode).toBe(name);
      expect(payload.transcript_path).toBeNull();
      expect(payload.source).toBe("startup");
      expect(payload).not.toHaveProperty("tool_name");
    }
  });

  test("LIFE-24 post_tool gets tool_response (Claude Code's Bash shape); post_tool_failure gets error and no tool_response", () => {
    const okInput = eventInput("post_tool", { tool: bashTool, result: { success: true, content: "hi\n", metadata: { exit_code: 0 } } });
    expect(payloadOf(claudeDialect.encode(spec("post_tool"), okInput, opts).stdin)).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_response: { stdout: "hi", stderr: "", interrupted: false, isImage: false, success: true },
    });
    const readTool = { name: "read", callId: "call_2", input: { file_path: "/nope" } } as const;
    const failInput = eventInput("post_tool_failure", { tool: readTool, result: { success: false, content: "file not found" } });
    const payload = payloadOf(claudeDialect.encode(spec("post_tool_failure"), failInput, opts).stdin);
    expect(payload).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Read",
      tool_input: { file_path: "/nope" },
      tool_use_id: "call_2",
      tool_call_id: "call_2",
      error: "file not found",
    });
    expect(payload).not.toHaveProperty("tool_response");
  });

  test("PLUS-12 Claude-style tool names and Claude-compatible inputs", () => {
    const cases = [
      ["write", "Write", { file_path: "a", content: "b" }],
      ["edit", "Edit", { file_path: "a", old_string: "x", new_string: "y", replace_all: false }],
      ["read", "Read", { file_path: "a", offset: 1, limit: 10 }],
      ["bash", "Bash", { command: "ls", timeout: 1000, description: "d" }],
    ] as const;
    for (const [tool, claudeName, toolInput] of cases) {
      const input = eventInput("post_tool", { tool: { name: tool, callId: "c", input: toolInput }, result: { success: true, content: "" } });
      const payload = payloadOf(claudeDialect.encode(spec("post_tool"), input, opts).stdin);
      expect(payload.tool_name).toBe(claudeName);
      expect(payload.tool_input).toEqual(toolInput);
      expect(payload).toHaveProperty("tool_response");
    }
  });

  test("LIFE-25 LIFE-27 LIFE-28 event fields are copied but never override the common keys", () => {
    const fields = { prompt: "hello", turn_id: "t1", session_id: "forged" };
    const payload = encodeClaudePayload(spec("user_prompt_submit"), eventInput("user_prompt_submit", { fields }));
    expect(payload).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "hello", turn_id: "t1", session_id: "sess-1" });
    const notify = encodeClaudePayload(spec("notification"), eventInput("notification", { fields: { notification_type: "custom", title: "T", message: "M" } }));
    expect(notify).toMatchObject({ hook_event_name: "Notification", notification_type: "custom", title: "T", message: "M" });
    const request = { tool_name: "Bash", kind: "bash", details: "rm x" };
    const perm = encodeClaudePayload(
      spec("permission_request"),
      eventInput("permission_request", { tool: bashTool, fields: { permission_request: request, permission_suggestions: [] } }),
    );
    expect(perm).toMatchObject({
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      permission_request: request,
      permission_suggestions: [],
    });
  });

  test("LIFE-29 CLAUDE_*/VT_* alias variables; transcript variables unset without a session", () => {
    expect(claudeDialect.encode(preSpec, preInput, opts).env).toEqual({
      VT_PROJECT_DIR: "/p",
      CLAUDE_PROJECT_DIR: "/p",
      VT_SESSION_ID: "sess-1",
      CLAUDE_SESSION_ID: "sess-1",
      VT_HOOK_EVENT: "PreToolUse",
      VT_TRANSCRIPT_PATH: "/h/sessions/claude/sess-1.jsonl",
      CLAUDE_TRANSCRIPT_PATH: "/h/sessions/claude/sess-1.jsonl",
      AGENT_TRANSCRIPT_PATH: "/h/sessions/claude/sess-1.jsonl",
    });
    const env = claudeDialect.encode(preSpec, { ...preInput, transcriptPath: null }, opts).env;
    expect(env).not.toHaveProperty("VT_TRANSCRIPT_PATH");
    expect(env).not.toHaveProperty("CLAUDE_TRANSCRIPT_PATH");
    expect(env).not.toHaveProperty("AGENT_TRANSCRIPT_PATH");
  });
});

describe("claude decode: exit codes (D6)", () => {
  test("LIFE-31 exit 2 denies: stderr reason, default reason, beats a JSON allow", () => {
    expect(decode("pre_tool", run("", 2, "no rm\n"))).toMatchObject({ decision: "deny", reason: "no rm" });
    const bare = decode("pre_tool", run("", 2));
    expect(bare).toMatchObject({ decision: "deny", reason: "blocked by hook (exit 2)" });
    expect(bare.failure).toBeUndefined();
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecision":"allow"}}', 2))).toMatchObject({
      decision: "deny",
      reason: "blocked by hook (exit 2)",
    });
  });

  test("MERGE-07 exit 2 reasons: JSON reason first, whole stderr trimmed right, cut at 4096 bytes", () => {
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecisionReason":"json"}}', 2, "err"))).toMatchObject({ reason: "json" });
    expect(decode("pre_tool", run("", 2, "a\nb\n")).reason).toBe("a\nb");
    const long = "é".repeat(3000); // 6000 bytes
    const reason = decode("pre_tool", run("", 2, long)).reason ?? "";
    expect(enc.encode(reason).length).toBe(4096);
    expect(reason).toBe("é".repeat(2048));
    const odd = `x${"é".repeat(3000)}`;
    const cut = decode("pre_tool", run("", 2, odd)).reason ?? "";
    expect(enc.encode(cut).length).toBe(4095);
    expect(cut.includes("\uFFFD")).toBe(false);
  });

  test("LIFE-32 RUN-46 exit 1 is a failure but schema-valid JSON still takes effect", () => {
    const reply = decode(
      "pre_tool",
      run('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}', 1),
    );
    expect(reply).toMatchObject({ decision: "deny", reason: "x", failure: { category: "exit", detail: "exited 1" } });
    const plain = decode("pre_tool", run("some text", 1));
    expect(plain.decision).toBeUndefined();
    expect(plain.failure).toEqual({ category: "exit", detail: "exited 1" });
  });

  test("RUN-33 death by signal is failed/exit naming the signal", () => {
    expect(decode("pre_tool", run("", null, "", "SIGSEGV")).failure).toEqual({ category: "exit", detail: "killed by signal SIGSEGV" });
  });

  test("LIFE-44 LIFE-45 a timeout uses nothing of stdout", () => {
    const timeout: ProcessRun = {
      kind: "timeout",
      exit: null,
      stdout: enc.encode('{"systemMessage":"x"}'),
      stderr: new Uint8Array(),
      detail: "timed out after 1s",
    };
    const reply = decode("post_tool", timeout);
    expect(reply.failure).toEqual({ category: "timeout", detail: "timed out after 1s" });
    expect(reply.systemMessage).toBeUndefined();
    expect(reply.info).toBeUndefined();
  });

  test("LIFE-52 LIFE-53 exit 2 cannot block session_start or session_end: a plain failure", () => {
    for (const event of ["session_start", "session_end"] as const) {
      const reply = decode(event, run("", 2, "stop"), eventInput(event));
      expect(reply.decision).toBeUndefined();
      expect(reply.failure).toEqual({ category: "exit", detail: "exited 2" });
    }
  });
});

describe("claude decode: stdout (D7)", () => {
  test("LIFE-30 plain stdout is an info message on pre_tool", () => {
    const reply = decode("pre_tool", run("ok\n"));
    expect(reply.info).toBe("ok");
    expect(reply.decision).toBeUndefined();
    expect(reply.failure).toBeUndefined();
  });

  test("LIFE-33 invalid JSON, leading spaces, pretty JSON, arrays, schema failures, unknown keys", () => {
    const cut = decode("session_start", run('{"continue": tru'), eventInput("session_start"));
    expect(cut.failure).toEqual({ category: "exit", detail: "invalid JSON" });
    expect(cut.hiddenContext).toEqual([]);
    expect(decode("session_start", run('  {"systemMessage":"hi"}'), eventInput("session_start")).systemMessage).toBe("hi");
    expect(decode("session_start", run('{\n  "systemMessage": "hi"\n}\n'), eventInput("session_start")).systemMessage).toBe("hi");
    const array = decode("session_start", run("[1,2]"), eventInput("session_start"));
    expect(array.failure).toBeUndefined();
    expect(array.hiddenContext).toEqual(["[1,2]"]);
    const schema = decode("session_start", run('{"continue":"no","systemMessage":"x"}'), eventInput("session_start"));
    expect(schema.failure).toEqual({ category: "exit", detail: "schema: continue" });
    expect(schema.systemMessage).toBeUndefined();
    const unknown = decode("session_start", run('{"systemMessage":"hi","updatedMCPToolOutput":1}'), eventInput("session_start"));
    expect(unknown.systemMessage).toBe("hi");
    expect(unknown.failure).toBeUndefined();
  });

  test("LIFE-33 schema failures inside hookSpecificOutput name the field path", () => {
    const reply = decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecision":"maybe"}}'));
    expect(reply.failure).toEqual({ category: "exit", detail: "schema: hookSpecificOutput.permissionDecision" });
    expect(reply.decision).toBeUndefined();
  });

  test("RUN-41 RUN-42 JSON is detected by its first non-space character, pretty or not", () => {
    expect(decode("pre_tool", run('\n  {"decision":"block","reason":"x"}'))).toMatchObject({ decision: "deny", reason: "x" });
    expect(decode("pre_tool", run('{\n  "decision": "block",\n  "reason": "x"\n}\n'))).toMatchObject({ decision: "deny", reason: "x" });
  });

  test("RUN-43 empty stdout with exit 0 is success with no effect", () => {
    for (const event of ["pre_tool", "post_tool"] as const) {
      const reply = decode(event, run(""));
      expect(reply).toEqual({ context: [], hiddenContext: [], suppressOutput: false, warnings: [] });
    }
  });

  test("RUN-44 {not json with exit 0 is failed/exit invalid JSON", () => {
    expect(decode("pre_tool", run("{not json")).failure).toEqual({ category: "exit", detail: "invalid JSON" });
  });

  test("LIFE-49 LIFE-51 plain stdout and additionalContext are hidden context on prompt and session start", () => {
    const prompt = decode("user_prompt_submit", run("Today is Monday\n\n"), eventInput("user_prompt_submit"));
    expect(prompt.hiddenContext).toEqual(["Today is Monday"]);
    expect(prompt.info).toBeUndefined();
    const extra = decode(
      "session_start",
      run(
        '{"systemMessage":"SessionStart hook is active.","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"SessionStart hook is active."}}',
      ),
      eventInput("session_start"),
    );
    expect(extra).toMatchObject({ systemMessage: "SessionStart hook is active.", hiddenContext: ["SessionStart hook is active."], context: [] });
  });

  test("LIFE-52 additionalContext as an array gives one entry each", () => {
    expect(decode("session_start", run('{"hookSpecificOutput":{"additionalContext":["a","b"]}}'), eventInput("session_start")).hiddenContext).toEqual([
      "a",
      "b",
    ]);
  });

  test("LIFE-48 LIFE-53 plain stdout on other events is an info message", () => {
    expect(decode("post_tool", run("formatted\n")).info).toBe("formatted");
    expect(decode("session_end", run("bye"), eventInput("session_end")).info).toBe("bye");
  });

  test("LIFE-44 plain stdout of a failed hook is still shown", () => {
    const reply = decode("post_tool", run("formatted", 1));
    expect(reply.info).toBe("formatted");
    expect(reply.failure?.detail).toBe("exited 1");
  });

  test("RUN-37 invalid UTF-8 becomes U+FFFD in hidden context", () => {
    const reply = decode("session_start", run(new Uint8Array([0x6f, 0x6b, 0x20, 0xc3, 0x28])), eventInput("session_start"));
    expect(reply.hiddenContext).toEqual(["ok \uFFFD("]);
    expect(reply.failure).toBeUndefined();
  });
});

describe("claude decode: decisions (D8, D9)", () => {
  test("LIFE-34 LIFE-35 LIFE-36 permissionDecision allow, deny, ask", () => {
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecision":"allow"}}')).decision).toBe("allow");
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"nope"}}'))).toMatchObject({
      decision: "deny",
      reason: "nope",
    });
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecision":"ask"}}')).decision).toBe("ask");
  });

  test("MERGE-07 a JSON deny without reason is blocked by hook", () => {
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"permissionDecision":"deny"}}')).reason).toBe("blocked by hook");
  });

  test("LIFE-37 MERGE-09 updatedInput replaces the input with a reason but no decision", () => {
    const reply = decode(
      "pre_tool",
      run('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecisionReason":"rewrite","updatedInput":{"command":"rtk cargo build"}}}'),
    );
    expect(reply.updatedInput).toEqual({ command: "rtk cargo build" });
    expect(reply.decision).toBeUndefined();
  });

  test("LIFE-38 deprecated top-level approve and block", () => {
    expect(decode("pre_tool", run('{"decision":"approve"}')).decision).toBe("allow");
    expect(decode("pre_tool", run('{"decision":"block","reason":"r"}'))).toMatchObject({ decision: "deny", reason: "r" });
  });

  test("LIFE-39 continue false on pre_tool denies and stops the session", () => {
    expect(decode("pre_tool", run('{"continue":false,"stopReason":"policy"}'))).toMatchObject({
      decision: "deny",
      reason: "policy",
      stopSession: { reason: "policy" },
    });
    expect(decode("pre_tool", run('{"continue":false}')).stopSession).toEqual({ reason: "stopped by hook" });
  });

  test("LIFE-40 additionalContext on tool events is model-facing context", () => {
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"additionalContext":"A"}}')).context).toEqual(["A"]);
    expect(decode("post_tool", run('{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"B"}}')).context).toEqual(["B"]);
  });

  test("LIFE-41 a foreign hookEventName is ignored with a warning; names match case-insensitively", () => {
    const foreign = decode("pre_tool", run('{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}'));
    expect(foreign.decision).toBeUndefined();
    expect(foreign.failure).toBeUndefined();
    expect(foreign.warnings.length).toBe(1);
    expect(foreign.warnings[0]).toContain("PostToolUse");
    const foreignInvalid = decode("pre_tool", run('{"hookSpecificOutput":{"hookEventName":"Stop","permissionDecision":"maybe"}}'));
    expect(foreignInvalid.failure).toBeUndefined();
    expect(foreignInvalid.warnings.length).toBe(1);
    expect(decode("pre_tool", run('{"hookSpecificOutput":{"hookEventName":5}}')).failure?.detail).toBe("schema: hookSpecificOutput.hookEventName");
    expect(decode("pre_tool", run('{"hookSpecificOutput":"deny"}')).failure?.detail).toBe("schema: hookSpecificOutput");
    for (const name of ["pretooluse", "pre_tool", "pre_tool_use", "before_tool", "PreToolUse"]) {
      const reply = decode("pre_tool", run(JSON.stringify({ hookSpecificOutput: { hookEventName: name, permissionDecision: "deny" } })));
      expect(reply.decision).toBe("deny");
      expect(reply.warnings).toEqual([]);
    }
  });

  test("LIFE-42 LIFE-43 systemMessage and suppressOutput", () => {
    expect(decode("notification", run('{"systemMessage":"hello"}'), eventInput("notification")).systemMessage).toBe("hello");
    const reply = decode("post_tool", run('{"suppressOutput":true,"systemMessage":"x","hookSpecificOutput":{"additionalContext":"c"}}'));
    expect(reply).toMatchObject({ suppressOutput: true, systemMessage: "x", context: ["c"] });
  });

  test("LIFE-48 MERGE-22 a post_tool block is feedback, never a decision", () => {
    const json = decode("post_tool", run('{"decision":"block","reason":"lint failed"}'));
    expect(json.feedback).toBe("lint failed");
    expect(json.decision).toBeUndefined();
    expect(decode("post_tool", run("", 2, "lint failed\n")).feedback).toBe("lint failed");
    expect(decode("post_tool", run('{"decision":"block"}')).feedback).toBe("blocked by hook");
    expect(decode("post_tool_failure", run("", 2)).feedback).toBe("blocked by hook (exit 2)");
  });

  test("LIFE-50 user_prompt_submit blocks by exit 2, decision block and continue false", () => {
    const input = eventInput("user_prompt_submit");
    expect(decode("user_prompt_submit", run("", 2, "no secrets"), input)).toMatchObject({ decision: "block", reason: "no secrets" });
    expect(decode("user_prompt_submit", run("", 2), input)).toMatchObject({ decision: "block", reason: "blocked by hook (exit 2)" });
    expect(decode("user_prompt_submit", run('{"decision":"block"}'), input)).toMatchObject({ decision: "block", reason: "blocked by hook" });
    expect(decode("user_prompt_submit", run('{"decision":"block","reason":"r"}'), input)).toMatchObject({ decision: "block", reason: "r" });
    expect(decode("user_prompt_submit", run('{"continue":false,"stopReason":"r"}'), input)).toMatchObject({ decision: "block", reason: "r" });
  });

  test("LIFE-55 LIFE-56 permission_request decision behavior, message and updatedInput", () => {
    const input = eventInput("permission_request", { tool: bashTool });
    const allow = decode("permission_request", run('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'), input);
    expect(allow.permission).toEqual({ behavior: "allow", updatedPermissions: [], interrupt: false });
    expect(allow.decision).toBe("allow");
    const deny = decode("permission_request", run('{"hookSpecificOutput":{"decision":{"behavior":"Deny","message":"m"}}}'), input);
    expect(deny).toMatchObject({ decision: "deny", reason: "m", permission: { behavior: "deny", message: "m" } });
    const inDecision = decode(
      "permission_request",
      run('{"hookSpecificOutput":{"decision":{"behavior":"allow","updatedInput":{"command":"echo approved"}}}}'),
      input,
    );
    expect(inDecision.permission?.updatedInput).toEqual({ command: "echo approved" });
    expect(inDecision.updatedInput).toEqual({ command: "echo approved" });
    const beside = decode(
      "permission_request",
      run('{"hookSpecificOutput":{"decision":{"behavior":"allow"},"updatedInput":{"command":"echo approved"}}}'),
      input,
    );
    expect(beside.permission?.updatedInput).toEqual({ command: "echo approved" });
    const none = decode("permission_request", run("{}"), input);
    expect(none.permission).toBeUndefined();
    expect(none.decision).toBeUndefined();
  });

  test("LIFE-57 updatedPermissions as an object or an array", () => {
    const input = eventInput("permission_request", { tool: bashTool });
    const entry = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "git status*" }], behavior: "allow", destination: "session" } as const;
    const one = decode(
      "permission_request",
      run(JSON.stringify({ hookSpecificOutput: { decision: { behavior: "allow", updatedPermissions: entry } } })),
      input,
    );
    expect(one.permission?.updatedPermissions).toEqual([entry]);
    const two = decode(
      "permission_request",
      run(
        JSON.stringify({ hookSpecificOutput: { decision: { behavior: "allow", updatedPermissions: [entry, { ...entry, destination: "projectSettings" }] } } }),
      ),
      input,
    );
    expect(two.permission?.updatedPermissions.map((e) => e.destination)).toEqual(["session", "projectSettings"]);
    const bad = decode(
      "permission_request",
      run(JSON.stringify({ hookSpecificOutput: { decision: { behavior: "allow", updatedPermissions: { ...entry, destination: "elsewhere" } } } })),
      input,
    );
    expect(bad.failure?.detail).toStartWith("schema: hookSpecificOutput.decision.updatedPermissions");
    expect(bad.permission).toBeUndefined();
  });

  test("LIFE-58 a permission_request deny with interrupt", () => {
    const reply = decode(
      "permission_request",
      run('{"hookSpecificOutput":{"decision":{"behavior":"deny","interrupt":true}}}'),
      eventInput("permission_request", { tool: bashTool }),
    );
    expect(reply).toMatchObject({ decision: "deny", reason: "blocked by hook", permission: { behavior: "deny", interrupt: true } });
  });

  test("LIFE-59 LIFE-65 stop and subagent_stop blocks carry their reason", () => {
    expect(decode("stop", run('{"decision":"block","reason":"keep going"}'), eventInput("stop"))).toMatchObject({ decision: "block", reason: "keep going" });
    expect(decode("stop", run("", 2, "tests failing\n"), eventInput("stop"))).toMatchObject({ decision: "block", reason: "tests failing" });
    expect(decode("subagent_stop", run('{"decision":"block","reason":"add tests"}'), eventInput("subagent_stop"))).toMatchObject({
      decision: "block",
      reason: "add tests",
    });
    expect(decode("subagent_stop", run('{"hookSpecificOutput":{"additionalContext":"checked"}}'), eventInput("subagent_stop")).context).toEqual(["checked"]);
  });

  test("LIFE-61 continue false on stop ends the session with no block, with or without decision block", () => {
    for (const out of ['{"continue":false,"stopReason":"done"}', '{"continue":false,"stopReason":"done","decision":"block"}']) {
      const reply = decode("stop", run(out), eventInput("stop"));
      expect(reply.stopSession).toEqual({ reason: "done" });
      expect(reply.decision).toBeUndefined();
    }
  });

  test("LIFE-62 LIFE-64 pre_compact and subagent_start: context, exit 2 blocks, updatedInput", () => {
    expect(decode("pre_compact", run('{"hookSpecificOutput":{"additionalContext":"keep the API list"}}'), eventInput("pre_compact")).context).toEqual([
      "keep the API list",
    ]);
    expect(decode("pre_compact", run("", 2, "not now"), eventInput("pre_compact"))).toMatchObject({ decision: "block", reason: "not now" });
    expect(decode("subagent_start", run("", 2, "no children"), eventInput("subagent_start"))).toMatchObject({ decision: "block", reason: "no children" });
    expect(
      decode("subagent_start", run('{"hookSpecificOutput":{"updatedInput":{"description":"d","prompt":"p"}}}'), eventInput("subagent_start")).updatedInput,
    ).toEqual({ description: "d", prompt: "p" });
  });

  test("LIFE-63 notification suppressOutput and updatedNotification", () => {
    const input = eventInput("notification");
    expect(decode("notification", run('{"suppressOutput":true}'), input).suppressOutput).toBe(true);
    expect(
      decode("notification", run('{"hookSpecificOutput":{"hookEventName":"Notification","updatedNotification":{"title":"T","message":"M"}}}'), input)
        .updatedNotification,
    ).toEqual({ title: "T", message: "M" });
    const exit2 = decode("notification", run("", 2), input);
    expect(exit2.decision).toBeUndefined();
  });

  test("LIFE-67 continue false on post_tool and session_start stops; on session_end nothing", () => {
    const post = decode("post_tool", run('{"continue":false,"stopReason":"enough"}'));
    expect(post.stopSession).toEqual({ reason: "enough" });
    expect(post.decision).toBeUndefined();
    expect(decode("session_start", run('{"continue":false,"stopReason":"enough"}'), eventInput("session_start")).stopSession).toEqual({ reason: "enough" });
    expect(decode("session_end", run('{"continue":false,"stopReason":"enough"}'), eventInput("session_end")).stopSession).toBeUndefined();
  });
});

describe("claude dialect with real processes", () => {
  test("LIFE-23 LIFE-35 a real hook reads the payload and denies with its reason", () => {
    const script = `input=$(cat)
case "$input" in
  *'"tool_name":"Bash"'*'"command":"ls"'*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}' ;;
  *) echo '{}' ;;
esac`;
    const reply = claudeDialect.decode(preSpec, preInput, runScript(script, claudeDialect.encode(preSpec, preInput, opts).stdin));
    expect(reply).toMatchObject({ decision: "deny", reason: "nope" });
  });

  test("LIFE-31 MERGE-07 real exit 2 uses the whole stderr trimmed right", () => {
    const reply = claudeDialect.decode(preSpec, preInput, runScript("cat >/dev/null; printf 'a\\nb\\n' >&2; exit 2", new Uint8Array()));
    expect(reply).toMatchObject({ decision: "deny", reason: "a\nb" });
    expect(reply.failure).toBeUndefined();
  });

  test("RUN-42 a real pretty-printed deny is honoured by the claude dialect", () => {
    const script = `printf '{\\n  "hookSpecificOutput": {\\n    "permissionDecision": "deny"\\n  }\\n}\\n'`;
    expect(claudeDialect.decode(preSpec, preInput, runScript(script, new Uint8Array()))).toMatchObject({ decision: "deny", reason: "blocked by hook" });
  });

  test("RUN-37 real invalid bytes from a session_start hook become U+FFFD in hidden context", () => {
    const reply = claudeDialect.decode(spec("session_start"), eventInput("session_start"), runScript("printf 'ok \\303\\050'", new Uint8Array()));
    expect(reply.hiddenContext).toEqual(["ok \uFFFD("]);
  });

  test("RUN-46 a real exit 1 with a valid deny is honoured and still a failure", () => {
    const reply = claudeDialect.decode(preSpec, preInput, runScript(`echo '{"hookSpecificOutput":{"permissionDecision":"deny"}}'; exit 1`, new Uint8Array()));
    expect(reply).toMatchObject({ decision: "deny", failure: { category: "exit", detail: "exited 1" } });
  });

  test("DIR-27 protocol claude on a hook dir: Claude payload in, deny out", () => {
    const dir: DirHookSpec = {
      label: "g",
      scope: "project",
      form: "dir",
      dialect: "claude",
      event: "pre_tool",
      source: "/p/.agent/hooks/g/hook.json",
      field: "",
      disabled: false,
      timeoutMs: 5000,
      name: "g",
      dir: "/p/.agent/hooks/g",
      run: "/p/.agent/hooks/g/run.sh",
      match: "*",
      failClosed: false,
      async: false,
    };
    const stdin = claudeDialect.encode(dir, preInput, opts).stdin;
    expect(payloadOf(stdin)).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } });
    const reply = claudeDialect.decode(
      dir,
      preInput,
      runScript(`cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'`, stdin),
    );
    expect(reply).toMatchObject({ decision: "deny", reason: "no" });
  });
});
