/**
 * One tool call, end to end: record → parse/validate → pre_tool hooks → permission gate
 * (→ permission_request hooks) → tool → record → post_tool hooks → delivered result (D13, D19,
 * D24, D25). Never throws; a failure of any step is a tool result the model sees.
 */
import type { Message } from "../providers/types.ts";
import type { ToolId } from "../tools/names.ts";
import { canonicalTool, isBuiltin } from "../tools/names.ts";
import { validateToolInput } from "../tools/index.ts";
import type { ToolResult } from "../tools/types.ts";
import { decideGate, permissionSuggestions, permissionRequestInfo, nonInteractiveDenial } from "../permissions/gate.ts";
import { joinContexts, appendHookContext } from "../hooks/merge/context.ts";
import type { StopKind } from "../hooks/merge/merge.ts";
import type { CallScope, SessionServices } from "./session-services.ts";
import type { PermissionAnswer } from "./types.ts";

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface ToolCallOutcome {
  readonly message: Extract<Message, { role: "tool" }>;
  /** Provider-visible context items from injecting post hooks, in config then JSON order. */
  readonly items: readonly string[];
  /** Set when a hook ends the session after this call. */
  readonly stop?: { readonly reason: string; readonly kind: "hook_blocked" | "hook_failed" };
}

function describeInput(tool: ToolId | undefined, input: Record<string, unknown> | undefined, raw: string): string {
  if (!input) return raw.slice(0, 120);
  if (tool !== undefined && !isBuiltin(tool)) return JSON.stringify(input).slice(0, 200);
  const key =
    tool === "bash" ? "command" : tool === "grep" || tool === "glob" ? "pattern" : tool === "task" ? "description" : tool === "bash_output" ? "bash_id" : tool === "kill_shell" ? "shell_id" : "file_path";
  const value = input[key];
  return typeof value === "string" ? value.slice(0, 200) : JSON.stringify(input).slice(0, 200);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What every exit of one call needs: the services, its scope, the request and the canonical tool. */
interface CallRun {
  readonly s: SessionServices;
  readonly scope: CallScope;
  readonly call: ToolCallRequest;
  readonly tool: ToolId | undefined;
}

type Stop = NonNullable<ToolCallOutcome["stop"]>;

function stopOf(ended: { readonly reason: string; readonly kind: StopKind } | undefined): Stop | undefined {
  // `completed` only comes from a `stop` hook, never from a tool's events.
  return ended ? { reason: ended.reason, kind: ended.kind === "hook_failed" ? "hook_failed" : "hook_blocked" } : undefined;
}

function startLine(run: CallRun, input: Record<string, unknown> | undefined): void {
  run.s.emit({ type: "tool_start", id: run.call.id, name: run.call.name, detail: describeInput(run.tool, input, run.call.arguments) });
}

/** A call that ends without running its tool (invalid, denied, rejected): its records and lines. */
function notRun(run: CallRun, text: { content: string; output: string }, input: Record<string, unknown> | string, options: { rejected: boolean; stop?: Stop | undefined }): ToolCallOutcome {
  const { s, call } = run;
  // The UI's detail line shows the input as judged and run (after pre_tool modifications, LOOP-05,
  // DIR-49), so the start event waits until the pre phase has settled the input.
  startLine(run, typeof input === "string" ? undefined : input);
  s.writer.append("tool_result", { tool_call_id: call.id, tool_name: run.tool ?? call.name, input, success: false, content: text.output, metadata: {} });
  s.writer.append("tool_result_delivered", { tool_call_id: call.id, content: text.content, output: text.output });
  s.emit({ type: "tool_end", id: call.id, name: call.name, output: text.output, success: false, rejected: options.rejected });
  return { message: { role: "tool", toolCallId: call.id, name: call.name, content: text.content, isError: true }, items: [], ...(options.stop ? { stop: options.stop } : {}) };
}

function rejected(run: CallRun, reason: string, contexts: readonly string[], input: Record<string, unknown>, stop?: Stop): ToolCallOutcome {
  return notRun(run, { content: appendHookContext(reason, joinContexts([...contexts])), output: reason }, input, { rejected: true, stop });
}

/** LOOP-02: arguments that do not parse or fail the schema never reach hooks or the gate. */
function parseCall(run: CallRun): { ok: true; tool: ToolId; input: Record<string, unknown> } | { ok: false; outcome: ToolCallOutcome } {
  const { call, tool } = run;
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(call.arguments === "" ? "{}" : call.arguments);
  } catch (error) {
    parseError = `arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  const modelInput: Record<string, unknown> | string = isRecord(parsed) ? parsed : call.arguments;
  run.s.writer.append("tool_call", { tool_call_id: call.id, tool_name: call.name, input: modelInput });
  const invalid = (content: string, output: string) => ({ ok: false as const, outcome: notRun(run, { content, output }, modelInput, { rejected: false }) });
  if (tool === undefined) return invalid(`unknown tool "${call.name}"`, `unknown tool "${call.name}"`);
  if (parseError !== null) return invalid(`invalid arguments for ${tool}: ${parseError}`, parseError);
  const checked = validateToolInput(tool, parsed);
  if (!checked.ok) {
    const text = `invalid arguments for ${tool}: ${checked.path}: ${checked.message}`;
    return invalid(text, text);
  }
  return { ok: true, tool, input: checked.input };
}

export async function runToolCall(s: SessionServices, scope: { readonly signal: AbortSignal; readonly turnIndex: number }, call: ToolCallRequest): Promise<ToolCallOutcome> {
  // An MCP tool exists only while its server offers it (src/mcp/manager.ts).
  const run: CallRun = { s, scope: { ...scope, callId: call.id }, call, tool: canonicalTool(call.name) ?? s.mcp?.toolId(call.name) };
  const checked = parseCall(run);
  if (!checked.ok) return checked.outcome;
  const { tool } = checked;
  const at = { turnIndex: scope.turnIndex, callId: call.id };
  const preDecision = decideGate({ mode: s.permissionMode, rules: s.rules(), tool, input: checked.input }).decision;
  const pre = await s.fire({ event: "pre_tool", tool: { name: tool, callId: call.id, input: checked.input }, fields: { permission_decision: preDecision } }, at);
  const preContexts = pre.state.contexts;
  if (pre.state.denied) {
    const { modelReason } = pre.state.denied;
    return notRun(run, { content: appendHookContext(modelReason, joinContexts([...preContexts])), output: modelReason }, checked.input, { rejected: true, stop: stopOf(pre.state.stopSession) });
  }
  const hookDecision = pre.state.asked ? ("ask" as const) : pre.state.allowed ? ("allow" as const) : undefined;
  const input = { ...(pre.state.toolInput ?? checked.input) };
  const gate = decideGate({ mode: s.permissionMode, rules: s.rules(), tool, input, ...(hookDecision ? { hookDecision } : {}) });
  if (gate.decision === "deny") return rejected(run, gate.reason, preContexts, input);
  if (gate.decision === "ask") {
    const asked = await resolveAsk(run, tool, input, preContexts);
    if (!asked.ok) return asked.outcome;
    return runTool(run, tool, asked.input, preContexts);
  }
  return runTool(run, tool, input, preContexts);
}

/** The gate asked: permission_request hooks decide, else the user (interactive), else a denial (LOOP-13). */
async function resolveAsk(run: CallRun, tool: ToolId, current: Record<string, unknown>, preContexts: readonly string[]): Promise<{ ok: true; input: Record<string, unknown> } | { ok: false; outcome: ToolCallOutcome }> {
  const { s, call } = run;
  let input = current;
  const request = await s.fire(
    {
      event: "permission_request",
      tool: { name: tool, callId: call.id, input },
      fields: { permission_request: permissionRequestInfo(tool, input), permission_suggestions: permissionSuggestions(tool, input) },
    },
    { turnIndex: run.scope.turnIndex, callId: call.id },
  );
  const permission = request.state.permission;
  if (request.state.denied || permission?.behavior === "deny") {
    const reason = request.state.denied?.modelReason ?? permission?.message ?? "denied by a permission_request hook";
    // An `interrupt` or `continue: false` ends the session (LIFE-58); a failure under `fail` too.
    return { ok: false, outcome: rejected(run, reason, preContexts, input, stopOf(request.state.stopSession)) };
  }
  if (permission?.behavior === "allow") {
    if (permission.updatedInput) {
      const replaced = validateToolInput(tool, permission.updatedInput);
      if (replaced.ok) input = replaced.input;
      else s.emit({ type: "notice", kind: "warning", text: `agent: permission_request hook gave an invalid updatedInput (${replaced.path}); the previous input is kept` });
    } else if (request.state.toolInput) {
      input = { ...request.state.toolInput };
    }
    if (permission.updatedPermissions.length > 0) s.applyUpdates(permission.updatedPermissions);
    return { ok: true, input };
  }
  if (s.askPermission) {
    const answer = await askUser(run, tool, input);
    return answer === "deny" ? { ok: false, outcome: rejected(run, `the user denied ${tool}`, preContexts, input) } : { ok: true, input };
  }
  const denial = nonInteractiveDenial(tool, input);
  s.emit({ type: "notice", kind: "warning", text: `agent: ${denial}` });
  return { ok: false, outcome: rejected(run, denial, preContexts, input) };
}

/** Runs the tool, then the post phase, and delivers the result with its context (D19, D25). */
async function runTool(run: CallRun, tool: ToolId, input: Record<string, unknown>, preContexts: readonly string[]): Promise<ToolCallOutcome> {
  const { s, call } = run;
  startLine(run, input);
  const result: ToolResult = await s.execute(tool, input, run.scope);
  const metadata = result.metadata ?? {};
  s.writer.append("tool_result", { tool_call_id: call.id, tool_name: tool, input, success: result.success, content: result.content, metadata });
  const post = await s.fire(
    { event: "post_tool", tool: { name: tool, callId: call.id, input }, result: { success: result.success, content: result.content, metadata, ...(result.details ? { details: result.details } : {}) } },
    { turnIndex: run.scope.turnIndex, callId: call.id, deferInjections: true },
  );
  const context = joinContexts([...preContexts, ...(result.hookContext ?? []), ...post.state.contexts]);
  const output = post.state.output ?? result.content;
  const content = appendHookContext(output, context);
  s.writer.append("tool_result_delivered", { tool_call_id: call.id, content, output });
  s.flushDeferred(call.id);
  const items: string[] = [];
  for (const injection of post.state.injections) {
    if (injection.status !== "success") continue;
    for (const item of injection.items) {
      s.writer.append("provider_context_item", { role: "user", content: item.content });
      items.push(item.content);
    }
  }
  s.emit({ type: "tool_end", id: call.id, name: call.name, output, success: result.success, rejected: false });
  const stop: Stop | undefined = post.state.stops.length > 0 ? { reason: post.state.stops.join("; "), kind: "hook_blocked" } : (stopOf(post.state.stopSession) ?? result.hookStop);
  return {
    message: { role: "tool", toolCallId: call.id, name: call.name, content, ...(result.success ? {} : { isError: true }) },
    items,
    ...(stop ? { stop } : {}),
  };
}

/**
 * Interactive approval: the permission_prompt notification goes through notification hooks first
 * (LOOP-38, LIFE-71), then the user answers; `always` adds the first suggestion as a session rule.
 */
async function askUser(run: CallRun, tool: ToolId, input: Record<string, unknown>): Promise<PermissionAnswer> {
  const { s } = run;
  const ask = s.askPermission;
  if (ask === undefined) return "deny";
  const info = permissionRequestInfo(tool, input);
  const title = "Permission needed";
  const message = `agent needs your permission to use ${info.tool_name}: ${info.details}`;
  const notified = await s.fire({ event: "notification", fields: { notification_type: "permission_prompt", title, message } }, { turnIndex: run.scope.turnIndex, callId: run.call.id });
  const n = notified.state.notification;
  const suggestion = permissionSuggestions(tool, input)[0];
  const rule = suggestion?.type === "addRules" ? suggestion.rules[0] : undefined;
  const answer = await ask({
    tool,
    detail: info.details,
    notification: n.suppress ? null : { title: n.title ?? title, message: n.message ?? message },
    alwaysRule: rule ? (rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`) : null,
    input,
  });
  if (answer === "always" && suggestion) s.applyUpdates([suggestion]);
  return answer;
}
