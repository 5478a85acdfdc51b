/**
 * One tool call, end to end: record → parse/validate → normalise (tools/call.ts) → the policy's
 * `before` (pre_tool hooks, gate, permission_request hooks, the user) → tool → record → the policy's
 * `after` (post_tool hooks) → delivered result (D13, D19, D24, D25). The loop reads only the
 * policy's typed verdicts (tool-policy.ts). Never throws; a failure of any step is a tool result the
 * model sees.
 */
import type { Message } from "../providers/types.ts";
import type { ToolId } from "../tools/names.ts";
import { canonicalTool } from "../tools/names.ts";
import { validateToolInput } from "../tools/index.ts";
import type { ToolResult } from "../tools/types.ts";
import { normalizeCall, type NormalizedCall } from "../tools/call.ts";
import { displayPath } from "../tools/paths.ts";
import { escapeControls } from "../util/escape.ts";
import { toolCallDetail } from "../tools/describe.ts";
import { joinContexts, appendHookContext } from "../hooks/merge/context.ts";
import type { CallScope, SessionServices } from "./session-services.ts";
import { sessionPolicy, type AfterVerdict, type PermissionFact, type SessionStop } from "./tool-policy.ts";

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

type Stop = SessionStop;

const CANCELLED_BEFORE = "[tool call cancelled before it ran]";

function startLine(run: CallRun, input: Readonly<Record<string, unknown>> | undefined): void {
  const path = input?.file_path;
  // Resolved paths are shown relative to the cwd, as the model wrote them.
  const shown = typeof path === "string" && input ? { ...input, file_path: displayPath(run.s.cwd, path) } : input;
  run.s.emit({ type: "tool_start", id: run.call.id, name: run.call.name, detail: toolCallDetail(run.tool ?? run.call.name, shown ?? run.call.arguments) });
}

/** A call that ends without running its tool (invalid, denied, rejected): its records and lines. */
function notRun(
  run: CallRun,
  text: { content: string; output: string },
  input: Readonly<Record<string, unknown>> | string,
  options: { rejected: boolean; stop?: Stop | undefined; cancelled?: boolean; permission?: PermissionFact | undefined },
): ToolCallOutcome {
  const { s, call } = run;
  // The UI's detail line shows the input as judged and run (after pre_tool modifications, LOOP-05,
  // DIR-49), so the start event waits until the pre phase has settled the input.
  startLine(run, typeof input === "string" ? undefined : input);
  // `rejected` tells a refusal (a hook, a rule, the user) from a failure when the session is replayed.
  s.writer.append("tool_result", {
    tool_call_id: call.id,
    tool_name: run.tool ?? call.name,
    input,
    success: false,
    content: text.output,
    metadata: options.rejected ? { rejected: true } : options.cancelled ? { cancelled: true } : {},
    ...(options.permission ? { permission: options.permission } : {}),
  });
  s.writer.append("tool_result_delivered", { tool_call_id: call.id, content: text.content, output: text.output });
  s.emit({ type: "tool_end", id: call.id, name: call.name, output: text.output, success: false, rejected: options.rejected });
  return {
    message: { role: "tool", toolCallId: call.id, name: call.name, content: text.content, isError: true },
    items: [],
    ...(options.stop ? { stop: options.stop } : {}),
  };
}

function rejected(
  run: CallRun,
  reason: string,
  contexts: readonly string[],
  input: Readonly<Record<string, unknown>>,
  stop?: Stop,
  permission?: PermissionFact,
): ToolCallOutcome {
  return notRun(run, { content: appendHookContext(reason, joinContexts([...contexts])), output: reason }, input, { rejected: true, stop, permission });
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

export async function runToolCall(
  s: SessionServices,
  scope: { readonly signal: AbortSignal; readonly turnIndex: number },
  call: ToolCallRequest,
): Promise<ToolCallOutcome> {
  // An MCP tool exists only while its server offers it (src/mcp/manager.ts).
  const run: CallRun = { s, scope: { ...scope, callId: call.id }, call, tool: canonicalTool(call.name) ?? s.mcp?.toolId(call.name) };
  const checked = parseCall(run);
  if (!checked.ok) return checked.outcome;
  // A subagent's definition lists its tools: a call to another is refused before any hook or rule sees it.
  if (s.toolAccess !== undefined && !s.toolAccess.offers(checked.tool)) {
    const refusal = s.toolAccess.refusal(checked.tool);
    s.emit({ type: "notice", kind: "warning", text: escapeControls(`agent: refused: ${refusal}`) });
    return rejected(run, refusal, [], checked.input);
  }
  const at = { turnIndex: scope.turnIndex, callId: call.id };
  const normalized = normalizeCall(s.runtime.fs, s.place, checked.tool, checked.input);
  const verdict = await sessionPolicy(s).before(normalized, at);
  if (!verdict.run) return rejected(run, verdict.reason, verdict.contexts, verdict.input, verdict.stop, verdict.permission);
  // A stop signal during the pre phase killed its hooks (a fail-open failure says "tool ran anyway"):
  // the call is cancelled, not run (D29).
  if (scope.signal.aborted)
    return notRun(run, { content: CANCELLED_BEFORE, output: CANCELLED_BEFORE }, verdict.call.input, {
      rejected: false,
      cancelled: true,
      permission: verdict.permission,
    });
  return runTool(run, verdict.call, verdict.contexts, verdict.permission);
}

/** What a successful file tool changed, from its details: the before and after text of one file. */
function fileChangeOf(result: ToolResult, input: Readonly<Record<string, unknown>>): { path: string; before: string; after: string } | undefined {
  const details = result.details;
  if (details?.tool === "edit" || details?.tool === "multi_edit") return { path: details.path, before: details.originalFile, after: details.updatedFile };
  if (details?.tool === "write" && typeof input.content === "string" && (details.created || details.originalFile !== null))
    return { path: details.path, before: details.originalFile ?? "", after: input.content };
  return undefined;
}

/** Runs the tool, then the post phase, and delivers the result with its context (D19, D25). */
async function runTool(run: CallRun, normalized: NormalizedCall, preContexts: readonly string[], permission?: PermissionFact): Promise<ToolCallOutcome> {
  const { s, call } = run;
  const { tool, input } = normalized;
  startLine(run, input);
  const result: ToolResult = await s.execute(tool, { ...input }, run.scope);
  // A call the stop signal cut short did not run to its end: no post hooks, as in Claude Code (D29).
  const cancelled = run.scope.signal.aborted;
  s.writer.append("tool_result", {
    tool_call_id: call.id,
    tool_name: tool,
    input,
    success: result.success,
    content: result.content,
    metadata: cancelled ? { ...result.metadata, cancelled: true } : (result.metadata ?? {}),
    ...(permission ? { permission } : {}),
  });
  const post: AfterVerdict = cancelled
    ? { contexts: [], items: [] }
    : await sessionPolicy(s).after(normalized, result, { turnIndex: run.scope.turnIndex, callId: call.id });
  const context = joinContexts([...preContexts, ...(result.hookContext ?? []), ...post.contexts]);
  const output = post.output ?? result.content;
  const content = appendHookContext(output, context);
  // A result kept in the outputs directory is a preview of up to 4 KiB: the tool_result above holds it once.
  const once = (text: string): string | undefined => (result.metadata?.output_file !== undefined && text === result.content ? undefined : text);
  s.writer.append("tool_result_delivered", { tool_call_id: call.id, content: once(content), output: once(output) });
  s.flushDeferred(call.id);
  for (const item of post.items) s.writer.append("provider_context_item", { role: "user", content: item });
  const change = result.success ? fileChangeOf(result, input) : undefined;
  s.emit({ type: "tool_end", id: call.id, name: call.name, output, success: result.success, rejected: false, ...(change ? { change } : {}) });
  const stop = post.stop ?? result.hookStop;
  return {
    message: { role: "tool", toolCallId: call.id, name: call.name, content, ...(result.success ? {} : { isError: true }) },
    items: post.items,
    ...(stop ? { stop } : {}),
  };
}
