/**
 * What a dialect receives and returns. A dialect is pure: `encode` builds the stdin bytes and the
 * dialect's alias variables from a dialect-neutral event; `decode` turns a finished process run
 * into a dialect-neutral `HookReply`. Spawning, timeouts, caps and failure policies belong to the
 * form (D22) and to dispatch, never to a dialect.
 */
import type { CanonicalEvent } from "../../util/events.ts";
import type { ToolId } from "../../tools/names.ts";
import type { ToolDetails } from "../../tools/types.ts";
import type { ExitStatus } from "../../runtime/types.ts";
import type { HookSpec } from "../types.ts";

import type { PermissionMode } from "../../permissions/mode.ts";
export type { PermissionMode };

export interface ToolCallInfo {
  readonly name: ToolId;
  readonly callId: string;
  /** The tool input as it stands now (after earlier modifications in the chain). */
  readonly input: Readonly<Record<string, unknown>>;
}

export interface ToolResultInfo {
  readonly success: boolean;
  /** Tool output text (success) or error text (failure). */
  readonly content: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** The tool's structured facts (ToolResult.details); only the claude dialect reads them. */
  readonly details?: ToolDetails;
}

/** Correlation data for envelope `context` (seed 003) — never credentials. */
export interface EnvelopeContext {
  readonly sessionPath: string | null;
  readonly providerId: string | null;
  readonly modelId: string | null;
  readonly agentId: string | null;
  readonly invocationMode: "print" | "shell" | "mission_control" | "subagent";
  readonly turnId: string;
  readonly messageId: string;
  readonly subagent: boolean;
}

/** One event occurrence, independent of dialect. */
export interface HookEventInput {
  readonly event: CanonicalEvent;
  /** Session id; "" only when no session exists yet. */
  readonly sessionId: string;
  /** Session JSONL path; null with `--no-session`. */
  readonly transcriptPath: string | null;
  /** Agent cwd (a subagent's own cwd for its calls). */
  readonly cwd: string;
  readonly projectDir: string;
  readonly permissionMode: PermissionMode;
  readonly tool?: ToolCallInfo;
  /** post_tool / post_tool_failure only. */
  readonly result?: ToolResultInfo;
  /**
   * Event-specific claude payload fields, wire-named: `prompt`, `turn_id`, `source`, `reason`,
   * `stop_hook_active`, `last_assistant_message`, `trigger`, `custom_instructions`,
   * `original_message_count`, `notification_type`, `title`, `message`, `permission_decision`,
   * `permission_request`, `permission_suggestions`, `agent_name`, `parent_session_id`,
   * `child_session_id`, …; for the message phases `text`.
   */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly context: EnvelopeContext;
  /** Values of env variables that were stripped (D18), for redacted payloads. */
  readonly strippedEnvValues: readonly string[];
  /** session_start: the `CLAUDE_ENV_FILE`/`AGENT_ENV_FILE` path (src/agent/session-env.ts); absent elsewhere. */
  readonly envFile?: string;
}

/** Bytes for stdin plus the dialect's alias variables (AGENT_* are set by the runner for all). */
export interface EncodedRequest {
  readonly stdin: Uint8Array;
  readonly env: Readonly<Record<string, string>>;
  /** Files to delete after the hook exits (payload_ref spills). */
  readonly cleanup: readonly string[];
}

/** How the process run ended, as dispatch hands it to `decode`. */
export interface ProcessRun {
  /** `ok`: exited (any code) in time and within caps. Other kinds are form failures. */
  readonly kind: "ok" | "timeout" | "runner" | "stdin" | "output-limit";
  readonly exit: ExitStatus | null;
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
  readonly detail: string;
}

import type { PermissionRuleUpdate } from "../../permissions/rule-update.ts";
export type { PermissionRuleUpdate };

export type ContextItemsStatus = "success" | "invalid_json" | "invalid_shape" | "unsupported_role" | "empty_content" | "over_limit" | "hook_failed";

/** Dialect-neutral decoded reply. Absent fields mean "no opinion". */
export interface HookReply {
  /**
   * `allow` | `deny` | `ask` (pre_tool; permission_request as behavior), `block` (a blocking event:
   * claude exit 2 / decision block; on post_tool from claude this is feedback, see `feedback`),
   * `stop` (action post_tool stop: true or exit 2).
   */
  readonly decision?: "allow" | "deny" | "ask" | "block" | "stop";
  readonly reason?: string;
  /** Whole replacement of the tool input (action modify, claude updatedInput). Validated by dispatch. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** Model-facing contexts in order (action context, claude additionalContext, D19). */
  readonly context: readonly string[];
  /** claude post_tool / post_tool_failure block reasons: feedback joined into `<hook_context>` (D6). */
  readonly feedback?: string;
  /** Hidden context for session_start / user_prompt_submit (plain stdout or additionalContext, D7). */
  readonly hiddenContext: readonly string[];
  /**
   * user_prompt_submit: the prompt the model gets instead (claude `hookSpecificOutput.updatedPrompt`,
   * action `{"action":"modify","prompt":…}`); non-empty only. Chains like a modified input.
   */
  readonly updatedPrompt?: string;
  /** action post_tool `output` rewrite (non-empty only). */
  readonly output?: string;
  readonly systemMessage?: string;
  readonly suppressOutput: boolean;
  /** claude `continue: false`. */
  readonly stopSession?: { readonly reason: string };
  /** Plain stdout shown as an info message (claude, D7). */
  readonly info?: string;
  /** permission_request: `decision.behavior` and friends. */
  readonly permission?: {
    readonly behavior: "allow" | "deny";
    readonly message?: string;
    readonly updatedInput?: Readonly<Record<string, unknown>>;
    readonly updatedPermissions: readonly PermissionRuleUpdate[];
    readonly interrupt: boolean;
  };
  readonly updatedNotification?: { readonly title?: string; readonly message?: string };
  /** Envelope `context_items` result when the hook injects (status per seed 003). */
  readonly contextItems?: { readonly status: ContextItemsStatus; readonly items: readonly { role: "user"; content: string }[]; readonly byteCount: number };
  /** Non-fatal notes (e.g. D9's ignored hookSpecificOutput). */
  readonly warnings: readonly string[];
  /**
   * Set when the hook failed as its dialect/form defines it. `category` is `exit` for dialect
   * failures (invalid JSON, schema, unknown action, non-zero exit) or the ProcessRun kind.
   * Fields above may still be set when a failure keeps an effect (claude: schema-valid JSON with exit 1, D6).
   */
  readonly failure?: {
    readonly category: "exit" | "timeout" | "runner" | "stdin" | "output-limit";
    readonly detail: string;
    /** Fails closed whatever the hook's policy (a pinned file changed). */
    readonly closed?: boolean;
  };
}

export interface Dialect {
  encode(spec: HookSpec, input: HookEventInput, options: EncodeOptions): EncodedRequest;
  decode(spec: HookSpec, input: HookEventInput, run: ProcessRun): HookReply;
}

export interface EncodeOptions {
  /** Index of the hook among its list (`hook.index`), for envelopes. */
  readonly hookIndex: number;
  /** Creates spill directories/files for payload_ref; injected so tests can make it fail (SEC-23). */
  readonly spill?: (bytes: Uint8Array) => { path: string; dir: string } | null;
  readonly timestamp: string;
}
