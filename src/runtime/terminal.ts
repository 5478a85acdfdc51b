/**
 * The interactive session's terminal: raw key input from stdin (no kernel echo, no line buffering,
 * Ctrl-C as a byte instead of SIGINT), the window size and its changes. Lives here because it is the
 * other place that touches the process's stdin stream and the SIGWINCH signal. Raw mode is undone on
 * every way out of the process, a crash included, so the shell is never left without echo.
 */

export interface TerminalInput {
  /** Receives every chunk as it is read (keys, escape sequences, bracketed pastes). */
  onData(handler: (chunk: string) => void): void;
  /** Called once when stdin ends (the terminal closed). */
  onEnd(handler: () => void): void;
  columns(): number;
  rows(): number;
  /** Registers a handler for window size changes; returns an unsubscribe function. */
  onResize(handler: () => void): () => void;
  /** Leaves raw mode and stops reading so the process can exit. */
  close(): void;
}

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";

/** Raw key input when stdin is a terminal, else null (a pipe keeps line input). */
export function openTerminalInput(): TerminalInput | null {
  const stdin = process.stdin;
  if (!stdin.isTTY || typeof stdin.setRawMode !== "function") return null;
  let closed = false;
  const restore = (): void => {
    if (closed) return;
    closed = true;
    try {
      process.stderr.write(BRACKETED_PASTE_OFF);
      stdin.setRawMode(false);
    } catch {
      // The terminal is gone already.
    }
  };
  stdin.setRawMode(true);
  // Bracketed paste: a paste arrives marked, so it stays one prompt and never answers a question.
  process.stderr.write(BRACKETED_PASTE_ON);
  process.once("exit", restore);
  stdin.setEncoding("utf8");
  stdin.resume();
  const size = (key: "columns" | "rows", fallback: number): number => {
    const value = process.stderr[key] ?? process.stdout[key];
    return typeof value === "number" && value > 0 ? value : fallback;
  };
  return {
    onData: (handler) => {
      stdin.on("data", (chunk: string | Uint8Array) => handler(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk)));
    },
    onEnd: (handler) => {
      stdin.once("end", handler);
    },
    columns: () => size("columns", 80),
    rows: () => size("rows", 24),
    onResize(handler) {
      process.on("SIGWINCH", handler);
      return () => {
        process.off("SIGWINCH", handler);
      };
    },
    close() {
      restore();
      process.off("exit", restore);
      stdin.removeAllListeners("data");
      stdin.pause();
    },
  };
}
