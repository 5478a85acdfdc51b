/**
 * The `task` tool's static parts (DESIGN.md, D20): its provider definition, where a subagent's
 * system prompt comes from (`$AGENT_HOME/agents/<name>.md`, else `<project>/.agent/agents/<name>.md`;
 * `general` is built in) and where its cwd is (relative to the parent's cwd, inside the workspace).
 * Running the child is src/agent/subagent.ts.
 */
import type { FileSystem } from "../runtime/types.ts";
import type { ToolDefinition } from "../providers/types.ts";
import { toolJsonSchema } from "../tools/index.ts";
import { resolveInWorkspace } from "../tools/paths.ts";
import { frontMatter } from "../plugins/components.ts";

export const DEFAULT_AGENT_NAME = "general";

export const TASK_TOOL_DEFINITION: ToolDefinition = {
  name: "task",
  description:
    "Start a subagent that works on a task on its own and answers with one final message. `subagent_type` names the agent (default `general`); `cwd` is its working directory, relative to yours.",
  parameters: toolJsonSchema("task"),
};

/** The task input, as validated by the tool schema (D20). */
export interface TaskRequest {
  readonly description: string;
  readonly prompt: string;
  readonly agentName: string;
  readonly cwd: string | undefined;
}

export function taskRequest(input: Readonly<Record<string, unknown>>): TaskRequest {
  const text = (key: string): string | undefined => (typeof input[key] === "string" ? input[key] : undefined);
  const agentName = text("subagent_type");
  return {
    description: text("description") ?? "",
    prompt: text("prompt") ?? "",
    agentName: agentName === undefined || agentName === "" ? DEFAULT_AGENT_NAME : agentName,
    cwd: text("cwd"),
  };
}

/** The agent file a subagent was defined by, and its front matter (src/agent/agent-definition.ts reads `tools`, `model`). */
export interface AgentDefinitionFile {
  readonly path: string;
  readonly fields: Readonly<Record<string, string>>;
}

// An agent name is one path segment: `../x` or `a/b` must never select a file outside agents/.
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The body of an agent file: everything after a leading `---` front-matter block, trimmed. */
export function agentBody(text: string): string {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  const front = /^---\n[\s\S]*?\n---[ \t]*(?:\n|$)/.exec(normalized);
  return (front ? normalized.slice(front[0].length) : normalized).trim();
}

/**
 * The system prompt of agent `name`: the user file wins over the project file. `general` without
 * a file gets `fallback` (the main agent's prompt). Unknown names are an error naming them.
 */
export function agentSystemPrompt(
  fs: FileSystem,
  options: { projectDir: string; home: string; name: string; fallback: string; extra?: ReadonlyMap<string, string> },
): { ok: true; systemPrompt: string; definition?: AgentDefinitionFile } | { ok: false; error: string } {
  const { name } = options;
  const plugin = options.extra?.get(name);
  if (!AGENT_NAME.test(name) && plugin === undefined) return { ok: false, error: `unknown subagent type "${name}" (not a valid agent name)` };
  // The user's file first: a project never replaces a user agent of the same name (src/config/agent-hooks.ts).
  const own = AGENT_NAME.test(name) ? [`${trimSlash(options.home)}/agents/${name}.md`, `${trimSlash(options.projectDir)}/.agent/agents/${name}.md`] : [];
  // Plugin agents (`name` or `plugin:name`) come after the user's and the project's own.
  const candidates = plugin === undefined ? own : [...own, plugin];
  for (const path of candidates) {
    let text: string | undefined;
    try {
      text = fs.readText(path);
    } catch {
      text = undefined;
    }
    if (text !== undefined) return { ok: true, systemPrompt: agentBody(text), definition: { path, fields: frontMatter(text).fields } };
  }
  if (name === DEFAULT_AGENT_NAME) return { ok: true, systemPrompt: options.fallback };
  return {
    ok: false,
    error: `unknown subagent type "${name}": no .agent/agents/${name}.md in the project, agents/${name}.md in the agent home or plugin agent of that name`,
  };
}

/** The child's cwd: `cwd` resolved against the parent's cwd; it must be a directory inside the workspace. */
export function childCwd(
  fs: FileSystem,
  options: { parentCwd: string; projectDir: string; cwd: string | undefined },
): { ok: true; cwd: string } | { ok: false; error: string } {
  if (options.cwd === undefined || options.cwd === "" || options.cwd === ".") return { ok: true, cwd: options.parentCwd };
  const resolved = resolveInWorkspace(fs, { cwd: options.parentCwd, workspaceRoot: options.projectDir, path: options.cwd });
  if (!resolved.ok) return { ok: false, error: `task cwd: ${resolved.message}` };
  if (fs.stat(resolved.path)?.kind !== "dir") return { ok: false, error: `task cwd: not a directory: ${options.cwd}` };
  return { ok: true, cwd: resolved.path };
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}
