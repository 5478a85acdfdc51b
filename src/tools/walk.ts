/**
 * Directory walk shared by `grep` and `glob`: depth-first in code-point order, skipping `.git` and
 * `node_modules`, never following symlinked directories (no loops, no escapes from the workspace).
 * Symlinked files are yielded only when their target is inside `realRoot`.
 */
import type { FileSystem } from "../runtime/types.ts";
import { isInside } from "./paths.ts";

export const SKIPPED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** Guards against walking a whole disk by mistake. */
export const WALK_MAX_ENTRIES = 200_000;

export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Relative to the walk root, `/`-separated. */
  relative: string;
}

export interface WalkOutcome {
  /** True when WALK_MAX_ENTRIES stopped the walk early. */
  truncated: boolean;
}

/** Calls `onFile` for every regular file under `dir`; `onFile` returning false stops the walk. */
export function walkFiles(
  fs: FileSystem,
  options: { dir: string; realRoot: string; onFile: (entry: WalkEntry) => boolean },
): WalkOutcome {
  let seen = 0;
  const visit = (dir: string, relative: string): boolean => {
    for (const name of fs.readdir(dir)) {
      if (++seen > WALK_MAX_ENTRIES) return false;
      const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
      const rel = relative === "" ? name : `${relative}/${name}`;
      const stat = fs.lstat(path);
      if (stat === undefined) continue;
      if (stat.kind === "dir") {
        if (SKIPPED_DIRS.has(name)) continue;
        if (!visit(path, rel)) return false;
      } else if (stat.kind === "file") {
        if (!options.onFile({ path, relative: rel })) return false;
      } else if (stat.kind === "symlink") {
        const target = fs.stat(path);
        const real = fs.realpath(path);
        if (target?.kind === "file" && real !== undefined && isInside(options.realRoot, real)) {
          if (!options.onFile({ path, relative: rel })) return false;
        }
      }
    }
    return true;
  };
  const completed = visit(options.dir, "");
  return { truncated: !completed && seen > WALK_MAX_ENTRIES };
}
