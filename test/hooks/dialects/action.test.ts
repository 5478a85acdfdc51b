import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { actionDialect, firstLine, decodeText } from "../../../src/hooks/dialects/action.ts";
import type { HookEventInput, ProcessRun } from "../../../src/hooks/dialects/types.ts";
import type { DirHookSpec, LifecycleHookSpec } from "../../../src/hooks/types.ts";
import type { CanonicalEvent } from "../../../src/util/events.ts";

const enc = new TextEncoder();

function dirSpec(overrides: Partial<DirHookSpec> = {}): DirHookSpec {
  return {
    label: "guard",
    scope: "project",
    form: "dir",
    dialect: "action",
    event: "pre_tool",
    source: "/p/.agent/hooks/guard/hook.json",
    field: "",
    disabled: false,
    timeoutMs: 5000,
    name: "guard",
    dir: "/p/.agent/hooks/guard",
    run: "/p/.agent/hooks/guard/run.sh",
    match: "*",
    failClosed: false,
    async: false,
    ...overrides,
  };
}

function lifecycleSpec(overrides: Partial<LifecycleHookSpec> = {}): LifecycleHookSpec {
  return {
    label: "pre_tool_use[0].hooks[0]",
    scope: "project",
    form: "lifecycle",
    dialect: "action",
    event: "pre_tool",
    source: "/p/.agent/config.toml",
    field: "hooks.lifecycle.pre_tool_use[0].hooks[0]",
    disabled: false,
    timeoutMs: 60000,
    command: "./check.sh",
    matcher: undefined,
    matcherRegex: null,
    eventKey: "pre_tool_use",
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
    permissionMode: "bypass",
    tool: { name: "bash", callId: "call_1", input: { command: "ls" } },
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

function run(stdout: string | Uint8Array, code: number | null = 0, stderr = "", signal: string | null = null): ProcessRun {
  return {
    kind: "ok",
    exit: { code, signal },
    stdout: typeof stdout === "string" ? enc.encode(stdout) : stdout,
    stderr: enc.encode(stderr),
    detail: "",
  };
}

/** Runs a real shell script with real stdin and returns its real outcome as dispatch would. */
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

const pre = dirSpec();
const post = dirSpec({ event: "post_tool" });
const preInput = eventInput("pre_tool");
const postInput = eventInput("post_tool", { result: { success: true, content: "hi\n" } });
const encodeOpts = { hookIndex: 0, timestamp: "2025-01-01T00:00:00Z" };

function stdinJson(bytes: Uint8Array): unknown {
  const text = decodeText(bytes);
  expect(text.endsWith("\n")).toBe(true);
  expect(text.slice(0, -1).includes("\n")).toBe(false);
  return JSON.parse(text);
}

describe("action encode", () => {
  test("DIR-32 pre_tool stdin is one compact JSON line with exactly the six keys", () => {
    const req = actionDialect.encode(pre, preInput, encodeOpts);
    expect(stdinJson(req.stdin)).toEqual({
      session_id: "sess-1",
      cwd: "/p/work",
      hook_event: "pre_tool",
      tool: "bash",
      tool_use_id: "call_1",
      input: { command: "ls" },
    });
    expect(req.cleanup).toEqual([]);
  });

  test("DIR-35 PHI_* alias variables equal their AGENT_ twins", () => {
    const req = actionDialect.encode(pre, preInput, encodeOpts);
    expect(req.env).toEqual({
      PHI_HOOK_EVENT: "pre_tool",
      PHI_SESSION_ID: "sess-1",
      PHI_CWD: "/p/work",
      PHI_PROJECT_DIR: "/p",
    });
  });

  test("DIR-33 post_tool adds output and empty error on success", () => {
    const body = stdinJson(actionDialect.encode(post, postInput, encodeOpts).stdin);
    expect(body).toEqual({
      session_id: "sess-1",
      cwd: "/p/work",
      hook_event: "post_tool",
      tool: "bash",
      tool_use_id: "call_1",
      input: { command: "ls" },
      output: "hi\n",
      error: "",
    });
  });

  test("DIR-33 post_tool on failure carries the error text and no output", () => {
    const input = eventInput("post_tool", {
      tool: { name: "read", callId: "call_2", input: { file_path: "/nope" } },
      result: { success: false, content: "file not found: /nope" },
    });
    const body = stdinJson(actionDialect.encode(post, input, encodeOpts).stdin);
    expect(body).toMatchObject({ tool: "read", error: "file not found: /nope" });
    expect(body).not.toHaveProperty("output");
  });

  test("DIR-33 output is absent when the tool produced no text", () => {
    const input = eventInput("post_tool", { result: { success: true, content: "" } });
    const body = stdinJson(actionDialect.encode(post, input, encodeOpts).stdin);
    expect(body).not.toHaveProperty("output");
    expect(body).toHaveProperty("error", "");
  });

  test("TOOL-08 canonical lower-case tool names reach action hooks", () => {
    const input = eventInput("pre_tool", { tool: { name: "edit", callId: "c", input: { file_path: "a", old_string: "x", new_string: "y" } } });
    expect(stdinJson(actionDialect.encode(pre, input, encodeOpts).stdin)).toHaveProperty("tool", "edit");
  });
});

describe("action decode: pre_tool", () => {
  test("DIR-37 allow is no objection, deny carries its reason, modify replaces the input", () => {
    const allow = actionDialect.decode(pre, preInput, run('{"action":"allow"}\n'));
    expect(allow.decision).toBeUndefined();
    expect(allow.failure).toBeUndefined();
    const deny = actionDialect.decode(pre, preInput, run('{"action":"deny","reason":"blocked by script"}'));
    expect(deny).toMatchObject({ decision: "deny", reason: "blocked by script" });
    const modify = actionDialect.decode(pre, preInput, run('{"action":"modify","input":{"command":"echo safe"}}'));
    expect(modify.updatedInput).toEqual({ command: "echo safe" });
    expect(modify.decision).toBeUndefined();
  });

  test("DIR-38 RUN-43 empty, blank, {} and empty action all allow", () => {
    for (const out of ["", "  \n\t\n", "{}", '{"action":""}']) {
      const reply = actionDialect.decode(pre, preInput, run(out));
      expect(reply.failure).toBeUndefined();
      expect(reply.decision).toBeUndefined();
      expect(reply.context).toEqual([]);
    }
  });

  test("DIR-39 RUN-41 the first non-empty line is the reply", () => {
    expect(actionDialect.decode(pre, preInput, run('\n\n{"action":"deny","reason":"r"}'))).toMatchObject({ decision: "deny", reason: "r" });
    expect(actionDialect.decode(pre, preInput, run('   \n{"action":"deny","reason":"x"}\n'))).toMatchObject({ decision: "deny", reason: "x" });
    expect(actionDialect.decode(pre, preInput, run('{"action":"allow"}\n{"action":"deny"}')).decision).toBeUndefined();
  });

  test("DIR-40 RUN-42 RUN-44 pretty-printed or non-JSON first line is invalid json", () => {
    for (const out of ['{\n  "action": "deny"\n}\n', "not json\n", "{not json"]) {
      const reply = actionDialect.decode(pre, preInput, run(out));
      expect(reply.failure?.category).toBe("exit");
      expect(reply.failure?.detail).toContain("invalid json");
      expect(reply.decision).toBeUndefined();
    }
  });

  test("DIR-41 action is trimmed and case-insensitive; unknown actions fail", () => {
    expect(actionDialect.decode(pre, preInput, run('{"action":"ALLOW"}')).decision).toBeUndefined();
    expect(actionDialect.decode(pre, preInput, run('{"action":"ALLOW"}')).failure).toBeUndefined();
    expect(actionDialect.decode(pre, preInput, run('{"action":" Deny ","reason":"no"}'))).toMatchObject({ decision: "deny", reason: "no" });
    const block = actionDialect.decode(pre, preInput, run('{"action":"block"}'));
    expect(block.failure).toEqual({ category: "exit", detail: 'unknown action "block"' });
    expect(block.decision).toBeUndefined();
  });

  test("DIR-42 exit 2 is a deny whatever the body says", () => {
    const withReason = actionDialect.decode(pre, preInput, run('{"action":"deny","reason":"exit two"}', 2));
    expect(withReason).toMatchObject({ decision: "deny", reason: "exit two" });
    expect(withReason.failure).toBeUndefined();
    expect(actionDialect.decode(pre, preInput, run('{"action":"allow"}', 2))).toMatchObject({ decision: "deny", reason: "denied by hook guard (exit 2)" });
    expect(actionDialect.decode(pre, preInput, run("", 2, "nope\nmore"))).toMatchObject({ decision: "deny", reason: "nope" });
    const modify = actionDialect.decode(pre, preInput, run('{"action":"modify","input":{"command":"x"}}', 2));
    expect(modify.decision).toBe("deny");
    expect(modify.updatedInput).toBeUndefined();
  });

  test("RUN-45 MERGE-07 exit 2 with no output names the hook", () => {
    const reply = actionDialect.decode(dirSpec({ name: "audit", label: "audit" }), preInput, run("", 2));
    expect(reply).toMatchObject({ decision: "deny", reason: "denied by hook audit (exit 2)" });
    expect(reply.failure).toBeUndefined();
  });

  test("DIR-43 RUN-46 other non-zero exits fail and ignore the body", () => {
    const reply = actionDialect.decode(pre, preInput, run('{"action":"deny"}', 1));
    expect(reply.failure).toEqual({ category: "exit", detail: "exited 1" });
    expect(reply.decision).toBeUndefined();
    expect(actionDialect.decode(pre, preInput, run("", 3)).failure?.detail).toBe("exited 3");
  });

  test("DIR-44 death by signal is a failure naming the signal, never exit 0", () => {
    const reply = actionDialect.decode(pre, preInput, run('{"action":"allow"}', null, "", "SIGKILL"));
    expect(reply.failure).toEqual({ category: "exit", detail: "killed by signal SIGKILL" });
  });

  test("DIR-46 MERGE-10 modify without an object input fails", () => {
    for (const out of ['{"action":"modify"}', '{"action":"modify","input":null}', '{"action":"modify","input":"ls"}', '{"action":"modify","input":[1]}']) {
      const reply = actionDialect.decode(pre, preInput, run(out));
      expect(reply.failure).toEqual({ category: "exit", detail: "modify without object input" });
      expect(reply.updatedInput).toBeUndefined();
    }
    // An empty object is passed on whole; the tool-schema check belongs to dispatch (D8).
    expect(actionDialect.decode(pre, preInput, run('{"action":"modify","input":{}}')).updatedInput).toEqual({});
  });

  test("DIR-47 MERGE-07 a JSON deny without reason gets the default", () => {
    const reply = actionDialect.decode(dirSpec({ name: "a", label: "a" }), preInput, run('{"action":"deny"}'));
    expect(reply).toMatchObject({ decision: "deny", reason: "tool execution denied by hook a" });
    expect(actionDialect.decode(pre, preInput, run('{"action":"deny","reason":"  "}')).reason).toBe("tool execution denied by hook guard");
  });

  test("DIR-50 context on a pre_tool allow", () => {
    const reply = actionDialect.decode(pre, preInput, run('{"action":"allow","context":"note"}'));
    expect(reply.context).toEqual(["note"]);
    expect(reply.hiddenContext).toEqual([]);
  });

  test("DIR-68 invalid UTF-8 stdout is invalid json, not a crash", () => {
    const reply = actionDialect.decode(pre, preInput, run(new Uint8Array([0xff, 0xfe, 0x0a])));
    expect(reply.failure?.category).toBe("exit");
    expect(reply.failure?.detail).toContain("invalid json");
  });

  test("DIR-40 a reply whose known keys have the wrong type is a hook error", () => {
    const reply = actionDialect.decode(pre, preInput, run('{"action":"deny","reason":5}'));
    expect(reply.failure?.category).toBe("exit");
    expect(reply.failure?.detail).toContain("reason");
  });

  test("RUN-22 RUN-23 form failures keep their category and a printed deny is never honoured", () => {
    const timeout: ProcessRun = {
      kind: "timeout",
      exit: null,
      stdout: enc.encode('{"action":"deny"}'),
      stderr: new Uint8Array(),
      detail: "timed out after 200ms",
    };
    expect(actionDialect.decode(pre, preInput, timeout)).toMatchObject({ failure: { category: "timeout", detail: "timed out after 200ms" } });
    expect(actionDialect.decode(pre, preInput, timeout).decision).toBeUndefined();
    const runner: ProcessRun = { kind: "runner", exit: null, stdout: new Uint8Array(), stderr: new Uint8Array(), detail: "not found: /x/run.sh" };
    expect(actionDialect.decode(pre, preInput, runner).failure).toEqual({ category: "runner", detail: "not found: /x/run.sh" });
  });
});

describe("action decode: post_tool", () => {
  test("DIR-51 DIR-54 context and output; empty output keeps the result", () => {
    const reply = actionDialect.decode(post, postInput, run('{"context":"post note","output":"rewritten"}'));
    expect(reply.context).toEqual(["post note"]);
    expect(reply.output).toBe("rewritten");
    expect(reply.decision).toBeUndefined();
    expect(actionDialect.decode(post, postInput, run('{"output":""}')).output).toBeUndefined();
    expect(actionDialect.decode(post, postInput, run("{}")).output).toBeUndefined();
    const big = "x".repeat(10 * 1024);
    expect(actionDialect.decode(post, postInput, run(JSON.stringify({ output: big }))).output).toBe(big);
  });

  test("DIR-56 exit 2 stops, keeps context, ignores output", () => {
    const reply = actionDialect.decode(post, postInput, run('{"reason":"halt","output":"X","context":"C"}', 2));
    expect(reply).toMatchObject({ decision: "stop", reason: "halt", context: ["C"] });
    expect(reply.output).toBeUndefined();
    expect(reply.failure).toBeUndefined();
    expect(actionDialect.decode(dirSpec({ event: "post_tool", name: "NAME" }), postInput, run("", 2)).reason).toBe("stopped by hook NAME (exit 2)");
  });

  test("DIR-57 stop true stops with its reason; stop false changes nothing", () => {
    expect(actionDialect.decode(post, postInput, run('{"stop":true,"reason":"r1"}'))).toMatchObject({ decision: "stop", reason: "r1" });
    expect(actionDialect.decode(post, postInput, run('{"stop":true}')).reason).toBe("stopped by hook guard");
    const noStop = actionDialect.decode(post, postInput, run('{"stop":false,"reason":"x"}'));
    expect(noStop.decision).toBeUndefined();
    expect(noStop.reason).toBeUndefined();
  });

  test("DIR-58 a post hook that exits 1 adds no stop and no context", () => {
    const reply = actionDialect.decode(post, postInput, run('{"stop":true,"context":"c"}', 1));
    expect(reply.failure).toEqual({ category: "exit", detail: "exited 1" });
    expect(reply.context).toEqual([]);
    expect(reply.decision).toBeUndefined();
  });

  test("DIR-33 post-style reading also applies to post_tool_failure", () => {
    const spec = lifecycleSpec({ event: "post_tool_failure" });
    expect(actionDialect.decode(spec, eventInput("post_tool_failure"), run('{"stop":true,"reason":"r"}'))).toMatchObject({ decision: "stop", reason: "r" });
  });
});

describe("action dialect with real processes", () => {
  const guardScript = `input=$(cat)
case "$input" in
  *agent-deny*)
    echo '{"action":"deny","reason":"blocked by guard-bash (matched agent-deny)"}'
    exit 2
    ;;
esac
echo '{"action":"allow"}'`;

  test("DIR-12 the guard-bash example denies on its marker and allows otherwise", () => {
    const spec = dirSpec({ name: "guard-bash", label: "guard-bash", match: "bash", failClosed: true });
    const denyInput = eventInput("pre_tool", { tool: { name: "bash", callId: "c1", input: { command: "echo agent-deny" } } });
    const denied = actionDialect.decode(spec, denyInput, runScript(guardScript, actionDialect.encode(spec, denyInput, encodeOpts).stdin));
    expect(denied).toMatchObject({ decision: "deny", reason: "blocked by guard-bash (matched agent-deny)" });
    const okInput = eventInput("pre_tool", { tool: { name: "bash", callId: "c2", input: { command: "echo hi" } } });
    const allowed = actionDialect.decode(spec, okInput, runScript(guardScript, actionDialect.encode(spec, okInput, encodeOpts).stdin));
    expect(allowed.decision).toBeUndefined();
    expect(allowed.failure).toBeUndefined();
  });

  test("DIR-42 real exit 2 with stderr lines uses the first one", () => {
    const reply = actionDialect.decode(pre, preInput, runScript("cat >/dev/null; printf 'nope\\nmore\\n' >&2; exit 2", new Uint8Array()));
    expect(reply).toMatchObject({ decision: "deny", reason: "nope" });
  });

  test("DIR-44 a real hook killed by SIGKILL is a failure naming the signal", () => {
    const reply = actionDialect.decode(pre, preInput, runScript('echo \'{"action":"allow"}\'; kill -9 $$', new Uint8Array()));
    expect(reply.failure).toEqual({ category: "exit", detail: "killed by signal SIGKILL" });
  });

  test("RUN-33 a real hook killed by SIGSEGV is failed/exit naming the signal", () => {
    const reply = actionDialect.decode(pre, preInput, runScript("kill -SEGV $$", new Uint8Array()));
    expect(reply.failure).toEqual({ category: "exit", detail: "killed by signal SIGSEGV" });
  });

  test("RUN-37 raw invalid bytes in a real reply become U+FFFD", () => {
    const reply = actionDialect.decode(pre, preInput, runScript(`printf '{"action":"deny","reason":"bad \\377\\376 byte"}\\n'`, new Uint8Array()));
    expect(reply).toMatchObject({ decision: "deny", reason: "bad \uFFFD\uFFFD byte" });
  });

  test("RUN-42 a real pretty-printed deny is invalid json for the action dialect", () => {
    const reply = actionDialect.decode(pre, preInput, runScript(`printf '{\\n  "action": "deny",\\n  "reason": "x"\\n}\\n'`, new Uint8Array()));
    expect(reply.failure?.detail).toContain("invalid json");
  });

  test("DIR-45 a real hook reads its input and its modify chains", () => {
    const script = `cat > /dev/null; echo '{"action":"modify","input":{"command":"echo a"},"context":"A"}'`;
    const reply = actionDialect.decode(pre, preInput, runScript(script, actionDialect.encode(pre, preInput, encodeOpts).stdin));
    expect(reply.updatedInput).toEqual({ command: "echo a" });
    expect(reply.context).toEqual(["A"]);
  });

  test("LIFE-66 protocol action on a lifecycle command: action request and deny", () => {
    const spec = lifecycleSpec();
    const stdin = actionDialect.encode(spec, preInput, encodeOpts).stdin;
    const script = `input=$(cat); case "$input" in *'"hook_event":"pre_tool"'*'"tool":"bash"'*) echo '{"action":"deny","reason":"r"}';; *) echo '{}';; esac`;
    expect(actionDialect.decode(spec, preInput, runScript(script, stdin))).toMatchObject({ decision: "deny", reason: "r" });
    // The default reasons name the command's label.
    expect(actionDialect.decode(spec, preInput, run("", 2)).reason).toBe("denied by hook pre_tool_use[0].hooks[0] (exit 2)");
  });
});

describe("firstLine", () => {
  test("D1 first non-empty line, without line ending or trailing whitespace", () => {
    expect(firstLine(enc.encode("nope\nmore"))).toBe("nope");
    expect(firstLine(enc.encode("\n  \nsecond\r\nthird"))).toBe("second");
    expect(firstLine(enc.encode(""))).toBe("");
    expect(firstLine(enc.encode(" \n\t\n"))).toBe("");
    expect(firstLine(new Uint8Array([0x61, 0xff, 0x0a]))).toBe("a\uFFFD");
  });
});
