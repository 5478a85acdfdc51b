/** `write`: replaces (or creates) a file with `content`, creating parent directories. */
import type { ToolContext, ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { writeInputSchema, type WriteInput } from "./schemas.ts";
import { resolveInWorkspace } from "./paths.ts";
import { dirnamePath } from "../config/path-utils.ts";
import { describeError, failure, utf8Bytes } from "./output.ts";

function writeFile(input: WriteInput, ctx: ToolContext): ToolResult {
  const fs = ctx.runtime.fs;
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: input.file_path });
  if (!resolved.ok) return failure(resolved.message);
  const path = resolved.path;
  if (fs.stat(path)?.kind === "dir") return failure(`is a directory, not a file: ${input.file_path}`, { path });
  try {
    fs.mkdir(dirnamePath(path), { recursive: true });
    fs.writeText(path, input.content);
  } catch (error) {
    return failure(`cannot write ${input.file_path}: ${describeError(error)}`, { path });
  }
  const bytes = utf8Bytes(input.content);
  return { success: true, content: `wrote ${bytes} bytes to ${input.file_path}`, metadata: { path, bytes } };
}

export const writeTool = defineTool({
  name: "write",
  description:
    "Write a file in the workspace, replacing its whole content. Parent directories are created. Prefer edit for changing part of an existing file.",
  schema: writeInputSchema,
  run: writeFile,
});
