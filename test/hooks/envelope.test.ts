import { afterAll, describe, expect, test } from "bun:test";
import { secretsFixture } from "../support/fixtures.ts";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEnvelopeDialect, parseContextItems } from "../../src/hooks/dialects/envelope.ts";
import type { ContextItemsStatus, EncodeOptions, HookEventInput, ProcessRun } from "../../src/hooks/dialects/types.ts";
import { cleanStaleSpills, cleanupSpill, createSpiller, SPILL_DIR_NAME } from "../../src/hooks/spill.ts";
import type { ListHookSpec, ListPhase } from "../../src/hooks/types.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import type { FileSystem } from "../../src/runtime/types.ts";

const runtime = createRuntime();
const dialect = createEnvelopeDialect({ fs: runtime.fs, sha256Hex: runtime.sha256Hex });
const work = mkdtempSync(path.join(tmpdir(), "agent-envelope-"));
const spillTmp = path.join(work, "tmp");
mkdirSync(spillTmp);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MIB = 1024 * 1024;
const EVENT_BY_PHASE = { before_tool: "pre_tool", after_tool: "post_tool", after_assistant: "after_assistant", after_reasoning: "after_reasoning" } as const;

function spec(phase: ListPhase, overrides: Partial<ListHookSpec> = {}): ListHookSpec {
  return {
    label: "audit-before",
    scope: "user",
    form: "list",
    dialect: "envelope",
    event: EVENT_BY_PHASE[phase],
    source: "/h/settings.json",
    field: `hooks.${phase}[0]`,
    disabled: false,
    timeoutMs: 5000,
    command: "./h.sh",
    phase,
    index: 0,
    failurePolicy: "warn",
    payload: "redacted",
    stdoutMaxBytes: 8192,
    stderrMaxBytes: 8192,
    providerContextInjection: false,
    providerContextMaxBytes: 4096,
    includeTools: [],
    excludeTools: [],
    absolutePaths: true,
    ...overrides,
  };
}

function event(overrides: Partial<HookEventInput> = {}): HookEventInput {
  return {
    event: "pre_tool",
    sessionId: "s-1",
    transcriptPath: "/h/sessions/s-1.jsonl",
    cwd: work,
    projectDir: work,
    permissionMode: "bypass",
    tool: { name: "bash", callId: "call_abc123", input: { command: "echo hello world", timeout: 30 } },
    fields: {},
    context: {
      sessionPath: "/h/sessions/s-1.jsonl",
      providerId: "script",
      modelId: "m1",
      agentId: null,
      invocationMode: "print",
      turnId: "turn-0",
      messageId: "tool-call_abc123",
      subagent: false,
    },
    strippedEnvValues: [],
    ...overrides,
  };
}

const baseOptions: EncodeOptions = { hookIndex: 0, timestamp: "2026-05-26T00:00:00Z" };

function encodeJson(s: ListHookSpec, e: HookEventInput, options: EncodeOptions = baseOptions) {
  const encoded = dialect.encode(s, e, options);
  const text = new TextDecoder().decode(encoded.stdin);
  return { encoded, text, json: JSON.parse(text) };
}

function run(stdout: string | Uint8Array, code: number | null = 0, extra: Partial<ProcessRun> = {}): ProcessRun {
  return {
    kind: "ok",
    exit: { code, signal: null },
    stdout: typeof stdout === "string" ? new TextEncoder().encode(stdout) : stdout,
    stderr: new Uint8Array(),
    detail: "",
    ...extra,
  };
}

/** Runs `command` through `/bin/bash -lc` as list hooks do, feeding `stdin`; returns the ProcessRun. */
async function runHook(command: string, stdin: Uint8Array, cwd = work): Promise<ProcessRun> {
  const spawned = await runtime.spawn({
    argv: ["/bin/bash", "-lc", command],
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    newGroup: true,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (!spawned.ok) throw new Error(spawned.message);
  const child = spawned.child;
  const out = child.stdout ? new Response(child.stdout).arrayBuffer() : Promise.resolve(new ArrayBuffer(0));
  const err = child.stderr ? new Response(child.stderr).arrayBuffer() : Promise.resolve(new ArrayBuffer(0));
  await child.writeStdin(stdin).catch(() => undefined);
  child.closeStdin();
  const exit = await child.exited;
  return { kind: "ok", exit, stdout: new Uint8Array(await out), stderr: new Uint8Array(await err), detail: "" };
}

describe("envelope encode (seed 003)", () => {
  test("TOOL-40 SEC-11 before_tool envelope shape, redacted by default", () => {
    const { json, text } = encodeJson(spec("before_tool"), event());
    const request = { command: { redacted: true, kind: "command", bytes: 16 }, timeout: 30 };
    expect(json).toEqual({
      schema: "agent.tool_hook",
      schema_version: 1,
      phase: "before_tool",
      hook: { label: "audit-before", index: 0, failure_policy: "warn", payload_mode: "redacted" },
      tool: { name: "bash", call_id: "call_abc123" },
      context: {
        cwd: work,
        session_id: "s-1",
        session_path: "/h/sessions/s-1.jsonl",
        provider_id: "script",
        model_id: "m1",
        agent_id: null,
        invocation_mode: "print",
        turn_id: "turn-0",
        message_id: "tool-call_abc123",
        subagent: false,
        timestamp: "2026-05-26T00:00:00Z",
      },
      affected_paths: [],
      payload: { inline: true, status: "inline", data: { request } },
      payload_ref: null,
      cwd: work,
      payload_mode: "redacted",
      request,
    });
    expect("result" in json).toBe(false);
    expect(text).not.toContain("echo hello");
  });

  test("RUN-14 stdin is one compact JSON line and exactly one newline, read to EOF by a real hook", async () => {
    const { encoded } = encodeJson(
      spec("before_tool"),
      event({ tool: { name: "write", callId: "c", input: { file_path: "a.txt", content: "line1\nline2" } } }),
    );
    const bytes = encoded.stdin;
    expect(bytes.filter((b) => b === 10).length).toBe(1);
    expect(bytes[bytes.length - 1]).toBe(10);
    const dir = mkdtempSync(path.join(work, "cat-"));
    const result = await runHook("cat > got.json", bytes, dir);
    expect(result.exit?.code).toBe(0);
    const got = readFileSync(path.join(dir, "got.json"));
    expect(Buffer.compare(got, Buffer.from(bytes))).toBe(0);
    expect(JSON.parse(got.toString("utf8")).schema).toBe("agent.tool_hook");
  });

  test("TOOL-41 SEC-12 TOOL-44 after_tool result in payload.data and at top level, content hidden, metadata paths kept", () => {
    const e = event({
      event: "post_tool",
      tool: { name: "write", callId: "call_def456", input: { file_path: "notes.txt", content: "héllo" } },
      result: { success: false, content: "boom", metadata: { path: "notes.txt", stdout: "abc" } },
    });
    const { json } = encodeJson(spec("after_tool", { label: "after-log", failurePolicy: "ignore" }), e);
    const result = {
      tool_name: "write",
      success: false,
      content: "<redacted:tool-output>",
      metadata: { path: "notes.txt", stdout: { redacted: true, kind: "output", bytes: 3 } },
    };
    expect(json.phase).toBe("after_tool");
    expect(json.result).toEqual(result);
    expect(json.payload.data.result).toEqual(result);
    expect(json.request).toEqual({ file_path: "notes.txt", content: { redacted: true, kind: "content", bytes: 6 } });
    expect(json.affected_paths).toEqual([{ path: "notes.txt", kind: "write_target", source: "request.file_path" }]);
  });

  test("TOOL-42 context without persistence has null session fields and no credentials", () => {
    const { json } = encodeJson(spec("before_tool"), event({ transcriptPath: null, context: { ...event().context, sessionPath: null } }));
    expect(json.context.session_id).toBeNull();
    expect(json.context.session_path).toBeNull();
    expect(json.context.timestamp).toMatch(/Z$/);
  });

  test("TOOL-47 SEC-17 full mode sends the original request and result", () => {
    const input = { command: "curl -H 'Authorization: Bearer ghp_uIupAsIKGmFBzyCeSqkuKgGNzlvkAM6FUb1p' x", api_key: "k" };
    const e = event({ event: "post_tool", tool: { name: "bash", callId: "c1", input }, result: { success: true, content: "out", metadata: { exit_code: 0 } } });
    const { json } = encodeJson(spec("after_tool", { payload: "full" }), e);
    expect(json.hook.payload_mode).toBe("full");
    expect(json.payload_mode).toBe("full");
    expect(json.request).toEqual(input);
    expect(json.result).toEqual({ tool_name: "bash", success: true, content: "out", metadata: { exit_code: 0 } });
  });

  test("TOOL-53 after_assistant / after_reasoning: message tool, request.text, no result, no paths", () => {
    for (const [phase, name] of [
      ["after_assistant", "assistant"],
      ["after_reasoning", "reasoning"],
    ] as const) {
      const { json } = encodeJson(spec(phase), event({ event: phase, tool: undefined, fields: { text: "full message text" } }));
      expect(json.tool).toEqual({ name, call_id: `${name}-turn-0` });
      expect(json.request).toEqual({ text: "full message text" });
      expect(json.payload.data).toEqual({ request: { text: "full message text" } });
      expect(json.affected_paths).toEqual([]);
      expect("result" in json).toBe(false);
    }
  });

  test("SEC-14 corpus text as after_assistant request.text and grep request.pattern: secrets absent, negatives byte-identical", () => {
    const corpus = secretsFixture();
    for (const line of corpus) {
      const assistant = encodeJson(spec("after_assistant"), event({ event: "after_assistant", tool: undefined, fields: { text: line.text } }));
      const grep = encodeJson(spec("before_tool"), event({ tool: { name: "grep", callId: "g", input: { pattern: line.text, path: "src" } } }));
      if (line.secret === null) {
        expect(assistant.json.request.text).toBe(line.text);
        expect(grep.json.request.pattern).toBe(line.text);
      } else {
        for (const text of [assistant.text, grep.text]) {
          expect(text.includes(line.secret) || text.includes(JSON.stringify(line.secret).slice(1, -1))).toBe(false);
        }
      }
    }
  });

  test("SEC-18 stripped env values in a tool result become [REDACTED:env]", () => {
    const value = "Tr0ub4dor-3xyz-42";
    const e = event({
      tool: { name: "read", callId: "r", input: { file_path: "x" } },
      fields: {},
      strippedEnvValues: [value, "1234"],
      event: "post_tool",
      result: { success: true, content: "", metadata: { note: `v=${value} b=${Buffer.from(value).toString("base64")} pin 1234` } },
    });
    const { json } = encodeJson(spec("after_tool"), e);
    expect(json.result.metadata.note).toBe("v=[REDACTED:env] b=[REDACTED:env] pin 1234");
  });

  test("SEC-24 a redacted 2 MiB write stays inline with a content marker and is never spilled", () => {
    let spillCalls = 0;
    const e = event({ tool: { name: "write", callId: "w", input: { file_path: "big.txt", content: "x".repeat(2 * MIB) } } });
    const { json, encoded } = encodeJson(spec("before_tool"), e, { ...baseOptions, spill: () => (spillCalls++, null) });
    expect(json.payload_ref).toBeNull();
    expect(json.request.content).toEqual({ redacted: true, kind: "content", bytes: 2 * MIB });
    expect(encoded.stdin.length).toBeLessThan(MIB);
    expect(spillCalls).toBe(0);
  });

  test("SEC-43 a 2 MiB assistant message is a truncated marker; 40 leaves of 60 KiB are omitted_too_large, never spilled", () => {
    let spillCalls = 0;
    const spill = () => (spillCalls++, null);
    const big = encodeJson(spec("after_assistant"), event({ event: "after_assistant", tool: undefined, fields: { text: "y".repeat(2 * MIB) } }), {
      ...baseOptions,
      spill,
    });
    expect(big.json.request.text).toEqual({ redacted: true, kind: "truncated", bytes: 2 * MIB });
    expect(big.json.payload.status).toBe("inline");
    const leaves: Record<string, string> = {};
    for (let i = 0; i < 40; i++) leaves[`f${i}`] = "z".repeat(60 * 1024);
    const many = encodeJson(spec("before_tool"), event({ tool: { name: "task", callId: "t", input: leaves } }), { ...baseOptions, spill });
    expect(many.encoded.stdin.length).toBeLessThanOrEqual(MIB);
    expect(many.json.payload).toEqual({ inline: false, status: "omitted_too_large" });
    expect(many.json.payload_ref).toBeNull();
    expect(many.json.request).toMatchObject({ status: "omitted_too_large", omitted_fields: ["request", "result"] });
    expect(many.json.request.original_bytes).toBeGreaterThan(40 * 60 * 1024);
    expect(typeof many.json.request.reason).toBe("string");
    expect(spillCalls).toBe(0);
  });

  test("SEC-21 TOOL-48 SEC-22 a full 2 MiB write is spilled to a private payload_ref file the hook can verify, then removed", async () => {
    const content = "w".repeat(2 * MIB);
    const e = event({ tool: { name: "write", callId: "call_big", input: { file_path: "big.txt", content } } });
    const spill = createSpiller(runtime.fs, { tmpdir: spillTmp, uid: runtime.platform.uid }, () => runtime.randomId());
    const { json, encoded } = encodeJson(spec("before_tool", { payload: "full" }), e, { ...baseOptions, spill });
    expect(encoded.stdin.length).toBeLessThan(MIB);
    expect(json.payload).toEqual({ inline: false, status: "referenced" });
    const ref = json.payload_ref;
    expect(ref).toMatchObject({ payload_mode: "full", media_type: "application/json" });
    expect(ref.path.startsWith(path.join(spillTmp, SPILL_DIR_NAME) + "/")).toBe(true);
    expect(ref.digest_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(json.request).toEqual({ status: "moved_to_payload_ref", original_bytes: ref.bytes, omitted_fields: ["request", "result"] });
    expect(encoded.cleanup).toContain(ref.path);
    // The hook, while running, checks modes and the digest of the file it was given.
    const script = path.join(work, "check-ref.mjs");
    writeFileSync(
      script,
      `import { readFileSync, statSync } from "node:fs"; import { createHash } from "node:crypto"; import path from "node:path";
const env = JSON.parse(readFileSync(0, "utf8")); const p = env.payload_ref.path; const body = readFileSync(p);
const out = { file: (statSync(p).mode & 0o777).toString(8), dir: (statSync(path.dirname(p)).mode & 0o777).toString(8), size: body.length, digest: "sha256:" + createHash("sha256").update(body).digest("hex"), content: JSON.parse(body).request.content.length };
process.stdout.write(JSON.stringify(out));`,
    );
    const result = await runHook(`node ${script}`, encoded.stdin);
    expect(result.exit?.code).toBe(0);
    expect(JSON.parse(new TextDecoder().decode(result.stdout))).toEqual({
      file: "600",
      dir: "700",
      size: ref.bytes,
      digest: ref.digest_sha256,
      content: content.length,
    });
    cleanupSpill(runtime.fs, encoded.cleanup);
    expect(existsSync(ref.path)).toBe(false);
    expect(existsSync(path.dirname(ref.path))).toBe(false);
  });

  test("TOOL-68 full after_tool with a 2 MiB result: both legacy bodies moved, no payload.data, spill holds request and result", () => {
    const spill = createSpiller(runtime.fs, { tmpdir: spillTmp, uid: runtime.platform.uid }, () => runtime.randomId());
    const e = event({
      event: "post_tool",
      tool: { name: "read", callId: "r", input: { file_path: "notes.txt" } },
      result: { success: true, content: "r".repeat(2 * MIB) },
    });
    const { json, encoded } = encodeJson(spec("after_tool", { payload: "full" }), e, { ...baseOptions, spill });
    const summary = { status: "moved_to_payload_ref", original_bytes: json.payload_ref.bytes, omitted_fields: ["request", "result"] };
    expect(json.request).toEqual(summary);
    expect(json.result).toEqual(summary);
    expect("data" in json.payload).toBe(false);
    const body = JSON.parse(readFileSync(json.payload_ref.path, "utf8"));
    expect(body.request).toEqual({ file_path: "notes.txt" });
    expect(body.result.content.length).toBe(2 * MIB);
    expect(createHash("sha256").update(readFileSync(json.payload_ref.path)).digest("hex")).toBe(json.payload_ref.digest_sha256.slice(7));
    cleanupSpill(runtime.fs, encoded.cleanup);
  });

  test("SEC-23 TOOL-49 TOOL-68 an unwritable spill directory gives omitted_too_large summaries, valid JSON under 1 MiB", async () => {
    const failing: FileSystem = {
      ...runtime.fs,
      mkdir: () => {
        throw Object.assign(new Error("read-only"), { code: "EROFS" });
      },
    };
    const spill = createSpiller(failing, { tmpdir: path.join(work, "nowhere"), uid: runtime.platform.uid }, () => "x");
    const e = event({
      event: "post_tool",
      tool: { name: "write", callId: "w", input: { file_path: "big.txt", content: "q".repeat(2 * MIB) } },
      result: { success: true, content: "ok" },
    });
    const { json, encoded } = encodeJson(spec("after_tool", { payload: "full" }), e, { ...baseOptions, spill });
    expect(encoded.stdin.length).toBeLessThanOrEqual(MIB);
    expect(json.payload).toEqual({ inline: false, status: "omitted_too_large" });
    expect(json.payload_ref).toBeNull();
    for (const body of [json.request, json.result]) {
      expect(body).toMatchObject({ status: "omitted_too_large", omitted_fields: ["request", "result"] });
      expect(body.original_bytes).toBeGreaterThan(2 * MIB);
      expect(body.reason).toContain("could not be created");
    }
    expect(encoded.cleanup).toEqual([]);
    const result = await runHook("cat > /dev/null", encoded.stdin);
    expect(result.exit?.code).toBe(0);
  });

  test("SEC-22 start-up cleanup removes stale spill directories only", () => {
    const root = path.join(spillTmp, SPILL_DIR_NAME);
    mkdirSync(root, { recursive: true, mode: 0o700 });
    mkdirSync(path.join(root, "stale"), { recursive: true });
    mkdirSync(path.join(root, "fresh"), { recursive: true });
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(path.join(root, "stale"), hourAgo, hourAgo);
    expect(cleanStaleSpills(runtime.fs, { tmpdir: spillTmp, uid: runtime.platform.uid })).toBeNull();
    expect(existsSync(path.join(root, "stale"))).toBe(false);
    expect(existsSync(path.join(root, "fresh"))).toBe(true);
  });

  test("SEC-19 a 10,000-deep tool input encodes without stack overflow", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    for (const payload of ["redacted", "full"] as const) {
      const { json } = encodeJson(spec("before_tool", { payload }), event({ tool: { name: "task", callId: "t", input: { deep } } }));
      expect(json.schema).toBe("agent.tool_hook");
    }
  });
});

describe("envelope decode", () => {
  const injecting = spec("after_tool", { providerContextInjection: true, providerContextMaxBytes: 4096 });

  test("TOOL-14 RUN-45 stdout of a successful hook is ignored; exit 2 is a failure of category exit", async () => {
    const s = spec("before_tool");
    const { encoded } = encodeJson(s, event());
    const allow = await runHook(`cat > /dev/null; printf '{"action":"deny"}'`, encoded.stdin);
    expect(dialect.decode(s, event(), allow)).toEqual({ context: [], hiddenContext: [], suppressOutput: false, warnings: [] });
    const two = await runHook("cat > /dev/null; exit 2", encoded.stdin);
    expect(dialect.decode(s, event(), two).failure).toEqual({ category: "exit", detail: "exited 2" });
  });

  test("TOOL-54 a real injecting hook's context_items are parsed with their byte count", async () => {
    const hook = await runHook(
      `cat > /dev/null; printf '%s' '{"context_items":[{"role":"user","content":"Relevant memory"},{"role":"user","content":"a2"}]}'`,
      new TextEncoder().encode("{}\n"),
    );
    expect(dialect.decode(injecting, event(), hook).contextItems).toEqual({
      status: "success",
      items: [
        { role: "user", content: "Relevant memory" },
        { role: "user", content: "a2" },
      ],
      byteCount: 17,
    });
  });

  test("TOOL-55 statuses, all-or-nothing", () => {
    const cases: [string, ContextItemsStatus][] = [
      ['{"context_items":', "invalid_json"],
      ['{"items":[]}', "invalid_shape"],
      ['{"context_items":"x"}', "invalid_shape"],
      ['{"context_items":[5]}', "invalid_shape"],
      ['{"context_items":[{"role":"system","content":"x"}]}', "unsupported_role"],
      ['{"context_items":[{"role":"user","content":""}]}', "empty_content"],
      ['{"context_items":[{"role":"user","content":5}]}', "empty_content"],
      ['{"context_items":[{"role":"user","content":"ok"},{"role":"assistant","content":"no"}]}', "unsupported_role"],
      ["", "success"],
      ["  \n ", "success"],
    ];
    for (const [stdout, status] of cases) {
      const reply = dialect.decode(injecting, event(), run(stdout));
      expect(reply.contextItems?.status).toBe(status);
      if (status !== "success") expect(reply.contextItems?.items).toEqual([]);
      expect(reply.failure).toBeUndefined();
    }
    const failed = dialect.decode(injecting, event(), run('{"context_items":[{"role":"user","content":"x"}]}', 1));
    expect(failed.contextItems).toEqual({ status: "hook_failed", items: [], byteCount: 0 });
    expect(failed.failure).toEqual({ category: "exit", detail: "exited 1" });
  });

  test("TOOL-56 the limit counts total UTF-8 content bytes", () => {
    const item = (content: string) => ({ role: "user", content });
    const parse = (items: unknown[]) => parseContextItems(new TextEncoder().encode(JSON.stringify({ context_items: items })), 10);
    expect(parse([item("0123456789")]).status).toBe("success");
    expect(parse([item("éééééé")]).status).toBe("over_limit");
    expect(parse([item("123456"), item("12345")]).status).toBe("over_limit");
  });

  test("TOOL-58 before_tool never injects, even with provider_context_injection", () => {
    const reply = dialect.decode(spec("before_tool", { providerContextInjection: true }), event(), run('{"context_items":[{"role":"user","content":"x"}]}'));
    expect(reply.contextItems).toBeUndefined();
  });

  test("TOOL-60 RUN-44 non-UTF-8 or invalid JSON stdout: invalid_json when injecting, plain success otherwise", () => {
    const bad = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    expect(dialect.decode(injecting, event(), run(bad)).contextItems?.status).toBe("invalid_json");
    expect(dialect.decode(spec("after_tool"), event(), run(bad))).toEqual({ context: [], hiddenContext: [], suppressOutput: false, warnings: [] });
    expect(dialect.decode(injecting, event(), run("{not json")).contextItems?.status).toBe("invalid_json");
    expect(dialect.decode(spec("after_tool"), event(), run("{not json")).failure).toBeUndefined();
  });

  test("TOOL-23 TOOL-57 run failures keep their category; 127/126 are runner; signals are exit", () => {
    for (const kind of ["timeout", "runner", "stdin", "output-limit"] as const) {
      const reply = dialect.decode(injecting, event(), run("", null, { kind, exit: null, detail: `d-${kind}` }));
      expect(reply.failure).toEqual({ category: kind, detail: `d-${kind}` });
      expect(reply.contextItems?.status).toBe("hook_failed");
    }
    expect(dialect.decode(spec("after_tool"), event(), run("", 127)).failure).toEqual({ category: "runner", detail: "command not found (exit 127)" });
    expect(dialect.decode(spec("after_tool"), event(), run("", 126)).failure).toEqual({ category: "runner", detail: "permission denied (exit 126)" });
    expect(dialect.decode(spec("after_tool"), event(), run("", null, { exit: { code: null, signal: "SIGSEGV" } })).failure).toEqual({
      category: "exit",
      detail: "killed by signal SIGSEGV",
    });
  });
});
