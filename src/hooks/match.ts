/**
 * Pure matching of one hook against one event occurrence. Hook-dir `match` is an exact name (D4),
 * lifecycle matchers are anchored regexes (D5), list hooks use include/exclude (seed 003). Every
 * form also accepts a tool's aliases. MCP tools are matched by their full `mcp__<server>__<tool>`
 * name: a lifecycle regex as for any tool, a dir `match` or `include_tools`/`exclude_tools` entry
 * exactly or as a `*` glob (`mcp__github__*`). Other unknown names select nothing.
 */
import type { CanonicalEvent } from "../util/events.ts";
import { TOOL_EVENTS } from "../util/events.ts";
import type { DirHookSpec, HookSpec, LifecycleHookSpec, ListHookSpec } from "./types.ts";
import { canonicalTool, isMcpToolName, toolIdOf, toolSpellings } from "../tools/names.ts";
import { matchPattern } from "../permissions/rules.ts";

/** Whether a configured name selects the tool `tool` names: same canonical built-in, or an MCP name/glob that matches. */
function selectsTool(configured: string, tool: string): boolean {
  if (isMcpToolName(tool)) return configured.startsWith("mcp__") && matchPattern(configured, tool);
  const wanted = canonicalTool(configured);
  return wanted !== undefined && wanted === canonicalTool(tool);
}

/** D4: `*` matches every tool; otherwise the exact, case-sensitive name or one of its aliases. */
export function dirMatches(spec: DirHookSpec, tool: string): boolean {
  if (spec.match === "*" || spec.match === "") return true;
  return selectsTool(spec.match, tool);
}

/**
 * D5: the compiled `^(?:p)$` matcher against the event's value. On tool events any spelling of
 * the tool counts (canonical, aliases, Claude-style); stop ignores the matcher.
 */
export function lifecycleMatches(spec: LifecycleHookSpec, value: string | undefined): boolean {
  if (spec.event === "stop" || spec.matcherRegex === null) return true;
  const regex = spec.matcherRegex;
  if (TOOL_EVENTS.has(spec.event)) {
    const tool = value === undefined ? undefined : toolIdOf(value);
    if (tool === undefined) return false;
    return toolSpellings(tool).some((name) => regex.test(name));
  }
  return regex.test(value ?? "");
}

/**
 * Seed 003: a non-empty `include_tools` must select the tool, then `exclude_tools` must not
 * (TOOL-10). Message phases ignore both filters (TOOL-11).
 */
export function listMatches(spec: ListHookSpec, tool: string | undefined): boolean {
  if (spec.phase === "after_assistant" || spec.phase === "after_reasoning") return true;
  if (tool === undefined || toolIdOf(tool) === undefined) return false;
  const selects = (name: string): boolean => selectsTool(name, tool);
  if (spec.includeTools.length > 0 && !spec.includeTools.some(selects)) return false;
  return !spec.excludeTools.some(selects);
}

/**
 * Whether `spec` fires for `event`. `tool` is the tool's name on tool events; `matchValue` the
 * D5 value on other events (prompt, source, reason, agent name, trigger, notification type).
 * Disabled hooks are the caller's concern; D10's post_tool/post_tool_failure routing too.
 */
export function hookMatches(spec: HookSpec, event: CanonicalEvent, occurrence: { tool?: string; matchValue?: string }): boolean {
  if (spec.event !== event) return false;
  switch (spec.form) {
    case "dir":
      return occurrence.tool !== undefined && dirMatches(spec, occurrence.tool);
    case "lifecycle":
      return lifecycleMatches(spec, TOOL_EVENTS.has(spec.event) ? occurrence.tool : occurrence.matchValue);
    case "list":
      return listMatches(spec, occurrence.tool);
  }
}
