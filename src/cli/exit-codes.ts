/**
 * The one map from how a session stopped to the exit status of `agent run` and the interactive
 * session (DESIGN.md "Command line"). The loop only reports a StopReason; `src/main.ts` exits.
 */
import type { StopReason } from "../agent/types.ts";

/** 0 ok (a stop-block cap is a normal end), 3 a hook ended the session, 4 replies cut off at the token limit twice, 130 interrupted, else 1. */
export function exitCodeForStop(reason: StopReason): number {
  switch (reason) {
    case "completed":
    case "stop_block_cap":
      return 0;
    case "hook_blocked":
    case "hook_failed":
      return 3;
    case "truncated":
      return 4;
    case "interrupted":
      return 130;
    case "max_turns":
    case "error":
      return 1;
  }
}
