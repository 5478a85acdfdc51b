/**
 * Directory walk shared by `grep` and `glob`: depth-first in code-point order, skipping `.git` and
 * `node_modules`, never following symlinked directories (no loops, no escapes from the workspace).
 * Symlinked files are yielded only when their target is inside `realRoot`. Asynchronous: the pacer
 * is ticked before every entry, so a big tree yields to the event loop and an abort or the time
 * budget ends the walk at the next entry. With `ignore` (gitignore.ts), ignored files are not
 * yielded and ignored directories are not entered.
 */
import type { FileSystem } from "../runtime/types.ts";
import { isInside } from "../util/path-utils.ts";
import type { Pacer } from "./pacer.ts";
import type { IgnoreRules } from "./gitignore.ts";

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
  /** Set when the signal or the pacer's time budget stopped the walk. */
  interrupted?: "aborted" | "over-budget";
}

/** Calls `onFile` for every regular file under `dir`; `onFile` returning false stops the walk. */
export async function walkFiles(
  fs: FileSystem,
  options: { dir: string; realRoot: string; pacer: Pacer; ignore?: IgnoreRules; onFile: (entry: WalkEntry) => boolean | Promise<boolean> },
): Promise<WalkOutcome> {
  let seen = 0;
  let interrupted: WalkOutcome["interrupted"];
  const visit = async (dir: string, relative: string, rules: IgnoreRules | undefined): Promise<boolean> => {
    for (const name of fs.readdir(dir)) {
      const state = await options.pacer.tick();
      if (state !== "running") {
        interrupted = state;
        return false;
      }
      if (++seen > WALK_MAX_ENTRIES) return false;
      const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
      const rel = relative === "" ? name : `${relative}/${name}`;
      const stat = fs.lstat(path);
      if (stat === undefined) continue;
      if (rules !== undefined && rules.ignores(path, stat.kind === "dir")) continue;
      if (stat.kind === "dir") {
        if (SKIPPED_DIRS.has(name)) continue;
        if (!(await visit(path, rel, rules === undefined ? undefined : await rules.enter(path)))) return false;
      } else if (stat.kind === "file") {
        if (!(await options.onFile({ path, relative: rel }))) return false;
      } else if (stat.kind === "symlink") {
        const target = fs.stat(path);
        const real = fs.realpath(path);
        if (target?.kind === "file" && real !== undefined && isInside(real, options.realRoot)) {
          if (!(await options.onFile({ path, relative: rel }))) return false;
        }
      }
    }
    return true;
  };
  const completed = await visit(options.dir, "", options.ignore);
  const outcome: WalkOutcome = { truncated: !completed && seen > WALK_MAX_ENTRIES };
  if (interrupted !== undefined) outcome.interrupted = interrupted;
  return outcome;
}
