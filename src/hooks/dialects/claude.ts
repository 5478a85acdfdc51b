/**
 * The `claude` dialect (seed 002): Claude-Code-compatible JSON payload on stdin, `CLAUDE_*`/`VT_*`
 * alias variables, and Claude Code's reply rules (D6 exit codes, D7 stdout, D8 decisions, D9
 * hookEventName). Default dialect of lifecycle commands; hook dirs and list hooks get it with
 * `protocol: "claude"` (D22).
 *
 * Pure: no spawning, caps or failure policy here (those belong to the form and to dispatch).
 */
import * as v from "valibot";
import { CLAUDE_EVENT_NAMES, EVENT_ALIASES, TOOL_EVENTS, type CanonicalEvent } from "../../util/events.ts";
import { claudeToolName } from "../../tools/names.ts";
import { claudeTranscriptPath } from "../../session/transcript.ts";
import type { HookSpec } from "../types.ts";
import { cutUtf8 } from "../merge/context.ts";
import { decodeText } from "./action.ts";
import { claudeToolResponse } from "./claude-tool-response.ts";
import type { Dialect, EncodedRequest, EncodeOptions, HookEventInput, HookReply, PermissionMode, PermissionRuleUpdate, ProcessRun } from "./types.ts";

const encoder = new TextEncoder();

/** D6: exit-2 stderr reasons are cut at this many bytes. */
export const CLAUDE_STDERR_REASON_MAX_BYTES = 4096;

/** How exit 2 / `decision: "block"` acts per event (D6, D8, LIFE-50..65). */
export type ClaudeBlockKind = "deny" | "feedback" | "block" | "none";

/**
 * `deny`: a tool-call deny (pre_tool; permission_request as `behavior: "deny"`). `feedback`: the
 * reason joins `<hook_context>` and the session goes on (D6). `block`: the event is blocked
 * (prompt not sent, stop refused, child not spawned, compaction skipped, child sent back).
 * `none`: the event cannot be blocked (LIFE-52/53/63): exit 2 is a plain non-zero exit there.
 */
export const CLAUDE_BLOCK_KIND: Readonly<Record<CanonicalEvent, ClaudeBlockKind>> = {
  pre_tool: "deny",
  permission_request: "deny",
  post_tool: "feedback",
  post_tool_failure: "feedback",
  user_prompt_submit: "block",
  stop: "block",
  subagent_start: "block",
  subagent_stop: "block",
  pre_compact: "block",
  session_start: "none",
  session_end: "none",
  notification: "none",
  after_assistant: "none",
  after_reasoning: "none",
};

/** D24's mode names as claude hooks see them. */
export const CLAUDE_PERMISSION_MODES: Readonly<Record<PermissionMode, string>> = {
  default: "default",
  "accept-edits": "acceptEdits",
  readonly: "plan",
  bypass: "bypassPermissions",
};

/** D7: plain stdout of these events is hidden model context; `additionalContext` is too. */
const HIDDEN_CONTEXT_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["session_start", "user_prompt_submit"]);
/** Events where `updatedInput` replaces an input (D8). */
const UPDATED_INPUT_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["pre_tool", "permission_request", "subagent_start"]);

const plainObjectSchema = v.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object",
);
/** Case-insensitive, trimmed enum values (behavior is case-insensitive per LIFE-55). */
const looseEnum = <const T extends string>(values: readonly [T, ...T[]]) => v.pipe(v.string(), v.trim(), v.toLowerCase(), v.picklist(values));

const RuleUpdateSchema = v.looseObject({
  type: v.string(),
  rules: v.array(v.looseObject({ toolName: v.string(), ruleContent: v.optional(v.string()) })),
  behavior: v.picklist(["allow", "deny", "ask"]),
  destination: v.picklist(["session", "projectSettings", "userSettings", "localSettings"]),
});

const PermissionDecisionSchema = v.looseObject({
  behavior: v.optional(looseEnum(["allow", "deny"])),
  message: v.optional(v.string()),
  updatedInput: v.optional(plainObjectSchema),
  updatedPermissions: v.optional(v.union([RuleUpdateSchema, v.array(RuleUpdateSchema)])),
  interrupt: v.optional(v.boolean()),
});

const HookSpecificSchema = v.looseObject({
  hookEventName: v.optional(v.string()),
  permissionDecision: v.optional(looseEnum(["allow", "deny", "ask"])),
  permissionDecisionReason: v.optional(v.string()),
  updatedInput: v.optional(plainObjectSchema),
  updatedPrompt: v.optional(v.string()),
  additionalContext: v.optional(v.union([v.string(), v.array(v.string())])),
  decision: v.optional(PermissionDecisionSchema),
  updatedNotification: v.optional(v.looseObject({ title: v.optional(v.string()), message: v.optional(v.string()) })),
});
type HookSpecific = v.InferOutput<typeof HookSpecificSchema>;
const EventNameSchema = v.looseObject({ hookEventName: v.optional(v.string()) });

/** Top-level keys; `hookSpecificOutput` is checked separately so D9 can ignore a foreign block. */
const OutputSchema = v.looseObject({
  continue: v.optional(v.boolean()),
  stopReason: v.optional(v.string()),
  suppressOutput: v.optional(v.boolean()),
  systemMessage: v.optional(v.string()),
  decision: v.optional(looseEnum(["approve", "block"])),
  reason: v.optional(v.string()),
  hookSpecificOutput: v.optional(v.unknown()),
});
type Output = v.InferOutput<typeof OutputSchema>;

interface ParsedJson {
  readonly output: Output;
  /** Undefined when absent or ignored by D9. */
  readonly specific: HookSpecific | undefined;
  readonly warnings: readonly string[];
}

function issuePath(issues: readonly v.BaseIssue<unknown>[], prefix: string): string {
  const issue = issues[0];
  const path = issue ? v.getDotPath(issue) : null;
  if (path === null || path === "") return prefix === "" ? "output" : prefix;
  return prefix === "" ? path : `${prefix}.${path}`;
}

/** D9: every name of `event`, lower-cased (canonical, aliases, Claude-style). */
function eventNames(event: CanonicalEvent): Set<string> {
  return new Set([event, ...EVENT_ALIASES[event], CLAUDE_EVENT_NAMES[event]].map((name) => name.toLowerCase()));
}

/** D7: parse + schema. A failure means none of the output takes effect. */
function parseJson(text: string, event: CanonicalEvent): { ok: true; value: ParsedJson } | { ok: false; detail: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, detail: "invalid JSON" };
  }
  const top = v.safeParse(OutputSchema, json);
  if (!top.success) return { ok: false, detail: `schema: ${issuePath(top.issues, "")}` };
  const raw = top.output.hookSpecificOutput;
  if (raw === undefined) return { ok: true, value: { output: top.output, specific: undefined, warnings: [] } };
  // D9 first: a block addressed to another event is ignored whole, whatever else it holds.
  const named = v.safeParse(EventNameSchema, raw);
  if (!named.success) return { ok: false, detail: `schema: ${issuePath(named.issues, "hookSpecificOutput")}` };
  const name = named.output.hookEventName;
  if (name !== undefined && !eventNames(event).has(name.trim().toLowerCase())) {
    const warning = `hookSpecificOutput ignored: hookEventName ${JSON.stringify(name)} does not name ${event}`;
    return { ok: true, value: { output: top.output, specific: undefined, warnings: [warning] } };
  }
  const specific = v.safeParse(HookSpecificSchema, raw);
  if (!specific.success) return { ok: false, detail: `schema: ${issuePath(specific.issues, "hookSpecificOutput")}` };
  return { ok: true, value: { output: top.output, specific: specific.output, warnings: [] } };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text !== undefined && text !== "" ? text : undefined;
}

function toRuleUpdates(value: HookSpecific["decision"]): PermissionRuleUpdate[] {
  const raw = value?.updatedPermissions;
  if (raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((entry) => ({
    type: entry.type,
    rules: entry.rules.map((rule) =>
      rule.ruleContent === undefined ? { toolName: rule.toolName } : { toolName: rule.toolName, ruleContent: rule.ruleContent },
    ),
    behavior: entry.behavior,
    destination: entry.destination,
  }));
}

/** Mutable builder; frozen into a HookReply at the end. */
interface Draft {
  decision?: HookReply["decision"];
  reason?: string;
  updatedInput?: Readonly<Record<string, unknown>>;
  updatedPrompt?: string;
  context: string[];
  feedback?: string;
  hiddenContext: string[];
  systemMessage?: string;
  suppressOutput: boolean;
  stopSession?: { readonly reason: string };
  info?: string;
  permission?: HookReply["permission"];
  updatedNotification?: HookReply["updatedNotification"];
  warnings: string[];
  failure?: HookReply["failure"];
}

/** The reason a JSON reply gives for a deny/block, per event (used by exit 2 too, D6). */
function jsonReason(event: CanonicalEvent, parsed: ParsedJson): string | undefined {
  const { output, specific } = parsed;
  if (event === "pre_tool") return nonEmpty(specific?.permissionDecisionReason) ?? nonEmpty(output.reason);
  if (event === "permission_request") return nonEmpty(specific?.decision?.message) ?? nonEmpty(output.reason);
  return nonEmpty(output.reason);
}

function setPermission(draft: Draft, behavior: "allow" | "deny", parsed: ParsedJson | undefined, message: string | undefined): void {
  const decision = parsed?.specific?.decision;
  const updatedInput = decision?.updatedInput ?? parsed?.specific?.updatedInput;
  draft.decision = behavior;
  if (message !== undefined) draft.reason = message;
  draft.permission = {
    behavior,
    ...(message !== undefined ? { message } : {}),
    ...(updatedInput !== undefined && behavior === "allow" ? { updatedInput } : {}),
    updatedPermissions: behavior === "allow" ? toRuleUpdates(decision) : [],
    interrupt: decision?.interrupt ?? false,
  };
}

/** Applies the effects of schema-valid JSON (D8) to the draft. */
function applyJson(draft: Draft, event: CanonicalEvent, parsed: ParsedJson): void {
  const { output, specific } = parsed;
  const kind = CLAUDE_BLOCK_KIND[event];
  draft.warnings.push(...parsed.warnings);
  if (output.systemMessage !== undefined) draft.systemMessage = output.systemMessage;
  if (output.suppressOutput !== undefined) draft.suppressOutput = output.suppressOutput;

  const extra = specific?.additionalContext;
  const entries = (extra === undefined ? [] : Array.isArray(extra) ? extra : [extra]).filter((entry) => entry !== "");
  if (HIDDEN_CONTEXT_EVENTS.has(event)) draft.hiddenContext.push(...entries.map((entry) => entry.trimEnd()).filter((e) => e !== ""));
  else draft.context.push(...entries);

  if (specific?.updatedInput !== undefined && UPDATED_INPUT_EVENTS.has(event)) draft.updatedInput = specific.updatedInput;
  if (event === "user_prompt_submit" && specific?.updatedPrompt !== undefined) {
    if (specific.updatedPrompt.trim() === "") draft.warnings.push("updatedPrompt is empty; the prompt is kept");
    else draft.updatedPrompt = specific.updatedPrompt;
  }
  if (event === "notification" && specific?.updatedNotification !== undefined) {
    const { title, message } = specific.updatedNotification;
    draft.updatedNotification = { ...(title !== undefined ? { title } : {}), ...(message !== undefined ? { message } : {}) };
  }

  if (event === "pre_tool") {
    const decision = specific?.permissionDecision ?? (output.decision === "approve" ? "allow" : output.decision === "block" ? "deny" : undefined);
    if (decision !== undefined) {
      draft.decision = decision;
      const reason = jsonReason(event, parsed) ?? (decision === "deny" ? "blocked by hook" : undefined);
      if (reason !== undefined) draft.reason = reason;
    }
  } else if (event === "permission_request") {
    const behavior = specific?.decision?.behavior ?? (output.decision === "approve" ? "allow" : output.decision === "block" ? "deny" : undefined);
    if (behavior !== undefined) {
      setPermission(draft, behavior, parsed, jsonReason(event, parsed) ?? (behavior === "deny" ? "blocked by hook" : undefined));
    }
    const updated = specific?.decision?.updatedInput ?? specific?.updatedInput;
    if (updated !== undefined) draft.updatedInput = updated;
  } else if (output.decision === "block") {
    const reason = jsonReason(event, parsed) ?? "blocked by hook";
    if (kind === "feedback") draft.feedback = reason;
    else if (kind === "block") {
      draft.decision = "block";
      draft.reason = reason;
    } else draft.warnings.push(`decision "block" has no effect on ${event}`);
  }

  if (output.continue === false && event !== "session_end") {
    const reason = nonEmpty(output.stopReason) ?? "stopped by hook";
    draft.stopSession = { reason };
    // D8: on pre_tool it denies, on permission_request it denies, on user_prompt_submit it blocks.
    if (event === "pre_tool" && draft.decision !== "deny") {
      draft.decision = "deny";
      draft.reason = reason;
    } else if (event === "permission_request" && draft.decision !== "deny") {
      setPermission(draft, "deny", parsed, reason);
    } else if (event === "user_prompt_submit" && draft.decision !== "block") {
      draft.decision = "block";
      draft.reason = reason;
    } else if (event === "stop") {
      // LIFE-61: the agent stops with its drafted reply; nothing is fed back, even beside a block.
      delete draft.decision;
      delete draft.reason;
    }
  }
}

/** D6: exit 2 on a blocking event is a decision whose reason is JSON, else stderr, else the default. */
function applyExit2(draft: Draft, event: CanonicalEvent, parsed: ParsedJson | undefined, stderr: Uint8Array): void {
  const stderrText = cutUtf8(decodeText(stderr).trimEnd(), CLAUDE_STDERR_REASON_MAX_BYTES);
  const reason = (parsed ? jsonReason(event, parsed) : undefined) ?? nonEmpty(stderrText) ?? "blocked by hook (exit 2)";
  switch (CLAUDE_BLOCK_KIND[event]) {
    case "deny":
      // Beats a JSON allow (LIFE-31); a replaced input of a denied call is meaningless.
      delete draft.updatedInput;
      if (event === "permission_request") setPermission(draft, "deny", parsed, reason);
      else {
        draft.decision = "deny";
        draft.reason = reason;
      }
      return;
    case "feedback":
      draft.feedback = reason;
      return;
    case "block":
      // LIFE-61: on stop, `continue: false` ends the session with the drafted reply instead.
      if (event === "stop" && draft.stopSession !== undefined) return;
      draft.decision = "block";
      draft.reason = reason;
      return;
    case "none":
      return;
  }
}

function freeze(draft: Draft): HookReply {
  const reply: { -readonly [K in keyof HookReply]: HookReply[K] } = {
    context: draft.context,
    hiddenContext: draft.hiddenContext,
    suppressOutput: draft.suppressOutput,
    warnings: draft.warnings,
  };
  if (draft.decision !== undefined) reply.decision = draft.decision;
  if (draft.reason !== undefined) reply.reason = draft.reason;
  if (draft.updatedInput !== undefined) reply.updatedInput = draft.updatedInput;
  if (draft.updatedPrompt !== undefined) reply.updatedPrompt = draft.updatedPrompt;
  if (draft.feedback !== undefined) reply.feedback = draft.feedback;
  if (draft.systemMessage !== undefined) reply.systemMessage = draft.systemMessage;
  if (draft.stopSession !== undefined) reply.stopSession = draft.stopSession;
  if (draft.info !== undefined) reply.info = draft.info;
  if (draft.permission !== undefined) reply.permission = draft.permission;
  if (draft.updatedNotification !== undefined) reply.updatedNotification = draft.updatedNotification;
  if (draft.failure !== undefined) reply.failure = draft.failure;
  return reply;
}

/** subagent_start `hookSpecificOutput.updatedPrompt`: a string, else a schema failure (D7). */
function taskPromptOf(parsed: ParsedJson): { ok: true; prompt: string } | { ok: false; detail: string } | undefined {
  const value = parsed.specific?.updatedPrompt;
  if (value === undefined) return undefined;
  return typeof value === "string" ? { ok: true, prompt: value } : { ok: false, detail: "schema: hookSpecificOutput.updatedPrompt" };
}

function decode(spec: HookSpec, input: HookEventInput, run: ProcessRun): HookReply {
  const event = spec.event;
  const draft: Draft = { context: [], hiddenContext: [], suppressOutput: false, warnings: [] };
  // A form failure (timeout, caps, spawn, stdin): nothing of stdout is used (LIFE-44).
  if (run.kind !== "ok") return freeze({ ...draft, failure: { category: run.kind, detail: run.detail } });
  if (run.exit === null) return freeze({ ...draft, failure: { category: "runner", detail: run.detail || "no exit status" } });

  const code = run.exit.code;
  const exit2Decides = code === 2 && CLAUDE_BLOCK_KIND[event] !== "none";
  // D6: any other non-zero exit (or a signal) is a failure that never blocks by itself.
  const exitFailure = code === null ? `killed by signal ${run.exit.signal ?? "unknown"}` : code !== 0 && !exit2Decides ? `exited ${code}` : undefined;
  if (exitFailure !== undefined) draft.failure = { category: "exit", detail: exitFailure };

  const text = decodeText(run.stdout);
  let parsed: ParsedJson | undefined;
  if (text.trimStart().startsWith("{")) {
    const result = parseJson(text, event);
    if (result.ok) parsed = result.value;
    else if (exit2Decides) draft.warnings.push(`stdout ignored: ${result.detail}`);
    else if (exitFailure === undefined) return freeze({ ...draft, failure: { category: "exit", detail: result.detail } });
    else return freeze(draft);
  } else {
    const plain = text.trimEnd();
    if (plain !== "") {
      // A failed hook's plain stdout is shown, never injected (quiet mode does not hide it, LIFE-44).
      if (HIDDEN_CONTEXT_EVENTS.has(event) && exitFailure === undefined) draft.hiddenContext.push(plain);
      else draft.info = plain;
    }
  }

  if (parsed !== undefined) {
    const prompt = event === "subagent_start" ? taskPromptOf(parsed) : undefined;
    if (prompt?.ok === false) return freeze({ ...draft, failure: { category: "exit", detail: prompt.detail } });
    applyJson(draft, event, parsed);
    // `updatedPrompt` rewrites the task prompt and keeps the rest of the task input.
    if (prompt?.ok && input.tool !== undefined) draft.updatedInput = { ...(draft.updatedInput ?? input.tool.input), prompt: prompt.prompt };
  }
  if (exit2Decides) applyExit2(draft, event, parsed, run.stderr);
  return freeze(draft);
}

/**
 * The claude payload (LIFE-22..28, PLUS-12): common keys, tool keys on tool events, then every
 * event field of `input.fields` that does not collide with a key set here.
 */
export function encodeClaudePayload(spec: HookSpec, input: HookEventInput): Record<string, unknown> {
  const event = spec.event;
  const payload: Record<string, unknown> = {
    session_id: input.sessionId,
    // Claude Code's transcript shape, beside the session file (src/session/transcript.ts).
    transcript_path: claudeTranscriptPath(input.transcriptPath),
    cwd: input.cwd,
    hook_event_name: CLAUDE_EVENT_NAMES[event],
    permission_mode: CLAUDE_PERMISSION_MODES[input.permissionMode],
  };
  if (TOOL_EVENTS.has(event) && input.tool !== undefined) {
    payload.tool_name = claudeToolName(input.tool.name);
    payload.tool_input = input.tool.input;
    payload.tool_use_id = input.tool.callId;
    payload.tool_call_id = input.tool.callId;
    const result = input.result;
    if (event === "post_tool" && result !== undefined) {
      payload.tool_response = claudeToolResponse(input.tool, result);
    }
    if (event === "post_tool_failure" && result !== undefined) payload.error = result.content;
  }
  // Every event inside a subagent names it, as Claude Code's agent_id/agent_type do.
  if (input.context.subagent && input.context.agentId !== null) {
    payload.agent_id = input.sessionId;
    payload.agent_type = input.context.agentId;
  }
  // subagent_start/subagent_stop: the child's transcript, under Claude Code's name too.
  if (event === "subagent_start" || event === "subagent_stop") payload.agent_transcript_path = payload.transcript_path;
  for (const [key, value] of Object.entries(input.fields)) {
    if (!(key in payload)) payload[key] = value;
  }
  return payload;
}

/**
 * Each event input's request, built once: every claude hook of the event (a concurrent batch of ten
 * included) gets the same payload and variables, which depend only on the input and the event, so
 * the payload is serialised once instead of once per hook. Inputs are never changed in place (a
 * rewritten tool input is a new object), so the input object is the key; the request is frozen.
 */
const requestsByInput = new WeakMap<HookEventInput, { readonly event: CanonicalEvent; readonly request: EncodedRequest }>();

function encode(spec: HookSpec, input: HookEventInput, options: EncodeOptions): EncodedRequest {
  void options;
  const known = requestsByInput.get(input);
  if (known !== undefined && known.event === spec.event) return known.request;
  const request = buildRequest(spec, input);
  requestsByInput.set(input, { event: spec.event, request });
  return request;
}

function buildRequest(spec: HookSpec, input: HookEventInput): EncodedRequest {
  const line = `${JSON.stringify(encodeClaudePayload(spec, input))}\n`;
  const env: Record<string, string> = {
    VT_PROJECT_DIR: input.projectDir,
    CLAUDE_PROJECT_DIR: input.projectDir,
    VT_SESSION_ID: input.sessionId,
    CLAUDE_SESSION_ID: input.sessionId,
    VT_HOOK_EVENT: CLAUDE_EVENT_NAMES[spec.event],
  };
  // D25: unset (not empty) with `--no-session`. In this dialect every transcript variable, ours
  // included, names the Claude-shaped transcript (these override the runner's AGENT_TRANSCRIPT_PATH).
  const transcript = claudeTranscriptPath(input.transcriptPath);
  if (transcript !== null) {
    env.VT_TRANSCRIPT_PATH = transcript;
    env.CLAUDE_TRANSCRIPT_PATH = transcript;
    env.AGENT_TRANSCRIPT_PATH = transcript;
  }
  return Object.freeze({ stdin: encoder.encode(line), env: Object.freeze(env), cleanup: Object.freeze([]) });
}

export const claudeDialect: Dialect = { encode, decode };
