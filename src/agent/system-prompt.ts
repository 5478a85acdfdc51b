/**
 * The system prompt (docs/model-context.md): who the agent is and how it works, guidance for each
 * tool the session offers (by tool name, so a new tool adds one entry to TOOL_GUIDANCE), the
 * environment block, and the instruction files — the user's own, then the project's, marked as
 * repository text. Written in short plain sentences: small local models follow it too.
 */
import type { ToolDefinition } from "../providers/types.ts";
import { instructionBlock, PROJECT_FILES_NOTE, type InstructionFile } from "./instructions.ts";

export const BASE_PROMPT = [
  "You are agent, a coding assistant working in the user's project through tools. You read and change files and run commands only by calling tools; the user sees your text replies.",
  "",
  "How to work:",
  "- Look before you change: find the relevant files (glob, grep) and read them before editing.",
  "- Make the smallest change that does what the user asked. Keep the project's style. Do not add files, comments or features nobody asked for.",
  "- After a change, check it: run the project's tests or build when you know how (the instruction files often say).",
  "- One step at a time. If a tool call fails, read the error, fix the cause and try again differently; do not repeat the same call.",
  "- A denied call (by a permission rule or a hook) is final for that input: change the approach or ask the user.",
  "- Paths: use paths relative to the working directory, or absolute paths inside the project.",
  "- Never print or guess secrets, and never run destructive commands (rm -rf, git push --force, git reset --hard) unless the user asked for exactly that.",
  "- Answer briefly. When you are done, say in one or two sentences what you changed and how you checked it.",
].join("\n");

/** Per-tool guidance, by canonical tool name. Tools without an entry get none; their description still goes with the tool. */
export const TOOL_GUIDANCE: Readonly<Record<string, string>> = {
  read: "read: read a file before you edit it. Output has line numbers; they are not part of the file. For a large file read a part with offset and limit.",
  write: "write: creates a file or replaces all of it. For a change to an existing file use edit instead; read the file first if it exists.",
  edit: "edit: replaces old_string with new_string. old_string must be copied exactly from the file (spaces, indentation, line breaks; without the line numbers read shows) and must occur exactly once: include a few surrounding lines to make it unique, or set replace_all to change every occurrence.",
  bash: "bash: runs a command with bash -c (the shell named in the environment) in the working directory. Use it for builds, tests, git and other programs, not to read or search files (use read, grep, glob). Quote paths with spaces. Long-running servers: run_in_background: true, then bash_output.",
  grep: 'grep: searches file contents with a regular expression. Start with output_mode files_with_matches, then content with -n for the lines you need. Narrow with glob (e.g. "*.ts") and path.',
  glob: 'glob: finds files by name pattern, e.g. "src/**/*.ts". Use it to locate files before reading them.',
  bash_output: "bash_output: new output of a background shell started by bash with run_in_background.",
  kill_shell: "kill_shell: stops a background shell when you no longer need it.",
  task: "task: hands a self-contained piece of work to a subagent, which starts with no memory of this conversation: give it everything it needs in the prompt. Its final answer comes back as the result.",
};

/** The tool guidance section for the offered tools, in offer order; MCP tools are described by their servers. */
export function toolGuidance(tools: readonly Pick<ToolDefinition, "name">[]): string {
  const lines = tools.flatMap((tool) => {
    const text = TOOL_GUIDANCE[tool.name];
    return text === undefined ? [] : [`- ${text}`];
  });
  return lines.length === 0 ? "" : `Tools:\n${lines.join("\n")}`;
}

/** The instruction files section: the user's files, then the project's under their note. */
export function instructionsSection(files: readonly InstructionFile[], projectRoot: string): string {
  if (files.length === 0) return "";
  const user = files.filter((file) => file.scope === "user");
  const project = files.filter((file) => file.scope === "project");
  const parts: string[] = [];
  if (user.length > 0) parts.push("The user's own instructions (they apply to every project):", ...user.map((file) => instructionBlock(file, projectRoot)));
  if (project.length > 0) parts.push(PROJECT_FILES_NOTE, ...project.map((file) => instructionBlock(file, projectRoot)));
  return parts.join("\n\n");
}

/** The message that adds nested project files found when the agent first works in their directory. */
export function nestedInstructionsMessage(files: readonly InstructionFile[], projectRoot: string): string {
  return [
    `Instruction files of a directory you just worked in (they apply to files under it).`,
    PROJECT_FILES_NOTE,
    ...files.map((file) => instructionBlock(file, projectRoot)),
  ].join("\n\n");
}

export interface SystemPromptParts {
  /** The base text: BASE_PROMPT, or a subagent definition's body. */
  readonly base: string;
  readonly tools: readonly Pick<ToolDefinition, "name">[];
  readonly environment: string;
  readonly instructions: readonly InstructionFile[];
  readonly projectRoot: string;
}

export function buildSystemPrompt(parts: SystemPromptParts): string {
  return [parts.base, toolGuidance(parts.tools), parts.environment, instructionsSection(parts.instructions, parts.projectRoot)]
    .filter((part) => part !== "")
    .join("\n\n");
}
