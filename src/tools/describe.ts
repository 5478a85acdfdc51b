/**
 * The one line that says what a tool call is about (`● bash: npm test`), for the live tool line
 * and for the same line rebuilt from a session file: the command, pattern, URL or path a built-in
 * works on, the files a patch touches, a plan's size; an MCP or unknown tool's input as JSON.
 */
import { canonicalTool } from "./names.ts";

/** The input field that names what a built-in tool call is about; other built-ins show `file_path`. */
const DETAIL_FIELDS: Partial<Record<string, string>> = {
  bash: "command",
  grep: "pattern",
  glob: "pattern",
  task: "description",
  bash_output: "bash_id",
  kill_shell: "shell_id",
  web_fetch: "url",
};

export function toolCallDetail(toolName: string, input: unknown): string {
  if (typeof input === "string") return input.slice(0, 120);
  const json = (): string => JSON.stringify(input).slice(0, 200);
  const tool = canonicalTool(toolName) ?? canonicalTool(toolName.toLowerCase());
  if (tool === undefined || input === null || typeof input !== "object" || Array.isArray(input)) return json();
  const fields = input as Record<string, unknown>;
  if (tool === "apply_patch" && typeof fields.input === "string") {
    // The files a patch touches say more than its first bytes.
    const files = [...fields.input.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)].map((match) => `${(match[1] ?? "").toLowerCase()} ${match[2] ?? ""}`);
    if (files.length > 0) return files.join(", ").slice(0, 200);
  }
  if (tool === "todo_write" && Array.isArray(fields.todos)) return `${fields.todos.length} item${fields.todos.length === 1 ? "" : "s"}`;
  const value = fields[DETAIL_FIELDS[tool] ?? "file_path"];
  return typeof value === "string" ? value.slice(0, 200) : json();
}
