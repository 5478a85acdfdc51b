/**
 * The live area at the bottom of the terminal: the prompt (with its status row) or a question menu,
 * redrawn in place on every key. Rows are laid out here (so the cursor can be moved by arithmetic)
 * and styled as they are written. Output printed while the area is shown is written above it.
 */
import type { Style } from "./style.ts";
import { wrapColumns } from "../util/display-width.ts";

export interface RegionRow {
  readonly text: string;
  /** How the row is painted; the text itself carries no escape sequences. */
  readonly tone?: "plain" | "dim" | "accent" | "selected" | "added" | "removed";
}

export interface RegionFrame {
  readonly rows: readonly RegionRow[];
  readonly cursorRow: number;
  readonly cursorColumn: number;
  /** Hides the terminal cursor (menus). */
  readonly hideCursor?: boolean;
}

export class Region {
  private shown: RegionFrame | null = null;
  /** The row of the frame the terminal cursor is on. */
  private cursorRow = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly style: Style,
  ) {}

  get visible(): boolean {
    return this.shown !== null;
  }

  draw(frame: RegionFrame): void {
    let out = this.eraseText();
    out += frame.rows.map((row) => this.paint(row)).join("\r\n");
    const up = frame.rows.length - 1 - frame.cursorRow;
    out += `\r${up > 0 ? `\x1b[${up}A` : ""}${frame.cursorColumn > 0 ? `\x1b[${frame.cursorColumn}C` : ""}`;
    out += frame.hideCursor ? "\x1b[?25l" : "\x1b[?25h";
    this.shown = frame;
    this.cursorRow = frame.cursorRow;
    this.write(out);
  }

  /** Removes the area (the cursor ends where it began). */
  clear(): void {
    if (this.shown === null) return;
    this.write(`${this.eraseText()}\x1b[?25h`);
    this.shown = null;
    this.cursorRow = 0;
  }

  /** Leaves the area on screen as ordinary output and moves below it. */
  commit(): void {
    if (this.shown === null) return;
    const down = this.shown.rows.length - 1 - this.cursorRow;
    this.write(`${down > 0 ? `\x1b[${down}B` : ""}\r\n\x1b[?25h`);
    this.shown = null;
    this.cursorRow = 0;
  }

  /**
   * After a resize the terminal has reflowed the area: each row written became as many rows as the
   * new width needs (rows end in explicit line breaks, so widening joins none). The cursor keeps its
   * place in the text; this finds its row so the next draw erases the whole area.
   */
  resized(columns: number): void {
    if (this.shown === null) return;
    const width = Math.max(columns, 1);
    const height = (row: RegionRow | undefined): number => Math.max(1, wrapColumns(row?.text ?? "", width).length);
    let row = 0;
    for (let index = 0; index < this.cursorRow; index += 1) row += height(this.shown.rows[index]);
    this.cursorRow = row + Math.floor(this.shown.cursorColumn / width);
  }

  /** After Ctrl-L cleared the screen the area starts at the top. */
  forget(): void {
    this.shown = null;
    this.cursorRow = 0;
  }

  /** Writes `text` above the area, then redraws it. */
  above(text: string): void {
    const frame = this.shown;
    if (frame === null) {
      this.write(text);
      return;
    }
    this.clear();
    this.write(text.endsWith("\n") ? text : `${text}\n`);
    this.draw(frame);
  }

  private eraseText(): string {
    if (this.shown === null) return "";
    return `${this.cursorRow > 0 ? `\x1b[${this.cursorRow}A` : ""}\r\x1b[J`;
  }

  private paint(row: RegionRow): string {
    switch (row.tone) {
      case "dim":
        return this.style.dim(row.text);
      case "accent":
        return this.style.bold(row.text);
      case "selected":
        return this.style.accent(row.text);
      case "added":
        return this.style.green(row.text);
      case "removed":
        return this.style.red(row.text);
      default:
        return row.text;
    }
  }
}

/** Cuts `text` into rows of at most `columns` terminal columns (a wide character counts two). */
export function wrapRows(text: string, columns: number): string[] {
  return text.split("\n").flatMap((line) => wrapColumns(line, Math.max(columns, 2)));
}
