/**
 * Pure merge of hook runs into one event outcome (D2, D6, D7, D8, D11, D13, D19, D21).
 * `step` folds one finished run into the state and says whether the chain must stop; it returns a
 * new state and never mutates its inputs. The failure policy of the hook's form is applied here.
 */
import type { CanonicalEvent } from "../../util/events.ts";
import type { HookRun } from "../handlers/command.ts";
import type { HookSpec } from "../types.ts";
import type { ContextItemsStatus, PermissionRuleUpdate } from "../dialects/types.ts";
import type { ToolId } from "../../tools/names.ts";
import type { HookReply } from "../dialects/types.ts";
import { boundReason } from "./context.ts";
import { escapeControls } from "../../util/escape.ts";
import { OUTPUT_MAX_BYTES } from "../../tools/output.ts";

export const LIST_BLOCK_MESSAGE = "Tool call blocked by local hook policy.";

export interface FailureNote {
  readonly spec: HookSpec;
  readonly hookIndex: number;
  readonly category: string;
  readonly detail: string;
  /** D21 outcome words: `tool ran anyway`, `tool blocked`, `result kept`, `session stopped`, `continued`, `blocked`, `ignored (async)`. */
  readonly outcome: string;
  /** False under policy `ignore`: recorded, never printed. */
  readonly loud: boolean;
  readonly stderrFirstLine: string;
}

export interface ContextInjection {
  readonly spec: HookSpec;
  readonly hookIndex: number;
  readonly status: ContextItemsStatus;
  readonly items: readonly { role: "user"; content: string }[];
  readonly byteCount: number;
}

export interface MergeState {
  readonly event: CanonicalEvent;
  readonly tool: ToolId | undefined;
  readonly toolInput: Readonly<Record<string, unknown>> | undefined;
  /** user_prompt_submit: the prompt as rewritten by the hooks so far (undefined: unchanged). */
  readonly prompt: string | undefined;
  /** pre_tool / permission_request: `deny` stops; `ask` and explicit `allow` are remembered. */
  readonly denied: { readonly reason: string; readonly modelReason: string } | undefined;
  readonly asked: boolean;
  /** The first asking hook's reason (claude `permissionDecisionReason`), told to the model when nobody can answer. */
  readonly askReason: string | undefined;
  readonly allowed: boolean;
  /** Blocking events other than pre_tool (user_prompt_submit, stop, pre_compact, subagent_*). */
  readonly blocked: { readonly reason: string } | undefined;
  /** post_tool stops of hook dirs (stop: true, exit 2, fail_closed failure), in declared order. */
  readonly stops: readonly string[];
  /**
   * `continue: false` or a `fail` policy failure: the session/turn ends once the event is merged,
   * with `kind` as its stop reason (normalised here, so no caller folds kinds again).
   */
  readonly stopSession: { readonly reason: string; readonly kind: StopKind } | undefined;
  readonly contexts: readonly string[];
  readonly hidden: readonly string[];
  readonly output: string | undefined;
  readonly systemMessages: readonly string[];
  readonly infos: readonly string[];
  readonly permission:
    | {
        readonly behavior: "allow" | "deny";
        readonly message?: string;
        readonly updatedInput?: Readonly<Record<string, unknown>>;
        readonly updatedPermissions: readonly PermissionRuleUpdate[];
        readonly interrupt: boolean;
      }
    | undefined;
  readonly notification: { readonly suppress: boolean; readonly title?: string; readonly message?: string };
  readonly injections: readonly ContextInjection[];
  readonly failures: readonly FailureNote[];
  readonly warnings: readonly string[];
  readonly diagnostics: readonly { readonly spec: HookSpec; readonly hookIndex: number; readonly message: string }[];
  /** The hook whose reply last changed the verdict (`verdictOf`); absent while no hook decided. */
  readonly decidedBy?: { readonly label: string; readonly scope: string };
}

/** What a policy decided, in one word for every event: `none` when no hook decided anything. */
export type Verdict = "allow" | "deny" | "ask" | "block" | "none";

/** The verdict of a merged state: deny beats ask beats allow; a blocking or stopping reply is `block`. */
export function verdictOf(state: MergeState): Verdict {
  if (state.denied || state.permission?.behavior === "deny") return "deny";
  if (state.blocked || state.stops.length > 0 || state.stopSession) return "block";
  if (state.asked) return "ask";
  if (state.allowed || state.permission?.behavior === "allow") return "allow";
  return "none";
}

/**
 * How a hook ends the session: `hook_failed` for a failure under policy `fail` (D23), `completed`
 * for `continue: false` on `stop` (the drafted reply stands, D8, LIFE-61), else `hook_blocked`
 * (`continue: false` anywhere else, a permission `interrupt`; subagent_stop ends the parent's turn).
 */
export type StopKind = "hook_blocked" | "hook_failed" | "completed";

export interface MergeOptions {
  /** `hooks.lifecycle.quiet_success_output` (LIFE-44). */
  readonly quietSuccessOutput: boolean;
  /** Validates a replaced tool input (D8); returns the error path or null when valid. */
  readonly validateInput: (tool: ToolId | undefined, input: Readonly<Record<string, unknown>>) => string | null;
}

export function initialState(event: CanonicalEvent, tool?: ToolId, toolInput?: Readonly<Record<string, unknown>>): MergeState {
  return {
    event,
    tool,
    toolInput,
    prompt: undefined,
    denied: undefined,
    asked: false,
    askReason: undefined,
    allowed: false,
    blocked: undefined,
    stops: [],
    stopSession: undefined,
    contexts: [],
    hidden: [],
    output: undefined,
    systemMessages: [],
    infos: [],
    permission: undefined,
    notification: { suppress: false },
    injections: [],
    failures: [],
    warnings: [],
    diagnostics: [],
  };
}

const PRE_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["pre_tool", "permission_request"]);
const POST_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["post_tool", "post_tool_failure"]);
const BLOCKING_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["user_prompt_submit", "stop", "pre_compact", "subagent_start", "subagent_stop"]);

function outcomeWords(event: CanonicalEvent, effect: "open" | "block" | "fail"): string {
  if (PRE_EVENTS.has(event)) return effect === "open" ? "tool ran anyway" : "tool blocked";
  if (POST_EVENTS.has(event)) return effect === "open" ? "result kept" : "session stopped";
  if (effect === "open") return "continued";
  return effect === "fail" ? "session stopped" : "blocked";
}

function policyOf(spec: HookSpec): "ignore" | "warn" | "block" | "fail" | "fail_closed" | "fail_open" {
  if (spec.form === "dir") return spec.failClosed ? "fail_closed" : "fail_open";
  return spec.failurePolicy;
}

/** A label in a reason the terminal prints: escaped like all config text. */
function labelOf(spec: HookSpec): string {
  return escapeControls(spec.label);
}

/** Applies the form's failure policy (D2, D21, D23, seed 003). */
function applyFailure(state: MergeState, run: HookRun, category: string, detail: string): { state: MergeState; halt: boolean } {
  const { spec } = run;
  // A changed trusted file fails closed whatever the policy: the session stops.
  const policy = run.reply.failure?.closed ? "fail" : policyOf(spec);
  const event = state.event;
  const note = (outcome: string, loud = true): FailureNote => ({
    spec,
    hookIndex: run.hookIndex,
    category,
    detail,
    outcome,
    loud,
    stderrFirstLine: run.stderrFirstLine,
  });
  // A failed claude hook's schema-valid deny still counts (D6), so the words follow what happened.
  const openWords = PRE_EVENTS.has(event) && state.denied ? "tool blocked" : outcomeWords(event, "open");
  if (policy === "fail_open" || policy === "warn") {
    return { state: { ...state, failures: [...state.failures, note(openWords)] }, halt: false };
  }
  if (policy === "ignore") {
    return { state: { ...state, failures: [...state.failures, note(openWords, false)] }, halt: false };
  }
  if (policy === "fail_closed") {
    const reason = `hook ${labelOf(spec)} failed (fail_closed): ${detail}`;
    if (PRE_EVENTS.has(event)) {
      return {
        state: { ...state, denied: { reason, modelReason: reason }, failures: [...state.failures, note("tool blocked")] },
        halt: true,
      };
    }
    return { state: { ...state, stops: [...state.stops, reason], failures: [...state.failures, note("session stopped")] }, halt: false };
  }
  const reason = `hook ${labelOf(spec)} failed: ${category}`;
  if (policy === "block") {
    const modelReason = spec.form === "list" ? LIST_BLOCK_MESSAGE : reason;
    if (PRE_EVENTS.has(event)) {
      return { state: { ...state, denied: { reason, modelReason }, failures: [...state.failures, note("tool blocked")] }, halt: true };
    }
    // block is valid only on pre_tool_use, user_prompt_submit and permission_request (D23).
    return { state: { ...state, blocked: { reason }, failures: [...state.failures, note("blocked")] }, halt: true };
  }
  // fail: the turn ends before the target tool runs or before provider continuation (seed 003).
  const base = { ...state, stopSession: state.stopSession ?? { reason, kind: "hook_failed" as const } };
  if (PRE_EVENTS.has(event)) {
    return { state: { ...base, denied: { reason, modelReason: reason }, failures: [...state.failures, note("tool blocked")] }, halt: true };
  }
  return { state: { ...base, failures: [...state.failures, note("session stopped")] }, halt: !POST_EVENTS.has(event) };
}

/**
 * The reply with every hook-given text that can reach the model bounded: the
 * reasons (deny, block, stop, `continue: false`), the permission message and the claude feedback
 * are neutralised and cut at HOOK_REASON_MAX_BYTES; an output rewrite is cut at the tools' own
 * OUTPUT_MAX_BYTES (it replaces a tool result). Contexts are bounded where they are joined.
 */
function boundReply(reply: HookReply): HookReply {
  const { reason, feedback, output, stopSession, permission } = reply;
  return {
    ...reply,
    ...(reason !== undefined ? { reason: boundReason(reason) } : {}),
    ...(feedback !== undefined ? { feedback: boundReason(feedback) } : {}),
    ...(output !== undefined ? { output: boundReason(output, OUTPUT_MAX_BYTES) } : {}),
    ...(stopSession !== undefined ? { stopSession: { reason: boundReason(stopSession.reason) } } : {}),
    ...(permission?.message !== undefined ? { permission: { ...permission, message: boundReason(permission.message) } } : {}),
  };
}

/** A state after one part of a reply is folded in; `halt` as in `step`. */
interface Folded {
  readonly state: MergeState;
  readonly halt: boolean;
}

/** A replacement tool input (D8) and what its validation found: null when valid or when there is none. */
interface InputReplacement {
  readonly input: Readonly<Record<string, unknown>> | undefined;
  readonly problem: string | null;
}

function checkInputReplacement(state: MergeState, reply: HookReply, options: MergeOptions): InputReplacement {
  const event = state.event;
  const replacesInput =
    reply.updatedInput !== undefined && (event === "pre_tool" || event === "permission_request" || event === "subagent_start") && !state.denied;
  if (!replacesInput || reply.updatedInput === undefined) return { input: undefined, problem: null };
  return { input: reply.updatedInput, problem: options.validateInput(state.tool, reply.updatedInput) };
}

function noteTruncation(state: MergeState, run: HookRun): MergeState {
  if (!run.truncated.stdout && !run.truncated.stderr) return state;
  const which = run.truncated.stdout ? "stdout" : "stderr";
  return {
    ...state,
    diagnostics: [...state.diagnostics, { spec: run.spec, hookIndex: run.hookIndex, message: `${which} exceeded 1 MiB; extra bytes discarded` }],
  };
}

function mergeNotification(current: MergeState["notification"], reply: HookReply): MergeState["notification"] {
  return {
    suppress: current.suppress || reply.suppressOutput,
    ...(reply.updatedNotification?.title !== undefined
      ? { title: reply.updatedNotification.title }
      : current.title !== undefined
        ? { title: current.title }
        : {}),
    ...(reply.updatedNotification?.message !== undefined
      ? { message: reply.updatedNotification.message }
      : current.message !== undefined
        ? { message: current.message }
        : {}),
  };
}

/** Effects a reply keeps even when its hook failed (claude: schema-valid JSON with exit ≠ 0/2, D6). */
function keepReplyEffects(state: MergeState, run: HookRun, reply: HookReply, options: MergeOptions, inputRejected: boolean): MergeState {
  const event = state.event;
  let next = state;
  if (reply.contextItems) {
    next = {
      ...next,
      injections: [
        ...next.injections,
        {
          spec: run.spec,
          hookIndex: run.hookIndex,
          status: reply.contextItems.status,
          items: reply.contextItems.items,
          byteCount: reply.contextItems.byteCount,
        },
      ],
    };
  }
  if (reply.systemMessage !== undefined && !reply.suppressOutput) next = { ...next, systemMessages: [...next.systemMessages, reply.systemMessage] };
  if (reply.info !== undefined && !reply.suppressOutput && !(options.quietSuccessOutput && !reply.failure)) {
    next = { ...next, infos: [...next.infos, reply.info] };
  }
  // Context written for a replacement input that the schema rejects would describe
  // a call that does not happen; it goes with the rejected input (the previous input is kept, D8).
  if (reply.hiddenContext.length > 0 && !inputRejected) next = { ...next, hidden: [...next.hidden, ...reply.hiddenContext] };
  if (reply.context.length > 0 && !inputRejected) next = { ...next, contexts: [...next.contexts, ...reply.context] };
  if (reply.feedback !== undefined && POST_EVENTS.has(event)) next = { ...next, contexts: [...next.contexts, reply.feedback] };
  if (reply.output !== undefined && reply.output !== "" && POST_EVENTS.has(event)) next = { ...next, output: reply.output };
  if (event === "notification") next = { ...next, notification: mergeNotification(next.notification, reply) };
  return next;
}

function applyPermissionReply(state: MergeState, reply: HookReply): Folded {
  if (state.event !== "permission_request" || !reply.permission || state.permission) return { state, halt: false };
  let next: MergeState = { ...state, permission: reply.permission };
  if (reply.permission.interrupt)
    next = { ...next, stopSession: next.stopSession ?? { reason: reply.permission.message ?? "interrupted by hook", kind: "hook_blocked" } };
  return { state: next, halt: true };
}

function applyDecision(state: MergeState, reply: HookReply, spec: HookSpec): Folded {
  const event = state.event;
  const decision = reply.decision;
  if (decision === "deny" || (decision === "block" && PRE_EVENTS.has(event))) {
    const reason = reply.reason ?? "blocked by hook";
    if (event === "permission_request") {
      if (!state.permission)
        return { state: { ...state, permission: { behavior: "deny", message: reason, updatedPermissions: [], interrupt: false } }, halt: true };
    } else if (!state.denied) {
      return { state: { ...state, denied: { reason, modelReason: reason } }, halt: true };
    }
    return { state, halt: true };
  }
  if (decision === "ask") return { state: { ...state, asked: true, askReason: state.askReason ?? reply.reason }, halt: false };
  if (decision === "allow") {
    if (event !== "permission_request") return { state: { ...state, allowed: true }, halt: false };
    if (!state.permission) return { state: { ...state, permission: { behavior: "allow", updatedPermissions: [], interrupt: false } }, halt: true };
    return { state, halt: true };
  }
  if (decision === "stop" && POST_EVENTS.has(event)) {
    return { state: { ...state, stops: [...state.stops, reply.reason ?? `stopped by hook ${labelOf(spec)}`] }, halt: false };
  }
  if (decision === "block" && BLOCKING_EVENTS.has(event)) {
    if (!state.blocked) return { state: { ...state, blocked: { reason: reply.reason ?? "blocked by hook" } }, halt: true };
    return { state, halt: true };
  }
  return { state, halt: false };
}

function applyStopSession(state: MergeState, reply: HookReply): Folded {
  const event = state.event;
  if (!reply.stopSession || event === "session_end") return { state, halt: false };
  const reason = reply.stopSession.reason;
  if (PRE_EVENTS.has(event)) {
    return {
      state: { ...state, denied: state.denied ?? { reason, modelReason: reason }, stopSession: state.stopSession ?? { reason, kind: "hook_blocked" } },
      halt: true,
    };
  }
  if (event === "user_prompt_submit") {
    return { state: { ...state, blocked: state.blocked ?? { reason }, stopSession: state.stopSession ?? { reason, kind: "hook_blocked" } }, halt: true };
  }
  if (event === "stop" || event === "subagent_stop") {
    return { state: { ...state, stopSession: state.stopSession ?? { reason, kind: event === "stop" ? "completed" : "hook_blocked" } }, halt: true };
  }
  return { state: { ...state, stopSession: state.stopSession ?? { reason, kind: "hook_blocked" } }, halt: false };
}

/**
 * Folds one run into the state. `halt` tells a sequential chain to skip the remaining hooks
 * (first deny/block wins, D13); the post phase ignores it (no stop cancels later post hooks).
 */
export function step(state: MergeState, run: HookRun, options: MergeOptions): { state: MergeState; halt: boolean } {
  const folded = foldRun(state, run, options);
  if (verdictOf(folded.state) === verdictOf(state)) return folded;
  return { ...folded, state: { ...folded.state, decidedBy: { label: run.spec.label, scope: run.spec.scope } } };
}

function foldRun(state: MergeState, run: HookRun, options: MergeOptions): { state: MergeState; halt: boolean } {
  const reply = boundReply(run.reply);
  const replacement = checkInputReplacement(state, reply, options);
  let next = noteTruncation({ ...state, warnings: [...state.warnings, ...reply.warnings] }, run);
  next = keepReplyEffects(next, run, reply, options, replacement.problem !== null);

  let inputFailure: string | undefined;
  if (replacement.input !== undefined) {
    if (replacement.problem !== null) {
      // D8: an invalid replacement is a failure and the previous input is kept; the rest of the
      // reply (a decision) still counts, and the form's failure policy decides below.
      inputFailure = `modified input invalid: ${replacement.problem}`;
    } else {
      next = { ...next, toolInput: replacement.input };
    }
  }

  // A rewrite from a hook that also blocks is moot: the prompt is not sent at all.
  if (reply.updatedPrompt !== undefined && state.event === "user_prompt_submit" && !next.blocked) next = { ...next, prompt: reply.updatedPrompt };

  const permitted = applyPermissionReply(next, reply);
  const decided = applyDecision(permitted.state, reply, run.spec);
  const stopped = applyStopSession(decided.state, reply);
  const halt = permitted.halt || decided.halt || stopped.halt;

  const failure = reply.failure ?? (inputFailure !== undefined ? { category: "exit" as const, detail: inputFailure } : undefined);
  if (failure) {
    const failed = applyFailure(stopped.state, run, failure.category, failure.detail);
    return { state: failed.state, halt: halt || failed.halt };
  }
  return { state: stopped.state, halt };
}

export type MergedDecision = "allow" | "deny" | "ask" | "continue" | "block" | "suppress";

/** The decision word of `agent hooks test` (DESIGN.md). */
export function decisionOf(state: MergeState): { decision: MergedDecision; reason: string | null } {
  const event = state.event;
  if (event === "pre_tool") {
    if (state.denied) return { decision: "deny", reason: state.denied.reason };
    if (state.asked) return { decision: "ask", reason: null };
    return { decision: "allow", reason: null };
  }
  if (event === "permission_request") {
    if (state.denied) return { decision: "deny", reason: state.denied.reason };
    if (state.permission)
      return { decision: state.permission.behavior, reason: state.permission.behavior === "deny" ? (state.permission.message ?? "denied by hook") : null };
    return { decision: "ask", reason: null };
  }
  if (event === "session_end") return { decision: "continue", reason: null };
  if (state.stopSession) return { decision: "block", reason: state.stopSession.reason };
  if (event === "notification") return { decision: state.notification.suppress ? "suppress" : "continue", reason: null };
  if (POST_EVENTS.has(event)) {
    if (state.stops.length > 0) return { decision: "block", reason: state.stops.join("; ") };
    return { decision: "continue", reason: null };
  }
  if (state.blocked) return { decision: "block", reason: state.blocked.reason };
  return { decision: "continue", reason: null };
}
