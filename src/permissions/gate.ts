/**
 * The permission gate (D24): a pure decision over mode, rules, tool input and the pre_tool hooks'
 * verdict. A hook `deny` never reaches the gate (it already stopped the call, D8), so only `allow`
 * and `ask` are inputs here. Also the facts the gate shows to permission_request hooks and the
 * message for an ask with nobody to answer it (LOOP-13).
 */
import type { PermissionMode } from "./mode.ts";
import type { PermissionRuleUpdate } from "./rule-update.ts";
import { claudeToolName, isBuiltin, type ToolId, type ToolName } from "../tools/names.ts";
import type { NormalizedCall } from "../tools/call.ts";
import { findCoveringRule, findHoldingRule, formatRule, ruleSubject, type RuleSet } from "./rules.ts";
import { isReadOnlyBash, protectedWrite } from "./protected.ts";
import type { SimpleCommand } from "../util/shell-commands.ts";

export interface GateInput {
  mode: PermissionMode;
  rules: RuleSet;
  call: NormalizedCall;
  /** The pre_tool hooks' merged decision, when one said allow or ask. */
  hookDecision?: "allow" | "ask";
}

/** `because`: for an ask, what in particular asks (a rule, a protected path, an unreadable command); absent for a mode's plain default. */
export type GateDecision = { decision: "allow" | "deny" | "ask"; reason: string; rule?: string; because?: string };

/** `kill_shell` stops a process like `bash` starts one; `bash_output` only reads. */
const MUTATING: ReadonlySet<ToolName> = new Set(["write", "edit", "bash", "task", "kill_shell", "multi_edit", "apply_patch"]);
const EDITS: ReadonlySet<ToolName> = new Set(["write", "edit", "multi_edit", "apply_patch"]);

/** MCP tools can do anything their server does, so every mode treats them like bash. */
function mutating(tool: ToolId): boolean {
  return !isBuiltin(tool) || MUTATING.has(tool);
}

function edits(tool: ToolId): boolean {
  return isBuiltin(tool) && EDITS.has(tool);
}

export const EMPTY_RULES: RuleSet = { allow: [], ask: [], deny: [] };

/**
 * D24 order, exactly: deny rule (every mode) → a write into `$AGENT_HOME` is denied → readonly denies
 * write/edit/bash/task (a read-only bash command excepted, D27) → a write into `.git/`, `.agent/` or `.claude/` asks in every mode unless an
 * allow rule names that directory (D28) → ask rule or hook ask asks (bypass: allows) → hook allow or
 * allow rule allows → read-only bash commands allow (D27) → the mode's default.
 */
export function decideGate(gate: GateInput): GateDecision {
  const { mode, rules, call } = gate;
  const tool = call.tool;
  const deny = findHoldingRule(rules.deny, call);
  if (deny) return { decision: "deny", reason: `denied by permission rule ${deny.text}`, rule: deny.text };

  const guarded = protectedWrite(call);
  if (guarded?.kind === "agent-home") return { decision: "deny", reason: guarded.reason };

  const readOnlyBash = tool === "bash" && isReadOnlyBash(call);
  if (mode === "readonly" && mutating(tool) && !readOnlyBash) {
    return { decision: "deny", reason: `${tool} is not allowed in readonly permission mode` };
  }

  const allow = findCoveringRule(rules.allow, call);
  // Any covering allow rule that names the directory will do, not only the first that covers.
  const named = guarded !== null && rules.allow.some((rule) => guarded.namedBy(rule) && findCoveringRule([rule], call) !== undefined);
  if (guarded !== null && !named) {
    return { decision: "ask", reason: guarded.reason, because: guarded.reason };
  }

  const ask = findHoldingRule(rules.ask, call);
  if (ask) {
    if (mode === "bypass") return { decision: "allow", reason: `allowed in bypass mode (permission rule ${ask.text} asks)`, rule: ask.text };
    return {
      decision: "ask",
      reason: `permission rule ${ask.text} asks for approval`,
      rule: ask.text,
      because: `permission rule ${ask.text} asks for approval`,
    };
  }
  if (gate.hookDecision === "ask") {
    if (mode === "bypass") return { decision: "allow", reason: "allowed in bypass mode (a hook asked for approval)" };
    return { decision: "ask", reason: "a hook asked for approval" };
  }

  if (gate.hookDecision === "allow") return { decision: "allow", reason: "allowed by a hook" };
  if (allow) return { decision: "allow", reason: `allowed by permission rule ${allow.text}`, rule: allow.text };
  if (readOnlyBash && mode !== "bypass") return { decision: "allow", reason: "a read-only command is allowed without a question" };

  return modeDefault(mode, tool, call);
}

function modeDefault(mode: PermissionMode, tool: ToolId, call: NormalizedCall): GateDecision {
  const asks = (mode === "default" && mutating(tool)) || (mode === "accept-edits" && mutating(tool) && !edits(tool));
  if (asks) {
    const unread = tool === "bash" && call.command && !call.command.complete ? `${call.command.reasons.join(", ")} cannot be checked against rules` : undefined;
    return {
      decision: "ask",
      reason: `${tool} needs approval in ${mode} permission mode${unread ? ` (${unread})` : ""}`,
      ...(unread ? { because: unread } : {}),
    };
  }
  // readonly's denials were handled above; what is left of every mode allows.
  return { decision: "allow", reason: `${tool} is allowed in ${mode} permission mode` };
}

/**
 * The rules an approval prompt offers, as claude `updatedPermissions` entries (LIFE-28): for bash one
 * exact rule per simple command, then one prefix rule per command (`git status:*`) (none when the command cannot
 * be read completely or redirects to a file, since no rule could cover it); for a path the path relative to the project
 * (absolute outside it); for other tools the exact subject field. Session-scoped.
 */
export function permissionSuggestions(call: NormalizedCall): PermissionRuleUpdate[] {
  const tool = call.tool;
  if (!isBuiltin(tool)) return [{ type: "addRules", rules: [{ toolName: tool }], behavior: "allow", destination: "session" }];
  const update = (contents: readonly string[]): PermissionRuleUpdate => ({
    type: "addRules",
    rules: contents.map((ruleContent) => ({ toolName: claudeToolName(tool), ruleContent })),
    behavior: "allow",
    destination: "session",
  });
  if (tool === "bash") {
    const analysis = call.command;
    if (analysis === undefined || !analysis.complete || analysis.commands.length === 0 || analysis.commands.some((c) => c.redirects)) return [];
    const exact = unique(analysis.commands.map((command) => [...command.assignments, ...command.words].join(" ")));
    const prefixes = unique(analysis.commands.map(prefixRuleOf));
    return prefixes.join("\n") === exact.join("\n") ? [update(exact)] : [update(exact), update(prefixes)];
  }
  const path = call.paths[0]?.path;
  if (path !== undefined) return [update([projectRelative(path, call.place.projectDir)])];
  return [update([ruleSubject(tool, call.input)])];
}

/**
 * Claude Code's prefix rule for a command: the program and a subcommand-looking second word
 * (`git status:*`, `npm run:*`), else the program alone (`ls:*`); a command with assignments stays exact.
 */
function prefixRuleOf(command: SimpleCommand): string {
  const [program, second] = command.words;
  if (command.assignments.length > 0 || program === undefined || command.words.length === 1) return [...command.assignments, ...command.words].join(" ");
  const subcommand = SUBCOMMAND_PROGRAMS.has(program) && second !== undefined && /^[a-z][a-z0-9-]*$/.test(second);
  return subcommand ? `${program} ${second}:*` : `${program}:*`;
}

/** Programs whose second word picks what they do: their prefix rule keeps it (`git status:*`, not `git:*`). */
const SUBCOMMAND_PROGRAMS: ReadonlySet<string> = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "gh",
  "pip",
  "uv",
  "poetry",
  "dotnet",
  "mvn",
  "gradle",
]);

function unique(texts: readonly string[]): string[] {
  return [...new Set(texts)];
}

/** `path` as a rule pattern: relative to the project root when inside it (anchored there again on match). */
function projectRelative(path: string, projectDir: string): string {
  const root = projectDir.endsWith("/") ? projectDir : `${projectDir}/`;
  return path.startsWith(root) ? path.slice(root.length) : path;
}

export interface PermissionRequestInfo {
  tool_name: string;
  kind: "bash" | "read" | "edit" | "write" | "other";
  details: string;
}

/** The `permission_request` object of the claude payload (LIFE-28). */
export function permissionRequestInfo(tool: ToolId, input: Readonly<Record<string, unknown>>): PermissionRequestInfo {
  // multi_edit and apply_patch change files in place, as Claude Code's edit kind does.
  const kind =
    tool === "bash" || tool === "read" || tool === "edit" || tool === "write" ? tool : tool === "multi_edit" || tool === "apply_patch" ? "edit" : "other";
  return { tool_name: claudeToolName(tool), kind, details: requestDetails(tool, input) };
}

function requestDetails(tool: ToolId, input: Readonly<Record<string, unknown>>): string {
  const text = (key: string): string => {
    const value = input[key];
    return typeof value === "string" ? value : "";
  };
  switch (tool) {
    case "grep":
    case "glob": {
      const where = text("path");
      return where.length > 0 ? `${text("pattern")} in ${where}` : text("pattern");
    }
    case "task": {
      const agent = text("subagent_type") || "general";
      const description = text("description");
      return description.length > 0 ? `${agent}: ${description}` : agent;
    }
    default:
      return isBuiltin(tool) ? ruleSubject(tool, input) : JSON.stringify(input).slice(0, 200);
  }
}

/**
 * The tool error (and stderr line) for an ask with nobody to answer (LOOP-13): says it needs
 * approval and why, that the run is non-interactive, and the exact `--allow` that would permit it
 * when a rule can (a hook's or a protected path's question is answered by its own reason).
 */
export function nonInteractiveDenial(call: NormalizedCall, why?: string, options: { askedByHook?: boolean; noApprover?: string | undefined } = {}): string {
  const nobody = options.noApprover === undefined ? "this run is non-interactive and nobody can approve it" : `nobody is asked here (${options.noApprover})`;
  // A hook's question beats every allow rule (LOOP-10): only a person, or the hook, can answer it.
  if (options.askedByHook)
    return `${call.tool} needs approval, but ${nobody} (${why ?? "a hook asked for approval"}); a hook asked, so no allow rule lifts it: ${options.noApprover === undefined ? "run it in an interactive session" : "run it outside this subagent"} or change that hook`;
  const suggestion = permissionSuggestions(call)[0];
  const rules = (suggestion?.type === "addRules" ? suggestion.rules : []).map((rule) => formatRule(call.tool, rule.ruleContent ?? null));
  const subject = rules.length === 1 ? (rules[0] ?? call.tool) : call.tool;
  const reason = why === undefined ? "" : ` (${why})`;
  const hint =
    rules.length === 0
      ? options.noApprover === undefined
        ? "approve it in an interactive session"
        : "run it outside this subagent"
      : options.noApprover === undefined
        ? `rerun with ${rules.map((rule) => `--allow ${shellQuote(rule)}`).join(" ")} or add ${rules.length === 1 ? "it" : "them"} to permissions.allow`
        : `add ${rules.length === 1 ? "it" : "them"} to permissions.allow`;
  return `${subject} needs approval, but ${nobody}${reason}; to allow it, ${hint}`;
}

/** POSIX single-quoting, so the hint can be pasted into a shell as is. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
