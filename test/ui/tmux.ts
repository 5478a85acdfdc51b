/**
 * Drives the real interactive session (`bun src/main.ts`) in a private tmux server: keys with
 * send-keys, pastes with paste-buffer (bracketed when the session asked for it), the screen with
 * capture-pane. Every wait is for text on the screen (or the process's end), never for a time.
 * The server's socket and config live in the test world, and the server is killed by `close`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readJsonl, REPO, type World } from "../support/cli.ts";

const MAIN = join(REPO, "src", "main.ts");
const WAIT_MS = 60_000;
/** An empty prompt line (the screen is captured without trailing blanks). */
export const PROMPT = /^>$/m;

export interface Pane {
  /** tmux key names (`Enter`, `C-a`, `M-b`, `Up`) or literal words, as send-keys takes them. */
  keys(...keys: string[]): void;
  /** Literal text, each character a key (no bracketing). */
  type(text: string): void;
  /** A paste: bracketed when the program turned bracketed paste on, LF sent as CR as terminals do. */
  paste(text: string): void;
  /** The visible screen, wrapped lines joined, trailing blank lines dropped. */
  screen(): string;
  /** The visible screen as the terminal's rows (wrapped lines not joined). */
  rows(): string;
  /** The screen with its colour and attribute escapes (capture-pane -e). */
  screenWithEscapes(): string;
  /** The scrollback and the screen. */
  history(): string;
  /** Waits until the screen (or the scrollback) contains `what`, matches it, or satisfies it. */
  waitFor(what: string | RegExp | ((text: string) => boolean), where?: "screen" | "history"): Promise<string>;
  resize(columns: number, rows: number): void;
  /** Where the terminal's cursor is: column and row of the visible screen, from 0. */
  cursor(): { readonly x: number; readonly y: number };
  /** Resolves with the exit status once the program has ended. */
  exited(): Promise<number>;
  /** tmux paste buffers (an OSC 52 the terminal accepted would add one). */
  buffers(): string;
  close(): void;
}

const quote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

export function startPane(
  w: World,
  args: readonly string[],
  options: { env?: Record<string, string>; columns?: number; rows?: number; noColor?: boolean } = {},
): Pane {
  const socket = join(w.root, `tmux-${Math.random().toString(36).slice(2, 8)}.sock`);
  const config = join(w.root, "tmux.conf");
  // remain-on-exit keeps the pane (and its last screen) after the program ends; set-clipboard lets
  // an OSC 52 that reached the terminal land in a paste buffer, so a test can see it did not.
  writeFileSync(config, "set -g remain-on-exit on\nset -g set-clipboard on\nset -g history-limit 50000\n");
  const base = w.env({ TERM: "xterm-256color", ...(options.env ?? {}) });
  if (options.noColor === false) delete base.NO_COLOR;
  const envWords = Object.entries(base).map(([key, value]) => quote(`${key}=${value}`));
  // The program runs under a small sh that writes its exit status to a file: tmux does not always
  // notice at once that a pane's process ended, a file is plain.
  const status = `${socket}.status`;
  const wrapper = join(w.root, "run-and-record.sh");
  writeFileSync(wrapper, '#!/bin/sh\nstatus="$1"\nshift\n"$@"\necho $? > "$status"\n', { mode: 0o755 });
  const command = ["exec", "env", "-i", ...envWords, "/bin/sh", quote(wrapper), quote(status), quote(process.execPath), quote(MAIN), ...args.map(quote)].join(
    " ",
  );
  const tmux = (...rest: string[]): string => execFileSync("tmux", ["-S", socket, ...rest], { encoding: "utf8" });
  execFileSync("tmux", [
    "-S",
    socket,
    "-f",
    config,
    "new-session",
    "-d",
    "-x",
    String(options.columns ?? 100),
    "-y",
    String(options.rows ?? 30),
    "-c",
    w.project,
    command,
  ]);
  const capture = (extra: string[], join = true): string =>
    tmux("capture-pane", "-p", ...(join ? ["-J"] : []), ...extra)
      .replace(/\s+$/, "")
      .split("\n")
      .map((line) => line.replace(/\s+$/, ""))
      .join("\n");
  const pane: Pane = {
    keys: (...keys) => void tmux("send-keys", ...keys),
    type: (text) => void tmux("send-keys", "-l", text),
    paste(text) {
      const file = join(w.root, "paste.txt");
      writeFileSync(file, text);
      tmux("load-buffer", "-b", "test-paste", file);
      tmux("paste-buffer", "-p", "-d", "-b", "test-paste");
    },
    screen: () => capture([]),
    rows: () => capture([], false),
    screenWithEscapes: () => capture(["-e"]),
    history: () => capture(["-S", "-"]),
    async waitFor(what, where = "screen") {
      const end = Date.now() + WAIT_MS;
      for (;;) {
        const text = where === "screen" ? pane.screen() : pane.history();
        if (typeof what === "string" ? text.includes(what) : typeof what === "function" ? what(text) : what.test(text)) return text;
        if (Date.now() > end) throw new Error(`timed out waiting for ${String(what)} on the screen:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    resize: (columns, rows) => void tmux("resize-window", "-x", String(columns), "-y", String(rows)),
    cursor() {
      const [x = "", y = ""] = tmux("display-message", "-p", "#{cursor_x} #{cursor_y}").trim().split(" ");
      return { x: Number(x), y: Number(y) };
    },
    async exited() {
      const end = Date.now() + WAIT_MS;
      for (;;) {
        const text = existsSync(status) ? readFileSync(status, "utf8").trim() : "";
        if (/^\d+$/.test(text)) return Number(text);
        if (Date.now() > end) throw new Error(`the program did not end:\n${pane.screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    buffers: () => spawnSync("tmux", ["-S", socket, "list-buffers", "-F", "#{buffer_sample}"], { encoding: "utf8" }).stdout ?? "",
    close: () => void spawnSync("tmux", ["-S", socket, "kill-server"]),
  };
  return pane;
}

/** Starts a pane for the duration of `body`, closed whatever happens. */
export async function withPane<T>(w: World, args: readonly string[], options: Parameters<typeof startPane>[2], body: (pane: Pane) => Promise<T>): Promise<T> {
  const pane = startPane(w, args, options);
  try {
    return await body(pane);
  } finally {
    pane.close();
  }
}

/** Every record of the world's session files, in file-name order. */
export function sessionRecords(w: World): Record<string, unknown>[] {
  const dir = join(w.agentHome, "sessions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .flatMap((file) => readJsonl(readFileSync(join(dir, file), "utf8")));
}

/** The prompts the sessions recorded (`user` records), in order. */
export function sessionPrompts(w: World): unknown[] {
  return sessionRecords(w)
    .filter((x) => x.type === "user")
    .map((x) => x.content);
}
