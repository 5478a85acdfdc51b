import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import type { FileSystem } from "../../src/runtime/types.ts";
import { formatSessionList, formatSessionShow } from "../../src/session/format.ts";
import { findSession, latestSessionOf, listSessions, newSessionId, readSession, resolveSession, SessionWriter, sessionPath } from "../../src/session/store.ts";

const runtime = createRuntime();
const freshHome = () => mkdtempSync(join(tmpdir(), "agent-sessions-"));

/** Counts file calls, so a test can prove one append per line. */
function countingRuntime() {
  const calls = { append: 0, write: 0 };
  const fs: FileSystem = {
    ...runtime.fs,
    appendText(path, text) {
      calls.append++;
      runtime.fs.appendText(path, text);
    },
    writeText(path, text, options) {
      calls.write++;
      runtime.fs.writeText(path, text, options);
    },
  };
  return { runtime: { fs }, calls };
}

function fixedClock(start: string) {
  let ms = Date.parse(start);
  return () => new Date(ms++);
}

function writeToolCallSession(writer: SessionWriter) {
  writer.append("session_start", { session_id: writer.id, source: "startup", cwd: "/w", project_dir: "/w", provider: "script", model: "fake" });
  writer.append("user", { content: "list files" });
  writer.append("assistant", { message_id: "msg_1", content: "", tool_calls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }] });
  writer.append("tool_call", { tool_call_id: "call_1", tool_name: "bash", input: { command: "ls" } });
  const hook = {
    phase: "before_tool",
    label: "b",
    target_tool: "bash",
    policy: "warn",
    category: null,
    tool_call_id: "call_1",
    activity_id: "call_1",
    hook_index: 0,
    message: null,
  } as const;
  writer.append("hook_lifecycle", { ...hook, status: "started", target_ran: null, elapsed_ms: null });
  writer.append("hook_lifecycle", { ...hook, status: "success", target_ran: null, elapsed_ms: 3 });
  writer.append("tool_result", { tool_call_id: "call_1", tool_name: "bash", input: { command: "ls" }, success: true, content: "a\nb", metadata: {} });
  const after = { ...hook, phase: "after_tool", label: "a" } as const;
  writer.append("hook_lifecycle", { ...after, status: "started", target_ran: true, elapsed_ms: null });
  writer.append("hook_lifecycle", { ...after, status: "success", target_ran: true, elapsed_ms: 4 });
  writer.append("tool_result_delivered", { tool_call_id: "call_1", content: "a\nb\n<hook_context>\nnote\n</hook_context>", output: "a\nb" });
  writer.append("hook_context_injection", {
    schema_version: 1,
    phase: "after_tool",
    label: "a",
    target_tool: "bash",
    status: "success",
    item_count: 1,
    byte_count: 4,
    max_bytes: 4096,
    hook_index: 0,
  });
  writer.append("provider_context_item", { role: "user", content: "item" });
  writer.append("assistant", { message_id: "msg_2", content: "done", tool_calls: [] });
  writer.append("session_end", { reason: "completed", stop_reason: "completed", is_error: false });
}

describe("session store (D25)", () => {
  test("LOOP-26 TOOL-62 records land in write order, one whole JSON line each, one file call per line", () => {
    const home = freshHome();
    const { runtime: counting, calls } = countingRuntime();
    const writer = new SessionWriter({ runtime: counting, home, id: "20261130T082233-ab12cd", persist: true, clock: fixedClock("2026-11-30T08:22:33Z") });
    expect(writer.path).toBe(join(home, "sessions", "20261130T082233-ab12cd.jsonl"));
    writeToolCallSession(writer);
    const text = readFileSync(writer.path ?? "", "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.slice(0, -1).split("\n");
    expect(lines).toHaveLength(14);
    expect(calls.append + calls.write).toBe(14);
    const types = lines.map((line) => JSON.parse(line).type);
    expect(types.slice(3, 12)).toEqual([
      "tool_call",
      "hook_lifecycle",
      "hook_lifecycle",
      "tool_result",
      "hook_lifecycle",
      "hook_lifecycle",
      "tool_result_delivered",
      "hook_context_injection",
      "provider_context_item",
    ]);
    const read = readSession(runtime, writer.path ?? "");
    expect(read.ok && read.problems).toEqual([]);
    expect(read.ok && read.records.map((r) => r.type)).toEqual(types);
    // Private file and directory: sessions hold prompts and tool output.
    expect(statSync(writer.path ?? "").mode & 0o777).toBe(0o600);
  });

  test("LOOP-40 the stream-json listener gets lines byte-identical to the file, in order", () => {
    const home = freshHome();
    const streamed: string[] = [];
    const fileAtEachLine: string[] = [];
    const writer: SessionWriter = new SessionWriter({
      runtime,
      home,
      id: "s-stream",
      persist: true,
      listener: (line) => {
        streamed.push(line);
        fileAtEachLine.push(readFileSync(writer.path ?? "", "utf8"));
      },
    });
    writeToolCallSession(writer);
    expect(streamed.join("")).toBe(readFileSync(writer.path ?? "", "utf8"));
    // Each line was already in the file when it was streamed.
    fileAtEachLine.forEach((content, index) => expect(content.endsWith(streamed[index] ?? "?")).toBe(true));
    expect(JSON.parse(streamed.at(-1) ?? "{}")).toMatchObject({ type: "session_end", stop_reason: "completed", is_error: false });
  });

  test("LOOP-41 LOOP-40 --no-session writes nothing but still streams every line", () => {
    const home = freshHome();
    const streamed: string[] = [];
    const writer = new SessionWriter({ runtime, home, id: "s-none", persist: false, listener: (line) => streamed.push(line) });
    expect(writer.path).toBeNull();
    writeToolCallSession(writer);
    expect(streamed).toHaveLength(14);
    expect(existsSync(join(home, "sessions"))).toBe(false);
  });

  test("D25 children go under sessions/subagents; a write failure is a value and the line is still streamed", () => {
    const home = freshHome();
    const child = new SessionWriter({ runtime, home, id: "child-1", child: true, persist: true });
    child.append("user", { content: "x" });
    expect(child.path).toBe(sessionPath(home, "child-1", { child: true }));
    expect(existsSync(join(home, "sessions", "subagents", "child-1.jsonl"))).toBe(true);

    const streamed: string[] = [];
    const failing = {
      fs: {
        ...runtime.fs,
        mkdir(): void {
          throw Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
        },
      },
    };
    const writer = new SessionWriter({ runtime: failing, home: freshHome(), id: "s-fail", persist: true, listener: (line) => streamed.push(line) });
    const outcome = writer.append("user", { content: "x" });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toContain("EROFS");
    expect(streamed).toEqual([outcome.line]);
  });

  test("D25 an existing session file (resume) is appended to, not replaced", () => {
    const home = freshHome();
    const first = new SessionWriter({ runtime, home, id: "s-resume", persist: true });
    first.append("user", { content: "one" });
    const second = new SessionWriter({ runtime, home, id: "s-resume", persist: true });
    second.append("user", { content: "two" });
    const read = readSession(runtime, first.path ?? "");
    expect(read.ok && read.records.map((r) => (r.type === "user" ? r.content : ""))).toEqual(["one", "two"]);
  });

  test("D25 newSessionId is a v4 UUID from the runtime's random source; its file name starts with the UTC start time", () => {
    const a = newSessionId(runtime, new Date("2026-11-30T08:22:33.999Z"));
    const b = newSessionId(runtime, new Date("2026-11-30T08:22:34.000Z"));
    for (const id of [a, b]) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    // Every byte comes from randomId: an all-ones source gives only the fixed version and variant bits.
    expect(newSessionId({ randomId: () => "f".repeat(32) })).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
    expect(newSessionId({ randomId: () => "0".repeat(32) })).toBe("00000000-0000-4000-8000-000000000000");
    const home = freshHome();
    const pathA = sessionPath(home, a);
    const pathB = sessionPath(home, b, { child: true });
    expect(pathA).toBe(join(home, "sessions", `20261130T082233.999Z-${a}.jsonl`));
    expect(pathB).toBe(join(home, "sessions", "subagents", `20261130T082234.000Z-${b}.jsonl`));
    expect(pathA.split("/").at(-1)! < `20261130T082234.000Z-${a}.jsonl`).toBe(true);
    // The writer of a new id uses the same stamped path (a child's transcript_path is computed first).
    expect(new SessionWriter({ runtime, home, id: b, child: true, persist: true }).path).toBe(pathB);
  });

  test("D25 --resume takes the uuid or a unique prefix; an ambiguous prefix names the candidates", () => {
    const home = freshHome();
    const ids = ["3f2b8c1e-9a4d-4e6f-b1c2-7d8e9f0a1b2c", "3f2b8c1e-0000-4000-8000-000000000000", "a0000000-0000-4000-8000-000000000000"] as const;
    const [p0 = "", p1 = "", p2 = ""] = ids.map((id, i) => {
      const path = join(home, "sessions", `2026113${i}T080000.000Z-${id}.jsonl`);
      mkdirSync(join(home, "sessions"), { recursive: true });
      writeFileSync(path, "");
      return path;
    });
    expect(resolveSession(runtime, home, ids[0])).toEqual({ ok: true, id: ids[0], path: p0 });
    expect(resolveSession(runtime, home, "a000")).toEqual({ ok: true, id: ids[2], path: p2 });
    const ambiguous = resolveSession(runtime, home, "3f2b8c1e");
    expect(ambiguous.ok).toBe(false);
    expect(!ambiguous.ok && ambiguous.message).toContain('session prefix "3f2b8c1e" is ambiguous: 2 sessions match');
    expect(findSession(runtime, home, "3f2b8c1e-9a4d")).toBe(p0);
    expect(findSession(runtime, home, "b")).toBeUndefined();
    // The existing file is appended to on resume, whatever its stamp.
    expect(new SessionWriter({ runtime, home, id: ids[1], persist: true }).path).toBe(p1);
    expect(listSessions(runtime, home).map((s) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
  });

  test("D25 transcripts in sessions/claude/ (same stamped names) and other subdirectories are never listed, resolved or continued", () => {
    const home = freshHome();
    const id = newSessionId(runtime, new Date("2026-11-30T08:00:00.000Z"));
    const writer = new SessionWriter({ runtime, home, id, persist: true, clock: fixedClock("2026-11-30T08:00:00Z") });
    writer.append("session_start", { session_id: id, source: "startup", cwd: "/w", project_dir: "/w", provider: "script", model: "fake" });
    const name = writer.path?.split("/").at(-1) ?? "?";
    // The Claude-shaped transcript beside it, a child's one, and a directory whose name looks like a session file.
    for (const dir of ["claude", "subagents/claude"]) {
      mkdirSync(join(home, "sessions", dir), { recursive: true });
      writeFileSync(join(home, "sessions", dir, name), `${JSON.stringify({ type: "user", message: { role: "user", content: "x" } })}\n`);
    }
    mkdirSync(join(home, "sessions", "20261130T090000.000Z-bbbbbbbb-0000-4000-8000-000000000000.jsonl"));
    expect(listSessions(runtime, home).map((s) => s.id)).toEqual([id]);
    expect(resolveSession(runtime, home, id.slice(0, 8))).toEqual({ ok: true, id, path: writer.path ?? "?" });
    expect(findSession(runtime, home, "bbbbbbbb")).toBeUndefined();
    expect(latestSessionOf(runtime, home, "/w")?.path).toBe(writer.path ?? "?");
  });

  test("D25 readSession reports bad lines instead of throwing", () => {
    const dir = freshHome();
    const path = join(dir, "s.jsonl");
    const good = JSON.stringify({ type: "user", timestamp: "2026-11-30T08:22:33.000Z", content: "ok" });
    writeFileSync(path, `${good}\nnot json\n{"type":"user","timestamp":"2026-11-30T08:22:33.000Z"}\n\n${good}\n{"type":"us`);
    const read = readSession(runtime, path);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.records).toHaveLength(2);
    expect(read.problems.map((p) => p.line)).toEqual([2, 3, 4, 6]);
    expect(read.problems[1]?.message).toContain("content");
    expect(read.problems[3]?.message).toContain("incomplete");
    const missing = readSession(runtime, join(dir, "nope.jsonl"));
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toContain("nope.jsonl");
  });

  test("CLI-28 list shows main sessions newest first, never children; find and show", () => {
    const home = freshHome();
    const older = new SessionWriter({ runtime, home, id: "20261130T080000-aaaaaa", persist: true, clock: fixedClock("2026-11-30T08:00:00Z") });
    writeToolCallSession(older);
    const newer = new SessionWriter({ runtime, home, id: "20261130T090000-bbbbbb", persist: true, clock: fixedClock("2026-11-30T09:00:00Z") });
    newer.append("session_start", { session_id: newer.id, source: "startup", cwd: "/w", project_dir: "/w", provider: "script", model: "fake" });
    newer.append("user", { content: "spawn a child" });
    const child = new SessionWriter({ runtime, home, id: "20261130T090001-cccccc", child: true, persist: true, clock: fixedClock("2026-11-30T09:00:01Z") });
    child.append("session_start", {
      session_id: child.id,
      source: "startup",
      cwd: "/w",
      project_dir: "/w",
      provider: "script",
      model: "fake",
      parent_session_id: newer.id,
      agent_name: "general",
    });
    mkdirSync(join(home, "sessions", "stray"), { recursive: true });
    writeFileSync(join(home, "sessions", "notes.txt"), "x");

    const list = listSessions(runtime, home);
    expect(list.map((s) => s.id)).toEqual(["20261130T090000-bbbbbb", "20261130T080000-aaaaaa"]);
    expect(list[1]).toMatchObject({ startedAt: "2026-11-30T08:00:00.000Z", prompt: "list files", stopReason: "completed", model: "fake" });
    const lines = formatSessionList(list)
      .split("\n")
      .filter((line) => line.length > 0);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.startsWith("20261130T090000-bbbbbb  2026-11-30T09:00:00.000Z")).toBe(true);
    expect(lines[1]?.startsWith("20261130T080000-aaaaaa  2026-11-30T08:00:00.000Z")).toBe(true);
    expect(formatSessionList(list)).not.toContain("cccccc");
    expect(formatSessionList([])).toBe("");

    expect(findSession(runtime, home, "20261130T080000-aaaaaa")).toBe(older.path ?? "?");
    expect(findSession(runtime, home, "20261130T090001-cccccc")).toBe(child.path ?? "?");
    expect(findSession(runtime, home, "nope")).toBeUndefined();
    expect(findSession(runtime, home, "../sessions/20261130T080000-aaaaaa")).toBeUndefined();

    const read = readSession(runtime, older.path ?? "");
    if (!read.ok) throw new Error(read.error);
    const shown = formatSessionShow(older.id, read.records);
    const order = [
      "session 20261130T080000-aaaaaa",
      "[user] list files",
      '[tool_call call_1] bash {"command":"ls"}',
      "[result call_1] a",
      "[context] item",
      "[assistant] done",
      "[end] completed",
    ];
    let at = -1;
    for (const needle of order) {
      const found = shown.indexOf(needle);
      expect(found).toBeGreaterThan(at);
      at = found;
    }
    expect(shown).toContain("  <hook_context>");
    expect(shown).not.toContain("before_tool");
  });
});
