// (LIFE-24, PLUS-12): the claude dialect's `tool_response` has the shape of Claude
// Code's own PostToolUse stdin per tool. Real tools run in a temp workspace; their results go through
// the real dialect; each payload's tool_response is compared with a hand-written sample of Claude
// Code's stdin (test/fixtures/claude-code/, same keys and JSON types) and on its values.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { actionDialect, claudeDialect, createEnvelopeDialect } from "../../../src/hooks/dialects/index.ts";
import { structuredPatch } from "../../../src/hooks/dialects/claude-patch.ts";
import { claudeToolResponse } from "../../../src/hooks/dialects/claude-tool-response.ts";
import type { HookEventInput } from "../../../src/hooks/dialects/types.ts";
import type { LifecycleHookSpec, ListHookSpec } from "../../../src/hooks/types.ts";
import { createRuntime } from "../../../src/runtime/index.ts";
import { getTool } from "../../../src/tools/index.ts";
import type { ToolName } from "../../../src/tools/names.ts";
import { makeContext, makeWorkspace, type Workspace } from "../../tools/helpers.ts";

const FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "claude-code");

const spec: LifecycleHookSpec = {
  label: "post_tool_use[0].hooks[0]",
  scope: "project",
  form: "lifecycle",
  dialect: "claude",
  event: "post_tool",
  source: "/p/.agent/config.toml",
  field: "hooks.lifecycle.post_tool_use[0].hooks[0]",
  disabled: false,
  timeoutMs: 60000,
  command: "./h.sh",
  matcher: undefined,
  matcherRegex: null,
  eventKey: "post_tool_use",
  groupIndex: 0,
  hookIndex: 0,
  failurePolicy: "warn",
};

let ws: Workspace | undefined;
afterEach(() => ws?.cleanup());

/** Runs the real tool and returns the claude payload's tool_response. */
async function responseOf(tool: ToolName, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (ws === undefined) throw new Error("no workspace");
  const implementation = getTool(tool);
  if (implementation === undefined) throw new Error(`no tool ${tool}`);
  const result = await implementation.execute(input, makeContext(ws.root));
  expect(result.success).toBe(true);
  const event: HookEventInput = {
    event: "post_tool",
    sessionId: "s",
    transcriptPath: null,
    cwd: ws.root,
    projectDir: ws.root,
    permissionMode: "default",
    tool: { name: tool, callId: "call_1", input },
    result,
    fields: {},
    context: { sessionPath: null, providerId: null, modelId: null, agentId: null, invocationMode: "print", turnId: "t", messageId: "m", subagent: false },
    strippedEnvValues: [],
  };
  const payload: unknown = JSON.parse(new TextDecoder().decode(claudeDialect.encode(spec, event, { hookIndex: 0, timestamp: "t" }).stdin));
  if (typeof payload !== "object" || payload === null || !("tool_response" in payload)) throw new Error("no tool_response");
  const response = payload.tool_response;
  if (typeof response !== "object" || response === null || Array.isArray(response)) throw new Error("tool_response is not an object");
  return Object.fromEntries(Object.entries(response));
}

/** Keys and JSON types, recursively (arrays by their first element); our extra `success` aside. */
function shape(value: unknown, top = true): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0], false)];
  if (typeof value === "object") {
    const entries = Object.entries(value).filter(([key]) => !(top && key === "success"));
    return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)).map(([key, inner]) => [key, shape(inner, false)]));
  }
  return typeof value;
}

function sample(name: string): unknown {
  const stdin: unknown = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));
  if (typeof stdin !== "object" || stdin === null || !("tool_response" in stdin)) throw new Error(`${name}: no tool_response`);
  return stdin.tool_response;
}

describe("claude tool_response per tool", () => {
  test("LIFE-24 Bash: stdout and stderr apart, trailing newlines trimmed, interrupted, isImage", async () => {
    ws = makeWorkspace();
    const response = await responseOf("bash", { command: "echo out; echo err >&2", description: "Print two lines" });
    expect(shape(response)).toEqual(shape(sample("post-tool-use-bash")));
    expect(response).toEqual({ stdout: "out", stderr: "err", interrupted: false, isImage: false, success: true });
    const image = await responseOf("bash", { command: "printf 'data:image/png;base64,iVBORw0KGgo='" });
    expect(image.isImage).toBe(true);
  });

  test("LIFE-24 Bash: a timeout is interrupted", async () => {
    ws = makeWorkspace();
    const implementation = getTool("bash");
    const result = await implementation?.execute({ command: "echo started; sleep 30", timeout: 300 }, makeContext(ws.root));
    expect(result?.success).toBe(false);
    expect(result?.details).toEqual({ tool: "bash", stdout: "started", stderr: "", interrupted: true });
  });

  test("LIFE-24 Read: file.content without line-number prefixes; offset and limit give startLine and numLines", async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.root, "notes.txt"), "alpha\nbeta\n");
    const response = await responseOf("read", { file_path: "notes.txt" });
    expect(shape(response)).toEqual(shape(sample("post-tool-use-read")));
    expect(response).toEqual({
      type: "text",
      file: { filePath: join(ws.root, "notes.txt"), content: "alpha\nbeta", numLines: 2, startLine: 1, totalLines: 2 },
      success: true,
    });
    writeFileSync(join(ws.root, "long.txt"), "1\n2\n3\n4\n5\n");
    const part = await responseOf("read", { file_path: "long.txt", offset: 2, limit: 2 });
    expect(part.file).toEqual({ filePath: join(ws.root, "long.txt"), content: "2\n3", numLines: 2, startLine: 2, totalLines: 5 });
    writeFileSync(join(ws.root, "empty.txt"), "");
    const empty = await responseOf("read", { file_path: "empty.txt" });
    expect(empty.file).toEqual({ filePath: join(ws.root, "empty.txt"), content: "", numLines: 0, startLine: 1, totalLines: 0 });
  });

  test("LIFE-24 Write: create (no patch, originalFile null), then update (structuredPatch, originalFile)", async () => {
    ws = makeWorkspace();
    const created = await responseOf("write", { file_path: "new.txt", content: "hello\n" });
    expect(shape(created)).toEqual(shape(sample("post-tool-use-write-create")));
    expect(created).toEqual({ type: "create", filePath: join(ws.root, "new.txt"), content: "hello\n", structuredPatch: [], originalFile: null, success: true });
    const updated = await responseOf("write", { file_path: "new.txt", content: "hello\nworld\n" });
    expect(shape(updated)).toEqual(shape(sample("post-tool-use-write-update")));
    const expected = sample("post-tool-use-write-update");
    expect(updated).toMatchObject({ type: "update", filePath: join(ws.root, "new.txt"), content: "hello\nworld\n", originalFile: "hello\n" });
    expect(updated.structuredPatch).toEqual(
      typeof expected === "object" && expected !== null && "structuredPatch" in expected ? expected.structuredPatch : null,
    );
  });

  test("LIFE-24 Edit: oldString, newString, originalFile, structuredPatch with 3 lines of context, userModified, replaceAll", async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.root, "app.py"), "import os\nx = 1\nprint(x)\n");
    const response = await responseOf("edit", { file_path: "app.py", old_string: "x = 1", new_string: "x = 2", replace_all: false });
    expect(shape(response)).toEqual(shape(sample("post-tool-use-edit")));
    const expected = sample("post-tool-use-edit");
    expect(response).toEqual({
      filePath: join(ws.root, "app.py"),
      oldString: "x = 1",
      newString: "x = 2",
      originalFile: "import os\nx = 1\nprint(x)\n",
      structuredPatch: typeof expected === "object" && expected !== null && "structuredPatch" in expected ? expected.structuredPatch : null,
      userModified: false,
      replaceAll: false,
      success: true,
    });
    const all = await responseOf("edit", { file_path: "app.py", old_string: "x", new_string: "y", replace_all: true });
    expect(all).toMatchObject({ replaceAll: true, originalFile: "import os\nx = 2\nprint(x)\n" });
    expect(all.structuredPatch).toEqual([
      { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" import os", "-x = 2", "-print(x)", "+y = 2", "+print(y)"] },
    ]);
  });

  test("LIFE-24 Grep: files_with_matches, content and count modes", async () => {
    ws = makeWorkspace();
    mkdirSync(join(ws.root, "src"));
    writeFileSync(join(ws.root, "src", "a.ts"), "let a = 1;\n\n// TODO fix\n// TODO later\n");
    const files = await responseOf("grep", { pattern: "TODO", output_mode: "files_with_matches" });
    expect(shape(files)).toEqual(shape(sample("post-tool-use-grep-files")));
    expect(files).toEqual({ mode: "files_with_matches", filenames: ["src/a.ts"], numFiles: 1, success: true });
    const content = await responseOf("grep", { pattern: "TODO fix", output_mode: "content", "-n": true });
    expect(shape(content)).toEqual(shape(sample("post-tool-use-grep-content")));
    expect(content).toEqual({ mode: "content", numFiles: 0, filenames: [], content: "src/a.ts:3:// TODO fix", numLines: 1, success: true });
    const count = await responseOf("grep", { pattern: "TODO", output_mode: "count" });
    expect(shape(count)).toEqual(shape(sample("post-tool-use-grep-count")));
    expect(count).toEqual({ mode: "count", numFiles: 1, filenames: [], content: "src/a.ts:2", numMatches: 2, success: true });
    const limited = await responseOf("grep", { pattern: "TODO", output_mode: "content", head_limit: 1 });
    expect(limited).toMatchObject({ content: "src/a.ts:3:// TODO fix", numLines: 1, appliedLimit: 1 });
  });

  test("LIFE-24 Glob: absolute filenames, numFiles, durationMs, truncated", async () => {
    ws = makeWorkspace();
    mkdirSync(join(ws.root, "src"));
    writeFileSync(join(ws.root, "src", "a.ts"), "");
    writeFileSync(join(ws.root, "src", "b.md"), "");
    const response = await responseOf("glob", { pattern: "**/*.ts" });
    expect(shape(response)).toEqual(shape(sample("post-tool-use-glob")));
    expect(response).toMatchObject({ filenames: [join(ws.root, "src", "a.ts")], numFiles: 1, truncated: false, success: true });
    expect(typeof response.durationMs).toBe("number");
  });

  test("LIFE-24 Bash run_in_background names its shell as backgroundTaskId; tools without a Claude shape (MCP, bash_output, kill_shell) get content and metadata", () => {
    // The metadata bash's run_in_background returns (src/tools/bash.ts startBackground).
    const background = claudeToolResponse(
      { name: "bash", callId: "c1", input: { command: "sleep 5", run_in_background: true } },
      { success: true, content: "Command running in background with ID: bash_1.", metadata: { background: true, shell_id: "bash_1" } },
    );
    expect(background).toMatchObject({ backgroundTaskId: "bash_1", interrupted: false, success: true });
    expect(
      claudeToolResponse({ name: "bash", callId: "c2", input: { command: "true" } }, { success: true, content: "", metadata: { exit_code: 0 } }),
    ).not.toHaveProperty("backgroundTaskId");
    for (const name of ["mcp__files__read_text", "bash_output", "kill_shell"] as const) {
      const response = claudeToolResponse({ name, callId: "c3", input: {} }, { success: true, content: `from ${name}`, metadata: { n: 1 } });
      expect(response).toEqual({ content: `from ${name}`, metadata: { n: 1 }, success: true });
    }
  });

  test("LIFE-66 TOOL-66 the action and envelope dialects keep our own shapes: details never reach them", async () => {
    ws = makeWorkspace();
    writeFileSync(join(ws.root, "f.txt"), "old text\n");
    const input = { file_path: "f.txt", content: "new text\n" };
    const result = await getTool("write")?.execute(input, makeContext(ws.root));
    if (result === undefined) throw new Error("no write tool");
    expect(result.details).toMatchObject({ tool: "write", originalFile: "old text\n" });
    const event: HookEventInput = {
      event: "post_tool",
      sessionId: "s",
      transcriptPath: null,
      cwd: ws.root,
      projectDir: ws.root,
      permissionMode: "default",
      tool: { name: "write", callId: "call_1", input },
      result,
      fields: {},
      context: { sessionPath: null, providerId: null, modelId: null, agentId: null, invocationMode: "print", turnId: "t", messageId: "m", subagent: false },
      strippedEnvValues: [],
    };
    const runtime = createRuntime();
    const action = new TextDecoder().decode(actionDialect.encode({ ...spec, dialect: "action" }, event, { hookIndex: 0, timestamp: "t" }).stdin);
    const listSpec: ListHookSpec = {
      label: "after",
      scope: "user",
      form: "list",
      dialect: "envelope",
      event: "post_tool",
      source: "/h/settings.json",
      field: "hooks.after_tool[0]",
      disabled: false,
      timeoutMs: 5000,
      command: "./h.sh",
      phase: "after_tool",
      index: 0,
      failurePolicy: "warn",
      payload: "full",
      stdoutMaxBytes: 8192,
      stderrMaxBytes: 8192,
      providerContextInjection: false,
      providerContextMaxBytes: 4096,
      includeTools: [],
      excludeTools: [],
      absolutePaths: true,
    };
    const envelope = new TextDecoder().decode(
      createEnvelopeDialect({ fs: runtime.fs, sha256Hex: runtime.sha256Hex }).encode(listSpec, event, { hookIndex: 0, timestamp: "t" }).stdin,
    );
    for (const text of [action, envelope]) {
      expect(text).not.toContain("old text");
      expect(text).not.toContain("originalFile");
      expect(text).not.toContain("structuredPatch");
    }
    expect(JSON.parse(action)).toMatchObject({ hook_event: "post_tool", tool: "write" });
    expect(JSON.parse(envelope)).toMatchObject({ result: { tool_name: "write", success: true, metadata: { bytes: 9 } } });
  });
});

describe("structuredPatch (the diff package's hunk shape)", () => {
  test("equal texts give no hunks; a change far from another gets its own hunk", () => {
    expect(structuredPatch("a\nb\n", "a\nb\n")).toEqual([]);
    const old = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const changed = old.replace("l2\n", "L2\n").replace("l18\n", "L18\n");
    expect(structuredPatch(old, changed)).toEqual([
      { oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [" l1", "-l2", "+L2", " l3", " l4", " l5"] },
      { oldStart: 15, oldLines: 6, newStart: 15, newLines: 6, lines: [" l15", " l16", " l17", "-l18", "+L18", " l19", " l20"] },
    ]);
  });

  test("changes within two contexts share a hunk", () => {
    const old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const changed = old.replace("2\n", "two\n").replace("8\n", "eight\n");
    const hunks = structuredPatch(old, changed);
    expect(hunks).toHaveLength(1);
    expect(hunks[0]).toMatchObject({ oldStart: 1, oldLines: 10, newStart: 1, newLines: 10 });
  });

  test("insert into an empty file, delete everything, and a missing final newline", () => {
    expect(structuredPatch("", "a\nb\n")).toEqual([{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ["+a", "+b"] }]);
    expect(structuredPatch("a\n", "")).toEqual([{ oldStart: 1, oldLines: 1, newStart: 0, newLines: 0, lines: ["-a"] }]);
    expect(structuredPatch("a\nb", "a\nb\n")).toEqual([
      { oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" a", "-b", "\\ No newline at end of file", "+b"] },
    ]);
  });

  test("a rewrite past the edit bound is still a correct patch (delete all, insert all)", () => {
    const old = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join("\n") + "\n";
    const next = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join("\n") + "\n";
    const hunks = structuredPatch(old, next);
    expect(hunks).toHaveLength(1);
    expect(hunks[0]).toMatchObject({ oldStart: 1, oldLines: 3000, newStart: 1, newLines: 3000 });
    expect(hunks[0]?.lines.filter((line) => line.startsWith("-"))).toHaveLength(3000);
  });
});

describe("claude tool_response of the plan, multi-edit, patch and fetch tools", () => {
  test("TodoWrite, MultiEdit, WebFetch and apply_patch shapes from details, and what is derived without them", () => {
    const todos = [{ id: "1", content: "a", status: "pending" as const }];
    expect(
      claudeToolResponse(
        { name: "todo_write", callId: "t", input: { todos } },
        { success: true, content: "Plan", details: { tool: "todo_write", oldTodos: [], newTodos: todos } },
      ),
    ).toEqual({ oldTodos: [], newTodos: todos, success: true });
    expect(claudeToolResponse({ name: "todo_write", callId: "t", input: { todos } }, { success: true, content: "Plan" })).toEqual({
      oldTodos: [],
      newTodos: todos,
      success: true,
    });
    const edits = [{ old_string: "a", new_string: "b" }];
    expect(
      claudeToolResponse(
        { name: "multi_edit", callId: "m", input: { file_path: "f", edits } },
        { success: true, content: "edited", details: { tool: "multi_edit", path: "/w/f", originalFile: "a\n", updatedFile: "b\n" } },
      ),
    ).toEqual({
      filePath: "/w/f",
      edits,
      originalFileContents: "a\n",
      structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] }],
      userModified: false,
      success: true,
    });
    expect(
      claudeToolResponse(
        { name: "web_fetch", callId: "w", input: { url: "https://d.example/x" } },
        { success: false, content: "cannot fetch", metadata: { url: "https://d.example/x" } },
      ),
    ).toEqual({
      bytes: 0,
      code: 0,
      codeText: "",
      result: "cannot fetch",
      durationMs: 0,
      url: "https://d.example/x",
      success: false,
    });
    const patched = claudeToolResponse(
      { name: "apply_patch", callId: "p", input: { input: "…" } },
      {
        success: true,
        content: "Success.",
        details: {
          tool: "apply_patch",
          files: [
            { kind: "delete", path: "/w/gone", originalFile: "x\n", updatedFile: null },
            { kind: "add", path: "/w/new", originalFile: null, updatedFile: "y\n" },
          ],
        },
      },
    );
    expect(patched).toEqual({
      files: [
        { type: "delete", filePath: "/w/gone", originalFile: "x\n", structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 0, newLines: 0, lines: ["-x"] }] },
        { type: "create", filePath: "/w/new", originalFile: null, structuredPatch: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ["+y"] }] },
      ],
      success: true,
    });
  });
});
