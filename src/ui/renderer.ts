/**
 * Renders agent events for `agent run`. text: the assistant's words on stdout as they stream, tool
 * activity and notices on stderr (a spinner only on a terminal without NO_COLOR); json and
 * stream-json: stdout belongs to src/cli/headless.ts, so here only notices go to stderr.
 */
import type { Runtime } from "../runtime/types.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { AgentEvent, SessionResult } from "../agent/types.ts";

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

export interface Renderer {
  event(event: AgentEvent): void;
  /** Ctrl-C (or another stop signal) arrived: hooks killed by it are no failures, and finish says so once. */
  interrupted?(): void;
  finish(result: SessionResult): void;
}

/** The D21 line of a hook killed by the interrupt itself (`agent: hook L (E) failed: timeout: cancelled — …`). */
const CANCELLED_HOOK_LINE = /^agent: hook (.+) \(([a-z_]+)\) failed: timeout: cancelled — /;

export function createRenderer(runtime: Runtime, io: CliIO, options: { format: "text" | "json" | "stream-json" }): Renderer {
  const env = runtime.env();
  const fancy = options.format === "text" && runtime.isTTY("stderr") && env.NO_COLOR === undefined && env.TERM !== "dumb";
  let spinner: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  let sessionId = "";
  let midLine = false;
  // text mode: a warning notice waits for the next event, because a refused call's reason arrives
  // twice (a notice, then the rejected tool result) and is printed once, on the tool's own line.
  let pending: string | undefined;
  let interrupted = false;
  const stoppedHooks: string[] = [];
  const flush = (): void => {
    if (pending === undefined) return;
    const text = pending;
    pending = undefined;
    line(text);
  };

  const stopSpinner = (): void => {
    if (spinner !== undefined) {
      clearInterval(spinner);
      spinner = undefined;
      io.err("\r\x1b[K");
    }
  };
  const line = (text: string): void => {
    stopSpinner();
    if (midLine && options.format === "text") {
      io.out("\n");
      midLine = false;
    }
    io.err(`${text}\n`);
  };

  return {
    event(event) {
      if (pending !== undefined && event.type !== "tool_start" && event.type !== "tool_end") flush();
      switch (event.type) {
        case "session":
          sessionId = event.sessionId;
          return;
        case "waiting":
          if (!fancy) return;
          if (event.waiting && spinner === undefined) {
            spinner = setInterval(() => {
              io.err(`\r${SPINNER_FRAMES[frame % SPINNER_FRAMES.length]} thinking…`);
              frame += 1;
            }, SPINNER_INTERVAL_MS);
          } else if (!event.waiting) stopSpinner();
          return;
        case "text_delta":
          if (options.format !== "text") return;
          stopSpinner();
          io.out(event.text);
          midLine = !event.text.endsWith("\n");
          return;
        case "reasoning_delta":
          return;
        case "assistant_done":
          if (options.format === "text" && midLine) {
            io.out("\n");
            midLine = false;
          }
          return;
        case "tool_start":
          if (options.format === "text") line(`● ${event.name}: ${event.detail}`);
          return;
        case "tool_end": {
          if (options.format !== "text") return;
          const first = event.output.split("\n").find((l) => l.trim() !== "") ?? "";
          if (pending !== undefined && !(event.rejected && pending === `agent: ${first}`)) flush();
          pending = undefined;
          const mark = event.rejected ? "rejected" : event.success ? "ok" : "error";
          // A refusal is shown whole: it says what to pass to allow the call.
          const shown = event.rejected ? first : clipAtWord(first, OUTPUT_PREVIEW_CHARS);
          line(`  ⎿ ${mark}${shown ? `: ${shown}` : ""}`);
          return;
        }
        case "notice": {
          const cancelled = interrupted && event.kind === "failure" ? CANCELLED_HOOK_LINE.exec(event.text) : null;
          if (cancelled) {
            // "failed … tool ran anyway" would be false: the interrupt stopped the hook and the tool.
            stoppedHooks.push(`${cancelled[1]} (${cancelled[2]})`);
            return;
          }
          if (options.format === "text" && event.kind === "warning") {
            flush();
            pending = event.text;
          } else line(event.text);
          return;
        }
      }
    },
    interrupted() {
      interrupted = true;
    },
    finish(result) {
      flush();
      stopSpinner();
      if (options.format === "text" && midLine) io.out("\n");
      if (result.stopReason === "interrupted") {
        io.err(`agent: interrupted${stoppedHooks.length > 0 ? `; stopped hook ${stoppedHooks.join(", ")}` : ""}\n`);
      } else if (result.message !== null && result.stopReason !== "completed") {
        io.err(`agent: ${result.stopReason === "stop_block_cap" ? "stopped" : `session ended (${result.stopReason})`}: ${result.message}\n`);
      }
    },
  };
}
