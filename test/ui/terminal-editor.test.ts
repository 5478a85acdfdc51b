/**
 * The prompt's line editor in a real terminal (tmux): editing keys, history kept per project across
 * sessions, multi-line input, Tab completion of slash commands and @paths, Ctrl-L, colour and
 * NO_COLOR, a 40-column terminal, a resize, and the command palette. Script provider.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript } from "../support/cli.ts";
import { PROMPT, sessionPrompts, withPane, type Pane } from "./tmux.ts";

const SCRIPT = ["--script", "script.json"];

/** The last prompt row on the screen (the one being edited). */
function editing(pane: Pane): string {
  return (
    pane
      .screen()
      .split("\n")
      .filter((line) => line.startsWith(">"))
      .at(-1) ?? ""
  );
}

async function untilEditing(pane: Pane, expected: string): Promise<void> {
  await pane.waitFor(new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
  expect(editing(pane)).toBe(expected);
}

async function quit(pane: Pane): Promise<void> {
  await pane.waitFor(PROMPT);
  pane.keys("C-d");
  expect(await pane.exited()).toBe(0);
}

describe("the line editor", () => {
  test("Ctrl-A/E, Alt-B, Left, Ctrl-W, Ctrl-K and Ctrl-U edit the prompt in place; Enter sends what is shown", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "got it" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("hello big world", "C-a", "X", "C-e", "Y", "M-b", "M-b", "Z");
      await untilEditing(pane, "> Xhello Zbig worldY");
      pane.keys("C-w");
      await untilEditing(pane, "> Xhello big worldY");
      pane.keys("C-k");
      await untilEditing(pane, "> Xhello");
      pane.keys("C-u", "ac", "Left", "b", "End", " done");
      await untilEditing(pane, "> abc done");
      pane.keys("Enter");
      await pane.waitFor("got it");
      await quit(pane);
    });
    expect(sessionPrompts(w)).toEqual(["abc done"]);
  }, 90_000);

  test("history is kept per project across sessions: Up and Down walk it; another project has its own", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "one" }, { text: "two" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("first prompt", "Enter");
      await pane.waitFor("one");
      await pane.waitFor(PROMPT);
      pane.keys("second prompt", "Enter");
      await pane.waitFor("two");
      await quit(pane);
    });
    writeScript(w, []);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("draft", "Up");
      await untilEditing(pane, "> second prompt");
      pane.keys("Up");
      await untilEditing(pane, "> first prompt");
      pane.keys("Down", "Down");
      await untilEditing(pane, "> draft");
      pane.keys("C-u");
      await quit(pane);
    });
    const other = join(w.root, "other");
    w.file(join(other, ".git", "HEAD"), "ref: refs/heads/main\n");
    w.file(join(other, "script.json"), JSON.stringify({ turns: [] }));
    await withPane(w, [...SCRIPT, "--cwd", other], {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("Up", "x");
      await untilEditing(pane, "> x");
      pane.keys("C-u");
      await quit(pane);
    });
    expect(readdirSync(join(w.agentHome, "history")).length).toBe(1);
  }, 120_000);

  test("\\ then Enter and Alt-Enter continue the prompt on a new line; it is sent as one prompt", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "multi received" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("line one \\", "Enter", "line two", "M-Enter", "line three");
      await pane.waitFor(/^> line one\n {2}line two\n {2}line three$/m);
      pane.keys("Enter");
      await pane.waitFor("multi received");
      await quit(pane);
    });
    expect(sessionPrompts(w)).toEqual(["line one \nline two\nline three"]);
  }, 90_000);

  test("Tab completes slash commands (listing several) and @paths of project files", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "read them" }]);
    w.file("src/main.ts", "");
    w.file("src/menu.ts", "");
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("/hoo", "Tab");
      await untilEditing(pane, "> /hooks");
      pane.keys("C-u", "/c", "Tab");
      await pane.waitFor("/compact  /clear  /cost");
      pane.keys("C-u", "look at @sr", "Tab");
      await untilEditing(pane, "> look at @src/");
      pane.keys("m", "Tab");
      await pane.waitFor("src/main.ts  src/menu.ts");
      pane.keys("a", "Tab");
      await untilEditing(pane, "> look at @src/main.ts");
      pane.keys("Enter");
      await pane.waitFor("read them");
      await quit(pane);
    });
    expect(sessionPrompts(w)).toEqual(["look at @src/main.ts"]);
  }, 90_000);

  test("Ctrl-L clears the screen and keeps the prompt being edited", async () => {
    const w = makeWorld();
    writeScript(w, []);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor("interactive session");
      pane.keys("kept text", "C-l");
      await pane.waitFor(/^> kept text$/m);
      await pane.waitFor((screen) => !screen.includes("interactive session"));
      expect(pane.screen().split("\n")[0]).toContain("script/script");
      pane.keys("C-u");
      await quit(pane);
    });
  }, 90_000);
});

describe("the screen", () => {
  test("colour on a terminal; none under NO_COLOR", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "**bold** words" }]);
    await withPane(w, SCRIPT, { noColor: false }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("hi", "Enter");
      await pane.waitFor("bold words");
      const escaped = pane.screenWithEscapes();
      expect(escaped).toContain("\x1b[1mbold");
      expect(escaped).toMatch(/\x1b\[[0-9;]*2m.*default mode/);
      await quit(pane);
    });
    const plain = makeWorld();
    writeScript(plain, [{ text: "**bold** words" }]);
    await withPane(plain, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("hi", "Enter");
      await pane.waitFor("**bold** words");
      expect(pane.screenWithEscapes()).not.toContain("\x1b[");
      await quit(pane);
    });
  }, 90_000);

  test("a 40-column terminal: a long prompt wraps, edits at its start redraw every row, it is sent whole", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "wrapped ok" }]);
    const long = "abcdefghij".repeat(9);
    await withPane(w, SCRIPT, { columns: 40, rows: 20 }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys(long, "C-a", "Q");
      const rows = (await pane.waitFor(/^> Qabc/m)).split("\n");
      const at = rows.findIndex((row) => row.startsWith("> Q"));
      expect(rows.slice(at, at + 3)).toEqual([`> Q${long.slice(0, 37)}`, long.slice(37, 77), long.slice(77)]);
      expect(
        pane
          .rows()
          .split("\n")
          .every((row) => row.length <= 40),
      ).toBe(true);
      pane.keys("Enter");
      await pane.waitFor("wrapped ok");
      await quit(pane);
    });
    expect(sessionPrompts(w)).toEqual([`Q${long}`]);
  }, 90_000);

  test("a resize redraws the status row and the prompt once, at the new width", async () => {
    const w = makeWorld();
    writeScript(w, []);
    await withPane(w, SCRIPT, { columns: 100, rows: 20 }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("x".repeat(60));
      await pane.waitFor("xxxxxxxxxx");
      pane.resize(40, 20);
      await pane.waitFor(() =>
        pane
          .rows()
          .split("\n")
          .includes(`> ${"x".repeat(38)}`),
      );
      const rows = pane.rows().split("\n");
      expect(rows.filter((row) => row.includes("default mode")).length).toBe(1);
      expect(rows.filter((row) => row.startsWith("> x")).length).toBe(1);
      pane.resize(100, 20);
      await pane.waitFor(`> ${"x".repeat(60)}`);
      expect(
        pane
          .rows()
          .split("\n")
          .filter((row) => row.includes("default mode")).length,
      ).toBe(1);
      pane.keys("C-u");
      await quit(pane);
    });
  }, 90_000);

  test("Ctrl-K on an empty prompt opens the command palette; typing filters, Enter runs the command", async () => {
    const w = makeWorld();
    writeScript(w, []);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("C-k");
      await pane.waitFor("command palette");
      pane.keys("hooks rel");
      await pane.waitFor("❯ 1. /hooks reload");
      pane.keys("Enter");
      await pane.waitFor("agent: hooks reloaded");
      await quit(pane);
    });
  }, 90_000);
});
