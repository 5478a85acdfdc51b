/**
 * `read`: a text file with `cat -n` style line numbers. `offset` counts from 1 (0 also means line 1),
 * `limit` defaults to READ_DEFAULT_LINES; output is capped at OUTPUT_MAX_BYTES with a note saying
 * which lines were shown and how to continue.
 */
import type { ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { readInputSchema, type ReadInput } from "./schemas.ts";
import { resolveInWorkspace } from "./paths.ts";
import { isAbsolutePath } from "../util/path-utils.ts";
import { capLine, describeError, failure, joinCapped, looksBinary } from "./output.ts";
import { mediaKind } from "./media.ts";

export const READ_DEFAULT_LINES = 2000;

function numbered(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, " ")}\t${capLine(text)}`;
}

/** Splits text into lines; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function orElse<T extends { ok: boolean }>(first: T, second: T): T {
  return first.ok ? first : second;
}

async function readFile(input: ReadInput, ctx: ToolContext): Promise<ToolResult> {
  const fs = ctx.runtime.fs;
  const inWorkspace = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: input.file_path });
  // The session's large-output files (bash) are readable too: the preview points the model there.
  const withOutputs =
    !inWorkspace.ok && ctx.outputDir !== undefined
      ? orElse(resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.outputDir, path: input.file_path }), inWorkspace)
      : inWorkspace;
  // A plugin's skill files are read where the plugin lives (ctx.readRoots), outside the workspace.
  const root =
    withOutputs.ok || !isAbsolutePath(input.file_path)
      ? undefined
      : ctx.readRoots?.find((dir) => resolveInWorkspace(fs, { cwd: dir, workspaceRoot: dir, path: input.file_path }).ok);
  const resolved = root === undefined ? withOutputs : resolveInWorkspace(fs, { cwd: root, workspaceRoot: root, path: input.file_path });
  if (!resolved.ok) return failure(resolved.message);
  const path = resolved.path;
  const stat = fs.stat(path);
  if (stat === undefined) return failure(`no such file: ${input.file_path}`, { path });
  if (stat.kind === "dir") return failure(`is a directory, not a file: ${input.file_path} (use glob or bash ls)`, { path });
  let bytes: Uint8Array | undefined;
  try {
    bytes = fs.readBytes(path);
  } catch (error) {
    return failure(`cannot read ${input.file_path}: ${describeError(error)}`, { path });
  }
  if (bytes === undefined) return failure(`no such file: ${input.file_path}`, { path });
  const media = mediaKind(bytes);
  if (media !== undefined) {
    return failure(`${input.file_path} is a ${media} (${bytes.byteLength} bytes): read shows text files only, so images and PDFs cannot be read here`, {
      path,
      media,
    });
  }
  if (looksBinary(bytes)) return failure(`binary file, not shown: ${input.file_path} (${bytes.byteLength} bytes)`, { path });

  const lines = splitLines(new TextDecoder().decode(bytes));
  const total = lines.length;
  const first = Math.max(1, input.offset ?? 1);
  const nothing: ToolDetails = { tool: "read", path, content: "", startLine: first, numLines: 0, totalLines: total };
  if (total === 0) return { success: true, content: "(empty file)", metadata: { path, total_lines: 0 }, details: nothing };
  if (first > total) {
    return {
      success: true,
      content: `(offset ${first} is past the end of the file: ${total} lines)`,
      metadata: { path, total_lines: total },
      details: nothing,
    };
  }
  const limit = input.limit ?? READ_DEFAULT_LINES;
  const wanted = lines.slice(first - 1, first - 1 + limit).map((line, i) => numbered(first + i, line));
  const { text, shown } = joinCapped(wanted);
  const last = first + shown - 1;
  const truncated = last < total;
  const note = truncated ? `\n[truncated: showing lines ${first}-${last} of ${total}; use offset=${last + 1} to read more]` : "";
  const details: ToolDetails = { tool: "read", path, content: lines.slice(first - 1, last).join("\n"), startLine: first, numLines: shown, totalLines: total };
  return { success: true, content: text + note, metadata: { path, total_lines: total, truncated }, details };
}

export const readTool = defineTool({
  name: "read",
  description:
    "Read a text file from the workspace. Output has line numbers (cat -n style). Use offset (first line, counting from 1) and limit (line count) to page through large files.",
  schema: readInputSchema,
  run: readFile,
});
