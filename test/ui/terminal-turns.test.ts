/**
 * Turns in a real terminal (tmux): errors and block reasons appear before the next prompt, not one
 * prompt late; Ctrl-C during a tool's hook cancels the turn without a false timeout; and a session
 * resumed with --resume rebuilds its tool and hook rows from the session file. Script provider,
 * real hook scripts, and for the unreachable provider a port nothing listens on.
 */
import { describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, sessionIdOfName, writeScript, type World } from "../support/cli.ts";
import { PROMPT, withPane } from "./tmux.ts";
import { waitForFile } from "../support/procs.ts";

const SCRIPT = ["--script", "script.json"];

function userSettings(w: World, hooks: Record<string, unknown>): void {
  w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks }));
}

/** A port that refuses connections: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address !== null ? address.port : 9;
}

/** The lines between the last `> text` prompt line and the empty prompt after it. */
function afterPrompt(screen: string, text: string): string[] {
  const lines = screen.split("\n");
  const from = lines.lastIndexOf(`> ${text}`);
  const to = lines.findIndex((line, index) => index > from && line === ">");
  return lines.slice(from + 1, to);
}

describe("turn output in the terminal", () => {
  test("a prompt-guard block shows its reason under that prompt, before the next prompt", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "never" }]);
    userSettings(w, { lifecycle: { user_prompt_submit: [{ hooks: [{ command: "cat >/dev/null; echo 'no secrets in prompts' >&2; exit 2" }] }] } });
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("my password is hunter2", "Enter");
      const screen = await pane.waitFor(/^> my password is hunter2\n(.*\n)*>$/m);
      expect(afterPrompt(screen, "my password is hunter2").join("\n")).toContain("no secrets in prompts");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);

  test("a provider that cannot be reached says so before the next prompt", async () => {
    const w = makeWorld();
    const port = await closedPort();
    await withPane(w, ["--provider", "openai", "--base-url", `http://127.0.0.1:${port}/v1`], { env: { OPENAI_API_KEY: "sk-test-not-real" } }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("hello", "Enter");
      const screen = await pane.waitFor(/^> hello\n(.*\n)*>$/m);
      expect(afterPrompt(screen, "hello").join(" ")).toContain("cannot reach");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 120_000);

  test("Ctrl-C while a tool's hook runs cancels the turn: rows say cancelled, no hook timeout or failure line", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "still here" }]);
    const started = join(w.root, "hook-started");
    userSettings(w, {
      enabled: true,
      show_in_tui: true,
      before_tool: [{ label: "audit", command: `cat >/dev/null; touch ${started}; sleep 30`, timeout: 120 }],
    });
    await withPane(w, [...SCRIPT, "--permission-mode", "bypass"], {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      await pane.waitFor("hook before_tool · audit · bash · running");
      // The row shows from the spawn on; the hook's own command runs once the login environment
      // is captured, so wait for the hook itself before interrupting it.
      await waitForFile(started);
      pane.keys("C-c");
      const screen = await pane.waitFor("agent: turn cancelled");
      expect(screen).toContain("hook before_tool · audit · bash · cancelled");
      expect(screen).not.toContain("timeout");
      expect(screen).not.toContain("failed");
      await pane.waitFor(PROMPT);
      pane.keys("again", "Enter");
      await pane.waitFor("still here");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(started)).toBe(true);
  }, 90_000);

  test("--resume rebuilds tool lines and hook rows from the session file, and exit prints the resume command", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "all done" }]);
    userSettings(w, { enabled: true, show_in_tui: true, before_tool: [{ label: "audit", command: "cat >/dev/null" }] });
    let id = "";
    await withPane(w, [...SCRIPT, "--permission-mode", "bypass"], {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      await pane.waitFor("all done");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
      const [name = ""] = readdirSync(join(w.agentHome, "sessions")).filter((file) => file.endsWith(".jsonl"));
      id = sessionIdOfName(name);
      expect(pane.history()).toContain(`agent: resume this session with: agent --resume ${id}`);
    });
    await withPane(w, [...SCRIPT, "--resume", id], {}, async (pane) => {
      const screen = await pane.waitFor(PROMPT);
      const lines = screen.split("\n");
      const tool = lines.indexOf("● bash: echo hi");
      expect(tool, screen).toBeGreaterThan(0);
      expect(lines.slice(tool + 1, tool + 4)).toEqual([
        "  ↳ hook before_tool · audit · bash · running",
        "  ↳ hook before_tool · audit · bash · success",
        "  ⎿ ok: hi",
      ]);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 120_000);

  test("a running tool shows live progress (elapsed, lines so far, the last line), replaced by its result", async () => {
    const w = makeWorld();
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo step$i; sleep 0.4; done" } }] },
      { text: "stepped" },
    ]);
    await withPane(w, [...SCRIPT, "--permission-mode", "bypass"], {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      const running = await pane.waitFor("⎿ running · ");
      expect(running).toMatch(/⎿ running · \d+s · \d+ lines? · step\d+/);
      const done = await pane.waitFor("stepped");
      expect(done).toContain("⎿ ok: step1");
      expect(done).not.toContain("running · ");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);

  test("a 10,000-line tool output is collapsed to its first lines and a count; Ctrl-O shows it whole", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "seq 10000" } }] }, { text: "counted" }]);
    await withPane(w, [...SCRIPT, "--permission-mode", "bypass"], {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("count", "Enter");
      const screen = await pane.waitFor("counted");
      const lines = screen.split("\n");
      const result = lines.indexOf("  ⎿ ok: 1");
      expect(result, screen).toBeGreaterThan(0);
      expect(lines.slice(result + 1, result + 4)).toEqual(["    2", "    3", "    4"]);
      // The output over 16 KiB reaches the screen as the session's preview (the whole of it is in a
      // file the model can page); either way only four lines and a count are drawn.
      expect(lines[result + 4] ?? "").toMatch(/^ {4}… \d+ more lines \(Ctrl-O shows them\)$/);
      await pane.waitFor(PROMPT);
      // Ctrl-O on the empty prompt shows the collapsed output whole: its last line is on screen now.
      expect(pane.history()).not.toContain("    10000\n");
      pane.keys("C-o");
      await pane.waitFor("    10000");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);

  test("Ctrl-C at an empty prompt warns once; a second Ctrl-C ends the session like /exit", async () => {
    const w = makeWorld();
    writeScript(w, []);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("C-c");
      await pane.waitFor("(press Ctrl-C again to exit, or type /exit)");
      pane.keys("C-c");
      expect(await pane.exited()).toBe(0);
    });
    const [name = ""] = readdirSync(join(w.agentHome, "sessions")).filter((file) => file.endsWith(".jsonl"));
    const last =
      readFileSync(join(w.agentHome, "sessions", name), "utf8")
        .trim()
        .split("\n")
        .at(-1) ?? "";
    expect(JSON.parse(last)).toMatchObject({ type: "session_end", reason: "exit" });
  }, 90_000);
});
