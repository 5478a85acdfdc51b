/**
 * `glob`: files matching a pattern such as `src/**\/*.ts`, relative to `path` (default: the cwd),
 * sorted by code point and printed relative to the cwd. A literal leading part of the pattern
 * (`../lib/*.ts`, `/abs/dir/**`) becomes the walk root and is confined to the workspace like any path.
 */
import type { Tool, ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { globInputSchema, toolJsonSchema, validateWith, type GlobInput } from "./schemas.ts";
import { displayPath, resolvePosix, resolveInWorkspace } from "./paths.ts";
import { describeError, failure, joinCapped } from "./output.ts";
import { compileGlob, splitGlobBase } from "./glob-match.ts";
import { walkFiles } from "./walk.ts";

export const GLOB_MAX_RESULTS = 1000;

function findFiles(input: GlobInput, ctx: ToolContext): ToolResult {
  const fs = ctx.runtime.fs;
  const startedMs = ctx.runtime.now();
  const details = (filenames: readonly string[], truncated: boolean): ToolDetails => ({
    tool: "glob",
    filenames: filenames.map((display) => resolvePosix(ctx.cwd, display)),
    durationMs: Math.max(0, Math.round(ctx.runtime.now() - startedMs)),
    truncated,
  });
  const base = input.path ?? ".";
  const { base: literal, rest } = splitGlobBase(input.pattern);
  const start =
    literal === "" ? base : literal.startsWith("/") || input.path === undefined ? literal : `${base.replace(/\/+$/, "") || "/"}/${literal}`;
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: start });
  if (!resolved.ok) return failure(resolved.message);
  const root = resolved.path;
  const stat = fs.stat(root);
  const metadata = (count: number) => ({ path: resolvePosix(ctx.cwd, base), count });
  if (stat === undefined) return { success: true, content: "No files found", metadata: metadata(0), details: details([], false) };
  if (stat.kind !== "dir") {
    return failure(`not a directory: ${start}`, { path: root });
  }
  const realRoot = fs.realpath(ctx.workspaceRoot) ?? ctx.workspaceRoot;
  const matches = compileGlob(rest);
  const found: string[] = [];
  const walk = walkFiles(fs, {
    dir: root,
    realRoot,
    onFile: (entry) => {
      if (matches(entry.relative)) found.push(displayPath(ctx.cwd, entry.path));
      return true;
    },
  });
  found.sort();
  if (found.length === 0) return { success: true, content: "No files found", metadata: metadata(0), details: details([], walk.truncated) };
  const listed = found.slice(0, GLOB_MAX_RESULTS);
  const { text, shown } = joinCapped(listed);
  const notes: string[] = [];
  if (shown < found.length) notes.push(`[truncated: ${found.length} files, showing the first ${shown}; narrow the pattern]`);
  if (walk.truncated) notes.push("[search stopped early: too many files; narrow the pattern or path]");
  return {
    success: true,
    content: notes.length === 0 ? text : `${text}\n${notes.join("\n")}`,
    metadata: metadata(found.length),
    details: details(listed.slice(0, shown), shown < found.length || walk.truncated),
  };
}

export const globTool: Tool = {
  name: "glob",
  description:
    "Find files by glob pattern (e.g. `src/**/*.ts`, `*.{json,toml}`), relative to path (default: the cwd). Returns matching file paths, sorted. Skips .git and node_modules.",
  parameters: toolJsonSchema("glob"),
  async execute(input, ctx) {
    const checked = validateWith(globInputSchema, input);
    if (!checked.ok) return failure(`invalid input: ${checked.path}: ${checked.message}`);
    try {
      return findFiles(checked.input, ctx);
    } catch (error) {
      return failure(`glob failed: ${describeError(error)}`);
    }
  },
};
