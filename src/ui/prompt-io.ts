/**
 * Line input for the interactive session: one question at a time on stderr, answers from stdin,
 * an idle callback while waiting, and Ctrl-C at the prompt (the first warns, the second ends input).
 * A read abandoned by an exit is not lost: the line reader answers reads in order.
 */
import type { TextOutput as CliIO } from "./output.ts";
import { openStdinLines, type StdinLines } from "../runtime/stdin-lines.ts";

export interface ReadOptions {
  /** Called once when no line arrived within `idleMs` (the idle_prompt notification). */
  readonly onIdle?: () => Promise<void>;
  readonly idleMs?: number;
}

export interface PromptIO {
  /** Prints `question`, then resolves the next line; null at end of input or after a second Ctrl-C. */
  read(question: string, options?: ReadOptions): Promise<string | null>;
  /** A Ctrl-C while a question waits. True when the prompt is left (second Ctrl-C in a row). */
  interrupt(): boolean;
  /** Ends the waiting question with null (a permission prompt when Ctrl-C cancels the turn). */
  cancel(): void;
  /** Whether a question is waiting for an answer now. */
  waiting(): boolean;
  close(): void;
}

export function createPromptIO(io: CliIO, source: StdinLines = openStdinLines()): PromptIO {
  let pending: Promise<string | null> | null = null;
  let leave: ((value: null) => void) | null = null;
  let armed = false;

  return {
    async read(question, options = {}) {
      io.err(question);
      const line = pending ?? source.next();
      pending = line;
      let mine: ((value: null) => void) | null = null;
      const left = new Promise<null>((resolve) => {
        mine = resolve;
      });
      leave = mine;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle =
        options.onIdle === undefined
          ? new Promise<never>(() => {})
          : new Promise<"idle">((resolve) => {
              timer = setTimeout(() => resolve("idle"), options.idleMs ?? 60_000);
            });
      try {
        let first = await Promise.race([line, left, idle]);
        if (first === "idle") {
          await options.onIdle?.();
          first = await Promise.race([line, left]);
        }
        if (first !== null) {
          // The line was consumed; an exit leaves it pending for nobody (the session is over).
          pending = null;
          armed = false;
        }
        return first;
      } finally {
        if (timer !== undefined) clearTimeout(timer);
        if (leave === mine) leave = null;
      }
    },
    interrupt() {
      if (leave === null) return false;
      if (armed) {
        leave(null);
        return true;
      }
      armed = true;
      io.err("\n(press Ctrl-C again to exit, or type /exit)\n");
      return false;
    },
    cancel() {
      leave?.(null);
    },
    waiting: () => leave !== null,
    close: () => source.close(),
  };
}
