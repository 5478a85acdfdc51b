/**
 * The raw-mode prompt: a line editor with history, completion, multi-line input and bracketed
 * paste, question menus, and the command palette, drawn in the live area at the bottom (region.ts).
 *
 * Keys are handled synchronously, in order, as they are read. What arrives while nothing is asked
 * (the agent is working) is type-ahead: it is edited invisibly and each Enter queues a prompt; a
 * question shown later takes only keys that arrive after it, so type-ahead never answers one.
 */
import type { TerminalInput } from "../runtime/terminal.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { Choice, PromptContext, PromptIO, ReadOptions } from "./prompt-io.ts";
import { KeyDecoder, type Key } from "./keys.ts";
import { layoutPrompt, LineEditor } from "./line-editor.ts";
import { Region, wrapRows, type RegionRow } from "./region.ts";
import type { Style } from "./style.ts";
import { escapeControls } from "../util/escape.ts";
import { clipColumns } from "../util/display-width.ts";

type Mode =
  | { readonly kind: "busy" }
  | { readonly kind: "prompt"; readonly prompt: string; readonly status: string; readonly done: (line: string | null) => void }
  | { readonly kind: "answer"; readonly prompt: string; readonly editor: LineEditor; readonly done: (line: string | null) => void }
  | { readonly kind: "menu"; readonly menu: Menu; readonly done: (value: string | null) => void };

interface Menu {
  readonly question: string;
  readonly detail: readonly string[];
  readonly choices: readonly Choice[];
  selected: number;
  /** The palette narrows its entries by typed text. */
  filter: string | null;
}

export function createTerminalPromptIO(io: CliIO, terminal: TerminalInput, style: Style): PromptIO {
  return new TerminalPrompt(io, terminal, style);
}

class TerminalPrompt implements PromptIO {
  private readonly region: Region;
  private readonly decoder = new KeyDecoder();
  private editor = new LineEditor();
  private context: PromptContext = {};
  private readonly queued: string[] = [];
  private mode: Mode = { kind: "busy" };
  private interruptHandler: () => void = () => undefined;
  private armed = false;
  private ended = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly offResize: () => void;
  readonly output: CliIO;

  constructor(
    private readonly io: CliIO,
    private readonly terminal: TerminalInput,
    private readonly style: Style,
  ) {
    this.region = new Region((text) => io.err(text), style);
    this.output = {
      out: (text) => (this.region.visible ? this.region.above(text) : io.out(text)),
      err: (text) => (this.region.visible ? this.region.above(text) : io.err(text)),
    };
    terminal.onData((chunk) => {
      for (const key of this.decoder.feed(chunk)) this.onKey(key);
    });
    terminal.onEnd(() => {
      this.ended = true;
      const current = this.mode;
      if (current.kind === "busy") return;
      this.settle(null);
      current.done(null);
    });
    this.offResize = terminal.onResize(() => {
      if (!this.region.visible) return;
      // The terminal reflowed the area; find the cursor's row in the new width, then redraw.
      this.region.resized(terminal.columns());
      this.frame();
    });
  }

  private frame(): void {
    const columns = this.terminal.columns();
    if (this.mode.kind === "prompt" || this.mode.kind === "answer") {
      const status = this.mode.kind === "prompt" && this.mode.status !== "" ? [{ text: clipColumns(this.mode.status, columns - 1), tone: "dim" as const }] : [];
      const text = this.mode.kind === "prompt" ? this.editor.text : this.mode.editor.text;
      const cursor = this.mode.kind === "prompt" ? this.editor.cursor : this.mode.editor.cursor;
      const layout = layoutPrompt(this.mode.prompt, text, cursor, columns);
      const rows: RegionRow[] = [...status, ...layout.rows.map((row) => ({ text: row }))];
      this.region.draw({ rows, cursorRow: layout.cursorRow + status.length, cursorColumn: layout.cursorColumn });
    } else if (this.mode.kind === "menu") {
      this.region.draw(menuFrame(this.mode.menu, columns, this.terminal.rows()));
    }
  }

  /** Ends the current prompt or question: the area stays as it was answered, and input is busy. */
  private settle(rows: readonly RegionRow[] | null): void {
    if (rows === null) this.region.clear();
    else {
      this.region.draw({ rows, cursorRow: rows.length - 1, cursorColumn: 0 });
      this.region.commit();
    }
    this.mode = { kind: "busy" };
  }

  private submitPrompt(current: Extract<Mode, { kind: "prompt" }>): void {
    const text = this.editor.text;
    if (text.endsWith("\\") && this.editor.cursor === text.length) {
      // `\` + Enter continues the prompt on a new line.
      this.editor.set(`${text.slice(0, -1)}\n`);
      this.frame();
      return;
    }
    const layout = layoutPrompt(current.prompt, text, text.length, this.terminal.columns());
    this.settle(layout.rows.map((row) => ({ text: row })));
    this.finishPrompt(text, current.done);
  }

  private finishPrompt(text: string, done: (line: string | null) => void): void {
    this.editor.remember(text);
    if (text.trim() !== "") this.context.history?.add(text);
    this.editor.set("");
    this.armed = false;
    done(text);
  }

  private promptKey(current: Extract<Mode, { kind: "prompt" }>, key: Key): void {
    if (key.type !== "key") {
      this.editor.insert(key.text);
      this.armed = false;
      return this.frame();
    }
    switch (key.name) {
      case "enter":
        return this.submitPrompt(current);
      case "ctrl-c":
        if (this.editor.text !== "") {
          this.editor.set("");
          return this.frame();
        }
        this.interruptHandler();
        return;
      case "ctrl-d":
        if (this.editor.text === "") {
          this.settle(null);
          current.done(null);
          return;
        }
        this.editor.apply("delete");
        return this.frame();
      case "ctrl-l":
        this.io.err("\x1b[H\x1b[2J\x1b[3J");
        this.region.forget();
        return this.frame();
      case "tab":
        return this.completeAt();
      case "ctrl-k":
        if (this.editor.text === "" && (this.context.palette?.length ?? 0) > 0) return this.openPalette(current);
        break;
      case "ctrl-o":
        // On an empty prompt: the last collapsed tool output, whole (as /expand).
        if (this.editor.text === "") {
          this.editor.set("/expand");
          return this.submitPrompt(current);
        }
        return;
      default:
        break;
    }
    this.editor.apply(key.name);
    this.frame();
  }

  private completeAt(): void {
    const done = this.context.complete?.(this.editor.text, this.editor.cursor) ?? null;
    if (done === null) return;
    this.editor.text = done.text;
    this.editor.cursor = done.cursor;
    if (done.choices.length > 0) this.region.above(`${this.style.dim(done.choices.map((choice) => escapeControls(choice)).join("  "))}\n`);
    this.frame();
  }

  private openPalette(current: Extract<Mode, { kind: "prompt" }>): void {
    const choices = this.context.palette ?? [];
    this.mode = {
      kind: "menu",
      menu: { question: "command palette — type to filter, Enter runs, Esc closes", detail: [], choices, selected: 0, filter: "" },
      done: (value) => {
        this.mode = current;
        if (value === null) return this.frame();
        const layout = layoutPrompt(current.prompt, value, value.length, this.terminal.columns());
        this.settle(layout.rows.map((row) => ({ text: row })));
        this.finishPrompt(value, current.done);
      },
    };
    this.frame();
  }

  private answerKey(current: Extract<Mode, { kind: "answer" }>, key: Key): void {
    if (key.type !== "key") current.editor.insert(key.text);
    else if (key.name === "enter") {
      const text = current.editor.text;
      this.settle(wrapRows(`${current.prompt}${text}`, this.terminal.columns()).map((row) => ({ text: row })));
      current.done(text);
      return;
    } else if (key.name === "ctrl-c" || key.name === "escape") {
      this.settle([{ text: `${current.prompt}(cancelled)` }]);
      current.done(null);
      return;
    } else current.editor.apply(key.name);
    this.frame();
  }

  private menuKey(current: Extract<Mode, { kind: "menu" }>, key: Key): void {
    const menu = current.menu;
    const shown = visibleChoices(menu);
    const pick = (choice: Choice | undefined): void => {
      if (choice === undefined) return;
      if (menu.filter === null) this.settle([{ text: `${menu.question} ${choice.label}`, tone: "dim" }]);
      current.done(choice.value);
    };
    if (key.type === "paste") return; // A paste never answers a question.
    if (key.type === "text") {
      if (menu.filter !== null) {
        menu.filter += key.text;
        menu.selected = 0;
        return this.frame();
      }
      const typed = key.text.toLowerCase();
      return pick(shown.find((choice, index) => choice.key === typed || String(index + 1) === typed));
    }
    switch (key.name) {
      case "up":
        menu.selected = (menu.selected + shown.length - 1) % Math.max(shown.length, 1);
        return this.frame();
      case "down":
      case "tab":
        menu.selected = (menu.selected + 1) % Math.max(shown.length, 1);
        return this.frame();
      case "enter":
        return pick(shown[menu.selected]);
      case "backspace":
        if (menu.filter !== null) menu.filter = menu.filter.slice(0, -1);
        return this.frame();
      case "ctrl-c":
      case "escape":
      case "ctrl-d":
        if (menu.filter === null) this.settle([{ text: `${menu.question} (cancelled)`, tone: "dim" }]);
        current.done(null);
        return;
      default:
        return;
    }
  }

  /** Keys while the agent works: edited invisibly; Enter queues a prompt; Ctrl-C cancels the turn. */
  private busyKey(key: Key): void {
    if (key.type !== "key") return this.editor.insert(key.text);
    if (key.name === "ctrl-c") return this.interruptHandler();
    if (key.name === "enter") {
      if (this.editor.text.trim() !== "") this.queued.push(this.editor.text);
      this.editor.remember(this.editor.text);
      this.editor.set("");
      return;
    }
    if (key.name !== "ctrl-l" && key.name !== "tab" && key.name !== "ctrl-d") this.editor.apply(key.name);
  }

  private onKey(key: Key): void {
    if (this.idleTimer !== undefined && this.mode.kind === "prompt") {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }
    switch (this.mode.kind) {
      case "prompt":
        return this.promptKey(this.mode, key);
      case "answer":
        return this.answerKey(this.mode, key);
      case "menu":
        return this.menuKey(this.mode, key);
      default:
        return this.busyKey(key);
    }
  }

  read(prompt: string, options: ReadOptions = {}): Promise<string | null> {
    const next = this.queued.shift();
    if (next !== undefined) {
      // Typed while the agent worked: shown as sent, then sent.
      this.io.err(`${prompt}${next.replace(/\n/g, `\n${" ".repeat(prompt.length)}`)}\n`);
      this.context.history?.add(next);
      return Promise.resolve(next);
    }
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.mode = { kind: "prompt", prompt, status: options.status ?? "", done: resolve };
      this.frame();
      if (options.onIdle !== undefined) {
        const onIdle = options.onIdle;
        this.idleTimer = setTimeout(() => {
          this.idleTimer = undefined;
          void onIdle();
        }, options.idleMs ?? 60_000);
      }
    }).finally(() => {
      if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    }) as Promise<string | null>;
  }

  choose(question: string, choices: readonly Choice[], detail: readonly string[] = []): Promise<string | null> {
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.mode = { kind: "menu", menu: { question, detail, choices, selected: 0, filter: null }, done: resolve };
      this.frame();
    });
  }

  ask(question: string): Promise<string | null> {
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.mode = { kind: "answer", prompt: question, editor: new LineEditor(), done: resolve };
      this.frame();
    });
  }

  interrupt(): boolean {
    const current = this.mode;
    if (current.kind !== "prompt") return false;
    if (this.armed) {
      this.settle(null);
      current.done(null);
      return true;
    }
    this.armed = true;
    this.region.above(this.style.dim("(press Ctrl-C again to exit, or type /exit)"));
    return false;
  }

  cancel(): void {
    const current = this.mode;
    if (current.kind === "busy") return;
    if (current.kind === "menu") this.settle([{ text: `${current.menu.question} (cancelled)`, tone: "dim" }]);
    else this.settle(null);
    current.done(null);
  }

  waiting(): boolean {
    return this.mode.kind === "prompt";
  }

  onInterrupt(handler: () => void): void {
    this.interruptHandler = handler;
  }

  setContext(next: PromptContext): void {
    this.context = next;
    this.editor = new LineEditor(next.history?.entries ?? []);
  }

  columns(): number {
    return this.terminal.columns();
  }

  close(): void {
    this.region.clear();
    this.offResize();
    this.terminal.close();
  }
}

function visibleChoices(menu: Menu): readonly Choice[] {
  if (menu.filter === null || menu.filter === "") return menu.choices;
  const filter = menu.filter.toLowerCase();
  return menu.choices.filter((choice) => choice.label.toLowerCase().includes(filter) || choice.value.toLowerCase().includes(filter));
}

/**
 * The question, its detail rows (a diff), and one row per choice with the selected one marked. The
 * area must fit the screen (a redraw cannot reach rows scrolled off the top), so long details are cut.
 */
function menuFrame(menu: Menu, columns: number, screenRows: number): { rows: RegionRow[]; cursorRow: number; cursorColumn: number; hideCursor: boolean } {
  const rows: RegionRow[] = [];
  for (const row of wrapRows(menu.question, columns)) rows.push({ text: row, tone: "accent" });
  const detail = menu.detail.flatMap((line) => wrapRows(line, columns).map((text) => ({ text, tone: diffTone(line) })));
  const room = Math.max(0, screenRows - rows.length - menu.choices.length - 2);
  rows.push(
    ...(detail.length > room ? [...detail.slice(0, Math.max(room - 1, 0)), { text: `… ${detail.length - room + 1} more rows`, tone: "dim" as const }] : detail),
  );
  if (menu.filter !== null) rows.push({ text: clipColumns(`filter: ${menu.filter}`, columns - 1), tone: "dim" });
  visibleChoices(menu).forEach((choice, index) => {
    const mark = index === menu.selected ? "❯" : " ";
    const text = clipColumns(`${mark} ${index + 1}. ${choice.label}`, columns - 1);
    rows.push({ text, tone: index === menu.selected ? "selected" : "plain" });
  });
  return { rows, cursorRow: rows.length - 1, cursorColumn: 0, hideCursor: true };
}

function diffTone(line: string): RegionRow["tone"] {
  return line.startsWith("+ ") ? "added" : line.startsWith("- ") ? "removed" : "plain";
}
