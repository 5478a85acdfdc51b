/**
 * Input for the interactive session. Two implementations share this contract: the raw-mode editor
 * on a terminal (terminal-input.ts) and, for a pipe (AGENT_INTERACTIVE=1, scripted use), the line
 * reader below. Both keep one rule for questions: a question is answered only by input that
 * arrives after it is shown; whatever was typed (or piped) before stays queued as the next prompts.
 */
import type { TextOutput as CliIO } from "./output.ts";
import type { PromptHistory } from "./history.ts";
import type { Completion } from "./complete.ts";
import { openStdinLines, type StdinLines } from "../runtime/stdin-lines.ts";
import { escapeControls } from "../util/escape.ts";

export interface ReadOptions {
  /** Called once when no line arrived within `idleMs` (the idle_prompt notification). */
  readonly onIdle?: () => Promise<void>;
  readonly idleMs?: number;
  /** A dim row above the prompt (model, mode, hooks, MCP); terminal only. */
  readonly status?: string;
}

export interface Choice {
  /** The letter that picks it (also its number in the list). */
  readonly key: string;
  readonly label: string;
  readonly value: string;
}

export interface PromptContext {
  readonly history?: PromptHistory;
  readonly complete?: (text: string, cursor: number) => Completion | null;
  /** Ctrl-K on an empty prompt: the command palette's entries. */
  readonly palette?: readonly Choice[];
}

export interface PromptIO {
  /** Prints `prompt`, then resolves the next prompt line; null at end of input or after a second Ctrl-C. */
  read(prompt: string, options?: ReadOptions): Promise<string | null>;
  /** A question with choices; `detail` rows (a diff) are shown above them. Null: cancelled or no input. */
  choose(question: string, choices: readonly Choice[], detail?: readonly string[]): Promise<string | null>;
  /** A line of free text answering a question; only input after it is shown counts. */
  ask(question: string): Promise<string | null>;
  /** A Ctrl-C while a prompt waits. True when the prompt is left (second Ctrl-C in a row). */
  interrupt(): boolean;
  /** Ends the waiting prompt or question with null. */
  cancel(): void;
  /** Whether a prompt (not a question) is waiting for input now. */
  waiting(): boolean;
  /** Where Ctrl-C goes when the terminal delivers it as a key (raw mode); a pipe gets SIGINT instead. */
  onInterrupt(handler: () => void): void;
  setContext(context: PromptContext): void;
  /** Output for everything else: on a terminal it is written above the live prompt area. */
  readonly output: CliIO;
  /** Text columns, or null when unknown (a pipe). */
  columns(): number | null;
  close(): void;
}

/** Line input over a pipe: lines in order, questions answered only by lines that arrive later. */
export function createPromptIO(io: CliIO, source: StdinLines = openStdinLines()): PromptIO {
  return new PipePrompt(io, source);
}

class PipePrompt implements PromptIO {
  private readonly arrived: string[] = [];
  private ended = false;
  /** Index in `arrived` from which a question may take its answer. */
  private freshFrom = Number.POSITIVE_INFINITY;
  private wake: (() => void) | null = null;
  private leave: (() => void) | null = null;
  private armed = false;
  private promptWaiting = false;
  private history: PromptHistory | undefined;
  readonly output: CliIO;

  constructor(
    private readonly io: CliIO,
    private readonly source: StdinLines,
  ) {
    this.output = io;
    void this.pump();
  }

  /** Reads every line as it arrives, so a question knows which lines came before it. */
  private async pump(): Promise<void> {
    for (;;) {
      const line = await this.source.next();
      if (line === null) break;
      this.arrived.push(line);
      this.wake?.();
    }
    this.ended = true;
    this.wake?.();
  }

  /** Resolves the first line at or after `from()` (removed from the queue), or null. */
  private async take(from: () => number, idle?: { ms: number; run: () => Promise<void> }): Promise<string | null> {
    let left = false;
    this.leave = () => {
      left = true;
      this.wake?.();
    };
    let idleDue = false;
    const timer =
      idle === undefined
        ? undefined
        : setTimeout(() => {
            idleDue = true;
            this.wake?.();
          }, idle.ms);
    try {
      for (;;) {
        if (left) return null;
        const at = Math.max(0, from());
        if (at < this.arrived.length) return this.arrived.splice(at, 1)[0] ?? null;
        if (this.ended) return null;
        if (idleDue && idle !== undefined) {
          idleDue = false;
          await idle.run();
          continue;
        }
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = null;
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      this.leave = null;
    }
  }

  private async question(text: string): Promise<string | null> {
    this.io.err(text);
    this.freshFrom = this.arrived.length;
    try {
      return await this.take(() => this.freshFrom);
    } finally {
      this.freshFrom = Number.POSITIVE_INFINITY;
    }
  }

  async read(prompt: string, options: ReadOptions = {}): Promise<string | null> {
    this.io.err(prompt);
    this.promptWaiting = true;
    try {
      const idle = options.onIdle === undefined ? undefined : { ms: options.idleMs ?? 60_000, run: options.onIdle };
      const line = await this.take(() => 0, idle);
      if (line !== null) {
        this.armed = false;
        this.history?.add(line);
      }
      return line;
    } finally {
      this.promptWaiting = false;
    }
  }

  async choose(text: string, choices: readonly Choice[], detail: readonly string[] = []): Promise<string | null> {
    const lines = detail.map((row) => `${row}\n`).join("");
    const menu = choices.map((c) => `[${c.key}] ${c.label}`).join(" ");
    const line = await this.question(`${lines}${text} ${menu}: `);
    if (line === null) return null;
    const answer = line.trim().toLowerCase();
    const picked =
      answer === ""
        ? undefined
        : choices.find((c, index) => answer === c.key || answer === c.value || answer === String(index + 1) || c.label.toLowerCase().startsWith(answer));
    // Anything else is the `n` answer, as the question says.
    return (picked ?? choices.find((c) => c.key === "n"))?.value ?? null;
  }

  ask(text: string): Promise<string | null> {
    return this.question(text);
  }

  interrupt(): boolean {
    if (this.leave === null || !this.promptWaiting) return false;
    if (this.armed) {
      this.leave();
      return true;
    }
    this.armed = true;
    this.io.err("\n(press Ctrl-C again to exit, or type /exit)\n");
    return false;
  }

  cancel(): void {
    this.leave?.();
  }

  waiting(): boolean {
    return this.promptWaiting;
  }

  onInterrupt(): void {
    // A pipe has no keys: Ctrl-C arrives as SIGINT, which the session handles.
  }

  setContext(context: PromptContext): void {
    this.history = context.history;
  }

  columns(): number | null {
    return null;
  }

  close(): void {
    this.source.close();
  }
}

/** A question's subject (a command, a path) made safe and visible for the terminal. */
export function visible(text: string): string {
  return escapeControls(text);
}
