/**
 * Wide characters in a real terminal (tmux): CJK and emoji take two columns, so the prompt editor
 * moves, deletes and inserts by whole characters and puts the terminal's cursor where the text
 * shows it; a wrapped prompt of CJK keeps every row within the width; a long CJK reply wraps at
 * the pane's width with nothing lost; a running tool's live line of CJK stays on one row; a
 * question about a CJK command is wrapped by columns and its menu redrawn in place. Script provider.
 */
import { describe, expect, test } from "bun:test";
import { makeWorld, writeScript } from "../support/cli.ts";
import { PROMPT, sessionPrompts, withPane, type Pane } from "./tmux.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";

const SCRIPT = ["--script", "script.json"];

/** The screen row the cursor is on, as captured (wrapped lines not joined). */
function cursorRow(pane: Pane): string {
  return pane.rows().split("\n")[pane.cursor().y] ?? "";
}

/** Waits until the prompt row reads `row` and the terminal's cursor is at column `x` of it. */
async function untilAt(pane: Pane, row: string, x: number): Promise<void> {
  await pane.waitFor(() => cursorRow(pane) === row && pane.cursor().x === x);
  expect(cursorRow(pane)).toBe(row);
  expect(pane.cursor().x).toBe(x);
}

/** Terminal columns of an ASCII + CJK/emoji test string (every non-ASCII character here is wide). */
const columns = (text: string): number => [...text].reduce((sum, ch) => sum + (ch.charCodeAt(0) < 0x80 ? 1 : 2), 0);

describe("wide characters", () => {
  test("CJK and emoji in the prompt: Left/Right/Backspace move by a whole character, the cursor is where it shows, the prompt is sent as edited", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "受け取りました" }]);
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.type("日本語");
      await untilAt(pane, "> 日本語", columns("> 日本語"));
      pane.keys("Left", "Left");
      await untilAt(pane, "> 日本語", columns("> 日"));
      pane.type("x");
      await untilAt(pane, "> 日x本語", columns("> 日x"));
      pane.keys("End");
      pane.type("😀");
      await untilAt(pane, "> 日x本語😀", columns("> 日x本語😀"));
      pane.keys("Left", "BSpace");
      await untilAt(pane, "> 日x本😀", columns("> 日x本"));
      pane.keys("Right", "Right", "Left", "Left", "BSpace");
      await untilAt(pane, "> 日本😀", columns("> 日"));
      pane.keys("Enter");
      await pane.waitFor("受け取りました");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(sessionPrompts(w)).toEqual(["日本😀"]);
  }, 90_000);

  test("a 20-column terminal: a CJK prompt wraps by whole characters, the cursor follows, the prompt is sent whole", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "ok" }]);
    const text = "一二三四五六七八九十百千万";
    await withPane(w, SCRIPT, { columns: 20, rows: 20 }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.type(text);
      // "> " and nine characters fill the 20 columns; the other four go to the next row.
      await untilAt(pane, "十百千万", 8);
      const rows = pane.rows().split("\n");
      const at = rows.indexOf(`> ${text.slice(0, 9)}`);
      expect(at, rows.join("\n")).toBeGreaterThanOrEqual(0);
      expect(rows[at + 1]).toBe(text.slice(9));
      pane.keys("Home", "Right");
      await untilAt(pane, `> ${text.slice(0, 9)}`, 4);
      pane.keys("Enter");
      await pane.waitFor(/^ok$/m);
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(sessionPrompts(w)).toEqual([text]);
  }, 90_000);

  test("a long CJK reply wraps at the pane's 40 columns with nothing lost or overdrawn", async () => {
    const w = makeWorld();
    // 150 distinct ideographs: any character lost or drawn over shows in the comparison.
    const reply = Array.from({ length: 150 }, (_, index) => String.fromCodePoint(0x4e00 + index * 7)).join("");
    writeScript(w, [{ text: reply }, { text: "二回目" }]);
    await withPane(w, SCRIPT, { columns: 40, rows: 30 }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("hi", "Enter");
      await pane.waitFor(reply);
      await pane.waitFor(PROMPT);
      const rows = pane.rows().split("\n");
      const first = rows.findIndex((row) => row.startsWith(reply.slice(0, 20)));
      // Twenty two-column characters to a row: 150 of them take eight rows, the last one half full.
      expect(rows.slice(first, first + 8)).toEqual(Array.from({ length: 8 }, (_, index) => reply.slice(index * 20, index * 20 + 20)));
      pane.keys("again", "Enter");
      await pane.waitFor("二回目");
      expect(pane.history()).toContain(reply);
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);

  test("a 40-column terminal: a running tool's live line of CJK output stays one row, redrawn in place", async () => {
    const w = makeWorld();
    const line = "日本語のテキストがとても長い行です。日本語のテキストがとても長い行です。";
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: `for i in 1 2 3 4 5 6 7 8 9 10; do echo "行$i ${line}"; sleep 0.4; done` } }] },
      { text: "finished" },
    ]);
    await withPane(w, [...SCRIPT, "--permission-mode", "bypass"], { columns: 40, rows: 30 }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      // Several redraws of the live line: each one replaces the last on the same row.
      const screen = await pane.waitFor(/⎿ running · \d+s · [4-9] lines/);
      const rows = pane.rows().split("\n");
      expect(rows.filter((row) => row.includes("running ·")).length, screen).toBe(1);
      expect(rows.some((row) => row.startsWith("行"))).toBe(false);
      await pane.waitFor("finished");
      await pane.waitFor(PROMPT);
      expect(pane.screen()).not.toContain("running ·");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);

  test("a 40-column terminal: a question about a CJK command keeps its menu rows within the width while ↓ moves the mark", async () => {
    const w = makeWorld();
    const command = "touch 日本語のファイルを作成します作成します.txt";
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command } }] }, { text: "asked" }]);
    await withPane(w, SCRIPT, { columns: 40, rows: 30 }, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      await pane.waitFor("❯ 1. yes, once");
      pane.keys("Down", "Down");
      await pane.waitFor(/❯ 3\. /);
      const rows = pane.rows().split("\n");
      // Each menu row is one screen row: no row is drawn twice, and the cut rows end in …
      expect(rows.filter((row) => row.includes("1. yes, once")).length, rows.join("\n")).toBe(1);
      // The question, wrapped by columns: its two rows once each, the file name whole across them.
      expect(rows.filter((row) => row.startsWith("allow bash: touch")).length).toBe(1);
      const question = rows.findIndex((row) => row.startsWith("allow bash: touch"));
      expect(rows.slice(question, question + 2).join("")).toBe(`allow bash: ${command}?`);
      expect(rows.filter((row) => row.includes("❯")).length).toBe(1);
      const always = rows.find((row) => row.includes("2. yes, always this session")) ?? "";
      expect(always.endsWith("…")).toBe(true);
      pane.keys("Escape");
      await pane.waitFor(PROMPT);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 90_000);
});

describe("the spinner row in a narrow terminal", () => {
  test("'thinking… Ns · Ctrl-C cancels' is cut to the width: one row, never wrapped into stacked copies", async () => {
    const w = makeWorld();
    const server = await startFakeOpenAI([{ hang: true }]);
    try {
      const args = ["--provider", "openai", "--model", "m", "--base-url", server.url];
      await withPane(w, args, { columns: 20, rows: 12, noColor: false, env: { OPENAI_API_KEY: "sk-test-not-real" } }, async (pane) => {
        await pane.waitFor(PROMPT);
        pane.keys("wait", "Enter");
        // Three seconds shown: the row has been redrawn in place many times (a wrapped row would
        // have stacked a copy per redraw by now).
        await pane.waitFor(() => /thinking… [3-9]s/.test(pane.rows()));
        const rows = pane.rows().split("\n");
        const spinner = rows.filter((row) => row.includes("thinking"));
        expect(spinner, pane.rows()).toHaveLength(1);
        expect([...(spinner[0] ?? "")].length).toBeLessThanOrEqual(19);
        expect(spinner[0]).toEndWith("…");
        // Nothing of the row spilled onto the next one.
        expect(pane.rows()).not.toContain("Ctrl-C cancels");
        expect(pane.history()).not.toContain("cancels");
        pane.keys("C-c");
        await pane.waitFor("cancelled");
        await pane.waitFor(PROMPT);
        pane.keys("C-d");
        expect(await pane.exited()).toBe(0);
      });
    } finally {
      await server.close();
    }
  }, 90_000);
});
