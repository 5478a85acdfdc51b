/** The prompt editor with wide characters: moves and deletes by whole characters, lays out by columns. */
import { describe, expect, test } from "bun:test";
import { layoutPrompt, LineEditor } from "../../src/ui/line-editor.ts";

describe("the line editor with wide characters", () => {
  test("Left, Right, Backspace and Delete step over a whole character (CJK, emoji sequences, combining marks)", () => {
    const editor = new LineEditor();
    editor.insert("a日👨‍👩‍👧e\u0301");
    editor.apply("left");
    expect(editor.text.slice(editor.cursor)).toBe("e\u0301");
    editor.apply("left");
    expect(editor.text.slice(editor.cursor)).toBe("👨‍👩‍👧e\u0301");
    editor.apply("backspace");
    expect(editor.text).toBe("a👨‍👩‍👧e\u0301");
    editor.apply("delete");
    expect(editor.text).toBe("ae\u0301");
    editor.apply("right");
    expect(editor.cursor).toBe(editor.text.length);
    editor.apply("backspace");
    expect(editor.text).toBe("a");
  });

  test("the cursor column counts a wide character as two; a wrapped row never holds more columns than the width", () => {
    expect(layoutPrompt("> ", "日本語", 3, 40)).toEqual({ rows: ["> 日本語"], cursorRow: 0, cursorColumn: 8 });
    expect(layoutPrompt("> ", "日本語", 1, 40).cursorColumn).toBe(4);
    // Width 7: "> 日本" is 6 columns, 語 does not fit in the last one and starts the next row.
    const wrapped = layoutPrompt("> ", "日本語x", 2, 7);
    expect(wrapped.rows).toEqual(["> 日本", "語x"]);
    // The cursor before 語 is on the row where 語 is drawn.
    expect([wrapped.cursorRow, wrapped.cursorColumn]).toEqual([1, 0]);
    expect(layoutPrompt("> ", "日本語x", 4, 7)).toMatchObject({ cursorRow: 1, cursorColumn: 3 });
  });

  test("Up and Down keep the screen column across lines of different widths", () => {
    const editor = new LineEditor();
    editor.insert("abcd\n日本語");
    editor.apply("left");
    // After 日本 (column 4) up lands after abcd's 4th column.
    editor.apply("up");
    expect(editor.cursor).toBe(4);
    editor.apply("home");
    editor.apply("right");
    editor.apply("right");
    editor.apply("right");
    // Column 3 falls inside 本 (columns 2–3): the cursor stops before it.
    editor.apply("down");
    expect(editor.text.slice(editor.cursor)).toBe("本語");
  });
});
