/**
 * The permission gate (D24): a pure decision over mode, rules, tool input and the pre_tool hooks'
 * verdict. A hook `deny` never reaches the gate (it already stopped the call, D8), so only `allow`
 * and `ask` are inputs here. Also the facts the gate shows to permission_request hooks and the
 * message for an ask with nobody to answer it (LOOP-13).
 */
import type { PermissionMode } from "./mode.ts";
import type { PermissionRuleUpdate } from "./rule-update.ts";
import { claudeToolName, isBuiltin, type ToolId, type ToolName } from "../tools/names.ts";
import { findMatchingRule, formatRule, ruleSubject, type Rule, type RuleSet } from "./rules.ts";


export interface GateInput {
  mode: PermissionMode;
  rules: RuleSet;
  tool: ToolId;
  input: Readonly<Record<string, unknown>>;
  /** The pre_tool hooks' merged decision, when one said allow or ask. */
  hookDecision?: "allow" | "ask";
}

export type GateDecision = { decision: "allow" | "deny" | "ask"; reason: string; rule?: string };

/** `kill_shell` stops a process like `bash` starts one; `bash_output` only reads (issue 12 item 6). */
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
 * D24 order, exactly: deny rule (every mode) → readonly denies write/edit/bash/task → ask rule or hook
 * ask asks (bypass: allows) → hook allow or allow rule allows → the mode's default.
 */
export function decideGate(gate: GateInput): GateDecision {
  const { mode, rules, tool, input } = gate;
  const deny = findMatchingRule(rules.deny, tool, input);
  if (deny) return { decision: "deny", reason: `denied by permission rule ${deny.text}`, rule: deny.text };

  if (mode === "readonly" && mutating(tool)) {
    return { decision: "deny", reason: `${tool} is not allowed in readonly permission mode` };
  }

  const ask = findMatchingRule(rules.ask, tool, input);
  if (ask) {
    if (mode === "bypass") return { decision: "allow", reason: `allowed in bypass mode (permission rule ${ask.text} asks)`, rule: ask.text };
    return { decision: "ask", reason: `permission rule ${ask.text} asks for approval`, rule: ask.text };
  }
  if (gate.hookDecision === "ask") {
    if (mode === "bypass") return { decision: "allow", reason: "allowed in bypass mode (a hook asked for approval)" };
    return { decision: "ask", reason: "a hook asked for approval" };
  }

  if (gate.hookDecision === "allow") return { decision: "allow", reason: "allowed by a hook" };
  const allow = findMatchingRule(rules.allow, tool, input);
  if (allow) return { decision: "allow", reason: `allowed by permission rule ${allow.text}`, rule: allow.text };

  return modeDefault(mode, tool);
}

function modeDefault(mode: PermissionMode, tool: ToolId): GateDecision {
  const asks = (mode === "default" && mutating(tool)) || (mode === "accept-edits" && mutating(tool) && !edits(tool));
  if (asks) return { decision: "ask", reason: `${tool} needs approval in ${mode} permission mode` };
  // readonly's denials were handled above; what is left of every mode allows.
  return { decision: "allow", reason: `${tool} is allowed in ${mode} permission mode` };
}

/**
 * The rules an approval prompt offers, as claude `updatedPermissions` entries (LIFE-28): for bash the
 * exact command and `<first word> *`; for other tools the exact subject field. Session-scoped.
 */
export function permissionSuggestions(tool: ToolId, input: Readonly<Record<string, unknown>>): PermissionRuleUpdate[] {
  if (!isBuiltin(tool)) return [{ type: "addRules", rules: [{ toolName: tool }], behavior: "allow", destination: "session" }];
  const subject = ruleSubject(tool, input);
  const contents = [subject];
  if (tool === "bash") {
    const firstWord = subject.trim().split(/\s+/)[0] ?? "";
    const prefix = `${firstWord} *`;
    if (firstWord.length > 0 && prefix !== subject) contents.push(prefix);
  }
  return contents.map((ruleContent) => ({
    type: "addRules",
    rules: [{ toolName: claudeToolName(tool), ruleContent }],
    behavior: "allow",
    destination: "session",
  }));
}

export interface PermissionRequestInfo {
  tool_name: string;
  kind: "bash" | "read" | "edit" | "write" | "other";
  details: string;
}

/** The `permission_request` object of the claude payload (LIFE-28). */
export function permissionRequestInfo(tool: ToolId, input: Readonly<Record<string, unknown>>): PermissionRequestInfo {
  const kind = tool === "bash" || tool === "read" || tool === "edit" || tool === "write" ? tool : "other";
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
 * approval, that the run is non-interactive, and the exact `--allow` that would permit it.
 */
export function nonInteractiveDenial(tool: ToolId, input: Readonly<Record<string, unknown>>): string {
  const rule = formatRule(tool, isBuiltin(tool) ? ruleSubject(tool, input) : null);
  return `${rule} needs approval, but this run is non-interactive and nobody can approve it; to allow it, rerun with --allow ${shellQuote(rule)} or add it to permissions.allow`;
}

/** POSIX single-quoting, so the hint can be pasted into a shell as is. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
