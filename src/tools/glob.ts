/**
 * `glob`: files matching a pattern such as `src/**\/*.ts`, relative to `path` (default: the cwd),
 * sorted by code point and printed relative to the cwd. A literal leading part of the pattern
 * (`../lib/*.ts`, `/abs/dir/**`) becomes the walk root and is confined to the workspace like any path.
 * The walk is asynchronous (walk.ts): it yields to the event loop, stops at the call's signal and
 * within GLOB_TIME_BUDGET_MS. Files that `.gitignore` ignores are not listed (gitignore.ts); with
 * `rg` on the PATH it lists the files (ripgrep.ts) and the same pattern filter runs on its list.
 */
import type { ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { globInputSchema, type GlobInput } from "./schemas.ts";
import { displayPath, resolveInWorkspace } from "./paths.ts";
import { resolvePath } from "../util/path-utils.ts";
import { failure, joinCapped } from "./output.ts";
import { compileGlob, splitGlobBase } from "./glob-match.ts";
import { walkFiles, type WalkOutcome } from "./walk.ts";
import { IgnoreRules } from "./gitignore.ts";
import { rgList, ripgrepFor } from "./ripgrep.ts";
import { Pacer } from "./pacer.ts";
import { defineTool } from "./define-tool.ts";

export const GLOB_MAX_RESULTS = 1000;
/** Wall-clock limit of one call (a walk of WALK_MAX_ENTRIES entries on a slow disk). */
export const GLOB_TIME_BUDGET_MS = 20_000;

async function findFiles(input: GlobInput, ctx: ToolContext): Promise<ToolResult> {
  const fs = ctx.runtime.fs;
  const startedMs = ctx.runtime.now();
  const details = (filenames: readonly string[], truncated: boolean): ToolDetails => ({
    tool: "glob",
    filenames: filenames.map((display) => resolvePath(ctx.cwd, display)),
    durationMs: Math.max(0, Math.round(ctx.runtime.now() - startedMs)),
    truncated,
  });
  const base = input.path ?? ".";
  const { base: literal, rest } = splitGlobBase(input.pattern);
  const start = literal === "" ? base : literal.startsWith("/") || input.path === undefined ? literal : `${base.replace(/\/+$/, "") || "/"}/${literal}`;
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: start });
  if (!resolved.ok) return failure(resolved.message);
  const root = resolved.path;
  const stat = fs.stat(root);
  const metadata = (count: number) => ({ path: resolvePath(ctx.cwd, base), count });
  if (stat === undefined) return { success: true, content: "No files found", metadata: metadata(0), details: details([], false) };
  if (stat.kind !== "dir") {
    return failure(`not a directory: ${start}`, { path: root });
  }
  const matches = compileGlob(rest);
  const pacer = new Pacer({ runtime: ctx.runtime, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }), budgetMs: GLOB_TIME_BUDGET_MS });
  const { found, walk } = await listMatching(ctx, root, matches, pacer);
  if (walk.interrupted === "aborted") return failure("[glob cancelled]", { ...metadata(found.length), cancelled: true });
  found.sort();
  if (found.length === 0 && walk.interrupted === undefined)
    return { success: true, content: "No files found", metadata: metadata(0), details: details([], walk.truncated) };
  const listed = found.slice(0, GLOB_MAX_RESULTS);
  const { text, shown } = joinCapped(listed);
  const notes: string[] = [];
  if (shown < found.length) notes.push(`[truncated: ${found.length} files, showing the first ${shown}; narrow the pattern]`);
  if (walk.truncated) notes.push("[search stopped early: too many files; narrow the pattern or path]");
  if (walk.interrupted === "over-budget") notes.push(`[search stopped early: over ${GLOB_TIME_BUDGET_MS / 1000} s; narrow the pattern or path]`);
  const content = notes.length === 0 ? text : text === "" ? notes.join("\n") : `${text}\n${notes.join("\n")}`;
  return {
    success: true,
    content,
    metadata: metadata(found.length),
    details: details(listed.slice(0, shown), shown < found.length || walk.truncated || walk.interrupted !== undefined),
  };
}

/** Files under `root` whose path relative to it `matches`, as printed (relative to the cwd). */
async function listMatching(
  ctx: ToolContext,
  root: string,
  matches: (relative: string) => boolean,
  pacer: Pacer,
): Promise<{ found: string[]; walk: WalkOutcome }> {
  const found: string[] = [];
  const rg = ripgrepFor(ctx, root);
  const listed = rg === null ? undefined : await rgList(ctx, rg, { root, timeoutMs: GLOB_TIME_BUDGET_MS });
  if (listed?.ok === true) {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    for (const path of listed.paths) if (path.startsWith(prefix) && matches(path.slice(prefix.length))) found.push(displayPath(ctx.cwd, path));
    return { found, walk: { truncated: listed.truncated } };
  }
  if (listed !== undefined && listed.reason !== "unusable") return { found, walk: { truncated: false, interrupted: listed.reason } };
  const fs = ctx.runtime.fs;
  const realRoot = fs.realpath(ctx.workspaceRoot) ?? ctx.workspaceRoot;
  const ignore = await IgnoreRules.at(fs, resolvePath("/", ctx.workspaceRoot), root);
  const walk = await walkFiles(fs, {
    dir: root,
    realRoot,
    pacer,
    ignore,
    onFile: (entry) => {
      if (matches(entry.relative)) found.push(displayPath(ctx.cwd, entry.path));
      return true;
    },
  });
  return { found, walk };
}

export const globTool = defineTool({
  name: "glob",
  description:
    "Find files by glob pattern (e.g. `src/**/*.ts`, `*.{json,toml}`), relative to path (default: the cwd). Returns matching file paths, sorted. Skips .git, node_modules and files .gitignore ignores.",
  schema: globInputSchema,
  run: findFiles,
});
