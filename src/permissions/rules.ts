/**
 * Permission rules (D24): `tool(pattern)` or a bare `tool`. The tool is a canonical name or an alias,
 * compared case-insensitively; in the pattern `*` matches any run of characters (spaces included) and
 * every other character is literal. A pattern must match the whole subject field of the tool input.
 * Matching is linear in pattern + subject length (KMP per literal segment, no backtracking), so a
 * hostile command or rule can never stall the gate. MCP rules name tools, not inputs: `mcp__github`
 * (every tool of that server), `mcp__github__create_issue`, or a `*` glob such as `mcp__github__*`;
 * they are case-sensitive and take no `(pattern)`.
 */
import { canonicalToolLoose, isBuiltin, isMcpToolName, MCP_PREFIX, type ToolId, type ToolName } from "../tools/names.ts";

export interface Rule {
  /** A canonical built-in, or for MCP rules the name or glob as written (`mcp__github__*`). */
  readonly tool: ToolId;
  /** null for a bare `tool` rule (every input). */
  readonly pattern: string | null;
  /** The rule as written (trimmed); deny and ask messages name it. */
  readonly text: string;
}

export type RuleParseResult = { readonly ok: true; readonly rule: Rule } | { readonly ok: false; readonly error: string };

/** Which input field a rule's pattern is matched against, per tool (D24). */
export const RULE_FIELDS: Readonly<Record<ToolName, string>> = {
  bash: "command",
  read: "file_path",
  write: "file_path",
  edit: "file_path",
  grep: "path",
  glob: "path",
  task: "subagent_type",
  bash_output: "bash_id",
  kill_shell: "shell_id",
  todo_write: "todos", multi_edit: "file_path", apply_patch: "input", web_fetch: "url",
};

/** Parses one rule. Never throws; an invalid rule is an error value that names it. */
export function parseRule(text: string): RuleParseResult {
  const trimmed = text.trim();
  const open = trimmed.indexOf("(");
  let name: string;
  let pattern: string | null;
  if (open === -1) {
    if (trimmed.includes(")")) return invalid(text, "unbalanced `)`");
    name = trimmed;
    pattern = null;
  } else {
    if (!trimmed.endsWith(")")) return invalid(text, "expected `tool(pattern)` ending in `)`");
    name = trimmed.slice(0, open).trim();
    pattern = trimmed.slice(open + 1, -1);
  }
  if (name.length === 0) return invalid(text, "missing tool name");
  if (name.startsWith(MCP_PREFIX)) {
    if (pattern !== null) return invalid(text, "MCP rules name tools only; write `mcp__server`, `mcp__server__tool` or `mcp__server__*` without `(…)`");
    if (name.length === MCP_PREFIX.length) return invalid(text, "missing MCP server name after mcp__");
    return { ok: true, rule: { tool: `${MCP_PREFIX}${name.slice(MCP_PREFIX.length)}`, pattern: null, text: trimmed } };
  }
  const tool = canonicalToolLoose(name);
  if (tool === undefined) return invalid(text, `unknown tool \`${name}\``);
  return { ok: true, rule: { tool, pattern, text: trimmed } };
}

/** Parses a list, keeping valid rules in order and one error per invalid rule. */
export function parseRules(texts: readonly string[]): { rules: Rule[]; errors: string[] } {
  const rules: Rule[] = [];
  const errors: string[] = [];
  for (const text of texts) {
    const parsed = parseRule(text);
    if (parsed.ok) rules.push(parsed.rule);
    else errors.push(parsed.error);
  }
  return { rules, errors };
}

function invalid(text: string, why: string): RuleParseResult {
  return {
    ok: false,
    error: `invalid permission rule ${JSON.stringify(text)}: ${why} (write \`tool\` or \`tool(pattern)\`, e.g. \`bash(git status*)\`)`,
  };
}

/** The string a rule's pattern is matched against; an absent or non-string field counts as "". */
export function ruleSubject(tool: ToolId, input: Readonly<Record<string, unknown>>): string {
  if (!isBuiltin(tool)) return "";
  const value = input[RULE_FIELDS[tool]];
  return typeof value === "string" ? value : "";
}

export function ruleMatches(rule: Rule, tool: ToolId, input: Readonly<Record<string, unknown>>): boolean {
  if (!isBuiltin(rule.tool)) return isMcpToolName(tool) && (matchPattern(rule.tool, tool) || (!rule.tool.includes("__", MCP_PREFIX.length) && tool.startsWith(`${rule.tool}__`)));
  if (rule.tool !== tool) return false;
  if (rule.pattern === null) return true;
  return matchPattern(rule.pattern, ruleSubject(tool, input));
}

/** First rule of `rules` matching the call, in order. */
export function findMatchingRule(rules: readonly Rule[], tool: ToolId, input: Readonly<Record<string, unknown>>): Rule | undefined {
  for (const rule of rules) if (ruleMatches(rule, tool, input)) return rule;
  return undefined;
}

/**
 * Whole-string match of a `*`-glob. The pattern splits at `*` into literal segments: the first must
 * be a prefix, the last a suffix, and the middle ones occur in order, each found leftmost (leftmost
 * is always safe for `*`-only globs, so no backtracking is ever needed).
 */
export function matchPattern(pattern: string, subject: string): boolean {
  const segments = pattern.split("*");
  if (segments.length === 1) return pattern === subject;
  const first = segments[0] ?? "";
  const last = segments[segments.length - 1] ?? "";
  if (first.length + last.length > subject.length) return false;
  if (!subject.startsWith(first) || !subject.endsWith(last)) return false;
  let position = first.length;
  const end = subject.length - last.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const segment = segments[i] ?? "";
    if (segment.length === 0) continue;
    const found = indexOfLinear(subject, segment, position, end);
    if (found === -1) return false;
    position = found + segment.length;
  }
  return true;
}

/** KMP search for `needle` inside `haystack[from, to)`; -1 when absent. O(to - from + needle). */
function indexOfLinear(haystack: string, needle: string, from: number, to: number): number {
  const failure = new Array<number>(needle.length).fill(0);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = failure[k - 1] ?? 0;
    if (needle[i] === needle[k]) k++;
    failure[i] = k;
  }
  for (let i = from, k = 0; i < to; i++) {
    while (k > 0 && haystack[i] !== needle[k]) k = failure[k - 1] ?? 0;
    if (haystack[i] === needle[k]) k++;
    if (k === needle.length) return i - needle.length + 1;
  }
  return -1;
}

/** `tool(pattern)` text for a canonical tool, as the agent writes rules itself (suggestions, --allow hints). */
export function formatRule(tool: ToolId, pattern: string | null): string {
  return pattern === null ? tool : `${tool}(${pattern})`;
}

/** The three rule lists of one scope (or of the merged view). */
export interface RuleSet {
  readonly allow: readonly Rule[];
  readonly ask: readonly Rule[];
  readonly deny: readonly Rule[];
}
