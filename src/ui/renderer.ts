/**
 * Renders agent events for `agent run` and the interactive session. text: the assistant's words on
 * stdout as they stream, tool activity and notices on stderr (a spinner only on a terminal without
 * NO_COLOR); json and stream-json: stdout belongs to src/cli/headless.ts, so here only notices go
 * to stderr. Text from the model, tools and hooks is
 * escaped on a terminal (and always in the interactive session): no CR, ESC or OSC reaches it raw.
 * The interactive session adds colour, markdown, the elapsed time in the spinner, and a few lines
 * of each tool's output.
 */
import type { Runtime } from "../runtime/types.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { AgentEvent, SessionResult } from "../agent/types.ts";
import { escapeControls } from "../util/escape.ts";
import { MarkdownStream } from "./markdown.ts";
import { plainStyle, type Style } from "./style.ts";
import { diffRows } from "./diff.ts";
import { clipColumns, sliceColumns } from "../util/display-width.ts";
import type { TodoItem } from "../tools/todo-list.ts";
import { planRows } from "./plan.ts";

/** Columns of a running tool's last output line shown in its progress line. */
const PROGRESS_LAST_COLUMNS = 60;
/** Rows of an edit's diff shown under its tool line. */
const CHANGE_DIFF_ROWS = 20;

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPINNER_INTERVAL_MS = 80;
/** A tool's first output line is shown up to this many characters, cut at a word boundary. */
const OUTPUT_PREVIEW_CHARS = 160;

/** `text` cut to about `max` characters at the last space, with `…`; never in the middle of a word. */
export function clipAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(" ", max);
  return `${(space > max / 2 ? text.slice(0, space) : text.slice(0, max)).trimEnd()}…`;
}

/** Control characters escaped, line ends and tabs kept: model and tool text for a terminal. */
export function safeText(text: string): string {
  return text.replace(/[^\n\t]+/g, (run) => escapeControls(run));
}

export interface Renderer {
  event(event: AgentEvent): void;
  /** Ctrl-C (or another stop signal) arrived: hooks killed by it are no failures, and finish says so once. */
  interrupted?(): void;
  /** The turn is over: print what was held (a warning, the end of a reply) now, not one prompt late. */
  turnDone?(): string[];
  /** The whole output (escaped, indented) of the last tool whose output was collapsed; null when none. */
  lastCollapsed?(): string | null;
  /** The plan a `todo_write` call set, known before its end: drawn as a checklist under its result. */
  plan?(callId: string, items: readonly TodoItem[]): void;
  finish(result: SessionResult): void;
}

export interface InteractiveLook {
  readonly style: Style;
  /** Lines of a tool's output shown under it (the rest is counted). */
  readonly previewLines: number;
  /** The terminal's width, when known: a live line redrawn with `\r` must fit on one row. */
  readonly columns?: () => number | null;
}

/** The D21 line of a hook killed by the interrupt itself (`agent: hook L (E) failed: timeout: cancelled — …`). */
const CANCELLED_HOOK_LINE = /^agent: hook (.+) \(([a-z_]+)\) failed: timeout: cancelled — /;

export function createRenderer(runtime: Runtime, io: CliIO, options: { format: "text" | "json" | "stream-json"; interactive?: InteractiveLook }): Renderer {
  return new EventRenderer(runtime, io, options.format, options.interactive);
}

class EventRenderer implements Renderer {
  private readonly text: boolean;
  /** Escaped whenever a person may be reading: always in the session, on a terminal for `agent run`. */
  private readonly escape: (value: string) => string;
  private readonly style: Style;
  private readonly markdown: MarkdownStream | null;
  private readonly spinner: Spinner;
  /** The last collapsed tool output, whole, for /expand. */
  private collapsed: string | null = null;
  /** Plans of `todo_write` calls whose result line is not drawn yet. */
  private readonly plans = new Map<string, readonly TodoItem[]>();
  private midLine = false;
  // text mode: a warning notice waits for the next event, because a refused call's reason arrives
  // twice (a notice, then the rejected tool result) and is printed once, on the tool's own line.
  private pending: string | undefined;
  private stopping = false;
  private stoppedHooks: string[] = [];
  /** When the running tool started (interactive progress), and whether its progress line is showing. */
  private toolSince = 0;
  private progressShown = false;
  /** Live lines (progress, spinner) only on a terminal: piped output stays whole lines. */
  private readonly live: boolean;

  constructor(
    private readonly runtime: Runtime,
    private readonly io: CliIO,
    format: "text" | "json" | "stream-json",
    private readonly look: InteractiveLook | undefined,
  ) {
    const env = runtime.env();
    this.text = format === "text";
    const fancy = this.text && runtime.isTTY("stderr") && (look ? look.style.enabled : env.NO_COLOR === undefined && env.TERM !== "dumb");
    this.escape = look !== undefined || runtime.isTTY("stdout") ? safeText : (value: string) => value;
    this.style = look?.style ?? plainStyle;
    this.markdown = look ? new MarkdownStream(this.style) : null;
    this.spinner = new Spinner(runtime, io, fancy, look !== undefined, look?.columns);
    // Progress is text, not colour: it shows on a terminal under NO_COLOR too.
    this.live = this.text && runtime.isTTY("stderr") && env.TERM !== "dumb";
  }

  event(event: AgentEvent): void {
    if (event.type === "tool_progress") return this.progress(event);
    if (this.pending !== undefined && event.type !== "tool_start" && event.type !== "tool_end") this.flush();
    switch (event.type) {
      case "session":
        return;
      case "waiting":
        if (event.waiting) this.spinner.start();
        else this.spinner.stop();
        return;
      case "text_delta":
        if (this.text) this.reply(event.text);
        return;
      case "reasoning_delta":
        return;
      case "assistant_done":
        this.endReply();
        return;
      case "tool_start":
        this.toolSince = this.runtime.now();
        if (this.text) this.line(`${this.style.accent("●")} ${this.style.bold(this.escape(event.name))}: ${this.escape(event.detail)}`);
        return;
      case "tool_end":
        if (this.text) this.toolEnd(event);
        return;
      case "notice":
        this.notice(event);
        return;
    }
  }

  interrupted(): void {
    this.stopping = true;
  }

  turnDone(): string[] {
    this.flush();
    this.spinner.stop();
    this.endReply();
    const stopped = this.stoppedHooks;
    this.stoppedHooks = [];
    this.stopping = false;
    return stopped;
  }

  finish(result: SessionResult): void {
    this.flush();
    this.spinner.stop();
    this.endReply();
    if (result.stopReason === "interrupted") {
      this.io.err(`agent: interrupted${this.stoppedHooks.length > 0 ? `; stopped hook ${this.stoppedHooks.join(", ")}` : ""}\n`);
    } else if (result.message !== null && result.stopReason !== "completed") {
      this.io.err(`agent: ${result.stopReason === "stop_block_cap" ? "stopped" : `session ended (${result.stopReason})`}: ${this.escape(result.message)}\n`);
    }
  }

  private reply(delta: string): void {
    this.spinner.stop();
    const safe = this.escape(delta);
    const shown = this.markdown ? this.markdown.push(safe) : safe;
    if (shown !== "") this.io.out(shown);
    this.midLine = this.markdown ? false : !safe.endsWith("\n");
  }

  private notice(event: Extract<AgentEvent, { type: "notice" }>): void {
    const cancelled = this.stopping && event.kind === "failure" ? CANCELLED_HOOK_LINE.exec(event.text) : null;
    if (cancelled) {
      // "failed … tool ran anyway" would be false: the interrupt stopped the hook and the tool.
      this.stoppedHooks.push(`${cancelled[1]} (${cancelled[2]})`);
      return;
    }
    const shown = this.look ? noticeStyle(this.style, event.kind, this.escape(event.text)) : event.text;
    if (this.text && event.kind === "warning") {
      this.flush();
      this.pending = shown;
    } else this.line(shown);
  }

  private flush(): void {
    if (this.pending === undefined) return;
    const held = this.pending;
    this.pending = undefined;
    this.line(held);
  }

  /** Ends a reply that is mid-line (or whose last markdown line is still held). */
  private endReply(): void {
    if (!this.text || !(this.midLine || this.markdown?.pending)) return;
    const rest = this.markdown?.end() ?? "";
    if (rest !== "") this.io.out(rest);
    this.io.out("\n");
    this.midLine = false;
  }

  /** The interactive session's live line under a running tool: elapsed time, lines so far, the last one. */
  private progress(event: Extract<AgentEvent, { type: "tool_progress" }>): void {
    if (this.look === undefined || !this.text || !this.live) return;
    this.spinner.stop();
    const seconds = Math.floor((this.runtime.now() - this.toolSince) / 1000);
    const last = sliceColumns(this.escape(event.last), PROGRESS_LAST_COLUMNS);
    const text = `  ⎿ running · ${seconds}s · ${event.lines} ${event.lines === 1 ? "line" : "lines"}${last ? ` · ${last}` : ""}`;
    const columns = this.look.columns?.() ?? null;
    this.io.err(`\r${this.style.dim(columns === null ? text : clipColumns(text, columns - 1))}\x1b[K`);
    this.progressShown = true;
  }

  private line(value: string): void {
    if (this.progressShown) {
      this.io.err("\r\x1b[K");
      this.progressShown = false;
    }
    this.spinner.stop();
    this.endReply();
    this.io.err(`${value}\n`);
  }

  private toolEnd(event: Extract<AgentEvent, { type: "tool_end" }>): void {
    const { style, escape, look } = this;
    const lines = event.output.split("\n").filter((l) => l.trim() !== "");
    const first = lines[0] ?? "";
    if (this.pending !== undefined && !(event.rejected && this.pending === `agent: ${first}`)) this.flush();
    this.pending = undefined;
    const mark = event.rejected ? style.red("rejected") : event.success ? style.green("ok") : style.red("error");
    // A refusal is shown whole: it says what to pass to allow the call.
    const shown = escape(event.rejected ? first : clipAtWord(first, OUTPUT_PREVIEW_CHARS));
    this.line(`  ⎿ ${mark}${shown ? `: ${shown}` : ""}`);
    const plan = this.plans.get(event.id);
    this.plans.delete(event.id);
    if (look === undefined || event.rejected) return;
    if (event.change) return this.changeDiff(event.change);
    if (plan !== undefined && event.success) {
      for (const row of planRows(plan, style, escape)) this.line(row);
      return;
    }
    const more = lines.slice(1, look.previewLines);
    for (const extra of more) this.line(style.dim(`    ${escape(clipAtWord(extra, OUTPUT_PREVIEW_CHARS))}`));
    const hidden = lines.length - 1 - more.length;
    if (hidden > 0) {
      this.line(style.dim(`    … ${hidden} more ${hidden === 1 ? "line" : "lines"} (Ctrl-O shows them)`));
      this.collapsed = lines.map((l) => `    ${escape(l)}`).join("\n");
    }
  }

  /** After an edit or write, the change it made, as the question's diff showed it (capped). */
  private changeDiff(change: { readonly before: string; readonly after: string }): void {
    const { style, escape } = this;
    const rows = diffRows(change.before, change.after);
    for (const row of rows.slice(0, CHANGE_DIFF_ROWS)) {
      const text = `    ${escape(row)}`;
      this.line(row.startsWith("+") ? style.green(text) : row.startsWith("-") ? style.red(text) : style.dim(text));
    }
    if (rows.length > CHANGE_DIFF_ROWS) this.line(style.dim(`    … ${rows.length - CHANGE_DIFF_ROWS} more diff lines`));
  }

  lastCollapsed(): string | null {
    return this.collapsed;
  }

  plan(callId: string, items: readonly TodoItem[]): void {
    if (this.look !== undefined) this.plans.set(callId, items);
  }
}

function noticeStyle(style: Style, kind: Extract<AgentEvent, { type: "notice" }>["kind"], value: string): string {
  if (kind === "error" || kind === "failure") return style.red(value);
  if (kind === "warning") return style.yellow(value);
  return value;
}

/** `⠋ thinking…` on stderr while the model works; the interactive session adds the elapsed seconds. */
class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  private since = 0;

  constructor(
    private readonly runtime: Runtime,
    private readonly io: CliIO,
    private readonly enabled: boolean,
    private readonly elapsed: boolean,
    /** The terminal's width: the row is cut to it, so a narrow window never wraps it into stacked copies. */
    private readonly columns?: () => number | null,
  ) {}

  start(): void {
    if (!this.enabled || this.timer !== undefined) return;
    this.since = this.runtime.now();
    this.timer = setInterval(() => {
      const seconds = Math.floor((this.runtime.now() - this.since) / 1000);
      const time = this.elapsed ? ` ${seconds}s · Ctrl-C cancels` : "";
      const row = `${SPINNER_FRAMES[this.frame % SPINNER_FRAMES.length]} thinking…${time}`;
      const width = this.columns?.() ?? null;
      this.io.err(`\r${width === null ? row : clipColumns(row, width - 1)}\x1b[K`);
      this.frame += 1;
    }, SPINNER_INTERVAL_MS);
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.io.err("\r\x1b[K");
  }
}
