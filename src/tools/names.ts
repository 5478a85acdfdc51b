/**
 * Canonical tool names, their aliases, and the Claude-style names claude hooks receive (DESIGN.md, D20).
 * A matcher naming an alias selects the canonical tool; `write_stdin` does not exist here. MCP tools
 * are `mcp__<server>__<tool>` (src/mcp/): they have no aliases, and claude hooks see the same name.
 */
export const TOOL_NAMES = [
  "read",
  "write",
  "edit",
  "bash",
  "grep",
  "glob",
  "task",
  "bash_output",
  "kill_shell",
  "todo_write",
  "multi_edit",
  "apply_patch",
  "web_fetch",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const TOOL_ALIASES: Readonly<Record<ToolName, readonly string[]>> = {
  read: ["Read"],
  write: ["Write"],
  edit: ["Edit", "hash_edit"],
  bash: ["Bash", "shell", "exec_command"],
  grep: ["Grep", "ffgrep", "code_search"],
  glob: ["Glob"],
  task: ["Task", "parallel_subagents"],
  bash_output: ["BashOutput"],
  kill_shell: ["KillShell"],
  // `update_plan` is Codex's name for the same plan list.
  todo_write: ["TodoWrite", "update_plan"],
  multi_edit: ["MultiEdit"],
  apply_patch: ["ApplyPatch"],
  web_fetch: ["WebFetch"],
};

export const CLAUDE_TOOL_NAMES: Readonly<Record<ToolName, string>> = {
  read: "Read",
  write: "Write",
  edit: "Edit",
  bash: "Bash",
  grep: "Grep",
  glob: "Glob",
  task: "Task",
  bash_output: "BashOutput",
  kill_shell: "KillShell",
  todo_write: "TodoWrite",
  multi_edit: "MultiEdit",
  // Claude Code has no patch tool: claude hooks see the Codex name, as VT Code's do.
  apply_patch: "apply_patch",
  web_fetch: "WebFetch",
};

export const MCP_PREFIX = "mcp__";
/** A tool of an MCP server, as hooks, rules and providers see it. */
export type McpToolName = `mcp__${string}`;
/** Any tool a call can name: a built-in (canonical) or an MCP tool. */
export type ToolId = ToolName | McpToolName;

export function mcpToolName(server: string, tool: string): McpToolName {
  return `${MCP_PREFIX}${server}__${tool}`;
}

/** `mcp__<server>__<tool>` with a non-empty server and tool part (whether such a server runs is not checked here). */
export function isMcpToolName(name: string): name is McpToolName {
  if (!name.startsWith(MCP_PREFIX)) return false;
  const rest = name.slice(MCP_PREFIX.length);
  const split = rest.indexOf("__");
  return split > 0 && split + 2 < rest.length;
}

/** The tool a name selects: a built-in's canonical name, an MCP tool name as is, else undefined. */
export function toolIdOf(name: string): ToolId | undefined {
  return canonicalTool(name) ?? (isMcpToolName(name) ? name : undefined);
}

/** The tool name claude-dialect hooks receive (`Bash`, …; MCP tools keep their full name, as in Claude Code). */
export function claudeToolName(tool: ToolId): string {
  return isBuiltin(tool) ? CLAUDE_TOOL_NAMES[tool] : tool;
}

export function isBuiltin(tool: ToolId): tool is ToolName {
  return !tool.startsWith(MCP_PREFIX);
}

const BY_NAME: ReadonlyMap<string, ToolName> = (() => {
  const map = new Map<string, ToolName>();
  for (const tool of TOOL_NAMES) {
    map.set(tool, tool);
    for (const alias of TOOL_ALIASES[tool]) map.set(alias, tool);
  }
  return map;
})();

/** Canonical tool for an exact (case-sensitive) name or alias; undefined for anything else. */
export function canonicalTool(name: string): ToolName | undefined {
  return BY_NAME.get(name);
}

/** Canonical tool for a name compared case-insensitively (permission rules, D24). */
export function canonicalToolLoose(name: string): ToolName | undefined {
  const lower = name.toLowerCase();
  for (const [key, tool] of BY_NAME) if (key.toLowerCase() === lower) return tool;
  return undefined;
}

/** Every spelling that names `tool`: canonical, aliases, Claude-style. Matchers test each of these. */
export function toolSpellings(tool: ToolId): readonly string[] {
  return isBuiltin(tool) ? [tool, ...TOOL_ALIASES[tool]] : [tool];
}
