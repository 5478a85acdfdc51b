/**
 * The prompt's text and cursor, and what each editing key does to them (Emacs-style bindings, as in
 * bash and the peers). Pure state: drawing is `layoutPrompt`, reading keys is terminal-input.ts.
 * The text may hold `\n` (a multi-line prompt); Up and Down move between its lines, and walk the
 * history only from its first or last line.
 */
import type { KeyName } from "./keys.ts";
import { clusterWidth, displayWidth, graphemes, wrapColumns } from "../util/display-width.ts";

const WORD = /[\p{L}\p{M}\p{N}_]/u;

export class LineEditor {
  text = "";
  cursor = 0;
  /** Older entries first; `browsing` indexes into it while Up/Down walk the history. */
  private history: string[];
  private browsing: number;
  /** The unsent text kept while the history is browsed. */
  private draft = "";
  /** The last killed text (Ctrl-K/U/W); not a clipboard, only what a kill removed. */
  killed = "";

  constructor(history: readonly string[] = []) {
    this.history = [...history];
    this.browsing = this.history.length;
  }

  set(text: string): void {
    this.text = text;
    this.cursor = text.length;
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  /** Applies an editing key; false when the key is not an editing key. */
  apply(name: KeyName): boolean {
    switch (name) {
      case "left":
        this.cursor = this.previous();
        return true;
      case "right":
        this.cursor = this.next();
        return true;
      case "home":
      case "ctrl-a":
        this.cursor = this.lineStart();
        return true;
      case "end":
      case "ctrl-e":
        this.cursor = this.lineEnd();
        return true;
      case "word-left":
        this.cursor = this.wordLeft();
        return true;
      case "word-right":
        this.cursor = this.wordRight();
        return true;
      case "backspace":
        if (this.cursor > 0) this.cut(this.previous(), this.cursor, false);
        return true;
      case "delete":
        if (this.cursor < this.text.length) this.cut(this.cursor, this.next(), false);
        return true;
      case "ctrl-k":
        this.cut(this.cursor, this.lineEnd() === this.cursor && this.cursor < this.text.length ? this.cursor + 1 : this.lineEnd(), true);
        return true;
      case "ctrl-u":
        this.cut(this.lineStart(), this.cursor, true);
        return true;
      case "ctrl-w":
      case "alt-backspace":
        this.cut(this.wordLeft(), this.cursor, true);
        return true;
      case "alt-d":
        this.cut(this.cursor, this.wordRight(), true);
        return true;
      case "newline":
        this.insert("\n");
        return true;
      case "up":
        if (this.text.lastIndexOf("\n", this.cursor - 1) >= 0) this.verticalMove(-1);
        else this.browse(-1);
        return true;
      case "down":
        if (this.text.indexOf("\n", this.cursor) >= 0) this.verticalMove(1);
        else this.browse(1);
        return true;
      default:
        return false;
    }
  }

  /** Adds a sent prompt to the in-memory history (no repeats in a row) and resets browsing. */
  remember(text: string): void {
    if (text.trim() !== "" && this.history.at(-1) !== text) this.history.push(text);
    this.browsing = this.history.length;
    this.draft = "";
  }

  private browse(step: number): void {
    const next = this.browsing + step;
    if (next < 0 || next > this.history.length) return;
    if (this.browsing === this.history.length) this.draft = this.text;
    this.browsing = next;
    this.set(next === this.history.length ? this.draft : (this.history[next] ?? ""));
  }

  /** Where the cursor lands one character (grapheme cluster: 日, é, 👍🏽) to the left. */
  private previous(): number {
    const start = this.lineStartOf(this.cursor);
    if (start === this.cursor) return Math.max(0, this.cursor - 1);
    const clusters = graphemes(this.text.slice(start, this.cursor));
    return this.cursor - (clusters.at(-1)?.length ?? 1);
  }

  /** Where the cursor lands one character to the right. */
  private next(): number {
    if (this.cursor >= this.text.length) return this.text.length;
    const end = this.lineEnd();
    if (end === this.cursor) return this.cursor + 1;
    const [first] = graphemes(this.text.slice(this.cursor, end));
    return this.cursor + (first?.length ?? 1);
  }

  /** Up/Down keep the cursor's screen column (a wide character counts two). */
  private verticalMove(step: number): void {
    const column = displayWidth(this.text.slice(this.lineStart(), this.cursor));
    const start = step < 0 ? this.text.lastIndexOf("\n", this.lineStart() - 2) + 1 : this.lineEnd() + 1;
    const newline = this.text.indexOf("\n", start);
    const line = this.text.slice(start, newline < 0 ? this.text.length : newline);
    let at = start;
    let used = 0;
    for (const cluster of graphemes(line)) {
      used += clusterWidth(cluster);
      if (used > column) break;
      at += cluster.length;
    }
    this.cursor = at;
  }

  private cut(from: number, to: number, kill: boolean): void {
    if (to <= from) return;
    if (kill) this.killed = this.text.slice(from, to);
    this.text = this.text.slice(0, from) + this.text.slice(to);
    this.cursor = from;
  }

  private lineStart(): number {
    return this.lineStartOf(this.cursor);
  }

  private lineStartOf(at: number): number {
    return this.text.lastIndexOf("\n", at - 1) + 1;
  }

  private lineEnd(): number {
    const end = this.text.indexOf("\n", this.cursor);
    return end < 0 ? this.text.length : end;
  }

  private wordLeft(): number {
    let at = this.cursor;
    while (at > 0 && !WORD.test(this.text[at - 1] ?? "")) at -= 1;
    while (at > 0 && WORD.test(this.text[at - 1] ?? "")) at -= 1;
    return at;
  }

  private wordRight(): number {
    let at = this.cursor;
    while (at < this.text.length && !WORD.test(this.text[at] ?? "")) at += 1;
    while (at < this.text.length && WORD.test(this.text[at] ?? "")) at += 1;
    return at;
  }
}

export interface PromptLayout {
  /** Screen rows, each at most `columns` columns wide. */
  readonly rows: readonly string[];
  readonly cursorRow: number;
  readonly cursorColumn: number;
}

/**
 * Wraps `prompt` + `text` to `columns` (a wide character counts two, and one that does not fit at
 * a row's end starts the next row, as the terminal does): the first line after the prompt, later
 * lines after an indent of the prompt's width. The cursor sits on the row after a full one (never
 * in the terminal's pending-wrap column), so moving it is plain arithmetic.
 */
export function layoutPrompt(prompt: string, text: string, cursor: number, columns: number): PromptLayout {
  const width = Math.max(columns, 2);
  const indent = " ".repeat(Math.min(displayWidth(prompt), width - 1));
  const rows: string[] = [];
  let cursorRow = 0;
  let cursorColumn = 0;
  let offset = 0;
  text.split("\n").forEach((line, index) => {
    const head = index === 0 ? prompt : indent;
    const lineRows = wrapColumns(head + line, width);
    if (cursor >= offset && cursor <= offset + line.length) {
      // The cursor's row and column: the rows before it, then the columns of its row up to it.
      const before = wrapColumns(head + line.slice(0, cursor - offset), width);
      const column = displayWidth(before.at(-1) ?? "");
      // At a row's end, or before a wide character the row has no room for: the next row's start.
      const [next = " "] = graphemes(line.slice(cursor - offset, cursor - offset + 8));
      const full = column + Math.max(clusterWidth(next), 1) > width;
      cursorRow = rows.length + before.length - 1 + (full ? 1 : 0);
      cursorColumn = full ? 0 : column;
    }
    rows.push(...lineRows);
    if (cursorRow >= rows.length) rows.push("");
    offset += line.length + 1;
  });
  return { rows, cursorRow, cursorColumn };
}
