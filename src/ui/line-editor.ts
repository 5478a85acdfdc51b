/**
 * The prompt's text and cursor, and what each editing key does to them (Emacs-style bindings, as in
 * bash and the peers). Pure state: drawing is `layoutPrompt`, reading keys is terminal-input.ts.
 * The text may hold `\n` (a multi-line prompt); Up and Down move between its lines, and walk the
 * history only from its first or last line.
 */
import type { KeyName } from "./keys.ts";

const WORD = /[\p{L}\p{N}_]/u;

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
        this.cursor = Math.max(0, this.cursor - 1);
        return true;
      case "right":
        this.cursor = Math.min(this.text.length, this.cursor + 1);
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
        if (this.cursor > 0) this.cut(this.cursor - 1, this.cursor, false);
        return true;
      case "delete":
        if (this.cursor < this.text.length) this.cut(this.cursor, this.cursor + 1, false);
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

  private verticalMove(step: number): void {
    const column = this.cursor - this.lineStart();
    if (step < 0) {
      const prevEnd = this.lineStart() - 1;
      const prevStart = this.text.lastIndexOf("\n", prevEnd - 1) + 1;
      this.cursor = Math.min(prevStart + column, prevEnd);
    } else {
      const nextStart = this.lineEnd() + 1;
      const nextEnd = this.text.indexOf("\n", nextStart);
      this.cursor = Math.min(nextStart + column, nextEnd < 0 ? this.text.length : nextEnd);
    }
  }

  private cut(from: number, to: number, kill: boolean): void {
    if (to <= from) return;
    if (kill) this.killed = this.text.slice(from, to);
    this.text = this.text.slice(0, from) + this.text.slice(to);
    this.cursor = from;
  }

  private lineStart(): number {
    return this.text.lastIndexOf("\n", this.cursor - 1) + 1;
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
  /** Screen rows, each at most `columns` characters wide. */
  readonly rows: readonly string[];
  readonly cursorRow: number;
  readonly cursorColumn: number;
}

/**
 * Wraps `prompt` + `text` to `columns`: the first line after the prompt, later lines after an
 * indent of the prompt's width. The cursor sits on the row after a full one (never in the
 * terminal's pending-wrap column), so moving it is plain arithmetic.
 */
export function layoutPrompt(prompt: string, text: string, cursor: number, columns: number): PromptLayout {
  const width = Math.max(columns, 2);
  const indent = " ".repeat(Math.min(prompt.length, width - 1));
  const rows: string[] = [];
  let cursorRow = 0;
  let cursorColumn = 0;
  let offset = 0;
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    const head = index === 0 ? prompt : indent;
    const full = head + line;
    const at = cursor >= offset && cursor <= offset + line.length ? head.length + cursor - offset : -1;
    const firstRow = rows.length;
    for (let start = 0; start < full.length || start === 0; start += width) rows.push(full.slice(start, start + width));
    if (at >= 0) {
      cursorRow = firstRow + Math.floor(at / width);
      cursorColumn = at % width;
      if (cursorRow >= rows.length) rows.push("");
    }
    offset += line.length + 1;
  });
  return { rows, cursorRow, cursorColumn };
}
