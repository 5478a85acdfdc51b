/**
 * `agent run --output-format json|stream-json` (docs/cli.md "Output formats"). json: one object at
 * the end. stream-json: every session line as it is written (the session's `hook_decision` records
 * among them), plus `text_delta` lines in the order they happened, then one final `result` line (the
 * json object). Denials are
 * collected from the session's events: a refused tool call with a hook's deny is a hook denial,
 * any other refused call a permission denial.
 */
import type { AgentEvent, SessionResult } from "../agent/types.ts";
import { usageJson } from "../agent/usage.ts";
import { escapeJsonText } from "../util/escape.ts";
import type { CliIO } from "./io.ts";

export interface HeadlessOutput {
  /** Every event as emitted (AgentSessionOptions.onEvent). */
  onEvent(event: AgentEvent): void;
  /** Every session line as written (AgentSessionOptions.onLine); stream-json prints it. */
  onLine(line: string): void;
  finish(result: SessionResult, extra: { readonly wallMs: number; readonly model: string }): void;
}

interface Denial {
  readonly tool_name: string;
  readonly tool_use_id: string;
  readonly reason: string;
}

interface HookDenial {
  readonly event: string;
  readonly decision: string;
  readonly tool_name: string | null;
  readonly tool_use_id: string | null;
  readonly reason: string | null;
}

export function createHeadlessOutput(io: CliIO, format: "json" | "stream-json"): HeadlessOutput {
  const stream = format === "stream-json";
  const write = (value: unknown): void => io.out(`${escapeJsonText(JSON.stringify(value))}\n`);
  const hookDenials: HookDenial[] = [];
  const hookDenied = new Set<string>();
  const permissionDenials: Denial[] = [];
  return {
    onEvent(event) {
      if (event.type === "text_delta") {
        if (stream) write({ type: "text_delta", text: event.text });
      } else if (event.type === "hook_decision") {
        // stream-json already carries the session's own `hook_decision` record (which hook decided, and why).
        if (event.decision === "deny" || event.decision === "block" || event.decision === "stop") {
          hookDenials.push({ event: event.event, decision: event.decision, tool_name: event.toolName, tool_use_id: event.toolCallId, reason: event.reason });
          if (event.decision === "deny" && event.toolCallId !== null) hookDenied.add(event.toolCallId);
        }
      } else if (event.type === "tool_end" && event.rejected && !hookDenied.has(event.id)) {
        permissionDenials.push({ tool_name: event.name, tool_use_id: event.id, reason: event.output });
      }
    },
    onLine(line) {
      if (stream) io.out(escapeJsonText(line));
    },
    finish(result, extra) {
      write({
        type: "result",
        session_id: result.sessionId,
        result: result.result,
        turns: result.turns,
        tool_calls: result.toolCalls,
        is_error: result.isError,
        stop_reason: result.stopReason,
        message: result.message,
        model: extra.model,
        usage: usageJson(result.usage),
        cost_usd: result.costUsd,
        duration_ms: Math.round(extra.wallMs),
        duration_api_ms: Math.round(result.apiMs),
        permission_denials: permissionDenials,
        hook_denials: hookDenials,
      });
    },
  };
}
