/**
 * `grep`, in TypeScript (no ripgrep dependency): a JavaScript regex over the text files under `path`
 * (default: the cwd), ripgrep-style output. `glob` without a `/` matches file names, with a `/` the
 * path relative to the search root. `.git`, `node_modules`, files `.gitignore` ignores
 * (gitignore.ts), binary files (a NUL in the first 8000 bytes) and files over GREP_MAX_FILE_BYTES are
 * skipped. Paths print relative to the cwd. With `rg` on the PATH, rg picks the files that may match
 * (ripgrep.ts) and this code searches and prints just those, so the output is the same either way.
 *
 * The search is asynchronous and bounded: it yields to the event loop between files and lines
 * (pacer.ts), stops at the call's signal, refuses regex shapes that backtrack catastrophically
 * (regex-guard.ts), and stops at GREP_TIME_BUDGET_MS, GREP_MAX_SCAN_BYTES or GREP_MAX_MATCHES.
 */
import type { ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { grepInputSchema, type GrepInput } from "./schemas.ts";
import { displayPath, resolveInWorkspace } from "./paths.ts";
import { capLine, failure, joinCapped, looksBinary } from "./output.ts";
import { compileGlob } from "./glob-match.ts";
import { walkFiles, type WalkEntry } from "./walk.ts";
import { IgnoreRules } from "./gitignore.ts";
import { rgList, ripgrepFor, walkOrder } from "./ripgrep.ts";
import { resolvePath } from "../util/path-utils.ts";
import { splitLines } from "./read.ts";
import { compileSearchRegex } from "./regex-guard.ts";
import { Pacer, type PacerState } from "./pacer.ts";
import { defineTool } from "./define-tool.ts";

export const GREP_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Wall-clock limit of one call: what a slow (but accepted) pattern can cost at most. */
export const GREP_TIME_BUDGET_MS = 20_000;
/** Total bytes read by one call. */
export const GREP_MAX_SCAN_BYTES = 256 * 1024 * 1024;
/** Matching lines kept by one call (the output is capped anyway; this bounds memory). */
export const GREP_MAX_MATCHES = 10_000;

interface FileMatches {
  display: string;
  lines: string[];
  /** Indexes (0-based) of matching lines. */
  hits: number[];
}

function contentLines(file: FileMatches, context: number, numbered: boolean): string[] {
  const out: string[] = [];
  const hitSet = new Set(file.hits);
  let lastPrinted = -1;
  for (const hit of file.hits) {
    const from = Math.max(0, hit - context, lastPrinted + 1);
    const to = Math.min(file.lines.length - 1, hit + context);
    if (context > 0 && lastPrinted !== -1 && from > lastPrinted + 1) out.push("--");
    for (let i = from; i <= to; i++) {
      const isHit = hitSet.has(i);
      const sep = isHit ? ":" : "-";
      out.push(numbered ? `${file.display}${sep}${i + 1}${sep}${capLine(file.lines[i] ?? "")}` : `${file.display}${sep}${capLine(file.lines[i] ?? "")}`);
    }
    lastPrinted = Math.max(lastPrinted, to);
  }
  return out;
}

/** Why the search ended before it had looked at everything it was asked to. */
type StopReason = "head_limit" | "walk" | "bytes" | "matches" | Exclude<PacerState, "running">;

function resultLines(files: readonly FileMatches[], input: GrepInput): string[] {
  const mode = input.output_mode ?? "files_with_matches";
  if (mode === "files_with_matches") return files.map((file) => file.display);
  if (mode === "count") return files.map((file) => `${file.display}:${file.hits.length}`);
  const context = input["-C"] ?? 0;
  const numbered = input["-n"] ?? true;
  const lines: string[] = [];
  for (const file of files) {
    if (context > 0 && lines.length > 0) lines.push("--");
    lines.push(...contentLines(file, context, numbered));
  }
  return lines;
}

const STOP_NOTES: Partial<Record<StopReason, string>> = {
  walk: "[search stopped early: too many files; narrow path or glob]",
  bytes: `[search stopped early: ${GREP_MAX_SCAN_BYTES / 1024 / 1024} MiB scanned; narrow path or glob]`,
  matches: `[search stopped early: ${GREP_MAX_MATCHES} matching lines; narrow the pattern, path or glob]`,
};

interface ScanOptions {
  readonly regex: RegExp;
  readonly pacer: Pacer;
  /** The compiled `glob`, matched against the file name (`byName`) or the path relative to the root. */
  readonly filter: ((subject: string) => boolean) | undefined;
  readonly byName: boolean;
  readonly mode: NonNullable<GrepInput["output_mode"]>;
  readonly headLimit: number;
}

/** One call's search, file by file: what matched, what it cost, and why it stopped early, if it did. */
class GrepScan {
  readonly files: FileMatches[] = [];
  matchCount = 0;
  stop: StopReason | undefined;
  /** The file being searched when the signal or the budget stopped the call. */
  stoppedIn: string | undefined;
  #entries = 0;
  #scannedBytes = 0;

  constructor(
    private readonly ctx: ToolContext,
    private readonly options: ScanOptions,
  ) {}

  /** Searches one file; false: the search must stop. */
  async scan(entry: WalkEntry): Promise<boolean> {
    const { filter, byName, mode, headLimit } = this.options;
    const fs = this.ctx.runtime.fs;
    if (filter !== undefined) {
      const subject = byName ? (entry.relative.split("/").at(-1) ?? entry.relative) : entry.relative;
      if (!filter(subject)) return true;
    }
    const size = fs.stat(entry.path)?.size ?? 0;
    if (size > GREP_MAX_FILE_BYTES) return true;
    if (this.#scannedBytes + size > GREP_MAX_SCAN_BYTES) {
      this.stop = "bytes";
      return false;
    }
    const bytes = fs.readBytes(entry.path);
    if (bytes === undefined || looksBinary(bytes)) return true;
    this.#scannedBytes += bytes.byteLength;
    const lines = splitLines(new TextDecoder().decode(bytes));
    const hits = await this.#matchLines(lines, entry);
    if (hits.length > 0) {
      this.files.push({ display: displayPath(this.ctx.cwd, entry.path), lines, hits });
      this.matchCount += hits.length;
      this.#entries += mode === "content" ? hits.length : 1;
    }
    if (this.stop !== undefined) return false;
    if (this.matchCount >= GREP_MAX_MATCHES) {
      this.stop = "matches";
      return false;
    }
    // Stop once more than head_limit entries exist (one extra tells whether anything was cut).
    if (this.#entries > headLimit) this.stop = "head_limit";
    return this.stop === undefined;
  }

  /** The indexes of the matching lines, up to where the signal or the budget stopped the call. */
  async #matchLines(lines: readonly string[], entry: WalkEntry): Promise<number[]> {
    const { regex, pacer } = this.options;
    const hits: number[] = [];
    for (let i = 0; i < lines.length; i++) {
      // One test() cannot be interrupted; between lines the signal and the budget are honoured.
      if (pacer.due()) {
        const state = await pacer.tick();
        if (state !== "running") {
          this.stop = state;
          this.stoppedIn = displayPath(this.ctx.cwd, entry.path);
          break;
        }
      }
      if (regex.test(lines[i] ?? "")) hits.push(i);
    }
    return hits;
  }
}

async function searchFiles(input: GrepInput, ctx: ToolContext): Promise<ToolResult> {
  const fs = ctx.runtime.fs;
  const compiled = compileSearchRegex(input.pattern, { ignoreCase: input["-i"] === true });
  if (!compiled.ok) return failure(compiled.message);
  const given = input.path ?? ".";
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: given });
  if (!resolved.ok) return failure(resolved.message);
  const root = resolved.path;
  const stat = fs.stat(root);
  if (stat === undefined) return failure(`no such file or directory: ${given}`, { path: root });
  const realRoot = fs.realpath(ctx.workspaceRoot) ?? ctx.workspaceRoot;
  const pacer = new Pacer({ runtime: ctx.runtime, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }), budgetMs: GREP_TIME_BUDGET_MS });

  const search = new GrepScan(ctx, {
    regex: compiled.regex,
    pacer,
    filter: input.glob === undefined ? undefined : compileGlob(input.glob),
    byName: input.glob !== undefined && !input.glob.includes("/"),
    mode: input.output_mode ?? "files_with_matches",
    headLimit: input.head_limit ?? Number.POSITIVE_INFINITY,
  });
  const scan = (entry: WalkEntry): Promise<boolean> => search.scan(entry);
  if (stat.kind === "dir") {
    const ended = await searchTree(ctx, { root, realRoot, input, pacer, scan });
    search.stop ??= ended;
  } else await scan({ path: root, relative: root.split("/").at(-1) ?? root });
  return grepResult(search, input, root);
}

function overBudgetFailure(stoppedIn: string | undefined, lines: readonly string[], metadata: Record<string, unknown>): ToolResult {
  const where = stoppedIn === undefined ? "" : ` (in ${stoppedIn})`;
  const head =
    `grep stopped after ${GREP_TIME_BUDGET_MS / 1000} s${where}: the pattern is too slow for this input. ` +
    "Overlapping alternatives under a repeat (`(a|ab)*`) or stacked wildcards (`.*.*`) backtrack heavily; simplify the pattern or narrow path/glob.";
  const partial = lines.length === 0 ? "" : `\nPartial results:\n${joinCapped(lines).text}`;
  return failure(head + partial, { ...metadata, timed_out: true });
}

/** The tool result of a finished search: its lines cut at head_limit and the output cap, with a note on every cut. */
function grepResult(search: GrepScan, input: GrepInput, root: string): ToolResult {
  const { files, matchCount, stop } = search;
  const mode = input.output_mode ?? "files_with_matches";
  const headLimit = input.head_limit ?? Number.POSITIVE_INFINITY;
  const metadata = { path: root, files: files.length, matches: matchCount };
  if (stop === "aborted") return failure("[grep cancelled]", { ...metadata, cancelled: true });
  let lines = resultLines(files, input);
  const headCut = lines.length > headLimit;
  if (headCut) lines = lines.slice(0, headLimit);
  if (stop === "over-budget") return overBudgetFailure(search.stoppedIn, lines, metadata);
  const { text, shown } = joinCapped(lines);
  const details: ToolDetails = {
    tool: "grep",
    mode,
    filenames: mode === "files_with_matches" ? lines.slice(0, shown) : [],
    content: mode === "files_with_matches" ? "" : text,
    numLines: shown,
    numFiles: mode === "content" ? files.length : Math.min(files.length, shown),
    numMatches: matchCount,
    ...(input.head_limit !== undefined ? { appliedLimit: input.head_limit } : {}),
  };
  if (lines.length === 0) return { success: true, content: "No matches found", metadata, details };
  const notes: string[] = [];
  if (shown < lines.length) notes.push(`[truncated: output capped, ${lines.length - shown} more lines not shown]`);
  if (headCut) notes.push(`[head_limit ${input.head_limit}: further results not shown]`);
  const stopNote = stop === undefined ? undefined : STOP_NOTES[stop];
  if (stopNote !== undefined) notes.push(stopNote);
  return { success: true, content: notes.length === 0 ? text : `${text}\n${notes.join("\n")}`, metadata, details };
}

/** Runs `scan` over the candidate files under `root`, from rg or the walk; why it ended early, if it did. */
async function searchTree(
  ctx: ToolContext,
  options: { root: string; realRoot: string; input: GrepInput; pacer: Pacer; scan: (entry: WalkEntry) => Promise<boolean> },
): Promise<StopReason | undefined> {
  const { root, input, pacer, scan } = options;
  const rg = ripgrepFor(ctx, root);
  const search = { pattern: input.pattern, ignoreCase: input["-i"] === true, maxFileBytes: GREP_MAX_FILE_BYTES };
  const listed = rg === null ? undefined : await rgList(ctx, rg, { root, timeoutMs: GREP_TIME_BUDGET_MS, search });
  if (listed?.ok === true) {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    for (const path of [...listed.paths].sort(walkOrder)) {
      if (!path.startsWith(prefix)) continue;
      const state = await pacer.tick();
      if (state !== "running") return state;
      if (!(await scan({ path, relative: path.slice(prefix.length) }))) return undefined;
    }
    return listed.truncated ? "walk" : undefined;
  }
  if (listed !== undefined && listed.reason !== "unusable") return listed.reason;
  const fs = ctx.runtime.fs;
  const ignore = await IgnoreRules.at(fs, resolvePath("/", ctx.workspaceRoot), root);
  const walk = await walkFiles(fs, { dir: root, realRoot: options.realRoot, pacer, ignore, onFile: scan });
  return walk.interrupted ?? (walk.truncated ? "walk" : undefined);
}

export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents with a JavaScript regular expression. output_mode: files_with_matches (default, file paths), content (matching lines; -n line numbers, -C context), count. Filter files with glob; -i ignores case; head_limit caps results. Nested quantifiers such as (a+)+ and backreferences are refused.",
  schema: grepInputSchema,
  run: searchFiles,
});
