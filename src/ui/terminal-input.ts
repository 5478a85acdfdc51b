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
  const region = new Region((text) => io.err(text), style);
  const decoder = new KeyDecoder();
  let editor = new LineEditor();
  let context: PromptContext = {};
  const queued: string[] = [];
  let mode: Mode = { kind: "busy" };
  let interruptHandler: () => void = () => undefined;
  let armed = false;
  let ended = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  const output: CliIO = {
    out: (text) => (region.visible ? region.above(text) : io.out(text)),
    err: (text) => (region.visible ? region.above(text) : io.err(text)),
  };

  const frame = (): void => {
    const columns = terminal.columns();
    if (mode.kind === "prompt" || mode.kind === "answer") {
      const status = mode.kind === "prompt" && mode.status !== "" ? [{ text: clip(mode.status, columns - 1), tone: "dim" as const }] : [];
      const text = mode.kind === "prompt" ? editor.text : mode.editor.text;
      const cursor = mode.kind === "prompt" ? editor.cursor : mode.editor.cursor;
      const layout = layoutPrompt(mode.prompt, text, cursor, columns);
      const rows: RegionRow[] = [...status, ...layout.rows.map((row) => ({ text: row }))];
      region.draw({ rows, cursorRow: layout.cursorRow + status.length, cursorColumn: layout.cursorColumn });
    } else if (mode.kind === "menu") {
      region.draw(menuFrame(mode.menu, columns, terminal.rows()));
    }
  };

  /** Ends the current prompt or question: the area stays as it was answered, and input is busy. */
  const settle = (rows: readonly RegionRow[] | null): void => {
    if (rows === null) region.clear();
    else {
      region.draw({ rows, cursorRow: rows.length - 1, cursorColumn: 0 });
      region.commit();
    }
    mode = { kind: "busy" };
  };

  const submitPrompt = (current: Extract<Mode, { kind: "prompt" }>): void => {
    const text = editor.text;
    if (text.endsWith("\\") && editor.cursor === text.length) {
      // `\` + Enter continues the prompt on a new line.
      editor.set(`${text.slice(0, -1)}\n`);
      frame();
      return;
    }
    const layout = layoutPrompt(current.prompt, text, text.length, terminal.columns());
    settle(layout.rows.map((row) => ({ text: row })));
    finishPrompt(text, current.done);
  };

  const finishPrompt = (text: string, done: (line: string | null) => void): void => {
    editor.remember(text);
    if (text.trim() !== "") context.history?.add(text);
    editor.set("");
    armed = false;
    done(text);
  };

  const promptKey = (current: Extract<Mode, { kind: "prompt" }>, key: Key): void => {
    if (key.type !== "key") {
      editor.insert(key.text);
      armed = false;
      return frame();
    }
    switch (key.name) {
      case "enter":
        return submitPrompt(current);
      case "ctrl-c":
        if (editor.text !== "") {
          editor.set("");
          return frame();
        }
        interruptHandler();
        return;
      case "ctrl-d":
        if (editor.text === "") {
          settle(null);
          current.done(null);
          return;
        }
        editor.apply("delete");
        return frame();
      case "ctrl-l":
        io.err("\x1b[H\x1b[2J\x1b[3J");
        region.forget();
        return frame();
      case "tab":
        return completeAt();
      case "ctrl-k":
        if (editor.text === "" && (context.palette?.length ?? 0) > 0) return openPalette(current);
        break;
      default:
        break;
    }
    editor.apply(key.name);
    frame();
  };

  const completeAt = (): void => {
    const done = context.complete?.(editor.text, editor.cursor) ?? null;
    if (done === null) return;
    editor.text = done.text;
    editor.cursor = done.cursor;
    if (done.choices.length > 0) region.above(`${style.dim(done.choices.map((choice) => escapeControls(choice)).join("  "))}\n`);
    frame();
  };

  const openPalette = (current: Extract<Mode, { kind: "prompt" }>): void => {
    const choices = context.palette ?? [];
    mode = {
      kind: "menu",
      menu: { question: "command palette — type to filter, Enter runs, Esc closes", detail: [], choices, selected: 0, filter: "" },
      done: (value) => {
        mode = current;
        if (value === null) return frame();
        const layout = layoutPrompt(current.prompt, value, value.length, terminal.columns());
        settle(layout.rows.map((row) => ({ text: row })));
        finishPrompt(value, current.done);
      },
    };
    frame();
  };

  const answerKey = (current: Extract<Mode, { kind: "answer" }>, key: Key): void => {
    if (key.type !== "key") current.editor.insert(key.text);
    else if (key.name === "enter") {
      const text = current.editor.text;
      settle([{ text: `${current.prompt}${text}` }]);
      current.done(text);
      return;
    } else if (key.name === "ctrl-c" || key.name === "escape") {
      settle([{ text: `${current.prompt}(cancelled)` }]);
      current.done(null);
      return;
    } else current.editor.apply(key.name);
    frame();
  };

  const menuKey = (current: Extract<Mode, { kind: "menu" }>, key: Key): void => {
    const menu = current.menu;
    const shown = visibleChoices(menu);
    const pick = (choice: Choice | undefined): void => {
      if (choice === undefined) return;
      if (menu.filter === null) settle([{ text: `${menu.question} ${choice.label}`, tone: "dim" }]);
      current.done(choice.value);
    };
    if (key.type === "paste") return; // A paste never answers a question.
    if (key.type === "text") {
      if (menu.filter !== null) {
        menu.filter += key.text;
        menu.selected = 0;
        return frame();
      }
      const typed = key.text.toLowerCase();
      return pick(shown.find((choice, index) => choice.key === typed || String(index + 1) === typed));
    }
    switch (key.name) {
      case "up":
        menu.selected = (menu.selected + shown.length - 1) % Math.max(shown.length, 1);
        return frame();
      case "down":
      case "tab":
        menu.selected = (menu.selected + 1) % Math.max(shown.length, 1);
        return frame();
      case "enter":
        return pick(shown[menu.selected]);
      case "backspace":
        if (menu.filter !== null) menu.filter = menu.filter.slice(0, -1);
        return frame();
      case "ctrl-c":
      case "escape":
      case "ctrl-d":
        if (menu.filter === null) settle([{ text: `${menu.question} (cancelled)`, tone: "dim" }]);
        current.done(null);
        return;
      default:
        return;
    }
  };

  /** Keys while the agent works: edited invisibly; Enter queues a prompt; Ctrl-C cancels the turn. */
  const busyKey = (key: Key): void => {
    if (key.type !== "key") return editor.insert(key.text);
    if (key.name === "ctrl-c") return interruptHandler();
    if (key.name === "enter") {
      if (editor.text.trim() !== "") queued.push(editor.text);
      editor.remember(editor.text);
      editor.set("");
      return;
    }
    if (key.name !== "ctrl-l" && key.name !== "tab" && key.name !== "ctrl-d") editor.apply(key.name);
  };

  const onKey = (key: Key): void => {
    if (idleTimer !== undefined && mode.kind === "prompt") {
      clearTimeout(idleTimer);
      idleTimer = undefined;
    }
    switch (mode.kind) {
      case "prompt":
        return promptKey(mode, key);
      case "answer":
        return answerKey(mode, key);
      case "menu":
        return menuKey(mode, key);
      default:
        return busyKey(key);
    }
  };

  terminal.onData((chunk) => {
    for (const key of decoder.feed(chunk)) onKey(key);
  });
  terminal.onEnd(() => {
    ended = true;
    const current = mode;
    if (current.kind === "busy") return;
    settle(null);
    current.done(null);
  });
  const offResize = terminal.onResize(() => {
    if (!region.visible) return;
    // The terminal reflowed the area; find the cursor's row in the new width, then redraw.
    region.resized(terminal.columns());
    frame();
  });

  const promptIO: PromptIO = {
    read(prompt, options: ReadOptions = {}) {
      const next = queued.shift();
      if (next !== undefined) {
        // Typed while the agent worked: shown as sent, then sent.
        io.err(`${prompt}${next.replace(/\n/g, `\n${" ".repeat(prompt.length)}`)}\n`);
        context.history?.add(next);
        return Promise.resolve(next);
      }
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        mode = { kind: "prompt", prompt, status: options.status ?? "", done: resolve };
        frame();
        if (options.onIdle !== undefined) {
          const onIdle = options.onIdle;
          idleTimer = setTimeout(() => {
            idleTimer = undefined;
            void onIdle();
          }, options.idleMs ?? 60_000);
        }
      }).finally(() => {
        if (idleTimer !== undefined) clearTimeout(idleTimer);
        idleTimer = undefined;
      }) as Promise<string | null>;
    },
    choose(question, choices, detail = []) {
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        mode = { kind: "menu", menu: { question, detail, choices, selected: 0, filter: null }, done: resolve };
        frame();
      });
    },
    ask(question) {
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        mode = { kind: "answer", prompt: question, editor: new LineEditor(), done: resolve };
        frame();
      });
    },
    interrupt() {
      const current = mode;
      if (current.kind !== "prompt") return false;
      if (armed) {
        settle(null);
        current.done(null);
        return true;
      }
      armed = true;
      region.above(style.dim("(press Ctrl-C again to exit, or type /exit)"));
      return false;
    },
    cancel() {
      const current = mode;
      if (current.kind === "busy") return;
      if (current.kind === "menu") settle([{ text: `${current.menu.question} (cancelled)`, tone: "dim" }]);
      else settle(null);
      current.done(null);
    },
    waiting: () => mode.kind === "prompt",
    onInterrupt(handler) {
      interruptHandler = handler;
    },
    setContext(next) {
      context = next;
      editor = new LineEditor(next.history?.entries ?? []);
    },
    output,
    columns: () => terminal.columns(),
    close() {
      region.clear();
      offResize();
      terminal.close();
    },
  };
  return promptIO;
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
  rows.push(...(detail.length > room ? [...detail.slice(0, Math.max(room - 1, 0)), { text: `… ${detail.length - room + 1} more rows`, tone: "dim" as const }] : detail));
  if (menu.filter !== null) rows.push({ text: clip(`filter: ${menu.filter}`, columns - 1), tone: "dim" });
  visibleChoices(menu).forEach((choice, index) => {
    const mark = index === menu.selected ? "❯" : " ";
    const text = clip(`${mark} ${index + 1}. ${choice.label}`, columns - 1);
    rows.push({ text, tone: index === menu.selected ? "selected" : "plain" });
  });
  return { rows, cursorRow: rows.length - 1, cursorColumn: 0, hideCursor: true };
}

function diffTone(line: string): RegionRow["tone"] {
  return line.startsWith("+ ") ? "added" : line.startsWith("- ") ? "removed" : "plain";
}

function clip(text: string, columns: number): string {
  return text.length > columns ? `${text.slice(0, Math.max(columns - 1, 0))}…` : text;
}
