// Compaction in real sessions (LOOP-37, LIFE-16, LIFE-19, LIFE-62): pre_compact hooks, the
// summarizing request, the `compaction` record and session_start `compact`, through `agent run` with
// the script provider or a local fake OpenAI server (checked on the wire), and real hook processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bypassRunArgs, makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { group, lastJson, logTo, ofType, readLog, recordsOf, replyWith, runScriptInProcess } from "./support.ts";

const LONG = "lorem ipsum dolor sit amet ".repeat(50);

function settings(world: World, value: Record<string, unknown>): void {
  world.file(".agent/settings.json", JSON.stringify(value));
}

/** A command that appends `word` to `<root>/<file>` and reads (discards) its stdin. */
function mark(world: World, file: string, word: string): string {
  return `cat >/dev/null; echo '${word}' >> '${join(world.root, file)}'`;
}

function marks(world: World, file: string): string[] {
  const path = join(world.root, file);
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .filter((l) => l !== "")
    : [];
}

type Body = { messages: { role: string; content: string | null }[] };

describe("compaction", () => {
  test("LOOP-37 LIFE-19 LIFE-16 automatic compaction: pre_compact auto only, a compaction record, session_start compact", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: LONG, tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    settings(w, {
      hooks: {
        lifecycle: {
          pre_compact: [group([logTo(w, "auto.log")], "auto"), group([logTo(w, "manual.log")], "manual")],
          session_start: ["startup", "resume", "clear", "compact", "startup|resume"].map((m) => group([mark(w, "starts", m)], m)),
        },
      },
    });
    const r = await runScriptInProcess(w, "bypass", ["--max-context-tokens", "200"]);
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ result: "done", turns: 2, stop_reason: "completed" });
    expect(readLog(w, "manual.log")).toHaveLength(0);
    const pre = readLog(w, "auto.log");
    expect(pre).toHaveLength(1);
    expect(pre[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "", original_message_count: 3 });
    // The two startup groups run together (D13): their marks may come in either order.
    expect([...marks(w, "starts").slice(0, 2).sort(), ...marks(w, "starts").slice(2)]).toEqual(["startup", "startup|resume", "compact"]);
    const records = recordsOf(w, r);
    expect(ofType(records, "compaction")).toMatchObject([{ trigger: "auto", summary: "compacted conversation", original_message_count: 3 }]);
    const types = records.map((rec) => rec.type);
    expect(types.indexOf("compaction")).toBeGreaterThan(types.indexOf("tool_result_delivered"));
    expect(types.lastIndexOf("assistant")).toBeGreaterThan(types.indexOf("compaction"));
  });

  test("LOOP-37 LIFE-62 on the wire: additionalContext joins the instructions; the next request holds only the summary", async () => {
    const w = makeWorld();
    settings(w, {
      hooks: {
        lifecycle: {
          pre_compact: [group([replyWith(w, { hookSpecificOutput: { hookEventName: "PreCompact", additionalContext: "keep the API list" } })])],
          session_start: [group([mark(w, "starts", "compact-ran")], "compact"), group(["cat >/dev/null; echo 'after compact'"], "compact")],
        },
      },
    });
    const server = await startFakeOpenAI([
      { text: "first", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }], usage: { input: 500, output: 5 } },
      { text: "SUMMARY TEXT" },
      { text: "done" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "--max-context-tokens", "200", "go"]);
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(3);
      const compact = server.requests[1] as Body;
      const instructions = String(compact.messages.at(-1)?.content);
      expect(instructions).toContain("Summarize the conversation");
      expect(instructions).toContain("keep the API list");
      const next = server.requests[2] as Body;
      const users = next.messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content]);
      expect(users).toEqual([
        ["user", "Summary of the earlier conversation (compacted):\n\nSUMMARY TEXT"],
        ["user", "<hook_context>\nafter compact\n</hook_context>"],
      ]);
      expect(marks(w, "starts")).toEqual(["compact-ran"]);
      expect(ofType(recordsOf(w, r), "compaction")[0]).toMatchObject({ summary: "SUMMARY TEXT", trigger: "auto" });
    } finally {
      await server.close();
    }
  });

  test("LOOP-37 LIFE-62 a pre_compact block (exit 2) skips the compaction, shows its reason, keeps the conversation", async () => {
    const w = makeWorld();
    settings(w, { hooks: { lifecycle: { pre_compact: [group(["cat >/dev/null; echo 'not now' >&2; exit 2"])] } } });
    const server = await startFakeOpenAI([
      { text: "first", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }], usage: { input: 500, output: 5 } },
      { text: "done" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "--max-context-tokens", "200", "go"]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("not now");
      expect(server.requests).toHaveLength(2);
      const next = server.requests[1] as Body;
      expect(next.messages.map((m) => m.role).filter((role) => role !== "system")).toEqual(["user", "assistant", "tool"]);
      expect(ofType(recordsOf(w, r), "compaction")).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  test("LOOP-37 the provider's reported input tokens take precedence over the byte estimate", async () => {
    const w = makeWorld();
    const server = await startFakeOpenAI([
      { text: LONG, toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }], usage: { input: 50, output: 5 } },
      { text: "done" },
    ]);
    try {
      const r = await runCliInProcess(w, [
        "run",
        "--provider",
        "openai",
        "--base-url",
        server.url,
        "--permission-mode",
        "bypass",
        "--max-context-tokens",
        "200",
        "--output-format",
        "json",
        "go",
      ]);
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(ofType(recordsOf(w, r), "compaction")).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
