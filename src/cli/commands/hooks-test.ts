/**
 * `agent hooks test EVENT …`: fires one synthetic event through the same engine a session uses
 * (discovery, trust, preflight, redaction, spawn, merge) and prints the merged outcome.
 * Exit 2 for deny/block, 0 otherwise, 1 on bad arguments or untrusted project hooks. A provider
 * (`--provider`, `--script`, or the configured one) is used only when a prompt hook runs.
 */
import * as v from "valibot";
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { canonicalEvent, CANONICAL_EVENTS, TOOL_EVENTS, type CanonicalEvent } from "../../util/events.ts";
import { toolIdOf, type ToolId } from "../../tools/names.ts";
import { EVENT_FIELD_DEFAULTS } from "../../hooks/event-fields.ts";
import { jsonErrorPosition } from "../../config/json-position.ts";
import type { ToolResultInfo } from "../../hooks/dialects/types.ts";
import { openHarness } from "./hook-harness.ts";
import type { EventOutcome } from "../../hooks/dispatch.ts";
import { resolvePath } from "../../util/path-utils.ts";

export interface HooksTestOptions {
  readonly cwd: string;
  readonly json: boolean;
  readonly event: string | undefined;
  readonly extra: readonly string[];
  readonly tool: string | undefined;
  readonly input: string | undefined;
  readonly result: string | undefined;
  readonly prompt: string | undefined;
  readonly fields: readonly string[];
  readonly trust: boolean;
  /** Prompt hooks' provider; needed only when a prompt hook matches. */
  readonly provider?: string | undefined;
  readonly script?: string | undefined;
  readonly model?: string | undefined;
  readonly baseUrl?: string | undefined;
  /** `--plugin-dir` values (absolute). */
  readonly pluginDirs?: readonly string[];
}

const ResultSchema = v.object({
  success: v.boolean(),
  content: v.string(),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});

function readJsonArgument(runtime: Runtime, flag: string, raw: string, cwd: string): unknown {
  let text = raw;
  if (raw.startsWith("@")) {
    const path = resolvePath(cwd, raw.slice(1));
    const content = runtime.fs.readText(path);
    if (content === undefined) throw new AgentError("usage", `${flag}: cannot read ${path}`, { fix: "check the path after @" });
    text = content;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = jsonErrorPosition(text);
    throw new AgentError("usage", `${flag}: invalid JSON${position ? ` at ${position}` : ""}: ${message}`, {
      fix: `pass a JSON value or @file, e.g. ${flag} '{"command":"ls"}'`,
    });
  }
}

function parseEvent(name: string | undefined): CanonicalEvent {
  if (name === undefined) throw new AgentError("usage", "missing EVENT", { fix: `use one of ${CANONICAL_EVENTS.join(", ")}` });
  const event = canonicalEvent(name);
  if (event === undefined)
    throw new AgentError("usage", `unknown event "${name}"`, { fix: `use one of ${CANONICAL_EVENTS.join(", ")} (or an alias such as PreToolUse)` });
  return event;
}

function parseFields(event: CanonicalEvent, pairs: readonly string[]): Record<string, unknown> {
  const allowed = EVENT_FIELD_DEFAULTS[event];
  const fields: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new AgentError("usage", `--field ${pair}: expected KEY=JSON`, { fix: `e.g. --field source='"resume"'` });
    const key = pair.slice(0, eq);
    if (!(key in allowed)) {
      const names = Object.keys(allowed);
      throw new AgentError("usage", `--field ${key}: ${event} has no field "${key}"`, {
        fix: names.length > 0 ? `fields of ${event}: ${names.join(", ")}` : `${event} takes no --field`,
      });
    }
    try {
      fields[key] = JSON.parse(pair.slice(eq + 1));
    } catch {
      throw new AgentError("usage", `--field ${key}: value is not JSON`, { fix: `quote strings as JSON, e.g. --field ${key}='"text"'` });
    }
  }
  return fields;
}

/** `--tool`: the tool a tool event fires for (an MCP name needs no running server); none for other events. */
function testedTool(named: CanonicalEvent, given: string | undefined): ToolId | undefined {
  const isToolEvent = TOOL_EVENTS.has(named);
  if (given === undefined) {
    if (isToolEvent) throw new AgentError("usage", `${named} needs --tool`, { fix: "e.g. --tool bash" });
    return undefined;
  }
  if (!isToolEvent)
    throw new AgentError("usage", `--tool is only for tool events, not ${named}`, { fix: "use pre_tool, post_tool, post_tool_failure or permission_request" });
  const tool = toolIdOf(given);
  if (tool === undefined) {
    throw new AgentError("usage", `--tool: unknown tool "${given}"`, {
      fix: "use read, write, edit, bash, grep, glob, task, bash_output, kill_shell or an MCP tool mcp__<server>__<tool>",
    });
  }
  return tool;
}

/** `--result` for post_tool and post_tool_failure (a default result when absent); an error elsewhere. */
function testedResult(runtime: Runtime, named: CanonicalEvent, options: HooksTestOptions): ToolResultInfo | undefined {
  if (named !== "post_tool" && named !== "post_tool_failure") {
    if (options.result !== undefined) throw new AgentError("usage", `--result is only for post_tool and post_tool_failure, not ${named}`);
    return undefined;
  }
  const raw =
    options.result === undefined ? { success: named === "post_tool", content: "" } : readJsonArgument(runtime, "--result", options.result, options.cwd);
  const parsed = v.safeParse(ResultSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const path = issue ? (v.getDotPath(issue) ?? "") : "";
    throw new AgentError("usage", `--result: ${path ? `field ${path}: ` : ""}${issue?.message ?? "invalid"}`, {
      fix: `e.g. --result '{"success":true,"content":"ok"}'`,
    });
  }
  if (named === "post_tool_failure" && parsed.output.success) throw new AgentError("usage", '--result: post_tool_failure needs "success": false');
  return parsed.output;
}

export async function runHooksTest(runtime: Runtime, io: CliIO, options: HooksTestOptions): Promise<number> {
  if (options.extra.length > 0)
    throw new AgentError("usage", `unexpected argument "${options.extra[0]}"`, { fix: "agent hooks test EVENT [--tool NAME] [--input JSON] …" });
  const named = parseEvent(options.event);
  const tool = testedTool(named, options.tool);
  const rawInput = options.input === undefined ? {} : readJsonArgument(runtime, "--input", options.input, options.cwd);
  const parsedInput = v.safeParse(v.record(v.string(), v.unknown()), rawInput);
  if (!parsedInput.success) throw new AgentError("usage", "--input: must be a JSON object", { fix: `e.g. --input '{"command":"ls"}'` });
  const toolInput: Record<string, unknown> = parsedInput.output;
  const result = testedResult(runtime, named, options);

  const fields: Record<string, unknown> = { ...EVENT_FIELD_DEFAULTS[named], ...parseFields(named, options.fields) };
  if (options.prompt !== undefined) {
    if (!("prompt" in fields)) throw new AgentError("usage", `--prompt is only for user_prompt_submit, not ${named}`);
    fields.prompt = options.prompt;
  }

  const harness = openHarness(runtime, io, options);
  if (harness === null) return 1;
  const loaded = harness.loaded;
  const fired = await harness.fire({ named, tool, input: toolInput, result, fields, sessionId: `hooks-test-${runtime.randomId(4)}` });
  await harness.close();
  // Async hooks (D15) have ended by now: their rows follow the others.
  const outcome = { ...fired.outcome, rows: [...fired.rows, ...(await fired.outcome.asyncRows)] };
  for (const line of harness.takeFailureLines()) io.err(`${line}\n`);
  // Non-fatal hook warnings (D9's ignored hookSpecificOutput, …) reach stderr as in a session.
  for (const warning of outcome.state.warnings) io.err(`agent: ${warning}\n`);

  const state = outcome.state;
  const context = fired.context;
  const contextItems = state.injections
    .filter((i) => i.status === "success")
    .flatMap((i) => i.items.map((item) => ({ role: item.role, content: item.content })));
  const summary = {
    event: named,
    tool: tool ?? null,
    decision: outcome.decision,
    reason: outcome.reason,
    input: fired.input,
    // user_prompt_submit: the prompt the model would get (rewritten or not); null elsewhere.
    prompt: named === "user_prompt_submit" ? (state.prompt ?? (typeof fields.prompt === "string" ? fields.prompt : "")) : null,
    context,
    output: state.output ?? null,
    context_items: contextItems,
    system_messages: state.systemMessages,
    hooks: outcome.rows,
    decided_by: fired.decidedBy?.label ?? null,
  };
  if (options.json) io.out(`${JSON.stringify(summary)}\n`);
  else io.out(`${textReport({ named, tool, outcome, fields, context, contextItems, hooksOff: loaded.hooksOff }).join("\n")}\n`);
  return outcome.decision === "deny" || outcome.decision === "block" ? 2 : 0;
}

interface TextReportInput {
  readonly named: string;
  readonly tool: ToolId | undefined;
  readonly outcome: EventOutcome;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly context: string;
  readonly contextItems: readonly { role: string; content: string }[];
  readonly hooksOff: string | null;
}

/** The merged outcome, then one row per hook (CLI-12). */
function textReport(r: TextReportInput): string[] {
  const { outcome } = r;
  const state = outcome.state;
  const lines = [`${r.named}${r.tool ? ` ${r.tool}` : ""}: ${outcome.decision}${outcome.reason ? `: ${outcome.reason}` : ""}`];
  if (state.prompt !== undefined) {
    const before = typeof r.fields.prompt === "string" ? r.fields.prompt : "";
    lines.push("prompt rewritten:", ...before.split("\n").map((line) => `- ${line}`), ...state.prompt.split("\n").map((line) => `+ ${line}`));
  }
  if (r.context) lines.push(`context: ${r.context}`);
  if (state.output !== undefined) lines.push(`output: ${state.output}`);
  for (const message of state.systemMessages) lines.push(`system message: ${message}`);
  for (const info of state.infos) lines.push(`info: ${info}`);
  for (const item of r.contextItems) lines.push(`context item (${item.role}): ${item.content}`);
  if (outcome.rows.length === 0) lines.push(r.hooksOff ? `hooks disabled (${r.hooksOff})` : "no hook matched");
  for (const row of outcome.rows) {
    lines.push(`  ${row.label}  ${row.scope}  ${row.form}  ${row.dialect}  ${row.status}${row.category ? ` (${row.category})` : ""}  ${row.elapsed_ms}ms`);
  }
  return lines;
}
