/**
 * All-or-none writes for the tools that change several files (`apply_patch`) or one file in several
 * steps (`multi_edit`): every new content is computed in memory first, then the changes are written
 * in order; if a write fails, the ones already made are undone (old content written back, created
 * files removed), so the workspace is left as it was.
 */
import type { FileSystem } from "../runtime/types.ts";
import { dirnamePath } from "../util/path-utils.ts";
import { describeError } from "./output.ts";

export interface FileChange {
  /** Absolute path, already confined to the workspace. */
  readonly path: string;
  /** Content before; null: the file did not exist. */
  readonly before: string | null;
  /** Content after; null: the file is removed. */
  readonly after: string | null;
}

function apply(fs: FileSystem, path: string, content: string | null): void {
  if (content === null) {
    fs.rm(path);
    return;
  }
  fs.mkdir(dirnamePath(path), { recursive: true });
  fs.writeText(path, content);
}

/** Writes `changes` in order; on a failure undoes what was written and names the file that failed. */
export function commitChanges(
  fs: FileSystem,
  changes: readonly FileChange[],
  display: (path: string) => string,
): { ok: true } | { ok: false; message: string } {
  const done: FileChange[] = [];
  for (const change of changes) {
    try {
      apply(fs, change.path, change.after);
      done.push(change);
    } catch (error) {
      const undone = rollBack(fs, done);
      const note = undone ? "nothing was changed" : "some files could not be restored; check them";
      return { ok: false, message: `cannot write ${display(change.path)}: ${describeError(error)} (${note})` };
    }
  }
  return { ok: true };
}

function rollBack(fs: FileSystem, done: readonly FileChange[]): boolean {
  let clean = true;
  for (const change of [...done].reverse()) {
    try {
      apply(fs, change.path, change.before);
    } catch {
      clean = false;
    }
  }
  return clean;
}
