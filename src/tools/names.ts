/**
 * Canonical tool names, their aliases, and the Claude-style names claude hooks receive (DESIGN.md, D20).
 * A matcher naming an alias selects the canonical tool; MCP tools and `write_stdin` do not exist here.
 */
export const TOOL_NAMES = ["read", "write", "edit", "bash", "grep", "glob", "task", "bash_output", "kill_shell"] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const TOOL_ALIASES: Readonly<Record<ToolName, readonly string[]>> = {
  read: ["Read"],
  write: ["Write"],
  edit: ["Edit", "hash_edit", "apply_patch"],
  bash: ["Bash", "shell", "exec_command"],
  grep: ["Grep", "ffgrep", "code_search"],
  glob: ["Glob"],
  task: ["Task", "parallel_subagents"],
  bash_output: ["BashOutput"],
  kill_shell: ["KillShell"],
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
};

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
export function toolSpellings(tool: ToolName): readonly string[] {
  return [tool, ...TOOL_ALIASES[tool]];
}
