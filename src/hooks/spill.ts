/** Payload files for hook input too large for stdin: where they go, who may own that place, and their cleanup. */
import type { FileSystem } from "../runtime/types.ts";
import type { EncodeOptions } from "./dialects/types.ts";

/** Hook stdin (JSON plus its newline) always stays at or under this many bytes (D14). */
export const STDIN_MAX_BYTES = 1024 * 1024;
/** Full-mode bodies above this are never spilled (D14). */
export const SPILL_MAX_BYTES = 64 * 1024 * 1024;
export const SPILL_DIR_NAME = "agent-hook-payloads";
/** Start-up cleanup removes spill directories older than this (hooks time out after at most 60 s). */
export const STALE_SPILL_AGE_MS = 10 * 60 * 1000;

export type Spiller = NonNullable<EncodeOptions["spill"]>;

function joinPath(dir: string, name: string): string {
  return dir.endsWith("/") || dir.endsWith("\\") ? `${dir}${name}` : `${dir}/${name}`;
}

/** Where spills go: the temp directory, and whose they must be (`PlatformFacts` fits). */
export interface SpillPlace {
  readonly tmpdir: string;
  /** The agent's uid; null on Windows, where only the symlink check applies. */
  readonly uid: number | null;
}

export type SpillRoot = { readonly ok: true; readonly root: string } | { readonly ok: false; readonly problem: string };

/**
 * `<tmp>/agent-hook-payloads`, created 0700 if missing, and used only when `lstat` shows a real
 * directory (not a symlink) owned by us with no group/other bits. `$TMPDIR` is shared: a directory
 * planted there by someone else, or a symlink to a victim directory, would otherwise receive our
 * payloads or have its files deleted by the sweep. Never throws.
 */
export function claimSpillRoot(fs: FileSystem, place: SpillPlace): SpillRoot {
  const root = joinPath(place.tmpdir, SPILL_DIR_NAME);
  let stat = fs.lstat(root);
  if (stat === undefined) {
    try {
      fs.mkdir(root, { recursive: true, mode: 0o700 });
      fs.chmod(root, 0o700);
    } catch {
      // Another agent may have made it meanwhile; the lstat below decides.
    }
    stat = fs.lstat(root);
  }
  if (stat === undefined) return { ok: false, problem: `spill directory ${root} cannot be created` };
  if (stat.kind === "symlink") return { ok: false, problem: `spill directory ${root} is a symlink, not ours` };
  if (stat.kind !== "dir") return { ok: false, problem: `spill directory ${root} is not a directory` };
  if (place.uid !== null && stat.uid !== place.uid) {
    return { ok: false, problem: `spill directory ${root} is owned by uid ${stat.uid ?? "?"}, not by you (uid ${place.uid})` };
  }
  if (place.uid !== null && (stat.mode & 0o077) !== 0) {
    return { ok: false, problem: `spill directory ${root} has mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}, not 0700` };
  }
  return { ok: true, root };
}

/** The one line `agent run`/`hooks test` print when the spill directory is refused. */
export function spillRefusalLine(problem: string): string {
  return `agent: ${problem}: refused; payloads over 1 MiB go to hooks as omitted_too_large summaries (remove it, or set TMPDIR to a private directory)\n`;
}

/**
 * The real spiller: `<tmp>/agent-hook-payloads/<random>/payload.json`, directory 0700 and file
 * 0600 (chmod after creation, so the umask cannot widen them), under a root that `claimSpillRoot`
 * accepts (checked at each spill: it may be swapped during a session). Returns null when anything
 * fails, after removing what it made; never throws.
 */
export function createSpiller(fs: FileSystem, place: SpillPlace, randomId: () => string): Spiller {
  return (bytes) => {
    const claimed = claimSpillRoot(fs, place);
    if (!claimed.ok) return null;
    let dir: string | null = null;
    try {
      dir = joinPath(claimed.root, randomId());
      fs.mkdir(dir, { mode: 0o700 });
      fs.chmod(dir, 0o700);
      const path = joinPath(dir, "payload.json");
      fs.writeBytes(path, bytes, { mode: 0o600 });
      fs.chmod(path, 0o600);
      return { path, dir };
    } catch {
      if (dir !== null) cleanupSpill(fs, [dir]);
      return null;
    }
  };
}

/** Deletes spill files and directories (an `EncodedRequest.cleanup` list). Never throws. */
export function cleanupSpill(fs: FileSystem, paths: readonly string[]): void {
  for (const path of paths) {
    try {
      fs.rm(path, { recursive: true });
    } catch {
      // best effort: a leftover is removed by cleanStaleSpills at the next start
    }
  }
}

/**
 * Start-up sweep of spill directories left by a crashed agent, only inside a root that
 * `claimSpillRoot` accepts. Returns the refusal problem (print `spillRefusalLine`), else null.
 * Never throws.
 */
export function cleanStaleSpills(fs: FileSystem, place: SpillPlace, options: { nowMs?: number; olderThanMs?: number } = {}): string | null {
  // Nothing to sweep, and no reason to create the directory before the first spill.
  if (fs.lstat(joinPath(place.tmpdir, SPILL_DIR_NAME)) === undefined) return null;
  const claimed = claimSpillRoot(fs, place);
  if (!claimed.ok) return claimed.problem;
  const now = options.nowMs ?? Date.now();
  const age = options.olderThanMs ?? STALE_SPILL_AGE_MS;
  for (const name of fs.readdir(claimed.root)) {
    const path = joinPath(claimed.root, name);
    const stat = fs.lstat(path);
    if (stat !== undefined && now - stat.mtimeMs >= age) cleanupSpill(fs, [path]);
  }
  return null;
}
