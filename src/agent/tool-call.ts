/**
 * One tool call, end to end: record → parse/validate → pre_tool hooks → permission gate
 * (→ permission_request hooks) → tool → record → post_tool hooks → delivered result (D13, D19,
 * D24, D25). Never throws; a failure of any step is a tool result the model sees.
 */
import type { Message } from "../providers/types.ts";
import type { ToolName } from "../tools/names.ts";
import { canonicalTool } from "../tools/names.ts";
import { validateToolInput } from "../tools/index.ts";
import type { ToolResult } from "../tools/types.ts";
import { decideGate, permissionSuggestions, permissionRequestInfo, nonInteractiveDenial } from "../permissions/gate.ts";
import { joinContexts, appendHookContext } from "../hooks/context.ts";
import type { SessionContext } from "./session-context.ts";
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

function describeInput(tool: ToolName | undefined, input: Record<string, unknown> | undefined, raw: string): string {
  if (!input) return raw.slice(0, 120);
  const key = tool === "bash" ? "command" : tool === "grep" || tool === "glob" ? "pattern" : tool === "task" ? "description" : "file_path";
  const value = input[key];
  return typeof value === "string" ? value.slice(0, 200) : JSON.stringify(input).slice(0, 200);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export async function runToolCall(s: SessionContext, call: ToolCallRequest): Promise<ToolCallOutcome> {
  const tool = canonicalTool(call.name);
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(call.arguments === "" ? "{}" : call.arguments);
  } catch (error) {
    parseError = `arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  const modelInput: Record<string, unknown> | string = isRecord(parsed) ? parsed : call.arguments;
  s.writer.append("tool_call", { tool_call_id: call.id, tool_name: call.name, input: modelInput });
  // The UI's detail line shows the input as judged and run (after pre_tool modifications, LOOP-05,
  // DIR-49), so the start event waits until the pre phase has settled the input.
  const start = (input: Record<string, unknown> | undefined): void => {
    s.emit({ type: "tool_start", id: call.id, name: call.name, detail: describeInput(tool, input, call.arguments) });
  };

  const finish = (content: string, output: string, success: boolean, rejected: boolean, input: Record<string, unknown> | string, extra: Partial<ToolCallOutcome> = {}, metadata: Record<string, unknown> = {}): ToolCallOutcome => {
    start(typeof input === "string" ? undefined : input);
    s.writer.append("tool_result", { tool_call_id: call.id, tool_name: tool ?? call.name, input, success, content: output, metadata });
    s.writer.append("tool_result_delivered", { tool_call_id: call.id, content, output });
    s.emit({ type: "tool_end", id: call.id, name: call.name, output, success, rejected });
    return { message: { role: "tool", toolCallId: call.id, name: call.name, content, ...(success ? {} : { isError: true }) }, items: [], ...extra };
  };

  // LOOP-02: arguments that do not parse or fail the schema never reach hooks or the gate.
  if (tool === undefined) return finish(`unknown tool "${call.name}"`, `unknown tool "${call.name}"`, false, false, modelInput);
  if (parseError !== null) return finish(`invalid arguments for ${tool}: ${parseError}`, parseError, false, false, modelInput);
  const checked = validateToolInput(tool, parsed);
  if (!checked.ok) {
    const text = `invalid arguments for ${tool}: ${checked.path}: ${checked.message}`;
    return finish(text, text, false, false, modelInput);
  }

  let input: Record<string, unknown> = checked.input;
  const preDecision = decideGate({ mode: s.permissionMode, rules: s.rules(), tool, input }).decision;
  const pre = await s.fire({ event: "pre_tool", tool: { name: tool, callId: call.id, input }, fields: { permission_decision: preDecision } }, call.id);
  const preContexts = pre.state.contexts;
  if (pre.state.denied) {
    const context = joinContexts([...preContexts]);
    const stop = pre.state.stopSession ? { reason: pre.state.stopSession.reason, kind: pre.state.stopSession.kind === "hook_failed" ? ("hook_failed" as const) : ("hook_blocked" as const) } : undefined;
    return finish(appendHookContext(pre.state.denied.modelReason, context), pre.state.denied.modelReason, false, true, input, stop ? { stop } : {});
  }
  input = { ...(pre.state.toolInput ?? input) };

  const hookDecision = pre.state.asked ? ("ask" as const) : pre.state.allowed ? ("allow" as const) : undefined;
  const gate = decideGate({ mode: s.permissionMode, rules: s.rules(), tool, input, ...(hookDecision ? { hookDecision } : {}) });
  if (gate.decision === "deny") {
    return finish(appendHookContext(gate.reason, joinContexts([...preContexts])), gate.reason, false, true, input);
  }
  if (gate.decision === "ask") {
    const request = await s.fire(
      {
        event: "permission_request",
        tool: { name: tool, callId: call.id, input },
        fields: { permission_request: permissionRequestInfo(tool, input), permission_suggestions: permissionSuggestions(tool, input) },
      },
      call.id,
    );
    const permission = request.state.permission;
    if (request.state.denied || permission?.behavior === "deny") {
      const reason = request.state.denied?.modelReason ?? permission?.message ?? "denied by a permission_request hook";
      const ended = request.state.stopSession;
      // An `interrupt` or `continue: false` ends the session (LIFE-58); a failure under `fail` too.
      const stop = ended ? { stop: { reason: ended.reason, kind: ended.kind === "hook_failed" ? ("hook_failed" as const) : ("hook_blocked" as const) } } : {};
      return finish(appendHookContext(reason, joinContexts([...preContexts])), reason, false, true, input, stop);
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
    } else if (s.askPermission) {
      const answer = await askUser(s, tool, input, call.id);
      if (answer === "deny") {
        const reason = `the user denied ${tool}`;
        return finish(appendHookContext(reason, joinContexts([...preContexts])), reason, false, true, input);
      }
    } else {
      const denial = nonInteractiveDenial(tool, input);
      s.emit({ type: "notice", kind: "warning", text: `agent: ${denial}` });
      return finish(appendHookContext(denial, joinContexts([...preContexts])), denial, false, true, input);
    }
  }

  start(input);
  const result: ToolResult = await s.execute(tool, input, call.id);
  const metadata = result.metadata ?? {};
  s.writer.append("tool_result", { tool_call_id: call.id, tool_name: tool, input, success: result.success, content: result.content, metadata });
  const post = await s.fire({ event: "post_tool", tool: { name: tool, callId: call.id, input }, result: { success: result.success, content: result.content, metadata, ...(result.details ? { details: result.details } : {}) } }, call.id, { deferInjections: true });
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
  let stop: ToolCallOutcome["stop"];
  if (post.state.stops.length > 0) stop = { reason: post.state.stops.join("; "), kind: "hook_blocked" };
  else if (post.state.stopSession) stop = { reason: post.state.stopSession.reason, kind: post.state.stopSession.kind === "hook_failed" ? "hook_failed" : "hook_blocked" };
  else if (result.hookStop) stop = result.hookStop;
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
async function askUser(s: SessionContext, tool: ToolName, input: Record<string, unknown>, callId: string): Promise<PermissionAnswer> {
  const ask = s.askPermission;
  if (ask === undefined) return "deny";
  const info = permissionRequestInfo(tool, input);
  const title = "Permission needed";
  const message = `agent needs your permission to use ${info.tool_name}: ${info.details}`;
  const notified = await s.fire({ event: "notification", fields: { notification_type: "permission_prompt", title, message } }, callId);
  const n = notified.state.notification;
  const suggestion = permissionSuggestions(tool, input)[0];
  const rule = suggestion?.type === "addRules" ? suggestion.rules[0] : undefined;
  const answer = await ask({
    tool,
    detail: info.details,
    notification: n.suppress ? null : { title: n.title ?? title, message: n.message ?? message },
    alwaysRule: rule ? `${rule.toolName}(${rule.ruleContent ?? ""})` : null,
  });
  if (answer === "always" && suggestion) s.applyUpdates([suggestion]);
  return answer;
}
