/**
 * `multi_edit`: several exact replacements in one file, applied in order, each to the text the
 * earlier ones left. Every edit follows `edit`'s rules (non-empty, unique unless `replace_all`,
 * `$&` literal); if any edit fails the file is not touched.
 */
import type { ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { multiEditInputSchema, type MultiEditInput } from "./schemas.ts";
import { resolveInWorkspace } from "./paths.ts";
import { failure } from "./output.ts";
import { replaceExact } from "./edit.ts";
import { commitChanges } from "./file-changes.ts";

function multiEdit(input: MultiEditInput, ctx: ToolContext): ToolResult {
  const fs = ctx.runtime.fs;
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: input.file_path });
  if (!resolved.ok) return failure(resolved.message);
  const path = resolved.path;
  const stat = fs.stat(path);
  if (stat === undefined) return failure(`no such file: ${input.file_path}`, { path });
  if (stat.kind !== "file") return failure(`not a file: ${input.file_path}`, { path });
  const original = fs.readText(path);
  if (original === undefined) return failure(`no such file: ${input.file_path}`, { path });
  let text = original;
  let replacements = 0;
  for (const [index, edit] of input.edits.entries()) {
    const step = replaceExact(text, edit, input.file_path);
    if (!step.ok) return failure(`edits[${index}]: ${step.message}; no edit was applied`, { path, failed_edit: index });
    text = step.text;
    replacements += step.replacements;
  }
  const written = commitChanges(fs, [{ path, before: original, after: text }], () => input.file_path);
  if (!written.ok) return failure(written.message, { path });
  const details: ToolDetails = { tool: "multi_edit", path, originalFile: original, updatedFile: text };
  const count = input.edits.length;
  return {
    success: true,
    content: `edited ${input.file_path}: ${count} edit${count === 1 ? "" : "s"}, ${replacements} replacement${replacements === 1 ? "" : "s"}`,
    metadata: { path, edits: count, replacements },
    details,
  };
}

export const multiEditTool = defineTool({
  name: "multi_edit",
  description:
    "Make several exact replacements in one file in one call. Edits apply in order, each to the result of the previous one; each old_string must match exactly and occur once unless replace_all is true. If any edit fails, none is applied.",
  schema: multiEditInputSchema,
  run: multiEdit,
});
