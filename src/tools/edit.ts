/**
 * `edit`: exact string replacement. `old_string` must occur exactly once unless `replace_all`; a
 * missing or ambiguous match is an error result and the file is left untouched.
 */
import type { ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { editInputSchema, type EditInput } from "./schemas.ts";
import { resolveInWorkspace } from "./paths.ts";
import { describeError, failure } from "./output.ts";

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

export interface ExactEdit {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean | undefined;
}

export type ReplaceOutcome = { ok: true; text: string; replacements: number } | { ok: false; message: string };

/** One exact replacement in `text` under edit's rules; `name` is the file as the model wrote it. */
export function replaceExact(text: string, edit: ExactEdit, name: string): ReplaceOutcome {
  if (edit.old_string.length === 0) return { ok: false, message: "old_string must not be empty (use write to create a file)" };
  if (edit.old_string === edit.new_string) return { ok: false, message: "old_string and new_string are identical: nothing to change" };
  const count = countOccurrences(text, edit.old_string);
  if (count === 0) return { ok: false, message: `old_string not found in ${name}` };
  const replaceAll = edit.replace_all ?? false;
  if (count > 1 && !replaceAll) {
    return { ok: false, message: `old_string occurs ${count} times in ${name}; add surrounding context to make it unique, or set replace_all` };
  }
  // split/join, not String.replace: `$&`-style patterns in new_string must stay literal.
  const updated = replaceAll ? text.split(edit.old_string).join(edit.new_string) : replaceFirst(text, edit.old_string, edit.new_string);
  return { ok: true, text: updated, replacements: replaceAll ? count : 1 };
}

function editFile(input: EditInput, ctx: ToolContext): ToolResult {
  const fs = ctx.runtime.fs;
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: input.file_path });
  if (!resolved.ok) return failure(resolved.message);
  const path = resolved.path;
  if (input.old_string.length === 0) return failure("old_string must not be empty (use write to create a file)", { path });
  if (input.old_string === input.new_string) return failure("old_string and new_string are identical: nothing to change", { path });
  const stat = fs.stat(path);
  if (stat === undefined) return failure(`no such file: ${input.file_path}`, { path });
  if (stat.kind !== "file") return failure(`not a file: ${input.file_path}`, { path });
  const text = fs.readText(path);
  if (text === undefined) return failure(`no such file: ${input.file_path}`, { path });
  const step = replaceExact(text, input, input.file_path);
  if (!step.ok) return failure(step.message, { path, replacements: 0 });
  const updated = step.text;
  try {
    fs.writeText(path, updated);
  } catch (error) {
    return failure(`cannot write ${input.file_path}: ${describeError(error)}`, { path });
  }
  const replacements = step.replacements;
  const details: ToolDetails = { tool: "edit", path, originalFile: text, updatedFile: updated };
  return {
    success: true,
    content: `edited ${input.file_path}: ${replacements} replacement${replacements === 1 ? "" : "s"}`,
    metadata: { path, replacements },
    details,
  };
}

function replaceFirst(text: string, needle: string, replacement: string): string {
  const at = text.indexOf(needle);
  return text.slice(0, at) + replacement + text.slice(at + needle.length);
}

export const editTool = defineTool({
  name: "edit",
  description: "Replace an exact string in a file. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true.",
  schema: editInputSchema,
  run: editFile,
});
