// The Claude Code-shaped transcript beside the session file, read back by real
// Claude Code-style stop hook scripts (a jq-free shell script and a small bun script) through the
// CLI (in-process). LIFE-22/LIFE-29 (transcript_path and the *_TRANSCRIPT_PATH variables of claude hooks).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { makeWorld, readJsonl, sessionFileOf, type World } from "../support/cli.ts";
import { runScriptInProcess, lastJson, group, logTo, readLog } from "../agent/support.ts";

type Rec = Record<string, unknown>;

const LAST_TEXT_SH = `#!/bin/sh
# What Claude Code stop hooks do without jq: the last assistant line, its text block.
cat > /dev/null
line=$(grep '"type":"assistant"' "$CLAUDE_TRANSCRIPT_PATH" | tail -n 1)
printf '%s' "$line" | sed 's/.*"type":"text","text":"\\([^"]*\\)".*/\\1/' > "$OUT_DIR/last-text.sh.out"
printf '%s\\n' "$AGENT_TRANSCRIPT_PATH" > "$OUT_DIR/agent-path.out"
`;

const LAST_TEXT_TS = `
const input = JSON.parse(await Bun.stdin.text());
const lines = (await Bun.file(input.transcript_path).text()).split("\\n").filter((l) => l !== "");
const entries = lines.map((l) => JSON.parse(l));
const last = entries.filter((e) => e.type === "assistant").pop();
const text = last.message.content.filter((b) => b.type === "text").map((b) => b.text).join("");
await Bun.write(process.env.OUT_DIR + "/last-text.ts.out", text);
console.log("last assistant: " + text);
`;

function transcriptOf(w: World, sessionId: string, child = false): Rec[] {
  const dir = child ? join(w.agentHome, "sessions", "subagents", "claude") : join(w.agentHome, "sessions", "claude");
  return readJsonl(readFileSync(sessionFileOf(dir, sessionId), "utf8"));
}

/** Message ids are new on a rebuild; everything else is the same. */
function withoutIds(message: unknown): unknown {
  const m = message as Rec;
  return m.role === "assistant" ? { ...m, id: expect.stringMatching(/^msg_/) } : m;
}

function setUp(w: World): void {
  w.file("hooks/last-text.sh", LAST_TEXT_SH, { executable: true });
  w.file("hooks/last-text.ts", LAST_TEXT_TS);
  const ts = `'${process.execPath}' '${join(w.project, "hooks/last-text.ts")}'`;
  w.file(
    ".agent/settings.json",
    JSON.stringify({
      hooks: {
        lifecycle: { stop: [group([`OUT_DIR='${w.root}' '${join(w.project, "hooks/last-text.sh")}'`, `OUT_DIR='${w.root}' ${ts}`, logTo(w, "stop.log")])] },
      },
    }),
  );
  w.file(
    "script.json",
    JSON.stringify({
      turns: [
        { reasoning: "list first", text: "Let me look.", tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "echo hi" } }] },
        { text: "All done: hi" },
      ],
    }),
  );
}

describe("Claude-format transcript", () => {
  test("LIFE-22 LIFE-29 stop hooks read the last assistant message from transcript_path with tail/grep/sed and with bun", async () => {
    const w = makeWorld();
    setUp(w);
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const sessionId = String(lastJson(r.stdout).session_id);
    // The transcript has its session file's name (`<start>-<id>.jsonl`), in sessions/claude/.
    const sessionFile = sessionFileOf(join(w.agentHome, "sessions"), sessionId);
    const path = join(w.agentHome, "sessions", "claude", basename(sessionFile));
    expect(readFileSync(join(w.root, "last-text.sh.out"), "utf8")).toBe("All done: hi");
    expect(readFileSync(join(w.root, "last-text.ts.out"), "utf8")).toBe("All done: hi");
    // The bun script's plain stdout is the stop hook's info line (D7).
    expect(r.stderr).toContain("last assistant: All done: hi");
    // Every transcript variable and the payload name the Claude-shaped file in the claude dialect.
    expect(readFileSync(join(w.root, "agent-path.out"), "utf8").trim()).toBe(path);
    expect(readLog(w, "stop.log")[0]?.transcript_path).toBe(path);
    // Our own session file is unchanged in shape and still where it was.
    expect(existsSync(sessionFile)).toBe(true);
    expect(basename(sessionFile)).toMatch(new RegExp(`^\\d{8}T\\d{6}\\.\\d{3}Z-${sessionId}\\.jsonl$`));
  });

  test("the transcript has Claude Code's entry shape: user prompt, assistant blocks, tool_result, a parentUuid chain", async () => {
    const w = makeWorld();
    setUp(w);
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const sessionId = String(lastJson(r.stdout).session_id);
    const entries = transcriptOf(w, sessionId);
    expect(entries.map((e) => e.type)).toEqual(["user", "assistant", "user", "assistant"]);
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    entries.forEach((entry, index) => {
      expect(entry).toMatchObject({ isSidechain: false, userType: "external", cwd: w.project, sessionId });
      expect(String(entry.uuid)).toMatch(uuid);
      expect(entry.parentUuid).toBe(index === 0 ? null : (entries[index - 1]?.uuid ?? "missing"));
      expect(Number.isNaN(Date.parse(String(entry.timestamp)))).toBe(false);
    });
    expect(entries[0]?.message).toEqual({ role: "user", content: "go" });
    const first = entries[1]?.message as Rec;
    expect(first).toMatchObject({ type: "message", role: "assistant", stop_reason: "tool_use" });
    expect(String(first.id)).toMatch(/^msg_/);
    expect(first.content).toEqual([
      { type: "thinking", thinking: "list first", signature: "" },
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "call_1", name: "Bash", input: { command: "echo hi" } },
    ]);
    const result = (entries[2]?.message as { content: Rec[] }).content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "call_1", is_error: false });
    expect(String(result?.content)).toContain("hi");
    expect(entries[3]?.message).toMatchObject({ role: "assistant", content: [{ type: "text", text: "All done: hi" }], stop_reason: "end_turn" });
  });

  test("a failed tool call is an is_error tool_result; resume appends and keeps the chain; --no-session writes none", async () => {
    const w = makeWorld();
    w.file("script.json", JSON.stringify({ turns: [{ tool_calls: [{ id: "c1", name: "read", arguments: { file_path: "nope.txt" } }] }, { text: "gone" }] }));
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const sessionId = String(lastJson(r.stdout).session_id);
    const before = transcriptOf(w, sessionId);
    const result = (before[2]?.message as { content: Rec[] }).content[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "c1", is_error: true });
    expect(before[1]?.message).toMatchObject({ content: [{ type: "tool_use", name: "Read", input: { file_path: "nope.txt" } }] });

    w.file("script.json", JSON.stringify({ turns: [{ text: "again" }] }));
    const resumed = await runScriptInProcess(w, "bypass", ["--resume", sessionId], "more");
    expect(resumed.code).toBe(0);
    const after = transcriptOf(w, sessionId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((e) => e.message)).toMatchObject([
      { role: "user", content: "more" },
      { role: "assistant", content: [{ type: "text", text: "again" }] },
    ]);
    expect(after[before.length]?.parentUuid).toBe(before[before.length - 1]?.uuid ?? "missing");

    // A session from before transcripts existed: resume rebuilds the transcript from its records first.
    rmSync(sessionFileOf(join(w.agentHome, "sessions", "claude"), sessionId));
    w.file("script.json", JSON.stringify({ turns: [{ text: "third" }] }));
    expect((await runScriptInProcess(w, "bypass", ["--resume", sessionId], "last")).code).toBe(0);
    const rebuilt = transcriptOf(w, sessionId);
    expect(rebuilt.map((e) => e.message)).toEqual([
      ...after.map((e) => e.message).map(withoutIds),
      { role: "user", content: "last" },
      expect.objectContaining({ content: [{ type: "text", text: "third" }] }),
    ]);
    expect(rebuilt.map((e) => e.timestamp).slice(0, after.length)).toEqual(after.map((e) => e.timestamp));

    const w2 = makeWorld();
    w2.file("script.json", JSON.stringify({ turns: [{ text: "x" }] }));
    expect((await runScriptInProcess(w2, "bypass", ["--no-session"])).code).toBe(0);
    expect(existsSync(join(w2.agentHome, "sessions"))).toBe(false);
  });
});
