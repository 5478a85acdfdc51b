/** The agent session's public types: its options, the event union its streams yield, and its result. */
import type { EventFields } from "../hooks/event-fields.ts";
import type { Runtime } from "../runtime/types.ts";
import type { Provider } from "../providers/types.ts";
import type { HookSpec } from "../hooks/types.ts";
import type { RuleSet } from "../permissions/rules.ts";
import type { PermissionMode } from "../permissions/mode.ts";
import type { SessionRecord } from "../session/records.ts";
import type { ApplyPermissionUpdatesResult } from "../permissions/updates.ts";
import type { EventOutcome } from "../hooks/dispatch.ts";
import type { McpTools } from "../mcp/manager.ts";
import type { WebFetchSettings } from "../tools/types.ts";
import type { ToolId } from "../tools/names.ts";
import type { ModelSettings, UsageTotals } from "./usage.ts";

/** `truncated`: two replies in a row were cut off at the output token limit. */
export type StopReason = "completed" | "max_turns" | "hook_blocked" | "hook_failed" | "stop_block_cap" | "error" | "interrupted" | "truncated";

/** What an AgentSession (src/agent/agent-session.ts) is built from; the prompts come later, one per `prompt()`. */
export interface AgentSessionOptions {
  readonly runtime: Runtime;
  readonly provider: Provider;
  /** Hooks to run ([] when hooks are off). */
  readonly hooks: readonly HookSpec[];
  readonly home: string;
  readonly cwd: string;
  readonly projectDir: string;
  readonly permissionMode: PermissionMode;
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
  /** Resume: the earlier session's id and records (the same file is appended to). */
  readonly resume?: { readonly sessionId: string; readonly records: readonly SessionRecord[] };
  /** The session's signal: aborted, it cancels every hook and ends the session as interrupted (130). */
  readonly signal: AbortSignal;
  readonly systemPrompt?: string;
  /** Re-pins the written rules in project trust after the agent itself wrote a project rule (D17, LIFE-57). */
  readonly onProjectSettingsWritten?: (applied: ApplyPermissionUpdatesResult) => void;
  /** Set when this run is a subagent started by the `task` tool (src/agent/subagent.ts). */
  readonly child?: ChildRun;
  /** Interactive: answers a permission ask no hook decided (without it the ask is denied, LOOP-13). */
  readonly askPermission?: (request: PermissionAsk) => Promise<PermissionAnswer>;
  /** Why nobody is asked although a person may be there (a `dontAsk` subagent); named in the refusal. */
  readonly noApprover?: string;
  /** MCP tools offered next to the built-ins (the driver starts and stops the servers). */
  readonly mcp?: McpTools;
  /** Plugin agents for `task` (name → agent file), after the project's and the user's agents (src/plugins/components.ts). */
  readonly agentFiles?: ReadonlyMap<string, string>;
  /** Plugin skills an agent's `skills:` may name (name and `plugin:name` → SKILL.md; src/agent/agent-skills.ts). */
  readonly skillFiles?: ReadonlyMap<string, string>;
  /** Read-only roots beside the workspace for the `read` tool (loaded plugins, so their skills can be read). */
  readonly readRoots?: readonly string[];
  /** session_start source; default `startup` (`resume` when resuming). `/clear` restarts with `clear`. */
  readonly startSource?: "startup" | "clear";
  /** Instruction file names read per directory, in order (`agent.context_files`; default AGENTS.md, CLAUDE.md, GEMINI.md). */
  readonly contextFiles?: readonly string[];
  /** `agent.models`: context windows and prices per model name. */
  readonly models?: Readonly<Record<string, ModelSettings>>;
  /** Sees every event as it is emitted, before the stream yields it (stream-json keeps one order with `onLine`). */
  readonly onEvent?: (event: AgentEvent) => void;
  /** The user's `tools.web_fetch` (hosts allowed); absent or empty: `web_fetch` is not offered. */
  readonly webFetch?: WebFetchSettings;
  /** Sees every record as written, with its session's id (the OTLP audit export, src/hooks/otlp.ts); children inherit it. */
  readonly audit?: (record: SessionRecord, sessionId: string) => void;
  /** A subagent's tool list (its definition's `tools:`): only these are offered, a call to another is refused. */
  readonly toolAccess?: ToolAccess;
  /** Why a model may not be used (the managed provider policy), or null; a subagent's `model:` is checked with it. */
  readonly modelRefusal?: (model: string) => string | null;
}

/** Which tools a session offers and may call (src/agent/agent-definition.ts). */
export interface ToolAccess {
  readonly offers: (tool: ToolId) => boolean;
  /** The refusal the model gets for a call to a tool not offered. */
  readonly refusal: (tool: ToolId) => string;
}

/**
 * `always`: the suggested rule for this session; `always-project`: saved to `.agent/settings.json`
 * too; `always-user`: saved to `$AGENT_HOME/settings.json` too (every project of this user).
 */
export type PermissionAnswer = "once" | "always" | "always-project" | "always-user" | "deny";

export interface PermissionAsk {
  readonly tool: string;
  readonly detail: string;
  /** The permission_prompt notification after notification hooks (null: a hook suppressed it). */
  readonly notification: { readonly title: string; readonly message: string } | null;
  /** The rule `a` (always) adds (for this session, or saved to the project), shown in the prompt. */
  readonly alwaysRule: string | null;
  /** The call's input as it would run (the interactive question shows an edit's or write's diff). */
  readonly input?: Readonly<Record<string, unknown>>;
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
  readonly stop: (fields: EventFields["stop"]) => Promise<EventOutcome>;
  /** The parent's CLAUDE_ENV_FILE variables when the child starts (it fires no session_start of its own). */
  readonly env: Readonly<Record<string, string>>;
}

export type AgentEvent =
  | { readonly type: "session"; readonly sessionId: string; readonly transcriptPath: string | null }
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "reasoning_delta"; readonly text: string }
  | { readonly type: "assistant_done"; readonly text: string }
  | { readonly type: "waiting"; readonly waiting: boolean }
  | { readonly type: "tool_start"; readonly id: string; readonly name: string; readonly detail: string }
  /** A running tool's output so far (bash): lines seen and the last one, at most a few times a second. */
  | { readonly type: "tool_progress"; readonly id: string; readonly lines: number; readonly last: string }
  | {
      readonly type: "tool_end";
      readonly id: string;
      readonly name: string;
      readonly output: string;
      readonly success: boolean;
      readonly rejected: boolean;
      /** A file tool's change (edit, multi_edit, write): the interactive session shows its diff. */
      readonly change?: { readonly path: string; readonly before: string; readonly after: string };
    }
  /** Visible lines (stderr in `agent run`): hook info messages, systemMessages, failure lines, warnings, errors. */
  | { readonly type: "notice"; readonly kind: "info" | "system" | "failure" | "warning" | "error"; readonly text: string }
  /**
   * A hook_lifecycle / hook_diagnostic / hook_context_injection record just written (local-only). The
   * interactive session draws Mission Control rows from it (TOOL-64, TOOL-65); `agent run` ignores it.
   */
  | { readonly type: "hook_record"; readonly record: SessionRecord }
  /** A hook decided something: denied or allowed a tool call, asked, blocked a prompt or stop, stopped the session. */
  | {
      readonly type: "hook_decision";
      readonly event: string;
      readonly decision: HookDecisionKind;
      readonly reason: string | null;
      readonly toolName: string | null;
      readonly toolCallId: string | null;
    };

export type HookDecisionKind = "deny" | "allow" | "ask" | "block" | "stop";

export interface SessionResult {
  readonly sessionId: string;
  readonly result: string;
  readonly turns: number;
  readonly toolCalls: number;
  readonly isError: boolean;
  readonly stopReason: StopReason;
  /** One line explaining a non-completed stop (shown on stderr). */
  readonly message: string | null;
  /** Tokens of every provider request of the session (this process's part of a resumed one). */
  readonly usage: UsageTotals;
  /** USD, when prices for the model are configured (`agent.models`); else null. */
  readonly costUsd: number | null;
  /** Milliseconds spent waiting for provider replies. */
  readonly apiMs: number;
}

/**
 * How one `prompt()` ended. `endsSession`: the session is over (a hook ended it, `--max-turns`, a
 * stop hook's `continue: false`, the stop-block cap); otherwise an interactive driver goes back to
 * the prompt (`interrupted`: the turn was cancelled; a `message`: why the turn ended early).
 */
export interface TurnOutcome {
  readonly stopReason: StopReason;
  readonly message: string | null;
  readonly endsSession: boolean;
}

export function isErrorStop(reason: StopReason): boolean {
  return !(reason === "completed" || reason === "stop_block_cap");
}
