/**
 * The spawn-time half of project trust: right before a project hook spawns, every
 * pinned file (the scripts the hooks name and the `.agent/` tree) must still hold the bytes that
 * were trusted when the session loaded its hooks, and `.agent/` must hold no new file. Otherwise the
 * hook does not run and fails closed. In accept-edits mode the model may write files: without this
 * check, overwriting a trusted hook's script would be code execution without bash permission.
 *
 * Cheap by a stat cache: the first check hashes each file (its stat taken before the read); after
 * that a file is hashed again only when its size or mtime differs from the last
 * verified hash, or when it was modified less than RACY_MS before that hash was taken (a write in
 * the same coarse timestamp tick could otherwise keep its mtime). Cost: BENCHMARKS.md `## Trust check`.
 */
import { pinOf, scanAgentTree } from "./material.ts";
import { escapeControls } from "../util/escape.ts";
import type { FileStat, Runtime } from "../runtime/types.ts";

/** Coarser than any file system's mtime granularity we run on (FAT: 2 s). */
export const RACY_MS = 2500;

interface Verified {
  readonly size: number;
  readonly mtimeMs: number;
  /** Wall-clock ms when the hash was taken. */
  readonly checkedAt: number;
}

export interface TrustGuardBaseline {
  /** Project root. */
  readonly root: string;
  /** The directories re-scanned for new files (`.agent/`, and `.claude/hooks/` when pinned). */
  readonly treeRoots: readonly string[];
  /** Every pinned file → its trusted SHA-256 hex (or `missing`). */
  readonly files: Readonly<Record<string, string>>;
  /** The pinned `.agent/` tree files (a subset of `files`): any other file found there is new. */
  readonly tree: readonly string[];
  /** Symlinked directories under `.agent/` → where they pointed. */
  readonly links: Readonly<Record<string, string>>;
}

/** Returns null when everything still matches, else the failure detail (what changed, how to re-trust). */
export type TrustCheck = () => string | null;

export function createTrustGuard(runtime: Pick<Runtime, "fs" | "sha256Hex">, baseline: TrustGuardBaseline, clock: () => number = Date.now): TrustCheck {
  const cache = new Map<string, Verified>();
  const inTree = new Set(baseline.tree);
  const pinnedTree = new Set(Object.keys(baseline.files));

  const unchanged = (path: string, trusted: string, known: FileStat | undefined): boolean => {
    const stat = known ?? runtime.fs.stat(path);
    if (stat === undefined) return trusted === "missing";
    const seen = cache.get(path);
    if (seen !== undefined && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs && stat.mtimeMs < seen.checkedAt - RACY_MS) return true;
    const checkedAt = clock();
    if (pinOf(runtime, path, stat) !== trusted) return false;
    cache.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, checkedAt });
    return true;
  };

  return () => {
    const problems: string[] = [];
    const scan = scanAgentTree(runtime.fs, baseline.treeRoots);
    for (const [path, trusted] of Object.entries(baseline.files)) {
      if (!unchanged(path, trusted, scan.stats.get(path))) problems.push(`changed: ${path}`);
    }
    for (const path of scan.files) if (!inTree.has(path) && !pinnedTree.has(path)) problems.push(`added: ${path}`);
    for (const [path, target] of Object.entries(scan.links)) if (baseline.links[path] !== target) problems.push(`changed: link ${path}`);
    if (scan.overBound !== undefined) problems.push(scan.overBound);
    if (problems.length === 0) return null;
    const shown = problems.slice(0, 3).join(", ") + (problems.length > 3 ? `, and ${problems.length - 3} more` : "");
    return escapeControls(
      `trust: project files changed since the hooks were trusted (${shown}); the hook did not run. Review the change, run \`agent hooks trust\`, and start a new session`,
    );
  };
}
