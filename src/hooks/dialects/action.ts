/**
 * The `action` dialect (seed 000): one compact JSON line on stdin, one JSON object on the first
 * non-empty line of stdout (D1), exit 2 as a hard deny / stop (D2). Default dialect of hook
 * directories; lifecycle and list hooks get it with `protocol: "action"` (D22).
 *
 * Pure: no spawning, caps or failure policy here (those belong to the form and to dispatch).
 */
import * as v from "valibot";
import type { CanonicalEvent } from "../../util/events.ts";
import type { HookSpec } from "../types.ts";
import type { Dialect, EncodedRequest, EncodeOptions, HookEventInput, HookReply, ProcessRun } from "./types.ts";

const encoder = new TextEncoder();
/** Non-fatal: invalid bytes become U+FFFD (D19, RUN-37); no dialect fails on encoding alone. */
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Events whose reply is read post-style (`context`, `output`, `stop`); every other event is pre-style. */
const POST_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["post_tool", "post_tool_failure"]);
/** Events where a deny is a tool-call `deny`; elsewhere a pre-style deny is a `block`. */
const DENY_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["pre_tool", "permission_request"]);
/** Events whose model-facing note is hidden context (D7) rather than a tool-result block (D19). */
const HIDDEN_CONTEXT_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["session_start", "user_prompt_submit"]);

const plainObjectSchema = v.custom<Record<string, unknown>>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object",
);

/** The reply line. Unknown keys are ignored; known keys are type-checked. */
const ReplySchema = v.looseObject({
  action: v.optional(v.string()),
  reason: v.optional(v.string()),
  context: v.optional(v.string()),
  input: v.optional(v.unknown()),
  /** user_prompt_submit `modify`: the rewritten prompt (checked there, ignored elsewhere). */
  prompt: v.optional(v.unknown()),
  output: v.optional(v.string()),
  stop: v.optional(v.boolean()),
});
type Reply = v.InferOutput<typeof ReplySchema>;

/** Decodes hook output bytes as UTF-8, replacing invalid sequences with U+FFFD. */
export function decodeText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * The first non-empty line of `bytes` (decoded as in `decodeText`), without its line ending and
 * trailing whitespace; `""` when every line is blank. A line holding only whitespace counts as
 * empty (D1). Used for the stdout reply and for D2's "first line of stderr" reason; dispatch may
 * use it (redacted) for a hook dir's failure line.
 */
export function firstLine(bytes: Uint8Array): string {
  for (const line of decodeText(bytes).split("\n")) {
    if (line.trim() !== "") return line.trimEnd();
  }
  return "";
}

/** The name D2's default reasons use: a hook dir's manifest name, else the spec's label. */
function hookName(spec: HookSpec): string {
  return spec.form === "dir" ? spec.name : spec.label;
}

function emptyReply(): HookReply {
  return { context: [], hiddenContext: [], suppressOutput: false, warnings: [] };
}

function failure(category: NonNullable<HookReply["failure"]>["category"], detail: string): HookReply {
  return { ...emptyReply(), failure: { category, detail } };
}

type ParsedReply = { ok: true; reply: Reply | null } | { ok: false; detail: string };

/** D1: parse the first non-empty stdout line as one JSON object; `reply: null` when stdout is blank. */
function parseReply(stdout: Uint8Array): ParsedReply {
  const line = firstLine(stdout);
  if (line === "") return { ok: true, reply: null };
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, detail: "invalid json" };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { ok: false, detail: "invalid json: expected one JSON object" };
  }
  const parsed = v.safeParse(ReplySchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue ? (v.getDotPath(issue) ?? "reply") : "reply";
    return { ok: false, detail: `invalid reply: ${field} has the wrong type` };
  }
  return { ok: true, reply: parsed.output };
}

function nonEmpty(text: string | undefined): string | undefined {
  return text !== undefined && text.trim() !== "" ? text : undefined;
}

/** Context entries of a reply, routed to hidden context on session_start / user_prompt_submit. */
function contextFields(event: CanonicalEvent, reply: Reply | null): Pick<HookReply, "context" | "hiddenContext"> {
  const text = reply?.context;
  if (text === undefined || text === "") return { context: [], hiddenContext: [] };
  return HIDDEN_CONTEXT_EVENTS.has(event) ? { context: [], hiddenContext: [text] } : { context: [text], hiddenContext: [] };
}

function denyDecision(event: CanonicalEvent): "deny" | "block" {
  return DENY_EVENTS.has(event) ? "deny" : "block";
}

/** D2: exit 2 is a decision (not a failure); reason = body reason, else first stderr line, else default. */
function decodeExit2(spec: HookSpec, event: CanonicalEvent, run: ProcessRun): HookReply {
  const parsed = parseReply(run.stdout);
  const body = parsed.ok ? parsed.reply : null;
  const post = POST_EVENTS.has(event);
  const fallback = post ? `stopped by hook ${hookName(spec)} (exit 2)` : `denied by hook ${hookName(spec)} (exit 2)`;
  const reason = nonEmpty(body?.reason) ?? nonEmpty(firstLine(run.stderr)) ?? fallback;
  // The body's `context` still counts (DIR-56); `output`, `input` and `action` are ignored (DIR-42).
  return {
    ...emptyReply(),
    ...contextFields(event, body),
    decision: post ? "stop" : denyDecision(event),
    reason,
    warnings: parsed.ok ? [] : [`exit 2 body ignored: ${parsed.detail}`],
  };
}

function decodePost(spec: HookSpec, event: CanonicalEvent, reply: Reply | null): HookReply {
  const base: HookReply = { ...emptyReply(), ...contextFields(event, reply) };
  const output = reply?.output !== undefined && reply.output !== "" ? { output: reply.output } : {};
  if (reply?.stop === true) {
    return { ...base, ...output, decision: "stop", reason: nonEmpty(reply.reason) ?? `stopped by hook ${hookName(spec)}` };
  }
  return { ...base, ...output };
}

function decodePre(spec: HookSpec, event: CanonicalEvent, reply: Reply | null): HookReply {
  const base: HookReply = { ...emptyReply(), ...contextFields(event, reply) };
  const action = (reply?.action ?? "").trim().toLowerCase();
  switch (action) {
    case "":
    case "allow":
      // An action allow is "no objection": the call goes on to the gate unchanged (DIR-37), so no
      // `decision: "allow"` (which would count as a hook allow at the gate, D24).
      return base;
    case "deny":
      return {
        ...base,
        decision: denyDecision(event),
        reason: nonEmpty(reply?.reason) ?? `tool execution denied by hook ${hookName(spec)}`,
      };
    case "modify": {
      if (event === "user_prompt_submit") {
        const prompt = reply?.prompt;
        if (typeof prompt !== "string" || prompt.trim() === "") return failure("exit", "modify without prompt (a non-empty string)");
        return { ...base, updatedPrompt: prompt };
      }
      const input = v.safeParse(plainObjectSchema, reply?.input);
      if (!input.success) return failure("exit", "modify without object input");
      return { ...base, updatedInput: input.output };
    }
    default:
      return failure("exit", `unknown action ${JSON.stringify(reply?.action ?? "")}`);
  }
}

function decode(spec: HookSpec, input: HookEventInput, run: ProcessRun): HookReply {
  void input;
  const event = spec.event;
  if (run.kind !== "ok") return failure(run.kind, run.detail);
  if (run.exit === null) return failure("runner", run.detail || "no exit status");
  if (run.exit.code === null) return failure("exit", `killed by signal ${run.exit.signal ?? "unknown"}`);
  if (run.exit.code === 2) return decodeExit2(spec, event, run);
  // D2: any other non-zero exit is a hook error and the body is ignored.
  if (run.exit.code !== 0) return failure("exit", `exited ${run.exit.code}`);
  const parsed = parseReply(run.stdout);
  if (!parsed.ok) return failure("exit", parsed.detail);
  return POST_EVENTS.has(event) ? decodePost(spec, event, parsed.reply) : decodePre(spec, event, parsed.reply);
}

/**
 * The request line (DIR-32/33): `session_id`, `cwd`, `hook_event` (the hook's canonical event),
 * `tool` (canonical lower-case name), `tool_use_id`, `input`; on post events also `output` (only
 * when the tool produced text on success) and `error` (`""` on success, the error text on
 * failure). Without a tool (lifecycle/list hooks with `protocol: "action"` on other events),
 * `tool` and `tool_use_id` are null and `input` carries the event's own fields.
 */
export function encodeActionRequest(spec: HookSpec, input: HookEventInput): Record<string, unknown> {
  const event = spec.event;
  const request: Record<string, unknown> = {
    session_id: input.sessionId,
    cwd: input.cwd,
    hook_event: event,
    tool: input.tool?.name ?? null,
    tool_use_id: input.tool?.callId ?? null,
    input: input.tool?.input ?? input.fields,
  };
  // Inside a subagent, which one (the child's session id and its agent name).
  if (input.context.subagent && input.context.agentId !== null) {
    request.agent_id = input.sessionId;
    request.agent_type = input.context.agentId;
  }
  if (POST_EVENTS.has(event)) {
    const result = input.result;
    if (result?.success === true && result.content !== "") request.output = result.content;
    request.error = result === undefined || result.success ? "" : result.content;
  }
  return request;
}

function encode(spec: HookSpec, input: HookEventInput, options: EncodeOptions): EncodedRequest {
  void options;
  const line = `${JSON.stringify(encodeActionRequest(spec, input))}\n`;
  return {
    stdin: encoder.encode(line),
    // Seed 000's names; AGENT_* are set by the runner for every dialect (D18, DIR-35).
    env: {
      PHI_HOOK_EVENT: spec.event,
      PHI_SESSION_ID: input.sessionId,
      PHI_CWD: input.cwd,
      PHI_PROJECT_DIR: input.projectDir,
    },
    cleanup: [],
  };
}

export const actionDialect: Dialect = { encode, decode };
