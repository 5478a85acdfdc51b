/**
 * What an agent file's front matter says about its subagent beyond the prompt, read as Claude Code
 * reads it: `tools:` (a comma or YAML list of tool names, Claude's `Read, Grep` or ours) is the only
 * tools the subagent is offered, `disallowedTools:` takes tools away, and `model:` (`sonnet`, `opus`,
 * `haiku`, `inherit`, or a model id) picks its model when the session's provider can serve it. A name
 * or model that cannot be honoured is a warning and never a failure: an unknown tool is left out,
 * a model the provider cannot serve leaves the subagent on the session's model. `permissionMode:`
 * (Claude Code's `default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`) is the subagent's
 * mode, never wider than the parent's (D30).
 */
import type { Provider } from "../providers/types.ts";
import { canonicalTool, isMcpToolName, MCP_PREFIX, type ToolId } from "../tools/names.ts";
import { listItems } from "../plugins/components.ts";
import type { ToolAccess } from "./types.ts";
import { parseRule } from "../permissions/rules.ts";
import type { PermissionMode } from "../permissions/mode.ts";

/** Claude Code's model aliases, as the Anthropic API names them (`model: inherit` keeps the session's). */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-4-5",
  opus: "claude-opus-4-5",
  haiku: "claude-haiku-4-5",
};

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;

/** Claude Code tools with no counterpart here: listing them offers nothing, and says so. */
const CLAUDE_ONLY_TOOLS: ReadonlySet<string> = new Set(["LS", "WebSearch", "NotebookEdit", "NotebookRead", "SlashCommand", "Skill", "ExitPlanMode"]);

export interface SubagentSettings {
  /** Tools offered and allowed; undefined: every tool the parent has. */
  readonly access: ToolAccess | undefined;
  /** The provider the subagent asks: the parent's, or it with the definition's model. */
  readonly provider: Provider;
  /** The subagent's mode: its `permissionMode:`, never wider than the parent's (D30). */
  readonly permissionMode: PermissionMode;
  /** `permissionMode: dontAsk`: nobody is asked; what the rules and hooks do not allow is refused. */
  readonly neverAsks: boolean;
  /** Things the definition asked for that cannot be honoured, each one line naming the file and field. */
  readonly warnings: readonly string[];
}

/**
 * Claude Code's `permissionMode:` values (and ours) as a mode here. `plan` only reads, as readonly
 * does; `dontAsk` is the default mode with nobody to ask.
 */
const AGENT_MODES: Readonly<Record<string, { readonly mode: PermissionMode; readonly neverAsks: boolean }>> = {
  default: { mode: "default", neverAsks: false },
  acceptEdits: { mode: "accept-edits", neverAsks: false },
  "accept-edits": { mode: "accept-edits", neverAsks: false },
  plan: { mode: "readonly", neverAsks: false },
  readonly: { mode: "readonly", neverAsks: false },
  bypassPermissions: { mode: "bypass", neverAsks: false },
  bypass: { mode: "bypass", neverAsks: false },
  dontAsk: { mode: "default", neverAsks: true },
};

/** How much each mode lets through without a question, narrowest first; `dontAsk` sits between readonly and default. */
function breadth(mode: PermissionMode, neverAsks: boolean): number {
  if (mode === "readonly") return 0;
  if (neverAsks) return 1;
  return { default: 2, "accept-edits": 3, bypass: 4 }[mode];
}

/**
 * The subagent's mode (D30): the narrower of its `permissionMode:` and the parent's mode. An agent
 * file never widens what the session may do; asking to is one warning naming the file.
 */
function agentMode(
  agent: string,
  path: string,
  requested: string | undefined,
  parent: PermissionMode,
  warnings: string[],
): { permissionMode: PermissionMode; neverAsks: boolean } {
  const value = requested?.trim() ?? "";
  if (value === "") return { permissionMode: parent, neverAsks: false };
  const wanted = AGENT_MODES[value];
  if (wanted === undefined) {
    warnings.push(`${path}: permissionMode: ${modeProblem(value)}; the ${agent} subagent runs in the session's ${parent} mode`);
    return { permissionMode: parent, neverAsks: false };
  }
  if (breadth(wanted.mode, wanted.neverAsks) <= breadth(parent, false)) return { permissionMode: wanted.mode, neverAsks: wanted.neverAsks };
  warnings.push(
    `${path}: permissionMode: ${value} is wider than the session's ${parent} mode; the ${agent} subagent runs in ${parent} mode (an agent never widens what the session may do)`,
  );
  return { permissionMode: parent, neverAsks: false };
}

function modeProblem(value: string): string {
  return `"${value}" is not a permission mode (default, acceptEdits, plan, bypassPermissions, dontAsk)`;
}

/** One entry of a tools list: a built-in (any spelling), an MCP tool or server (`mcp__github`), or `mcp__x__*`. */
function toolEntry(entry: string): { ok: true; match: (tool: ToolId) => boolean } | { ok: false; why: string } {
  // `Bash(git diff:*)` names the tool; the pattern is a permission rule's business, not the tool list's.
  const name = entry.replace(/\(.*\)$/, "").trim();
  const builtin = canonicalTool(name);
  if (builtin !== undefined) return { ok: true, match: (tool) => tool === builtin };
  if (name.startsWith(MCP_PREFIX)) {
    if (name.endsWith("*")) return { ok: true, match: (tool) => tool.startsWith(name.slice(0, -1)) };
    if (isMcpToolName(name)) return { ok: true, match: (tool) => tool === name };
    return { ok: true, match: (tool) => tool.startsWith(`${name}__`) };
  }
  return { ok: false, why: CLAUDE_ONLY_TOOLS.has(name) ? `${name} is a Claude Code tool with no counterpart here` : `unknown tool ${name}` };
}

function toolAccess(agent: string, path: string, fields: Readonly<Record<string, string>>, warnings: string[]): ToolAccess | undefined {
  const listed = fields.tools?.trim();
  const removed = fields.disallowedTools?.trim() ?? fields["disallowed-tools"]?.trim();
  if ((listed === undefined || listed === "" || listed === "*") && (removed === undefined || removed === "")) return undefined;
  const parse = (field: string, text: string | undefined): ((tool: ToolId) => boolean)[] =>
    listItems(text ?? "").flatMap((entry) => {
      const parsed = toolEntry(entry);
      if (parsed.ok) return [parsed.match];
      warnings.push(`${path}: ${field}: ${parsed.why}; it is left out`);
      return [];
    });
  const allow = listed === undefined || listed === "" || listed === "*" ? undefined : parse("tools", listed);
  const deny = parse("disallowedTools", removed);
  const offers = (tool: ToolId): boolean => (allow === undefined || allow.some((match) => match(tool))) && !deny.some((match) => match(tool));
  const granted = listed !== undefined && listed !== "" && listed !== "*" ? ` (its tools: ${listed})` : ` (its disallowedTools: ${removed})`;
  return { offers, refusal: (tool) => `the ${agent} subagent may not use ${tool}${granted}` };
}

/** The model id `model:` asks for and the provider can serve, or why not. */
function servableModel(model: string, provider: Provider): { ok: true; model: string } | { ok: false; why: string } {
  const alias = MODEL_ALIASES[model.toLowerCase()];
  const wanted = alias ?? model;
  if (!MODEL_NAME.test(wanted)) return { ok: false, why: `"${model}" is not a model name` };
  // The script provider replays a file for any model; the rest serve their own family.
  if (provider.id === "script") return { ok: true, model: wanted };
  const claude = wanted.startsWith("claude-");
  if (provider.id === "anthropic" && !claude) return { ok: false, why: `the anthropic provider serves claude-* models, not ${model}` };
  if (provider.id === "openai" && (alias !== undefined || claude)) return { ok: false, why: `the openai provider does not serve Claude's ${model}` };
  return { ok: true, model: wanted };
}

/**
 * `provider` switched to `model` (an alias or id; `inherit` or "" keeps it), or `provider` itself
 * with why not when it cannot serve that model or `modelRefusal` (the managed policy) refuses it.
 */
export function providerForModel(
  model: string,
  provider: Provider,
  modelRefusal: (model: string) => string | null,
): { readonly provider: Provider; readonly why: string | null } {
  if (model === "" || model.toLowerCase() === "inherit") return { provider, why: null };
  const servable = servableModel(model, provider);
  const refused = servable.ok ? modelRefusal(servable.model) : servable.why;
  if (!servable.ok || refused !== null) return { provider, why: refused ?? model };
  return { provider: servable.model === provider.model ? provider : withModel(provider, servable.model), why: null };
}

/** `provider` asking for `model` in each request that names none of its own. */
export function withModel(provider: Provider, model: string): Provider {
  return { id: provider.id, model, stream: (request) => provider.stream({ ...request, model: request.model ?? model }) };
}

/**
 * The subagent `agent` defined by `path` with front matter `fields`, run on `provider`.
 * `modelRefusal` says why a model may not be used (the managed provider policy), or null.
 */
export function subagentSettings(
  agent: string,
  definition: { readonly path: string; readonly fields: Readonly<Record<string, string>> } | undefined,
  provider: Provider,
  parentMode: PermissionMode,
  modelRefusal: (model: string) => string | null = () => null,
): SubagentSettings {
  const warnings: string[] = [];
  if (definition === undefined) return { access: undefined, provider, permissionMode: parentMode, neverAsks: false, warnings };
  const { path, fields } = definition;
  const access = toolAccess(agent, path, fields, warnings);
  const chosen = providerForModel(fields.model?.trim() ?? "", provider, modelRefusal);
  if (chosen.why !== null) warnings.push(`${path}: model: ${chosen.why}; the ${agent} subagent uses the session's model ${provider.model}`);
  const mode = agentMode(agent, path, fields.permissionMode, parentMode, warnings);
  return { access, provider: chosen.provider, ...mode, warnings };
}

/**
 * What an agent file's or command file's front matter asks for that can never be honoured, whatever
 * the provider: unknown tool names, a `model:` that is no model name, an `allowed-tools` entry that
 * is no rule. `agent plugin list` shows them before a run meets them.
 */
export function frontMatterProblems(kind: "agent" | "command", fields: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const listFields = kind === "agent" ? ["tools", "disallowedTools"] : [];
  for (const field of listFields) {
    const text = fields[field]?.trim();
    if (text === undefined || text === "*") continue;
    for (const entry of listItems(text)) {
      const parsed = toolEntry(entry);
      if (!parsed.ok) problems.push(`${field}: ${parsed.why}; it is left out`);
    }
  }
  if (kind === "command") {
    for (const entry of listItems(fields["allowed-tools"] ?? fields.allowedTools ?? "")) {
      const parsed = parseRule(entry);
      if (!parsed.ok) problems.push(`allowed-tools: ${parsed.error}; left out`);
    }
  }
  const mode = fields.permissionMode?.trim() ?? "";
  if (kind === "agent" && mode !== "" && AGENT_MODES[mode] === undefined) problems.push(`permissionMode: ${modeProblem(mode)}; the session's mode is used`);
  const model = fields.model?.trim() ?? "";
  if (model !== "" && model.toLowerCase() !== "inherit" && MODEL_ALIASES[model.toLowerCase()] === undefined && !MODEL_NAME.test(model))
    problems.push(`model: "${model}" is not a model name; the session's model is used`);
  return problems;
}
