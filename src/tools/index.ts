/**
 * The built-in tools. `task` has a schema (schemas.ts) but no Tool here: the agent loop runs
 * subagents itself.
 */
import type { Tool } from "./types.ts";
import type { ToolName } from "./names.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readTool } from "./read.ts";
import { writeTool } from "./write.ts";
import { bashOutputTool, killShellTool } from "./shell-tools.ts";
import { todoWriteTool } from "./todos.ts";
import { multiEditTool } from "./multi-edit.ts";
import { applyPatchTool } from "./apply-patch.ts";
import { webFetchTool } from "./web-fetch.ts";

export type { Tool, ToolContext, ToolResult } from "./types.ts";
export { validateToolInput, toolJsonSchema } from "./schemas.ts";

/** Every built-in; `web_fetch` is offered to a model only when the user's config enables it. */
export const BUILTIN_TOOLS: readonly Tool[] = [
  readTool,
  writeTool,
  editTool,
  bashTool,
  grepTool,
  globTool,
  bashOutputTool,
  killShellTool,
  todoWriteTool,
  multiEditTool,
  applyPatchTool,
  webFetchTool,
];

const BY_NAME: ReadonlyMap<ToolName, Tool> = new Map(BUILTIN_TOOLS.map((tool) => [tool.name, tool]));

/** The built-in tool of that canonical name; undefined for `task` (owned by the agent loop). */
export function getTool(name: ToolName): Tool | undefined {
  return BY_NAME.get(name);
}
