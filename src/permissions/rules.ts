/**
 * Permission rules (D24): `tool(pattern)` or a bare `tool`. The tool is a canonical name or an alias,
 * compared case-insensitively; in the pattern `*` matches any run of characters (spaces included) and
 * every other character is literal; Claude Code's `Bash(git status:*)` (a trailing `:*`) matches the
 * prefix as whole words. Rules judge the normalised call (tools/call.ts), never raw text (D27): a bash
 * pattern is matched against each simple command; a path pattern against the resolved path.
 * Matching is linear in pattern + subject length (KMP per literal segment, no backtracking), so a
 * hostile command or rule can never stall the gate. MCP rules name tools, not inputs: `mcp__github`
 * (every tool of that server), `mcp__github__create_issue`, or a `*` glob such as `mcp__github__*`;
 * they are case-sensitive and take no `(pattern)`.
 */
import { canonicalToolLoose, isBuiltin, isMcpToolName, MCP_PREFIX, type ToolId, type ToolName } from "../tools/names.ts";
import type { CallPath, CallPlace, NormalizedCall } from "../tools/call.ts";
import { commandName, stripWrappers, type SimpleCommand } from "../util/shell-commands.ts";
import { resolvePath } from "../util/path-utils.ts";

export interface Rule {
  /** A canonical built-in, or for MCP rules the name or glob as written (`mcp__github__*`). */
  readonly tool: ToolId;
  /** null for a bare `tool` rule (every input). */
  readonly pattern: string | null;
  /** Claude Code's `prefix:*`: `pattern` is the prefix, matched as whole words. */
  readonly prefix?: boolean;
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
  todo_write: "todos",
  multi_edit: "file_path",
  apply_patch: "input",
  web_fetch: "url",
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
  if (pattern !== null && pattern.endsWith(":*")) return { ok: true, rule: { tool, pattern: pattern.slice(0, -2), prefix: true, text: trimmed } };
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

function mcpRuleMatches(rule: Rule, tool: ToolId): boolean {
  return isMcpToolName(tool) && (matchPattern(rule.tool, tool) || (!rule.tool.includes("__", MCP_PREFIX.length) && tool.startsWith(`${rule.tool}__`)));
}

/** A pattern against one subject: a `*`-glob, or for `prefix:*` rules the prefix as whole words. */
function patternMatches(rule: Rule, subject: string): boolean {
  const pattern = rule.pattern ?? "";
  if (!rule.prefix) return matchPattern(pattern, subject);
  return subject === pattern || subject.startsWith(`${pattern} `);
}

/** Both texts of each command, built once however many rules look at it. */
const TEXTS = new WeakMap<SimpleCommand, { readonly text: string; readonly bare: string }>();

function textsOf(command: SimpleCommand): { readonly text: string; readonly bare: string } {
  let texts = TEXTS.get(command);
  if (texts === undefined) {
    const words = stripWrappers(command.words);
    texts = { text: [...command.assignments, ...command.words].join(" "), bare: [commandName(words[0] ?? ""), ...words.slice(1)].join(" ") };
    TEXTS.set(command, texts);
  }
  return texts;
}

/** A simple command as allow rules read it: assignments and words as written (quotes removed). */
function commandText(command: SimpleCommand): string {
  return textsOf(command).text;
}

/** What a deny or ask rule also sees: wrappers (`command`, `env`, …) and the command word's directory removed. */
function bareCommandText(command: SimpleCommand): string {
  return textsOf(command).bare;
}

/**
 * An absolute pattern for a path rule: relative patterns (`docs/*`, `./x`) are anchored at the
 * project root, `~/` at the home directory, `//x` is Claude Code's spelling of the absolute `/x`;
 * `.` and `..` are resolved like the path they are compared with. `*` and `**` alone match any path.
 */
export function anchorPathPattern(pattern: string, place: Pick<CallPlace, "projectDir" | "home">): string {
  if (pattern === "*" || pattern === "**") return "*";
  if (pattern.startsWith("//")) return resolvePath("/", pattern.slice(1));
  if (pattern === "~" || pattern.startsWith("~/")) return resolvePath(place.home, `.${pattern.slice(1)}`);
  return resolvePath(place.projectDir, pattern);
}

function pathMatches(rule: Rule, path: string, place: CallPlace): boolean {
  const anchored = anchorPathPattern(rule.pattern ?? "", place);
  return anchored === "*" || patternMatches({ ...rule, pattern: anchored }, path);
}

/** The paths a rule of `tool` judges: resolved file paths, or the resolved `path` of grep and glob. */
function rulePaths(call: NormalizedCall): readonly CallPath[] {
  if (call.paths.length > 0 || (call.tool !== "grep" && call.tool !== "glob")) return call.paths;
  const given = call.input.path;
  const path = resolvePath(call.place.cwd, typeof given === "string" && given.length > 0 ? given : ".");
  return [{ field: "path", path, real: path, access: "read" }];
}

function isPathTool(tool: ToolName): boolean {
  return tool === "read" || tool === "write" || tool === "edit" || tool === "multi_edit" || tool === "apply_patch" || tool === "grep" || tool === "glob";
}

/** A rule names its own tool; an `edit` rule also names the other tools that edit files in place, as in Claude Code. */
function ruleNames(rule: Rule, tool: ToolId): boolean {
  return rule.tool === tool || (rule.tool === "edit" && (tool === "multi_edit" || tool === "apply_patch"));
}

/**
 * Deny and ask rules hold when any part of the call matches: any simple command of a bash call (as
 * written, or with wrappers and directories stripped), or the path as given, resolved or real.
 */
export function ruleHolds(rule: Rule, call: NormalizedCall): boolean {
  if (!isBuiltin(rule.tool)) return mcpRuleMatches(rule, call.tool);
  if (!ruleNames(rule, call.tool)) return false;
  if (rule.pattern === null) return true;
  if (call.tool === "bash") {
    const whole = typeof call.input.command === "string" ? call.input.command.trim() : "";
    if (patternMatches(rule, whole)) return true;
    return (call.command?.commands ?? []).some((command) => patternMatches(rule, commandText(command)) || patternMatches(rule, bareCommandText(command)));
  }
  if (!isBuiltin(call.tool)) return false;
  if (isPathTool(call.tool)) {
    return rulePaths(call).some((p) => pathMatches(rule, p.path, call.place) || (p.real !== undefined && pathMatches(rule, p.real, call.place)));
  }
  return patternMatches(rule, ruleSubject(call.tool, call.input));
}

/** First deny or ask rule of `rules` that holds for the call. */
export function findHoldingRule(rules: readonly Rule[], call: NormalizedCall): Rule | undefined {
  return rules.find((rule) => ruleHolds(rule, call));
}

/**
 * The allow rule that covers the whole call, or undefined. A bash call is covered only when bash
 * could be read completely and every simple command (in pipelines, lists, substitutions, `sh -c`)
 * matches an allow rule as written, with no redirection to a file; a bare `bash` rule covers any
 * command. A path is covered when
 * both its resolved and its real location match, so neither `..` nor a symlink leaves the rule.
 */
export function findCoveringRule(rules: readonly Rule[], call: NormalizedCall): Rule | undefined {
  const own = rules.filter((rule) => (isBuiltin(rule.tool) ? ruleNames(rule, call.tool) : mcpRuleMatches(rule, call.tool)));
  const bare = own.find((rule) => rule.pattern === null);
  if (bare !== undefined) return bare;
  if (!isBuiltin(call.tool)) return undefined;
  if (call.tool === "bash") {
    const analysis = call.command;
    if (analysis === undefined || !analysis.complete || analysis.commands.length === 0) return undefined;
    let first: Rule | undefined;
    for (const command of analysis.commands) {
      // A redirection writes or reads a file the rule does not name; only a bare `bash` covers it.
      if (command.redirects) return undefined;
      const text = commandText(command);
      const rule = own.find((candidate) => patternMatches(candidate, text));
      if (rule === undefined) return undefined;
      first ??= rule;
    }
    return first;
  }
  if (isPathTool(call.tool)) {
    const paths = rulePaths(call);
    if (paths.length === 0) return undefined;
    return own.find((rule) => paths.every((p) => p.real !== undefined && pathMatches(rule, p.path, call.place) && pathMatches(rule, p.real, call.place)));
  }
  const subject = ruleSubject(call.tool, call.input);
  return own.find((rule) => patternMatches(rule, subject));
}

/**
 * Why a rule can never match anything, or null: a bash pattern spanning an operator (each simple
 * command is matched on its own), a substitution, leading blanks; a path pattern ending in `/`.
 */
export function ruleNeverMatches(rule: Rule): string | null {
  const pattern = rule.pattern;
  if (pattern === null || !isBuiltin(rule.tool)) return null;
  if (rule.tool === "bash") {
    if (/^\s/.test(pattern)) return "it starts with a blank, but commands are matched without leading blanks";
    if (/[;&|\n`]|\$\(/.test(pattern.replace(/'[^']*'/g, "").replace(/"[^"]*"/g, ""))) {
      return "it spans a shell operator or substitution, but each simple command is matched on its own; write one rule per command";
    }
    if (pattern.includes(":*")) return "`:*` marks a prefix only at the end of the pattern";
  } else if (isPathTool(rule.tool) && pattern.length > 1 && pattern.endsWith("/")) {
    return "a path never ends in `/`; write `dir/*` for the files under dir";
  }
  return null;
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
