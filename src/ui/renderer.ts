/**
 * Renders agent events for `agent run` and the interactive session. text: the assistant's words on
 * stdout as they stream, tool activity and notices on stderr (a spinner only on a terminal without
 * NO_COLOR); json and stream-json: stdout belongs to src/cli/headless.ts, so here only notices go
 * to stderr. Text from the model, tools and hooks is escaped on a terminal (and always in the
 * interactive session): no CR, ESC or OSC reaches it raw. The interactive session adds colour,
 * markdown, the elapsed time in the spinner, and a few lines of each tool's output.
 */
import type { Runtime } from "../runtime/types.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { AgentEvent, SessionResult } from "../agent/types.ts";
import { escapeControls } from "../util/escape.ts";
import { MarkdownStream } from "./markdown.ts";
import { plainStyle, type Style } from "./style.ts";

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
  finish(result: SessionResult): void;
}

export interface InteractiveLook {
  readonly style: Style;
  /** Lines of a tool's output shown under it (the rest is counted). */
  readonly previewLines: number;
}

/** The D21 line of a hook killed by the interrupt itself (`agent: hook L (E) failed: timeout: cancelled — …`). */
const CANCELLED_HOOK_LINE = /^agent: hook (.+) \(([a-z_]+)\) failed: timeout: cancelled — /;

export function createRenderer(runtime: Runtime, io: CliIO, options: { format: "text" | "json" | "stream-json"; interactive?: InteractiveLook }): Renderer {
  const env = runtime.env();
  const look = options.interactive;
  const text = options.format === "text";
  const fancy = text && runtime.isTTY("stderr") && (look ? look.style.enabled : env.NO_COLOR === undefined && env.TERM !== "dumb");
  // Escaped whenever a person may be reading: always in the session, on a terminal for `agent run`.
  const escape = look !== undefined || runtime.isTTY("stdout") ? safeText : (value: string) => value;
  const style = look?.style ?? plainStyle;
  const markdown = look ? new MarkdownStream(style) : null;
  const spinner = new Spinner(runtime, io, fancy, look !== undefined);
  let sessionId = "";
  let midLine = false;
  // text mode: a warning notice waits for the next event, because a refused call's reason arrives
  // twice (a notice, then the rejected tool result) and is printed once, on the tool's own line.
  let pending: string | undefined;
  let interrupted = false;
  let stoppedHooks: string[] = [];
  const flush = (): void => {
    if (pending === undefined) return;
    const held = pending;
    pending = undefined;
    line(held);
  };
  const endReply = (): void => {
    const rest = markdown?.end() ?? "";
    if (rest !== "") io.out(rest);
    if (midLine || rest !== "") io.out("\n");
    midLine = false;
  };
  const line = (value: string): void => {
    spinner.stop();
    if (text && (midLine || markdown?.pending)) endReply();
    io.err(`${value}\n`);
  };
  const toolEnd = (event: Extract<AgentEvent, { type: "tool_end" }>): void => {
    const lines = event.output.split("\n").filter((l) => l.trim() !== "");
    const first = lines[0] ?? "";
    if (pending !== undefined && !(event.rejected && pending === `agent: ${first}`)) flush();
    pending = undefined;
    const mark = event.rejected ? style.red("rejected") : event.success ? style.green("ok") : style.red("error");
    // A refusal is shown whole: it says what to pass to allow the call.
    const shown = escape(event.rejected ? first : clipAtWord(first, OUTPUT_PREVIEW_CHARS));
    line(`  ⎿ ${mark}${shown ? `: ${shown}` : ""}`);
    if (look === undefined || event.rejected) return;
    const more = lines.slice(1, look.previewLines);
    for (const extra of more) line(style.dim(`    ${escape(clipAtWord(extra, OUTPUT_PREVIEW_CHARS))}`));
    const hidden = lines.length - 1 - more.length;
    if (hidden > 0) line(style.dim(`    … ${hidden} more ${hidden === 1 ? "line" : "lines"}`));
  };

  return {
    event(event) {
      if (pending !== undefined && event.type !== "tool_start" && event.type !== "tool_end") flush();
      switch (event.type) {
        case "session":
          sessionId = event.sessionId;
          return;
        case "waiting":
          if (event.waiting) spinner.start();
          else spinner.stop();
          return;
        case "text_delta": {
          if (!text) return;
          spinner.stop();
          const safe = escape(event.text);
          const shown = markdown ? markdown.push(safe) : safe;
          if (shown !== "") io.out(shown);
          midLine = markdown ? false : !safe.endsWith("\n");
          return;
        }
        case "reasoning_delta":
          return;
        case "assistant_done":
          if (text && (midLine || markdown?.pending)) endReply();
          return;
        case "tool_start":
          if (text) line(`${style.accent("●")} ${style.bold(escape(event.name))}: ${escape(event.detail)}`);
          return;
        case "tool_end":
          if (text) toolEnd(event);
          return;
        case "notice": {
          const cancelled = interrupted && event.kind === "failure" ? CANCELLED_HOOK_LINE.exec(event.text) : null;
          if (cancelled) {
            // "failed … tool ran anyway" would be false: the interrupt stopped the hook and the tool.
            stoppedHooks.push(`${cancelled[1]} (${cancelled[2]})`);
            return;
          }
          const shown = look ? noticeStyle(style, event.kind, escape(event.text)) : event.text;
          if (text && event.kind === "warning") {
            flush();
            pending = shown;
          } else line(shown);
          return;
        }
      }
    },
    interrupted() {
      interrupted = true;
    },
    turnDone() {
      flush();
      spinner.stop();
      if (text && (midLine || markdown?.pending)) endReply();
      const stopped = stoppedHooks;
      stoppedHooks = [];
      interrupted = false;
      return stopped;
    },
    finish(result) {
      flush();
      spinner.stop();
      if (text && (midLine || markdown?.pending)) endReply();
      if (result.stopReason === "interrupted") {
        io.err(`agent: interrupted${stoppedHooks.length > 0 ? `; stopped hook ${stoppedHooks.join(", ")}` : ""}\n`);
      } else if (result.message !== null && result.stopReason !== "completed") {
        io.err(`agent: ${result.stopReason === "stop_block_cap" ? "stopped" : `session ended (${result.stopReason})`}: ${escape(result.message)}\n`);
      }
    },
  };
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
  ) {}

  start(): void {
    if (!this.enabled || this.timer !== undefined) return;
    this.since = this.runtime.now();
    this.timer = setInterval(() => {
      const seconds = Math.floor((this.runtime.now() - this.since) / 1000);
      const time = this.elapsed ? ` ${seconds}s · Ctrl-C cancels` : "";
      this.io.err(`\r${SPINNER_FRAMES[this.frame % SPINNER_FRAMES.length]} thinking…${time}\x1b[K`);
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
