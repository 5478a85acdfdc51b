/**
 * ripgrep as a fast file lister for `glob` and `grep` when `rg` is on the PATH. It only says which
 * files to look at (`rg --files`, or `rg --files-with-matches PATTERN` as a prefilter); the tools then
 * filter, read and print those files with their own code, so the output has one shape whichever
 * engine ran. rg is told to apply exactly our rules: `.gitignore` files in and below the search
 * root whether or not this is a git repository, `.git/info/exclude`, hidden files included, `.git`
 * and `node_modules` skipped, no `.ignore`/`.rgignore`, no global excludes, no config file, and
 * parent directories' rules only up to a repository root at the workspace root (`ripgrepFor`
 * decides; where rg could not see the rules the walk applies, it answers null and the walk runs).
 *
 * Differences that remain, documented in docs/tools.md: rg does not follow symlinks (the walk
 * yields symlinked files inside the workspace), and a pattern is matched by rg's regex dialect
 * first, so a file only the JavaScript regex would match is missed; a pattern rg cannot parse
 * (lookaround, say) falls back to the walk.
 */
import type { ToolContext } from "./types.ts";
import { runInGroup, type OutputSink } from "../runtime/run-group.ts";
import { dirnamePath, isInside } from "../util/path-utils.ts";
import { WALK_MAX_ENTRIES } from "./walk.ts";

export type RgListing =
  | { readonly ok: true; readonly paths: readonly string[]; readonly truncated: boolean }
  | { readonly ok: false; readonly reason: "unusable" | "aborted" | "over-budget" };

/** How to run rg for one search: the binary and how it must read parent directories' rules. */
export interface RgPlan {
  readonly binary: string;
  /** Read `.gitignore` files above the search root (rg stops at the repository root). */
  readonly parents: boolean;
}

/** How to run rg for a search rooted at `root`, or null: the built-in walk. */
export function ripgrepFor(ctx: ToolContext, root: string): RgPlan | null {
  // rg prints Windows paths with `\`; the walk keeps the one path arithmetic there.
  if (ctx.ripgrep === null || ctx.runtime.platform.os === "win32") return null;
  const fs = ctx.runtime.fs;
  const workspaceRoot = ctx.workspaceRoot;
  if (!isInside(root, workspaceRoot)) return null;
  const binary = ctx.ripgrep ?? ctx.runtime.which("rg", ctx.env.PATH);
  if (binary === null) return null;
  if (root === workspaceRoot) return { binary, parents: false };
  // In a repository rooted at the workspace rg reads the rules from there down, as the walk does.
  if (fs.lstat(`${workspaceRoot}/.git`) !== undefined) return { binary, parents: true };
  // Elsewhere rg would read parents up to the file-system root; without them it would miss these.
  for (let dir = dirnamePath(root); ; dir = dirnamePath(dir)) {
    if (fs.stat(`${dir}/.gitignore`) !== undefined) return null;
    if (dir === workspaceRoot || dirnamePath(dir) === dir) break;
  }
  return { binary, parents: false };
}

const COMMON_ARGS = [
  "--no-config",
  "--no-messages",
  "--hidden",
  "--no-require-git",
  "--no-ignore-global",
  "--no-ignore-dot",
  "--glob",
  "!.git",
  "--glob",
  "!node_modules",
  "--null",
];

/** Collects NUL-terminated paths; refuses (stopping rg) past WALK_MAX_ENTRIES. */
class PathSink implements OutputSink {
  readonly paths: string[] = [];
  overflowed = false;
  #pending: Uint8Array[] = [];
  readonly #decoder = new TextDecoder();

  push(chunk: Uint8Array): boolean {
    let start = 0;
    for (let i = chunk.indexOf(0); i !== -1; i = chunk.indexOf(0, start)) {
      this.#pending.push(chunk.slice(start, i));
      this.paths.push(this.#decoder.decode(concat(this.#pending)));
      this.#pending = [];
      start = i + 1;
      if (this.paths.length > WALK_MAX_ENTRIES) {
        this.overflowed = true;
        return false;
      }
    }
    if (start < chunk.byteLength) this.#pending.push(chunk.slice(start));
    return true;
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Keeps a little stderr to tell a regex error from other failures. */
class StderrSink implements OutputSink {
  text = "";
  push(chunk: Uint8Array): boolean {
    if (this.text.length < 4096) this.text += new TextDecoder().decode(chunk);
    return true;
  }
}

/**
 * Files under `root` (absolute, rg's order): all of them, or with `search` those where rg finds the
 * pattern. Never throws; `unusable` (rg missing, crashed, or rejected the pattern) means: walk instead.
 */
export async function rgList(
  ctx: ToolContext,
  plan: RgPlan,
  options: { root: string; timeoutMs: number; search?: { pattern: string; ignoreCase: boolean; maxFileBytes: number } },
): Promise<RgListing> {
  const search = options.search;
  const args =
    search === undefined
      ? ["--files"]
      : ["--files-with-matches", "--max-filesize", String(search.maxFileBytes), ...(search.ignoreCase ? ["-i"] : []), "-e", search.pattern];
  const stdout = new PathSink();
  const stderr = new StderrSink();
  const run = await runInGroup(ctx.runtime, {
    argv: [plan.binary, ...COMMON_ARGS, ...(plan.parents ? [] : ["--no-ignore-parent"]), ...args, "--", options.root],
    cwd: options.root,
    env: ctx.env,
    stdin: null,
    timeoutMs: Math.max(1, options.timeoutMs),
    stdout,
    stderr,
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
  });
  if (run.stop === "cancelled") return { ok: false, reason: "aborted" };
  if (run.stop === "timeout") return { ok: false, reason: "over-budget" };
  if (run.stop === "output-limit" && stdout.overflowed) return { ok: true, paths: stdout.paths.slice(0, WALK_MAX_ENTRIES), truncated: true };
  if (run.stop !== "exit" || run.exit === null) return { ok: false, reason: "unusable" };
  // 0: found, 1: nothing found; 2: an error — a bad pattern, or unreadable files (then the list still holds).
  const code = run.exit.code;
  if (code === 1) return { ok: true, paths: [], truncated: false };
  if (code === 0 || (code === 2 && stdout.paths.length > 0 && !/regex|error parsing/i.test(stderr.text))) {
    return { ok: true, paths: stdout.paths, truncated: false };
  }
  return { ok: false, reason: "unusable" };
}

/** Orders absolute paths as the walk visits them: segment by segment, in code-point order. */
export function walkOrder(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] as string;
    const y = right[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}
