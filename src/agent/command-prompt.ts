/**
 * A slash command's turn (src/plugins/commands.ts prepares it), run as Claude Code runs it: its
 * `allowed-tools:` are allow rules for that turn, its `model:` the turn's model, each `` !`cmd` `` is
 * run before the prompt is sent and replaced by its output, and each `@path` naming a file is read and
 * its text appended. Both go through the tool-call policy like a model's call (tool-policy.ts: pre_tool
 * hooks, the permission gate with those rules, permission_request hooks, the user when interactive,
 * post_tool hooks) and the real `bash` and `read` tools with their bounds: a line nothing allows is
 * asked, or refused under `agent run`, with a warning naming the command file and line; the model
 * gets a note in its place, never a silent gap. The hooks' records are written as for any call, but
 * no tool_call or tool_result: the model did not ask for these, and their outputs are in the prompt,
 * which user_prompt_submit hooks then see like any other.
 */
import { parseRule, type Rule } from "../permissions/rules.ts";
import type { PreparedCommand } from "../plugins/commands.ts";
import type { Provider } from "../providers/types.ts";
import { normalizeCall } from "../tools/call.ts";
import { toolCallDetail } from "../tools/describe.ts";
import { validateToolInput } from "../tools/index.ts";
import type { ToolName } from "../tools/names.ts";
import { resolvePath } from "../util/path-utils.ts";
import { escapeControls } from "../util/escape.ts";
import { appendHookContext, joinContexts } from "../hooks/merge/context.ts";
import { providerForModel } from "./agent-definition.ts";
import type { SessionServices } from "./session-services.ts";
import { sessionPolicy, type SessionStop } from "./tool-policy.ts";

export interface CommandTurn {
  /** The prompt to send: outputs and file texts in place. */
  readonly text: string;
  readonly provider: Provider;
  /** A hook ended the session while a line ran. */
  readonly stop?: SessionStop;
}

/** `@path` at a word start; trailing sentence punctuation is not part of the path. */
const AT_REF = /(^|[\s(])@([^\s`'"()<>,;]+?)(?=[.,;:!?]?(?:$|[\s)]))/g;

/** The command's `allowed-tools:` as rules; a bad entry is a warning naming the file and is left out. */
export function commandRules(s: SessionServices, command: PreparedCommand): Rule[] {
  const rules: Rule[] = [];
  for (const entry of command.allowedTools) {
    const parsed = parseRule(entry);
    if (parsed.ok) rules.push(parsed.rule);
    else s.emit({ type: "notice", kind: "warning", text: escapeControls(`agent: ${command.path}: allowed-tools: ${parsed.error}; left out`) });
  }
  return rules;
}

interface Ran {
  /** The tool executed (its result may still be a failure, such as a non-zero exit). */
  readonly ran: boolean;
  /** The tool's output (with hook context) when it ran, else why not. */
  readonly text: string;
  readonly stop?: SessionStop;
  /** For `read`: the file's lines without numbers. */
  readonly fileText?: string;
}

type Scope = { readonly signal: AbortSignal; readonly turnIndex: number };

/** One tool call of the command, through the session's policy and tool, shown like a model's call. */
async function runThroughPolicy(s: SessionServices, tool: ToolName, input: Record<string, unknown>, scope: Scope): Promise<Ran> {
  const callId = `command_${s.runtime.randomId(6)}`;
  const checked = validateToolInput(tool, input);
  if (!checked.ok) return { ran: false, text: `${checked.path}: ${checked.message}` };
  const at = { turnIndex: scope.turnIndex, callId };
  s.emit({ type: "tool_start", id: callId, name: tool, detail: toolCallDetail(tool, checked.input) });
  const verdict = await sessionPolicy(s).before(normalizeCall(s.runtime.fs, s.place, tool, checked.input), at);
  if (!verdict.run) {
    s.emit({ type: "tool_end", id: callId, name: tool, output: verdict.reason, success: false, rejected: true });
    return { ran: false, text: verdict.reason, ...(verdict.stop ? { stop: verdict.stop } : {}) };
  }
  const result = await s.execute(tool, { ...verdict.call.input }, { ...scope, callId });
  const post = await sessionPolicy(s).after(verdict.call, result, at);
  s.flushDeferred(callId);
  const output = appendHookContext(post.output ?? result.content, joinContexts([...verdict.contexts, ...post.contexts, ...post.items]));
  s.emit({ type: "tool_end", id: callId, name: tool, output, success: result.success, rejected: false });
  const fileText = result.success && result.details?.tool === "read" && post.output === undefined ? result.details.content : undefined;
  return { ran: true, text: output, ...(post.stop ? { stop: post.stop } : {}), ...(fileText !== undefined ? { fileText } : {}) };
}

function refused(s: SessionServices, command: PreparedCommand, line: number | null, what: string, why: string): string {
  const where = line === null ? command.path : `${command.path}:${line}`;
  s.emit({ type: "notice", kind: "warning", text: escapeControls(`agent: ${command.name} (${where}): ${what} ${why}`) });
  return `[${what} ${why}]`;
}

/** Runs the file's `!` lines in order; each is replaced by its output, or by a note saying why it did not run. */
async function runBangLines(s: SessionServices, command: PreparedCommand, scope: Scope): Promise<{ text: string; stop?: SessionStop }> {
  const out: string[] = [];
  for (const part of command.parts) {
    if ("text" in part) {
      out.push(part.text);
      continue;
    }
    const ran = await runThroughPolicy(s, "bash", { command: part.run }, scope);
    if (ran.stop) return { text: "", stop: ran.stop };
    out.push(ran.ran ? ran.text.replace(/\n+$/, "") : refused(s, command, part.line, `!\`${part.run}\``, `was not run: ${ran.text}`));
  }
  return { text: out.join("") };
}

/**
 * The `@path` references of the command's own text (not of `!` outputs) that name something that
 * exists: each read with `read`, its text appended; one that cannot be read is a note. A word like
 * `@types/node` that names no file stays text.
 */
async function readAtRefs(s: SessionServices, command: PreparedCommand, scope: Scope): Promise<{ blocks: string[]; stop?: SessionStop }> {
  // Only the prompt's text: a `!` line's command and output are never read as references.
  const own = command.parts.map((part) => ("text" in part ? part.text : " ")).join("");
  const blocks: string[] = [];
  const seen = new Set<string>();
  for (const match of own.matchAll(AT_REF)) {
    const path = match[2] ?? "";
    if (seen.has(path) || s.runtime.fs.stat(resolvePath(s.cwd, path)) === undefined) continue;
    seen.add(path);
    const ran = await runThroughPolicy(s, "read", { file_path: path }, scope);
    if (ran.stop) return { blocks, stop: ran.stop };
    if (ran.ran && ran.fileText !== undefined) blocks.push(`<file path="${path}">\n${ran.fileText}\n</file>`);
    else blocks.push(refused(s, command, null, `@${path}`, `was not read: ${ran.text}`));
  }
  return { blocks };
}

/**
 * The turn of `command`: its rules are set on `s` (the caller clears them when the turn ends), its
 * lines run and its files are read, and its model chosen. `modelRefusal`: the managed policy's say.
 */
export async function prepareCommandTurn(
  s: SessionServices,
  command: PreparedCommand,
  options: { provider: Provider; modelRefusal: (model: string) => string | null; signal: AbortSignal; turnIndex: number },
): Promise<CommandTurn> {
  s.setCommandRules(commandRules(s, command));
  const chosen = providerForModel(command.model ?? "", options.provider, options.modelRefusal);
  if (chosen.why !== null)
    s.emit({
      type: "notice",
      kind: "warning",
      text: escapeControls(`agent: ${command.path}: model: ${chosen.why}; ${command.name} uses the session's model ${options.provider.model}`),
    });
  const scope = { signal: options.signal, turnIndex: options.turnIndex };
  const files = await readAtRefs(s, command, scope);
  if (files.stop) return { text: "", provider: chosen.provider, stop: files.stop };
  const lines = await runBangLines(s, command, scope);
  if (lines.stop) return { text: "", provider: chosen.provider, stop: lines.stop };
  const text = files.blocks.length > 0 ? `${lines.text}\n\n${files.blocks.join("\n\n")}` : lines.text;
  return { text, provider: chosen.provider };
}
