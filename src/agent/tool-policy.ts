/**
 * The one seam between the tool-call loop and its policies (in the spirit of a before/after tool-call
 * pair): `before` decides whether a normalised call runs and with which input — pre_tool hooks of all
 * three forms, the permission gate, permission_request hooks, the user — and `after` runs the
 * post_tool hooks over its result. The loop (tool-call.ts) sees only these typed verdicts; merge
 * state, event fields and the gate's inputs stay on this side.
 */
import type { NormalizedCall } from "../tools/call.ts";
import { normalizeCall } from "../tools/call.ts";
import { validateToolInput } from "../tools/index.ts";
import type { ToolResult } from "../tools/types.ts";
import { decideGate, nonInteractiveDenial, permissionRequestInfo, permissionSuggestions, type GateDecision } from "../permissions/gate.ts";
import type { PermissionMode } from "../permissions/mode.ts";
import type { RuleSet } from "../permissions/rules.ts";
import type { FileSystem } from "../runtime/types.ts";
import type { MergeState, StopKind } from "../hooks/merge/merge.ts";
import type { SessionServices } from "./session-services.ts";
import type { PermissionAnswer } from "./types.ts";

/** A hook ended the session after this call. */
export interface SessionStop {
  readonly reason: string;
  readonly kind: "hook_blocked" | "hook_failed";
}

/**
 * What the gate decided for a call (absent when a pre_tool hook denied it first), and for an ask who
 * answered: the session records it on the call's `tool_result`, so `agent hooks replay` can compare
 * today's rules with it.
 */
export interface PermissionFact {
  readonly mode: PermissionMode;
  readonly decision: "allow" | "deny" | "ask";
  readonly rule?: string;
  readonly reason: string;
  readonly answered_by?: "hook" | "user" | "nobody";
}

export type BeforeVerdict =
  | { readonly run: true; readonly call: NormalizedCall; readonly contexts: readonly string[]; readonly permission?: PermissionFact }
  | {
      readonly run: false;
      readonly reason: string;
      readonly contexts: readonly string[];
      readonly input: Readonly<Record<string, unknown>>;
      readonly stop?: SessionStop;
      readonly permission?: PermissionFact;
    };

export interface AfterVerdict {
  /** The output the model gets instead of the tool's (an action-dialect rewrite), if any. */
  readonly output?: string;
  readonly contexts: readonly string[];
  /** Provider-visible context items from injecting post hooks, in config then JSON order. */
  readonly items: readonly string[];
  readonly stop?: SessionStop;
}

/** Where in the session a call happens. */
export interface CallAt {
  readonly turnIndex: number;
  readonly callId: string;
}

export interface ToolCallPolicy {
  before(call: NormalizedCall, at: CallAt): Promise<BeforeVerdict>;
  after(call: NormalizedCall, result: ToolResult, at: CallAt): Promise<AfterVerdict>;
}

function stopOf(ended: { readonly reason: string; readonly kind: StopKind } | undefined): SessionStop | undefined {
  // `completed` only comes from a `stop` hook, never from a tool's events.
  return ended ? { reason: ended.reason, kind: ended.kind === "hook_failed" ? "hook_failed" : "hook_blocked" } : undefined;
}

/** The session's policy: its hooks, its rules and mode, and (interactive) its user. */
export function sessionPolicy(s: SessionServices): ToolCallPolicy {
  return { before: (call, at) => before(s, call, at), after: (call, result, at) => after(s, call, result, at) };
}

/** The normalised view again after a hook replaced the input, so the gate judges what will run. */
function renormalize(fs: FileSystem, call: NormalizedCall, input: Readonly<Record<string, unknown>>): NormalizedCall {
  return input === call.input ? call : normalizeCall(fs, call.place, call.tool, input);
}

/** The pre_tool payload's `permission_decision`: what the gate would say before any hook spoke. */
export function preToolFields(mode: PermissionMode, rules: RuleSet, call: NormalizedCall): { permission_decision: GateDecision["decision"] } {
  return { permission_decision: decideGate({ mode, rules, call }).decision };
}

/** What decides a call once its pre_tool hooks ran: their deny, else the gate over the input they leave. */
export type PreHookJudgement =
  | { readonly denied: true; readonly reason: string }
  | { readonly denied: false; readonly call: NormalizedCall; readonly gate: GateDecision; readonly hookDecision: "allow" | "ask" | undefined };

/**
 * The live order after the pre_tool hooks (D8, D24): a hook deny stops the call before the gate; else
 * the gate judges the input the hooks leave, with their allow or ask. `agent hooks replay` judges
 * recorded calls with this same function.
 */
export function judgeAfterPreHooks(fs: FileSystem, gate: { mode: PermissionMode; rules: RuleSet }, call: NormalizedCall, pre: MergeState): PreHookJudgement {
  if (pre.denied) return { denied: true, reason: pre.denied.modelReason };
  const hookDecision = pre.asked ? ("ask" as const) : pre.allowed ? ("allow" as const) : undefined;
  const judged = renormalize(fs, call, { ...(pre.toolInput ?? call.input) });
  const decision = decideGate({ mode: gate.mode, rules: gate.rules, call: judged, ...(hookDecision ? { hookDecision } : {}) });
  return { denied: false, call: judged, gate: decision, hookDecision };
}

function factOf(mode: PermissionMode, gate: GateDecision, answeredBy?: PermissionFact["answered_by"]): PermissionFact {
  return {
    mode,
    decision: gate.decision,
    ...(gate.rule !== undefined ? { rule: gate.rule } : {}),
    reason: gate.reason,
    ...(answeredBy ? { answered_by: answeredBy } : {}),
  };
}

async function before(s: SessionServices, call: NormalizedCall, at: CallAt): Promise<BeforeVerdict> {
  const mode = s.permissionMode;
  const pre = await s.fire(
    { event: "pre_tool", tool: { name: call.tool, callId: at.callId, input: call.input }, fields: preToolFields(mode, s.rules(), call) },
    at,
  );
  const contexts = pre.state.contexts;
  const judgement = judgeAfterPreHooks(s.runtime.fs, { mode, rules: s.rules() }, call, pre.state);
  if (judgement.denied) {
    const stop = stopOf(pre.state.stopSession);
    return { run: false, reason: judgement.reason, contexts, input: call.input, ...(stop ? { stop } : {}) };
  }
  const { gate, hookDecision } = judgement;
  const judged = judgement.call;
  if (gate.decision === "deny") return { run: false, reason: gate.reason, contexts, input: judged.input, permission: factOf(mode, gate) };
  if (gate.decision === "allow") return { run: true, call: judged, contexts, permission: factOf(mode, gate) };
  // A hook's own reason explains its question better than the gate's summary (LOOP-13).
  const askedByHook = gate.because === undefined && hookDecision === "ask";
  const why = gate.because ?? (askedByHook ? (pre.state.askReason ?? "a hook asked for approval") : undefined);
  const answered = await resolveAsk(s, judged, { why, askedByHook }, contexts, at);
  return { ...answered.verdict, permission: factOf(mode, gate, answered.by) };
}

/** The gate asked: permission_request hooks decide, else the user (interactive), else a denial (LOOP-13). */
async function resolveAsk(
  s: SessionServices,
  call: NormalizedCall,
  asked: { why: string | undefined; askedByHook: boolean },
  contexts: readonly string[],
  at: CallAt,
): Promise<{ verdict: BeforeVerdict; by: "hook" | "user" | "nobody" }> {
  const request = await s.fire(
    {
      event: "permission_request",
      tool: { name: call.tool, callId: at.callId, input: call.input },
      fields: { permission_request: { ...permissionRequestInfo(call.tool, call.input) }, permission_suggestions: permissionSuggestions(call) },
    },
    at,
  );
  const permission = request.state.permission;
  if (request.state.denied || permission?.behavior === "deny") {
    const reason = request.state.denied?.modelReason ?? permission?.message ?? "denied by a permission_request hook";
    // An `interrupt` or `continue: false` ends the session (LIFE-58); a failure under `fail` too.
    const stop = stopOf(request.state.stopSession);
    return { verdict: { run: false, reason, contexts, input: call.input, ...(stop ? { stop } : {}) }, by: "hook" };
  }
  if (permission?.behavior === "allow") {
    let input = call.input;
    if (permission.updatedInput) {
      const replaced = validateToolInput(call.tool, permission.updatedInput);
      if (replaced.ok) input = replaced.input;
      else
        s.emit({
          type: "notice",
          kind: "warning",
          text: `agent: permission_request hook gave an invalid updatedInput (${replaced.path}); the previous input is kept`,
        });
    } else if (request.state.toolInput) {
      input = { ...request.state.toolInput };
    }
    if (permission.updatedPermissions.length > 0) s.applyUpdates(permission.updatedPermissions);
    return { verdict: { run: true, call: renormalize(s.runtime.fs, call, input), contexts }, by: "hook" };
  }
  if (s.askPermission) {
    const answer = await askUser(s, call, at);
    const verdict: BeforeVerdict =
      answer === "deny" ? { run: false, reason: `the user denied ${call.tool}`, contexts, input: call.input } : { run: true, call, contexts };
    return { verdict, by: "user" };
  }
  const denial = nonInteractiveDenial(call, asked.why, { askedByHook: asked.askedByHook, noApprover: s.noApprover });
  s.emit({ type: "notice", kind: "warning", text: `agent: ${denial}` });
  return { verdict: { run: false, reason: denial, contexts, input: call.input }, by: "nobody" };
}

/**
 * Interactive approval: the permission_prompt notification goes through notification hooks first
 * (LOOP-38, LIFE-71), then the user answers; `always` adds the suggested rule (the command prefix for
 * bash) for this session, `always-project` also saves it to the project's settings.
 */
async function askUser(s: SessionServices, call: NormalizedCall, at: CallAt): Promise<PermissionAnswer> {
  const ask = s.askPermission;
  if (ask === undefined) return "deny";
  const info = permissionRequestInfo(call.tool, call.input);
  const title = "Permission needed";
  const message = `agent needs your permission to use ${info.tool_name}: ${info.details}`;
  const notified = await s.fire({ event: "notification", fields: { notification_type: "permission_prompt", title, message } }, at);
  const n = notified.state.notification;
  // "Always" keeps the command prefix (`git status:*`) when the gate offers one, as Claude Code does.
  const suggestions = permissionSuggestions(call);
  const suggestion = suggestions[1] ?? suggestions[0];
  const rules = suggestion?.type === "addRules" ? suggestion.rules : [];
  const answer = await ask({
    tool: call.tool,
    detail: info.details,
    notification: n.suppress ? null : { title: n.title ?? title, message: n.message ?? message },
    alwaysRule:
      rules.length > 0 ? rules.map((rule) => (rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`)).join(", ") : null,
    input: call.input,
  });
  if (answer === "always" && suggestion) s.applyUpdates([suggestion]);
  // Saved for the next sessions, and in force for the rest of this one.
  if (answer === "always-project" && suggestion?.type === "addRules") s.applyUpdates([suggestion, { ...suggestion, destination: "projectSettings" }]);
  if (answer === "always-user" && suggestion) {
    s.applyUpdates([suggestion]);
    s.saveUserRules(suggestion);
  }
  return answer;
}

async function after(s: SessionServices, call: NormalizedCall, result: ToolResult, at: CallAt): Promise<AfterVerdict> {
  const metadata = result.metadata ?? {};
  const post = await s.fire(
    {
      event: "post_tool",
      tool: { name: call.tool, callId: at.callId, input: call.input },
      result: { success: result.success, content: result.content, metadata, ...(result.details ? { details: result.details } : {}) },
    },
    { ...at, deferInjections: true },
  );
  const items: string[] = [];
  for (const injection of post.state.injections) {
    if (injection.status !== "success") continue;
    for (const item of injection.items) items.push(item.content);
  }
  const stop: SessionStop | undefined =
    post.state.stops.length > 0 ? { reason: post.state.stops.join("; "), kind: "hook_blocked" } : stopOf(post.state.stopSession);
  return { ...(post.state.output !== undefined ? { output: post.state.output } : {}), contexts: post.state.contexts, items, ...(stop ? { stop } : {}) };
}
