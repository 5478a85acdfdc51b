/**
 * Renders agent events for `agent run`. text: the assistant's words on stdout as they stream, tool
 * activity and notices on stderr (a spinner only on a terminal without NO_COLOR); json: one object
 * at the end; stream-json: session lines are printed by the session writer's listener, so here only
 * notices go to stderr.
 */
import type { Runtime } from "../runtime/types.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { AgentEvent, SessionResult } from "../agent/types.ts";

const SPINNER_FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPINNER_INTERVAL_MS = 80;

export interface Renderer {
  event(event: AgentEvent): void;
  finish(result: SessionResult): void;
}

export function createRenderer(runtime: Runtime, io: CliIO, options: { format: "text" | "json" | "stream-json" }): Renderer {
  const env = runtime.env();
  const fancy = options.format === "text" && runtime.isTTY("stderr") && env.NO_COLOR === undefined && env.TERM !== "dumb";
  let spinner: ReturnType<typeof setInterval> | undefined;
  let frame = 0;
  let sessionId = "";
  let midLine = false;

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
          const mark = event.rejected ? "rejected" : event.success ? "ok" : "error";
          line(`  ⎿ ${mark}${first ? `: ${first.slice(0, 160)}` : ""}`);
          return;
        }
        case "notice":
          line(event.text);
          return;
      }
    },
    finish(result) {
      stopSpinner();
      if (options.format === "text" && midLine) io.out("\n");
      if (result.message !== null && result.stopReason !== "completed") {
        io.err(`agent: ${result.stopReason === "stop_block_cap" ? "stopped" : `session ended (${result.stopReason})`}: ${result.message}\n`);
      }
      if (options.format === "json") {
        io.out(
          `${JSON.stringify({
            session_id: result.sessionId || sessionId,
            result: result.result,
            turns: result.turns,
            tool_calls: result.toolCalls,
            is_error: result.isError,
            stop_reason: result.stopReason,
          })}\n`,
        );
      }
    },
  };
}
