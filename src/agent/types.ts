/** The agent loop's public types: its options, the event union it yields, and its result. */
import type { Runtime } from "../runtime/types.ts";
import type { Provider } from "../providers/types.ts";
import type { HookSpec } from "../hooks/types.ts";
import type { RuleSet, Mode } from "../permissions/gate.ts";
import type { SessionRecord } from "../session/records.ts";
import type { EventOutcome } from "../hooks/dispatch.ts";

export type StopReason = "completed" | "max_turns" | "hook_blocked" | "hook_failed" | "stop_block_cap" | "error" | "interrupted";

export interface AgentOptions {
  readonly runtime: Runtime;
  readonly provider: Provider;
  /** Hooks to run ([] when hooks are off). */
  readonly hooks: readonly HookSpec[];
  readonly home: string;
  readonly cwd: string;
  readonly projectDir: string;
  readonly prompt: string;
  readonly permissionMode: Mode;
  readonly rules: RuleSet;
  readonly maxTurns?: number;
  readonly maxContextTokens?: number;
  readonly stopBlockCap: number;
  readonly quietSuccessOutput: boolean;
  /** Env variables holding provider keys (defaults plus configured `api_key_env`); stripped before hooks and bash (D18). */
  readonly providerKeyVars?: readonly string[];
  /** false with `--no-session`. */
  readonly persist: boolean;
  /** Receives every session line as written (`--output-format stream-json`). */
  readonly onLine?: (line: string) => void;
  /**
   * Receives tool lines, notices and hook rows the moment they happen (live UI), instead of through
   * the generator after each step. Streamed text still comes through the generator, in order.
   */
  readonly onEvent?: (event: AgentEvent) => void;
  /** Resume: the earlier session's id and records (the same file is appended to). */
  readonly resume?: { readonly sessionId: string; readonly records: readonly SessionRecord[] };
  readonly signal: AbortSignal;
  readonly systemPrompt?: string;
  /** Re-pins project trust after the agent itself wrote a project rule (D17, LIFE-57). */
  readonly onProjectSettingsWritten?: () => void;
  /** Set when this run is a subagent started by the `task` tool (src/agent/subagent.ts). */
  readonly child?: ChildRun;
  /**
   * Interactive session (src/ui/interactive.ts): asked for the first prompt after session_start and
   * for the next one after each turn, so one loop serves many prompts. Ignored in a child.
   */
  readonly nextPrompt?: (control: PromptControl) => Promise<NextInput>;
  /** Interactive: a fresh signal per prompt, so Ctrl-C cancels the running turn and not the session. */
  readonly turnSignal?: () => AbortSignal;
  /** Interactive: answers a permission ask no hook decided (without it the ask is denied, LOOP-13). */
  readonly askPermission?: (request: PermissionAsk) => Promise<PermissionAnswer>;
  /** session_start source; default `startup` (`resume` when resuming). `/clear` restarts with `clear`. */
  readonly startSource?: "startup" | "clear";
}

export type NextInput = { readonly type: "prompt"; readonly text: string } | { readonly type: "end"; readonly reason: "exit" | "clear" };

/** What the interactive UI may do between turns; each returns the events it produced, for rendering. */
export interface PromptControl {
  notify(type: "idle_prompt", title: string, message: string): Promise<{ readonly events: AgentEvent[]; readonly shown: { readonly title: string; readonly message: string } | null }>;
  /** `/compact [instructions]`: pre_compact `manual`, the summary, then session_start `compact`. */
  compact(instructions: string): Promise<AgentEvent[]>;
  /** `/hooks reload`: the next tool call uses `hooks` (nothing is running between turns). */
  reloadHooks(hooks: readonly HookSpec[]): Promise<AgentEvent[]>;
}

export type PermissionAnswer = "once" | "always" | "deny";

export interface PermissionAsk {
  readonly tool: string;
  readonly detail: string;
  /** The permission_prompt notification after notification hooks (null: a hook suppressed it). */
  readonly notification: { readonly title: string; readonly message: string } | null;
  /** The rule `a` (always) adds for this session, shown in the prompt. */
  readonly alwaysRule: string | null;
}

/**
 * What makes a run a child session: its id and file under `sessions/subagents/`, the envelope's
 * subagent identity, and the parent-side events that replace the child's own session events.
 */
export interface ChildRun {
  /** Chosen before spawning: subagent_start already names it. */
  readonly sessionId: string;
  readonly parentSessionId: string;
  readonly agentName: string;
  /** subagent_start additionalContext: delivered before the child's prompt, like user_prompt_submit context. */
  readonly promptContext: readonly string[];
  /** Fires the parent-side subagent_stop at the child's stop point, in place of `stop` (D11 rules apply). */
  readonly stop: (fields: Readonly<Record<string, unknown>>) => Promise<EventOutcome>;
}

export type AgentEvent =
  | { readonly type: "session"; readonly sessionId: string; readonly transcriptPath: string | null }
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "reasoning_delta"; readonly text: string }
  | { readonly type: "assistant_done"; readonly text: string }
  | { readonly type: "waiting"; readonly waiting: boolean }
  | { readonly type: "tool_start"; readonly id: string; readonly name: string; readonly detail: string }
  | { readonly type: "tool_end"; readonly id: string; readonly name: string; readonly output: string; readonly success: boolean; readonly rejected: boolean }
  /** Visible lines (stderr in `agent run`): hook info messages, systemMessages, failure lines, warnings, errors. */
  | { readonly type: "notice"; readonly kind: "info" | "system" | "failure" | "warning" | "error"; readonly text: string }
  /**
   * A hook_lifecycle / hook_diagnostic / hook_context_injection record just written (local-only). The
   * interactive session draws Mission Control rows from it (TOOL-64, TOOL-65); `agent run` ignores it.
   */
  | { readonly type: "hook_record"; readonly record: SessionRecord };

export interface SessionResult {
  readonly sessionId: string;
  readonly result: string;
  readonly turns: number;
  readonly toolCalls: number;
  readonly isError: boolean;
  readonly stopReason: StopReason;
  /** One line explaining a non-completed stop (shown on stderr). */
  readonly message: string | null;
}

/** `agent run` and the interactive session exit with: 0 ok, 3 a hook ended it, 130 interrupted, else 1. */
export function exitCodeForStop(reason: StopReason): number {
  switch (reason) {
    case "completed":
    case "stop_block_cap":
      return 0;
    case "hook_blocked":
    case "hook_failed":
      return 3;
    case "interrupted":
      return 130;
    default:
      return 1;
  }
}

export function isErrorStop(reason: StopReason): boolean {
  return !(reason === "completed" || reason === "stop_block_cap");
}
