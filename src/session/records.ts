/**
 * Session JSONL records (DESIGN.md record table, D25): `{type, timestamp, …fields}` with the fields at
 * top level. Schemas validate lines read back; `buildRecord` copies exactly the allowlisted keys of a
 * type, in table order, so a caller passing a wider object can never leak command text, hook output
 * or tool arguments into `hook_lifecycle`, `hook_diagnostic` or `hook_context_injection` (seed 003,
 * TOOL-63, SEC-39). Wire names are snake_case here because this file is the session wire.
 */
import * as v from "valibot";
import { CANONICAL_EVENTS } from "../util/events.ts";
import { isMcpToolName, TOOL_NAMES, type McpToolName } from "../tools/names.ts";

const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const NullableString = v.nullable(v.string());
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Millis = v.pipe(v.number(), v.minValue(0));
const JsonObject = v.record(v.string(), v.unknown());

export const HOOK_PHASES = [...CANONICAL_EVENTS, "before_tool", "after_tool"] as const;
export const HOOK_POLICIES = ["ignore", "warn", "block", "fail", "fail_closed", "fail_open"] as const;
export const HOOK_CATEGORIES = ["exit", "timeout", "runner", "stdin", "output-limit"] as const;
export const HOOK_TARGETS = [...TOOL_NAMES, "assistant", "reasoning"] as const;
/** A hook record's target: a built-in tool, a message phase, or an MCP tool (`mcp__<server>__<tool>`). */
const HookTarget = v.union([v.picklist(HOOK_TARGETS), v.custom<McpToolName>((value) => typeof value === "string" && isMcpToolName(value))]);
export const CONTEXT_INJECTION_STATUSES = [
  "success",
  "invalid_json",
  "invalid_shape",
  "unsupported_role",
  "empty_content",
  "over_limit",
  "hook_failed",
] as const;

/** Fields of `hook_lifecycle` and `hook_diagnostic`, exactly seed 003's allowlist. */
const hookLifecycleEntries = {
  phase: v.picklist(HOOK_PHASES),
  label: v.string(),
  target_tool: v.nullable(HookTarget),
  status: v.picklist(["started", "success", "failed"]),
  policy: v.picklist(HOOK_POLICIES),
  category: v.nullable(v.picklist(HOOK_CATEGORIES)),
  /** null while `started` (not known yet) and for events without a target. */
  target_ran: v.nullable(v.boolean()),
  tool_call_id: NullableString,
  activity_id: NullableString,
  hook_index: Count,
  /** null on `started`. */
  elapsed_ms: v.nullable(Millis),
  /** Failure or warning detail without any hook output (SEC-20); null otherwise. */
  message: NullableString,
};

/** The events whose decisions are recorded (`hook_decision`) and replayed. */
export const DECISION_EVENTS = ["pre_tool", "permission_request", "post_tool", "user_prompt_submit", "stop"] as const;
export const VERDICTS = ["allow", "deny", "ask", "block", "none"] as const;

const recordEntries = {
  session_start: {
    session_id: v.string(),
    source: v.string(),
    cwd: v.string(),
    project_dir: v.string(),
    provider: v.string(),
    model: v.string(),
    parent_session_id: v.optional(v.string()),
    agent_name: v.optional(v.string()),
  },
  /** `content` is what the model got; `original_prompt` what was typed, when a user_prompt_submit hook rewrote it. */
  user: { content: v.string(), original_prompt: v.optional(v.string()) },
  reasoning: { content: v.string() },
  assistant: {
    message_id: v.string(),
    content: v.string(),
    tool_calls: v.array(v.object({ id: v.string(), name: v.string(), arguments: v.string() })),
  },
  tool_call: {
    tool_call_id: v.string(),
    tool_name: v.string(),
    /** As the model sent it: an object, or the raw argument text when it was not one. */
    input: v.union([JsonObject, v.string()]),
  },
  tool_result: {
    tool_call_id: v.string(),
    tool_name: v.string(),
    input: v.union([JsonObject, v.string()]),
    success: v.boolean(),
    content: v.string(),
    metadata: JsonObject,
    /** The permission gate's decision (absent when a hook denied first, and in older files): `agent hooks replay` compares with it. */
    permission: v.optional(
      v.object({
        mode: v.string(),
        decision: v.picklist(["allow", "deny", "ask"]),
        rule: v.optional(v.string()),
        reason: v.string(),
        answered_by: v.optional(v.picklist(["hook", "user", "nobody"])),
      }),
    ),
  },
  /**
   * `content` is what the provider got, `output` the result before hook context was appended. For an
   * output kept in the session's outputs directory (the tool_result's `metadata.output_file`), either is
   * left out when it equals that tool_result's `content`: the preview is stored once (`deliveredTexts`).
   */
  tool_result_delivered: { tool_call_id: v.string(), content: v.optional(v.string()), output: v.optional(v.string()) },
  hook_lifecycle: hookLifecycleEntries,
  hook_diagnostic: { ...hookLifecycleEntries, status: v.picklist(["success", "failed", "warning"]) },
  hook_context_injection: {
    schema_version: v.literal(1),
    phase: v.picklist(HOOK_PHASES),
    label: v.string(),
    target_tool: v.nullable(HookTarget),
    status: v.picklist(CONTEXT_INJECTION_STATUSES),
    item_count: Count,
    byte_count: Count,
    max_bytes: Count,
    hook_index: Count,
  },
  provider_context_item: { role: v.literal("user"), content: v.string() },
  compaction: { trigger: v.picklist(["manual", "auto"]), summary: v.string(), original_message_count: Count },
  /**
   * The session's persisted variables after a session_start hook wrote to `CLAUDE_ENV_FILE`: the
   * whole set, so the last record is the state; names only (no hook output).
   */
  session_env: { env: v.record(v.string(), v.string()) },
  session_end: { reason: v.string(), stop_reason: v.string(), is_error: v.boolean() },
  /**
   * What the hooks of one decision event decided, written after its hook records when at least one
   * hook ran: `agent hooks replay` compares today's hooks with it. `reason` is the text the model or
   * user was shown; `prompt` (user_prompt_submit only) is what was typed, since a blocked prompt has
   * no `user` record.
   */
  hook_decision: {
    event: v.picklist(DECISION_EVENTS),
    tool_call_id: NullableString,
    decision: v.picklist(VERDICTS),
    reason: NullableString,
    decided_by: NullableString,
    decided_by_scope: NullableString,
    prompt: v.optional(v.string()),
  },
} as const;

type Entries = typeof recordEntries;
export type RecordType = keyof Entries;
export const RECORD_TYPES = Object.keys(recordEntries) as RecordType[];

const base = { timestamp: Timestamp };

// Hook records are strict so a reader also rejects anything outside the allowlist (SEC-39).
const schemas = {
  session_start: v.object({ type: v.literal("session_start"), ...base, ...recordEntries.session_start }),
  user: v.object({ type: v.literal("user"), ...base, ...recordEntries.user }),
  reasoning: v.object({ type: v.literal("reasoning"), ...base, ...recordEntries.reasoning }),
  assistant: v.object({ type: v.literal("assistant"), ...base, ...recordEntries.assistant }),
  tool_call: v.object({ type: v.literal("tool_call"), ...base, ...recordEntries.tool_call }),
  tool_result: v.object({ type: v.literal("tool_result"), ...base, ...recordEntries.tool_result }),
  tool_result_delivered: v.object({ type: v.literal("tool_result_delivered"), ...base, ...recordEntries.tool_result_delivered }),
  hook_lifecycle: v.strictObject({ type: v.literal("hook_lifecycle"), ...base, ...recordEntries.hook_lifecycle }),
  hook_diagnostic: v.strictObject({ type: v.literal("hook_diagnostic"), ...base, ...recordEntries.hook_diagnostic }),
  hook_context_injection: v.strictObject({ type: v.literal("hook_context_injection"), ...base, ...recordEntries.hook_context_injection }),
  provider_context_item: v.object({ type: v.literal("provider_context_item"), ...base, ...recordEntries.provider_context_item }),
  compaction: v.object({ type: v.literal("compaction"), ...base, ...recordEntries.compaction }),
  session_env: v.object({ type: v.literal("session_env"), ...base, ...recordEntries.session_env }),
  session_end: v.object({ type: v.literal("session_end"), ...base, ...recordEntries.session_end }),
  hook_decision: v.strictObject({ type: v.literal("hook_decision"), ...base, ...recordEntries.hook_decision }),
};

export const SessionRecordSchema = v.variant("type", [
  schemas.session_start,
  schemas.user,
  schemas.reasoning,
  schemas.assistant,
  schemas.tool_call,
  schemas.tool_result,
  schemas.tool_result_delivered,
  schemas.hook_lifecycle,
  schemas.hook_diagnostic,
  schemas.hook_context_injection,
  schemas.provider_context_item,
  schemas.compaction,
  schemas.session_env,
  schemas.session_end,
  schemas.hook_decision,
]);

export type SessionRecord = v.InferOutput<typeof SessionRecordSchema>;
export type RecordOf<T extends RecordType> = Extract<SessionRecord, { type: T }>;
/** What a caller supplies for a record of type T (everything but `type` and `timestamp`). */
export type RecordFields<T extends RecordType> = Omit<RecordOf<T>, "type" | "timestamp">;
export type HookLifecycleFields = RecordFields<"hook_lifecycle">;
export type HookDiagnosticFields = RecordFields<"hook_diagnostic">;
export type HookContextInjectionFields = RecordFields<"hook_context_injection">;

/**
 * Builds a record of `type` holding only that type's fields, in table order; optional fields that are
 * undefined are left out. Extra properties on `fields` are dropped (the allowlist guarantee).
 */
export function buildRecord<T extends RecordType>(type: T, fields: RecordFields<T>, timestamp: string): RecordOf<T> {
  const source: Readonly<Record<string, unknown>> = fields;
  const out: Record<string, unknown> = { type, timestamp };
  for (const key of Object.keys(recordEntries[type])) {
    const value = source[key];
    if (value !== undefined) out[key] = value;
  }
  // The keys copied are exactly RecordOf<T>'s keys, taken from `fields`, which the signature types.
  return out as RecordOf<T>;
}

/**
 * A delivered result's two texts; a field the writer left out (equal to the raw result, see
 * `tool_result_delivered`) comes from `raw`, the `content` of the call's `tool_result`.
 */
export function deliveredTexts(record: RecordOf<"tool_result_delivered">, raw: string | undefined): { content: string; output: string } {
  return { content: record.content ?? raw ?? "", output: record.output ?? raw ?? "" };
}

export type RecordParseResult = { ok: true; record: SessionRecord } | { ok: false; error: string };

/** Validates one parsed JSON value as a session record; the error names the first failing field. */
export function parseRecord(value: unknown): RecordParseResult {
  const result = v.safeParse(SessionRecordSchema, value);
  if (result.success) return { ok: true, record: result.output };
  const issue = result.issues[0];
  const path = issue ? v.getDotPath(issue) : null;
  return { ok: false, error: path ? `${path}: ${issue?.message ?? "invalid"}` : (issue?.message ?? "invalid record") };
}

/** The record's line: compact JSON and one `\n`, the unit appended to the file and streamed. */
export function recordLine(record: SessionRecord): string {
  return `${JSON.stringify(record)}\n`;
}
