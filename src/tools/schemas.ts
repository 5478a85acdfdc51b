/**
 * Claude-compatible input schemas of the canonical tools (CONFORMANCE D20, exact). Objects are
 * strict: unknown keys and wrong types fail. Defaults (bash timeout 120000, grep output_mode
 * `files_with_matches`, edit replace_all false) are applied by the tools, never written into the
 * input, so a validated input is exactly what was given (MERGE-09). The same check serves model
 * arguments and hook-replaced inputs (D8: `modified input invalid: <path>`).
 */
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import { isBuiltin, type ToolId, type ToolName } from "./names.ts";

export const BASH_TIMEOUT_DEFAULT_MS = 120_000;
export const BASH_TIMEOUT_MAX_MS = 600_000;

const str = (description: string) => v.pipe(v.string(), v.description(description));
const int = (min: number, description: string) => v.pipe(v.number(), v.integer(), v.minValue(min), v.description(description));
const bool = (description: string) => v.pipe(v.boolean(), v.description(description));

export const bashInputSchema = v.strictObject({
  command: str("The command to run with bash -c in the agent's cwd (on Windows: Git Bash when installed, else PowerShell)."),
  timeout: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(BASH_TIMEOUT_MAX_MS), v.description("Timeout in milliseconds (1..600000, default 120000).")),
  ),
  description: v.optional(str("A short description of what the command does.")),
  run_in_background: v.optional(
    bool("Run the command in the background and return at once with a shell id; read its output with bash_output, stop it with kill_shell."),
  ),
});

export const bashOutputInputSchema = v.strictObject({
  bash_id: str("Id of a background shell (from a bash call with run_in_background)."),
  filter: v.optional(str("JavaScript regular expression: only output lines that match are returned (the others are still consumed).")),
});

export const killShellInputSchema = v.strictObject({
  shell_id: str("Id of the background shell to stop."),
});

export const readInputSchema = v.strictObject({
  file_path: str("Path of the file to read (absolute, or relative to the cwd)."),
  offset: v.optional(int(0, "First line to read, counting from 1 (0 also means line 1).")),
  limit: v.optional(int(1, "Number of lines to read.")),
});

export const writeInputSchema = v.strictObject({
  file_path: str("Path of the file to write; parent directories are created."),
  content: str("The complete new content of the file."),
});

export const editInputSchema = v.strictObject({
  file_path: str("Path of the file to edit."),
  old_string: str("Exact text to replace; must occur exactly once unless replace_all is true."),
  new_string: str("Replacement text."),
  replace_all: v.optional(bool("Replace every occurrence (default false).")),
});

export const GREP_OUTPUT_MODES = ["content", "files_with_matches", "count"] as const;

export const grepInputSchema = v.strictObject({
  pattern: str("JavaScript regular expression to search for."),
  path: v.optional(str("File or directory to search (default: the cwd).")),
  glob: v.optional(str("Only search files matching this glob (e.g. `*.ts`, `src/**/*.{ts,tsx}`).")),
  output_mode: v.optional(v.pipe(v.picklist(GREP_OUTPUT_MODES), v.description("`content` (matching lines), `files_with_matches` (default) or `count`."))),
  "-i": v.optional(bool("Case-insensitive search.")),
  "-n": v.optional(bool("Show line numbers in content mode (default true).")),
  "-C": v.optional(int(0, "Lines of context around each match in content mode.")),
  head_limit: v.optional(int(1, "Only return the first N lines/files/counts.")),
});

export const globInputSchema = v.strictObject({
  pattern: str("Glob pattern such as `src/**/*.ts`."),
  path: v.optional(str("Directory to search from (default: the cwd).")),
});

export const taskInputSchema = v.strictObject({
  description: str("A short (3-5 word) description of the task."),
  prompt: str("The task for the subagent."),
  subagent_type: v.optional(str("Name of the subagent (default `general`).")),
  cwd: v.optional(str("Working directory of the subagent, relative to the parent's cwd, inside the workspace.")),
});

export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;
/** Bounds of one plan: it is sent back to the model and written to the session with every update. */
export const TODO_MAX_ITEMS = 100;
export const TODO_MAX_CHARS = 1000;

const todoText = (description: string) => v.pipe(v.string(), v.minLength(1), v.maxLength(TODO_MAX_CHARS), v.description(description));

export const todoItemSchema = v.strictObject({
  content: todoText('What to do, in the imperative ("Run the tests").'),
  status: v.pipe(v.picklist(TODO_STATUSES), v.description("pending, in_progress (one item at a time) or completed.")),
  id: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100), v.description("Stable id of the item (default: its position)."))),
  activeForm: v.optional(todoText('The item in the present continuous ("Running the tests"), shown while in progress.')),
  priority: v.optional(v.pipe(v.picklist(["high", "medium", "low"] as const), v.description("high, medium or low."))),
});

export const todoWriteInputSchema = v.strictObject({
  todos: v.pipe(v.array(todoItemSchema), v.maxLength(TODO_MAX_ITEMS), v.description("The whole updated plan; it replaces the previous one.")),
});

export const multiEditInputSchema = v.strictObject({
  file_path: str("Path of the file to edit."),
  edits: v.pipe(
    v.array(
      v.strictObject({
        old_string: str("Exact text to replace; must occur exactly once (in the text as the earlier edits left it) unless replace_all is true."),
        new_string: str("Replacement text."),
        replace_all: v.optional(bool("Replace every occurrence (default false).")),
      }),
    ),
    v.minLength(1),
    v.description("Replacements applied in order, each to the result of the one before; all are applied or none."),
  ),
});

export const applyPatchInputSchema = v.strictObject({
  input: str(
    "The patch: `*** Begin Patch`, then `*** Add File: <path>` / `*** Update File: <path>` (optionally `*** Move to: <path>`, then `@@` hunks of ` `, `-` and `+` lines) / `*** Delete File: <path>` sections, then `*** End Patch`.",
  ),
});

export const webFetchInputSchema = v.strictObject({
  url: v.pipe(v.string(), v.maxLength(8192), v.description("The http(s) URL to fetch; its host must be in the user's tools.web_fetch.allow.")),
  prompt: v.optional(str("What to look for in the page (kept with the call; the whole page text is returned).")),
});

export type BashInput = v.InferOutput<typeof bashInputSchema>;
export type ReadInput = v.InferOutput<typeof readInputSchema>;
export type WriteInput = v.InferOutput<typeof writeInputSchema>;
export type EditInput = v.InferOutput<typeof editInputSchema>;
export type GrepInput = v.InferOutput<typeof grepInputSchema>;
export type GlobInput = v.InferOutput<typeof globInputSchema>;
export type TaskInput = v.InferOutput<typeof taskInputSchema>;
export type BashOutputInput = v.InferOutput<typeof bashOutputInputSchema>;
export type KillShellInput = v.InferOutput<typeof killShellInputSchema>;
export type TodoWriteInput = v.InferOutput<typeof todoWriteInputSchema>;
export type MultiEditInput = v.InferOutput<typeof multiEditInputSchema>;
export type ApplyPatchInput = v.InferOutput<typeof applyPatchInputSchema>;
export type WebFetchInput = v.InferOutput<typeof webFetchInputSchema>;

type AnyObjectSchema = v.GenericSchema<unknown, Record<string, unknown>>;

export const TOOL_INPUT_SCHEMAS: Readonly<Record<ToolName, AnyObjectSchema>> = {
  bash: bashInputSchema,
  read: readInputSchema,
  write: writeInputSchema,
  edit: editInputSchema,
  grep: grepInputSchema,
  glob: globInputSchema,
  task: taskInputSchema,
  bash_output: bashOutputInputSchema,
  kill_shell: killShellInputSchema,
  todo_write: todoWriteInputSchema,
  multi_edit: multiEditInputSchema,
  apply_patch: applyPatchInputSchema,
  web_fetch: webFetchInputSchema,
};

const MCP_INPUT_SCHEMA = v.record(v.string(), v.unknown());

export type ValidationResult = { ok: true; input: Record<string, unknown> } | { ok: false; path: string; message: string };

/** Path of the root object in a failure (the input itself is not an object). */
export const ROOT_PATH = "(input)";

/** Validates a tool input (model arguments or a hook's replacement). Never throws. */
export function validateToolInput(tool: ToolId, input: unknown): ValidationResult {
  // An MCP tool's input is checked by its server against the server's own schema; here only that it is an object.
  if (!isBuiltin(tool)) return validateWith(MCP_INPUT_SCHEMA, input);
  return validateWith(TOOL_INPUT_SCHEMAS[tool], input);
}

/** Same check against one schema, typed; the tools use it to re-validate before running. */
export function validateWith<T>(schema: v.GenericSchema<unknown, T>, input: unknown): { ok: true; input: T } | { ok: false; path: string; message: string } {
  const parsed = v.safeParse(schema, input);
  if (parsed.success) return { ok: true, input: parsed.output };
  const issue = parsed.issues[0];
  const path = v.getDotPath(issue) ?? ROOT_PATH;
  // valibot reports both a missing and an unknown key as a `strict_object` issue; `expected` tells them apart.
  const message =
    issue.type === "strict_object" && issue.path !== undefined
      ? issue.expected === "never"
        ? `unknown key ${path}`
        : `missing required key ${path}`
      : issue.message;
  return { ok: false, path, message };
}

/** JSON Schema (draft-07) of a tool's input, for provider requests. */
export function toolJsonSchema(tool: ToolName): Record<string, unknown> {
  const schema = toJsonSchema(TOOL_INPUT_SCHEMAS[tool], { errorMode: "ignore" });
  const { $schema: _ignored, ...rest } = schema;
  return { ...rest };
}
