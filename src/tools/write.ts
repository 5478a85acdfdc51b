/** `write`: replaces (or creates) a file with `content`, creating parent directories. */
import type { ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { writeInputSchema, type WriteInput } from "./schemas.ts";
import { resolveInWorkspace } from "./paths.ts";
import { dirnamePath } from "../util/path-utils.ts";
import { describeError, failure, utf8Bytes } from "./output.ts";

/** Past this size the old content is not kept for `details` (claude then gets originalFile null, no patch). */
export const WRITE_ORIGINAL_MAX_BYTES = 10 * 1024 * 1024;

function writeFile(input: WriteInput, ctx: ToolContext): ToolResult {
  const fs = ctx.runtime.fs;
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: input.file_path });
  if (!resolved.ok) return failure(resolved.message);
  const path = resolved.path;
  const existing = fs.stat(path);
  if (existing?.kind === "dir") return failure(`is a directory, not a file: ${input.file_path}`, { path });
  // Kept only in memory for claude's tool_response (originalFile, structuredPatch); a huge file is not read twice.
  const originalFile = existing === undefined || existing.size > WRITE_ORIGINAL_MAX_BYTES ? null : (fs.readText(path) ?? null);
  try {
    fs.mkdir(dirnamePath(path), { recursive: true });
    fs.writeText(path, input.content);
  } catch (error) {
    return failure(`cannot write ${input.file_path}: ${describeError(error)}`, { path });
  }
  const bytes = utf8Bytes(input.content);
  const details: ToolDetails = { tool: "write", path, created: existing === undefined, originalFile };
  return { success: true, content: `wrote ${bytes} bytes to ${input.file_path}`, metadata: { path, bytes }, details };
}

export const writeTool = defineTool({
  name: "write",
  description: "Write a file in the workspace, replacing its whole content. Parent directories are created. Prefer edit for changing part of an existing file.",
  schema: writeInputSchema,
  run: writeFile,
});
