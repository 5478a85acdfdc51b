/**
 * Workspace confinement for tool paths. A path resolves against the agent cwd, then the real path of
 * its longest existing ancestor is taken (so a symlink anywhere on the way is followed) and must lie
 * inside the real workspace root. A dangling symlink is refused: where it points cannot be checked,
 * and writing through it could create a file outside. Path arithmetic (POSIX and Windows) is
 * util/path-utils.ts.
 */
import type { FileSystem } from "../runtime/types.ts";
import { dirnamePath, isInside, relativeInside, resolvePath } from "../util/path-utils.ts";
import { realLocation } from "./call.ts";

export type ResolvedPath = { ok: true; path: string } | { ok: false; message: string };

/** `path` relative to `from` when inside it (`.` for `from` itself), else `path` unchanged. */
export function displayPath(from: string, path: string): string {
  if (path === from) return ".";
  if (dirnamePath(from) === from) return path; // from a root, the absolute path reads better
  return relativeInside(path, from) ?? path;
}

/**
 * Resolves a tool path against `cwd` and confines it to `workspaceRoot`. On success `path` is the
 * lexically normalised absolute path (what the tool reports); I/O on it stays inside the workspace.
 * Failure message: `path outside the workspace: <path as given>`.
 */
export function resolveInWorkspace(fs: FileSystem, options: { cwd: string; workspaceRoot: string; path: string }): ResolvedPath {
  const given = options.path;
  if (given.length === 0) return { ok: false, message: "empty path" };
  if (given.includes("\0")) return { ok: false, message: `invalid path: ${JSON.stringify(given)}` };
  const root = resolvePath("/", options.workspaceRoot);
  const absolute = resolvePath(resolvePath(root, options.cwd), given);
  const realRoot = fs.realpath(root) ?? root;
  const real = realLocation(fs, absolute);
  if (real === undefined || !isInside(real, realRoot)) return { ok: false, message: `path outside the workspace: ${given}` };
  return { ok: true, path: absolute };
}
