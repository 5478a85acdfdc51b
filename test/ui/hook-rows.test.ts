/**
 * Mission Control rows in the interactive session (seed 003, TOOL-64, TOOL-65) and Ctrl-C in a turn,
 * driven as a real child process (AGENT_INTERACTIVE=1, piped stdin) with real hook scripts; the
 * provider-visibility checks use the fake OpenAI server on its real wire.
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, REPO, sessionIdOfName, writeScript, type World } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { contentLine, historyLines, injectionSummary, InjectionContents, lifecycleRow } from "../../src/ui/hook-rows.ts";
import { parseRecord, type SessionRecord } from "../../src/session/records.ts";
import { chooseStyle } from "../../src/ui/style.ts";

const MAIN = join(REPO, "src", "main.ts");

interface Live {
  write(line: string): void;
  signal(): void;
  stdout(): string;
  stderr(): string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function start(w: World, args: string[]): Live {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: w.project, env: w.env({ AGENT_INTERACTIVE: "1" }) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { write: (line) => child.stdin.write(`${line}\n`), signal: () => child.kill("SIGINT"), stdout: () => stdout, stderr: () => stderr, done };
}

/** Polls `check` for up to a minute; a check that throws (a file not there yet) counts as false. */
async function waitFor(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    try {
      if (check()) return;
    } catch {
      // The session file may not exist yet, or its directory may be empty.
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs a scripted interactive session: each prompt, then /exit. */
async function session(w: World, prompts: string[], extraArgs: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const s = start(w, ["--script", "script.json", "--permission-mode", "bypass", ...extraArgs]);
  for (const prompt of prompts) s.write(prompt);
  s.write("/exit");
  return s.done;
}

/** User-scope settings (no project trust needed); hooks are absolute scripts that count their runs. */
function hooks(w: World, value: Record<string, unknown>): void {
  w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, ...value } }));
}

function counter(w: World, name: string, body: string): string {
  return w.file(join(w.root, "bin", `${name}.sh`), `#!/bin/sh\ncat >/dev/null\necho x >> "${w.root}/${name}.count"\n${body}\n`, { executable: true });
}

function runs(w: World, name: string): number {
  const path = join(w.root, `${name}.count`);
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").length : 0;
}

function onlySession(w: World): { id: string; records: Record<string, unknown>[] } {
  const [name = ""] = readdirSync(join(w.agentHome, "sessions")).filter((file) => file.endsWith(".jsonl"));
  return { id: sessionIdOfName(name), records: readJsonl(readFileSync(join(w.agentHome, "sessions", name), "utf8")) };
}

/** before_tool `audit` succeeds; after_tool `bad` exits 1 under policy warn. */
function auditWorld(showInTui: boolean): World {
  const w = makeWorld();
  writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "all done" }]);
  hooks(w, {
    show_in_tui: showInTui,
    before_tool: [{ label: "audit", command: counter(w, "audit", "exit 0") }],
    after_tool: [{ label: "bad", command: counter(w, "bad", "exit 1"), failure_policy: "warn" }],
  });
  return w;
}

const INJECT = `echo '{"context_items":[{"role":"user","content":"remember the deploy token AKIAABCDEFGHIJKLMNOP please"}]}'`;

function injectWorld(injected: Record<string, unknown> | undefined): World {
  const w = makeWorld();
  hooks(w, {
    ...(injected ? { injected_content: injected } : {}),
    after_tool: [{ label: "memory-after", command: counter(w, "memory", INJECT), provider_context_injection: true }],
  });
  return w;
}

/** stderr as lines, without the `> ` prompt that precedes the first line of a turn. */
function linesOf(text: string): string[] {
  return text.split("\n").map((line) => line.replace(/^(> )+/, ""));
}

function indexOfLine(text: string, line: string): number {
  return linesOf(text).indexOf(line);
}

describe("Mission Control hook rows (interactive)", () => {
  test("TOOL-64 show_in_tui true: running then success/failed rows under the tool, with category and policy", async () => {
    const w = auditWorld(true);
    const r = await session(w, ["go"]);
    expect(r.code).toBe(0);
    const tool = indexOfLine(r.stderr, "● bash: echo hi");
    const running = indexOfLine(r.stderr, "  ↳ hook before_tool · audit · bash · running");
    const success = indexOfLine(r.stderr, "  ↳ hook before_tool · audit · bash · success");
    const result = indexOfLine(r.stderr, "  ⎿ ok: hi");
    const afterRunning = indexOfLine(r.stderr, "  ↳ hook after_tool · bad · bash · running");
    const failed = indexOfLine(r.stderr, "  ↳ hook after_tool · bad · bash · failed · exit · policy warn");
    expect(tool, r.stderr).toBeGreaterThanOrEqual(0);
    expect([tool, running, success, result, afterRunning, failed]).toEqual([tool, tool + 1, tool + 2, tool + 3, tool + 4, tool + 5]);
    // The D21 failure line is still printed, right after the failed row; rows never go to stdout.
    expect(linesOf(r.stderr)[failed + 1]).toBe("agent: hook bad (post_tool) failed: exit: exited 1 — result kept");
    expect(r.stdout).not.toContain("↳");
  }, 30_000);

  test("TOOL-64 show_in_tui false: no running/success rows, the failure still shows; records persist either way", async () => {
    const w = auditWorld(false);
    const r = await session(w, ["go"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("· running");
    expect(r.stderr).not.toContain("· success");
    expect(r.stderr).toContain("agent: hook bad (post_tool) failed: exit");
    const lifecycle = onlySession(w).records.filter((x) => x.type === "hook_lifecycle");
    expect(lifecycle.map((x) => `${x.label}:${x.status}`)).toEqual(["audit:started", "audit:success", "bad:started", "bad:failed"]);
  }, 30_000);

  test("TOOL-64 agent --resume ID shows the recorded rows from the JSONL without rerunning a hook", async () => {
    const w = auditWorld(false);
    expect((await session(w, ["go"])).code).toBe(0);
    expect([runs(w, "audit"), runs(w, "bad")]).toEqual([1, 1]);
    const { id } = onlySession(w);
    const r = await session(w, [], ["--resume", id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`agent: resuming session ${id}`);
    const lines = linesOf(r.stderr);
    const tool = lines.indexOf("● bash: echo hi");
    expect(tool).toBeGreaterThanOrEqual(0);
    expect(lines.slice(tool + 1, tool + 6)).toEqual([
      "  ↳ hook before_tool · audit · bash · running",
      "  ↳ hook before_tool · audit · bash · success",
      "  ⎿ ok: hi",
      "  ↳ hook after_tool · bad · bash · running",
      "  ↳ hook after_tool · bad · bash · failed · exit · policy warn",
    ]);
    expect([runs(w, "audit"), runs(w, "bad")]).toEqual([1, 1]);
  }, 30_000);

  test("TOOL-65 both gates default off: no injection rows, the item still reaches the provider", async () => {
    const w = injectWorld(undefined);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "ok" }]);
    const r = await session(w, ["go"]);
    expect(r.code).toBe(0);
    expect(runs(w, "memory")).toBe(1);
    expect(r.stderr).not.toContain("provider context injection");
    expect(onlySession(w).records.filter((x) => x.type === "provider_context_item")).toHaveLength(1);
  }, 30_000);

  test("TOOL-65 transcript + style metadata: the summary row only; activity tree + style content: a child row and redacted content", async () => {
    const summary = (bytes: number): string => `provider context injection · memory-after · success · 1 item · ${bytes} bytes`;
    const meta = injectWorld({ show_in_transcript: true, style: "metadata" });
    writeScript(meta, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "ok" }]);
    const m = await session(meta, ["go"]);
    expect(m.code).toBe(0);
    const injection = onlySession(meta).records.find((x) => x.type === "hook_context_injection");
    const bytes = Number(injection?.byte_count);
    expect(bytes).toBeGreaterThan(0);
    const metaLines = linesOf(m.stderr);
    expect(metaLines).toContain(summary(bytes));
    expect(metaLines).not.toContain(`  ↳ ${summary(bytes)}`);
    expect(m.stderr).not.toContain("deploy token");

    const tree = injectWorld({ show_in_activity_tree: true, style: "content" });
    writeScript(tree, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "ok" }]);
    const t = await session(tree, ["go"]);
    expect(t.code).toBe(0);
    const lines = linesOf(t.stderr);
    const row = lines.indexOf(`  ↳ ${summary(bytes)}`);
    expect(row).toBeGreaterThan(lines.indexOf("● bash: echo hi"));
    expect(lines).not.toContain(summary(bytes));
    expect(lines[row + 1]).toBe("    │ remember the deploy token [REDACTED:aws_access_key_id] please");
    // Display only: the provider-visible item is the hook's text, unredacted and unchanged.
    const items = onlySession(tree).records.filter((x) => x.type === "provider_context_item");
    expect(items.map((x) => x.content)).toEqual(["remember the deploy token AKIAABCDEFGHIJKLMNOP please"]);

    // A resumed session rebuilds the rows from the JSONL (the hook does not run again).
    const { id } = onlySession(tree);
    const resumed = await session(tree, [], ["--resume", id]);
    expect(resumed.code).toBe(0);
    expect(linesOf(resumed.stderr)).toContain(`  ↳ ${summary(bytes)}`);
    expect(runs(tree, "memory")).toBe(1);
  }, 60_000);

  test("TOOL-65 the gates never change what the provider gets (fake OpenAI wire)", async () => {
    const bodies: string[] = [];
    for (const injected of [undefined, { show_in_transcript: true, show_in_activity_tree: true, style: "content" }]) {
      const w = injectWorld(injected);
      const server = await startFakeOpenAI([{ text: "", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
      try {
        const s = start(w, ["--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass"]);
        s.write("go");
        s.write("/exit");
        expect((await s.done).code).toBe(0);
        expect(server.requests).toHaveLength(2);
        // Each world has its own directory, which the system prompt's environment block names.
        bodies.push(JSON.stringify((server.requests[1] as { messages: unknown }).messages).replaceAll(w.root, "<world>"));
      } finally {
        await server.close();
      }
    }
    expect(bodies[0]).toContain("AKIAABCDEFGHIJKLMNOP");
    expect(bodies[1]).toBe(bodies[0] ?? "");
  }, 60_000);

  test("LIFE-70 Ctrl-C during a turn cancels it and returns to the prompt; Ctrl-C twice at the prompt exits", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "still here" }]);
    const s = start(w, ["--script", "script.json", "--permission-mode", "bypass"]);
    s.write("go");
    await waitFor(() => onlySession(w).records.some((x) => x.type === "tool_call"), "the bash call");
    s.signal();
    await waitFor(() => s.stderr().includes("agent: turn cancelled"), "the cancelled turn");
    // Back at the prompt well before `sleep 30` would have ended; the session goes on.
    await waitFor(() => s.stderr().trimEnd().endsWith(">"), "the prompt");
    s.write("again");
    await waitFor(() => s.stdout().includes("still here") && s.stderr().trimEnd().endsWith(">"), "the next turn");
    s.signal();
    await waitFor(() => s.stderr().includes("press Ctrl-C again"), "the first prompt Ctrl-C warning");
    s.signal();
    const r = await s.done;
    // Leaving at the prompt ends the session like /exit.
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("still here");
    const records = onlySession(w).records;
    expect(records.filter((x) => x.type === "user").map((x) => x.content)).toEqual(["go", "again"]);
    expect(records.at(-1)).toMatchObject({ type: "session_end", reason: "exit" });
  }, 180_000);
});

describe("Mission Control row formatting", () => {
  const parse = (value: Record<string, unknown>): SessionRecord => {
    const parsed = parseRecord({ timestamp: new Date().toISOString(), ...value });
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.record;
  };
  const lifecycle = {
    type: "hook_lifecycle",
    phase: "pre_tool",
    label: "guard",
    target_tool: "bash",
    status: "failed",
    policy: "block",
    category: "timeout",
    target_ran: false,
    tool_call_id: "c1",
    activity_id: null,
    hook_index: 0,
    elapsed_ms: 5,
    message: "timed out",
  };
  const injection = {
    type: "hook_context_injection",
    schema_version: 1,
    phase: "after_assistant",
    label: "memory-after",
    target_tool: "assistant",
    status: "success",
    item_count: 1,
    byte_count: 42,
    max_bytes: 4096,
    hook_index: 0,
  };

  test("TOOL-64 TOOL-65 row texts", () => {
    const row = parse(lifecycle);
    const inj = parse(injection);
    if (row.type !== "hook_lifecycle" || inj.type !== "hook_context_injection") throw new Error("unexpected record types");
    expect(lifecycleRow(row)).toBe("  ↳ hook pre_tool · guard · bash · failed · timeout · policy block");
    expect(lifecycleRow({ ...row, target_tool: null, status: "started", phase: "session_start" })).toBe("↳ hook session_start · guard · running");
    // A hook the interrupt stopped did not time out.
    expect(lifecycleRow({ ...row, message: "cancelled" })).toBe("  ↳ hook pre_tool · guard · bash · cancelled");
    expect(injectionSummary(inj)).toBe("provider context injection · memory-after · success · 1 item · 42 bytes");
    expect(contentLine(`a\n${"x".repeat(300)}`)).toBe(`a ${"x".repeat(198)}…`);
  });

  test("TOOL-65 items pair with their injection record only; history honours the gates", () => {
    const records = [
      parse({ type: "provider_context_item", role: "user", content: "session start context" }),
      parse(injection),
      parse({ type: "provider_context_item", role: "user", content: "the memory" }),
      parse({ type: "assistant", message_id: "m1", content: "hi", tool_calls: [] }),
      parse({ type: "provider_context_item", role: "user", content: "prompt context" }),
    ];
    const contents = new InjectionContents();
    for (const record of records) contents.observe(record);
    expect(contents.contentsOf(0)).toEqual(["the memory"]);
    const off = { showInTui: false, injectedContent: { showInTranscript: false, showInActivityTree: false, style: "content" as const } };
    expect(historyLines(records, off).join("\n")).not.toContain("provider context injection");
    const on = { ...off, injectedContent: { ...off.injectedContent, showInActivityTree: true } };
    expect(historyLines(records, on)).toEqual(["  ↳ provider context injection · memory-after · success · 1 item · 42 bytes", "    │ the memory", "hi"]);
  });

  test("resumed history says rejected for a refused call and error for a failed one, as the live screen did", () => {
    const result = (success: boolean, metadata: Record<string, unknown>) =>
      parse({ type: "tool_result", tool_call_id: "c1", tool_name: "bash", input: { command: "rm -rf /" }, success, content: "guard-bash: no", metadata });
    const off = { showInTui: false, injectedContent: { showInTranscript: false, showInActivityTree: false, style: "content" as const } };
    expect(historyLines([result(false, { rejected: true })], off)).toEqual(["  ⎿ rejected: guard-bash: no"]);
    expect(historyLines([result(false, {})], off)).toEqual(["  ⎿ error: guard-bash: no"]);
    expect(historyLines([result(true, {})], off)).toEqual(["  ⎿ ok: guard-bash: no"]);
  });

  test("resumed history draws a todo_write plan as its checklist: glyphs and styles with colour, [ ] [>] [x] without, the model's text escaped", () => {
    const todos = [
      { id: "1", content: "done step", status: "completed" },
      { id: "2", content: "current \x1b[31mstep", status: "in_progress" },
      { id: "3", content: "next step", status: "pending" },
    ];
    const records = [
      parse({
        type: "tool_result",
        tool_call_id: "c1",
        tool_name: "todo_write",
        input: { todos },
        success: true,
        content: "Plan (1/3 completed):",
        metadata: { todos },
      }),
    ];
    const off = { showInTui: false, injectedContent: { showInTranscript: false, showInActivityTree: false, style: "content" as const } };
    expect(historyLines(records, off)).toEqual(["  ⎿ ok: Plan (1/3 completed):", "    [x] done step", "    [>] current \\x1b[31mstep", "    [ ] next step"]);
    expect(historyLines(records, off, chooseStyle({}, true))).toEqual([
      "  ⎿ ok: Plan (1/3 completed):",
      "    \x1b[2m☑ done step\x1b[22m",
      "    \x1b[1m◐ current \\x1b[31mstep\x1b[22m",
      "    ☐ next step",
    ]);
  });
});
