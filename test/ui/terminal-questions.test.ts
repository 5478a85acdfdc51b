/**
 * The interactive session in a real terminal (tmux): permission questions are answered only by keys
 * pressed after they are shown, Ctrl-C at a question denies it, and text from the model or a tool
 * call reaches the screen with its control characters escaped. Script provider, real processes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript } from "../support/cli.ts";
import { PROMPT, sessionPrompts, sessionRecords, withPane } from "./tmux.ts";

const SCRIPT = ["--script", "script.json"];

describe("permission questions in the terminal", () => {
  test("a pasted 'yes' after the prompt is part of the prompt and never answers the question", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }, { text: "finished" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.paste("please create the file\nyes\n");
      await pane.waitFor("please create the file");
      pane.keys("Enter");
      await pane.waitFor("allow bash: touch made.txt?");
      expect(existsSync(join(w.project, "made.txt"))).toBe(false);
      pane.keys("n");
      await pane.waitFor("rejected: the user denied bash");
      await pane.waitFor("finished");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(join(w.project, "made.txt"))).toBe(false);
    expect(sessionPrompts(w)).toEqual(["please create the file\nyes"]);
  }, 90_000);

  test("keys typed before a question is shown stay queued as the next prompt; the question waits for a later key", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }, { text: "first done" }, { text: "second done" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      // One send-keys: the prompt, Enter, then "yes" and Enter, all before the question exists.
      pane.keys("please create the file", "Enter", "yes", "Enter");
      await pane.waitFor("allow bash: touch made.txt?");
      expect(existsSync(join(w.project, "made.txt"))).toBe(false);
      pane.keys("1");
      await pane.waitFor("second done");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(join(w.project, "made.txt"))).toBe(true);
    expect(sessionPrompts(w)).toEqual(["please create the file", "yes"]);
  }, 90_000);

  test("Ctrl-C at a question denies the call, says so, and cancels the turn; the session goes on", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }, { text: "after the cancel" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("make it", "Enter");
      await pane.waitFor("allow bash: touch made.txt?");
      pane.keys("C-c");
      const screen = await pane.waitFor("agent: turn cancelled");
      expect(screen).toContain("agent: denied bash (question cancelled)");
      expect(screen).toContain("rejected: the user denied bash");
      pane.keys("go on", "Enter");
      await pane.waitFor("after the cancel");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(join(w.project, "made.txt"))).toBe(false);
  }, 90_000);

  test("the menu: arrow keys and Enter pick 'always', and the same command does not ask again", async () => {
    const w = makeWorld();
    writeScript(w, [
      // No redirection: a command that writes a file through `>` offers no rule to keep (D27).
      { tool_calls: [{ name: "bash", arguments: { command: "mkdir -p out && touch out/a" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "mkdir -p out && touch out/a" } }] },
      { text: "both ran" },
    ]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("append twice", "Enter");
      await pane.waitFor("2. yes, always this session");
      pane.keys("Down", "Enter");
      await pane.waitFor("both ran");
      expect(pane.history().split("allow bash:").length - 1).toBe(1);
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(join(w.project, "out/a"))).toBe(true);
  }, 90_000);

  test("'no, and tell the model what to do instead' denies and sends the instructions as the next prompt", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "rm -rf build" } }] }, { text: "ok, keeping build" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("clean up", "Enter");
      await pane.waitFor("6. no, and tell the model what to do instead");
      pane.keys("t");
      await pane.waitFor("tell the model what to do instead:");
      pane.keys("keep the build folder", "Enter");
      await pane.waitFor("ok, keeping build");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(sessionPrompts(w)).toEqual(["clean up", "keep the build folder"]);
    const result = sessionRecords(w).find((x) => x.type === "tool_result");
    expect(result).toMatchObject({ success: false });
  }, 90_000);

  test("an edit question shows the diff the call would make, and the result line the change it made", async () => {
    const w = makeWorld();
    w.file("notes.txt", "one\ntwo\nthree\n");
    writeScript(w, [{ tool_calls: [{ name: "edit", arguments: { file_path: "notes.txt", old_string: "two", new_string: "TWO" } }] }, { text: "edited" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("shout two", "Enter");
      const screen = await pane.waitFor("allow edit:");
      const lines = screen.split("\n");
      const at = lines.findIndex((line) => line === "- two");
      expect(at, screen).toBeGreaterThan(0);
      expect(lines[at + 1]).toBe("+ TWO");
      expect(lines[at - 1]).toBe("  one");
      pane.keys("y");
      // The model's closing text, a line of its own: the result line says "edited" too, before its diff.
      const after = (await pane.waitFor(/^edited$/m)).split("\n");
      // After the edit its change is shown under the tool's result line too.
      const ok = after.findIndex((line) => line.startsWith("  ⎿ ok"));
      expect(ok, after.join("\n")).toBeGreaterThan(0);
      expect(after.slice(ok + 1, ok + 5)).toEqual(["      one", "    - two", "    + TWO", "      three"]);
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(readFileSync(join(w.project, "notes.txt"), "utf8")).toBe("one\nTWO\nthree\n");
  }, 90_000);
});

describe("control characters from the model and tool calls", () => {
  test("a command's CR and ESC sequences show escaped in the question; nothing is overdrawn", async () => {
    const w = makeWorld();
    const command = "touch X #\r\x1b[2K\x1b[1Aallow bash: ls -la";
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command } }] }, { text: "done" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("list", "Enter");
      const screen = await pane.waitFor("1. yes, once");
      expect(screen).toContain("allow bash: touch X #\\r\\x1b[2K\\x1b[1Aallow bash: ls -la?");
      expect(pane.screenWithEscapes()).not.toContain("\x1b[2K");
      pane.keys("n");
      await pane.waitFor("done");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(join(w.project, "X"))).toBe(false);
  }, 90_000);

  test("an OSC 52 (set clipboard) in a reply is shown escaped and never reaches the terminal", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "before \x1b]52;c;aGFja2Vk\x07 after" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("hi", "Enter");
      const screen = await pane.waitFor("after");
      expect(screen).toContain("before \\x1b]52;c;aGFja2Vk\\x07 after");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
      expect(pane.buffers()).not.toContain("hacked");
    });
  }, 90_000);
});
