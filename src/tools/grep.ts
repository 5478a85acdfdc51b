/**
 * `grep`, in TypeScript (no ripgrep dependency): a JavaScript regex over the text files under `path`
 * (default: the cwd), ripgrep-style output. `glob` without a `/` matches file names, with a `/` the
 * path relative to the search root. `.git`, `node_modules`, binary files (a NUL in the first 8000
 * bytes) and files over GREP_MAX_FILE_BYTES are skipped. Paths print relative to the cwd.
 */
import type { Tool, ToolContext, ToolDetails, ToolResult } from "./types.ts";
import { grepInputSchema, toolJsonSchema, validateWith, type GrepInput } from "./schemas.ts";
import { displayPath, resolveInWorkspace } from "./paths.ts";
import { capLine, describeError, failure, joinCapped, looksBinary } from "./output.ts";
import { compileGlob } from "./glob-match.ts";
import { walkFiles, type WalkEntry } from "./walk.ts";
import { splitLines } from "./read.ts";

export const GREP_MAX_FILE_BYTES = 10 * 1024 * 1024;

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

function searchFiles(input: GrepInput, ctx: ToolContext): ToolResult {
  const fs = ctx.runtime.fs;
  let regex: RegExp;
  try {
    regex = new RegExp(input.pattern, input["-i"] === true ? "i" : "");
  } catch (error) {
    return failure(`invalid regular expression: ${describeError(error)}`);
  }
  const given = input.path ?? ".";
  const resolved = resolveInWorkspace(fs, { cwd: ctx.cwd, workspaceRoot: ctx.workspaceRoot, path: given });
  if (!resolved.ok) return failure(resolved.message);
  const root = resolved.path;
  const stat = fs.stat(root);
  if (stat === undefined) return failure(`no such file or directory: ${given}`, { path: root });
  const realRoot = fs.realpath(ctx.workspaceRoot) ?? ctx.workspaceRoot;
  const cwd = ctx.cwd;

  const filter = input.glob === undefined ? undefined : compileGlob(input.glob);
  const filterByName = input.glob !== undefined && !input.glob.includes("/");
  const mode = input.output_mode ?? "files_with_matches";
  const headLimit = input.head_limit ?? Number.POSITIVE_INFINITY;
  const files: FileMatches[] = [];
  let entries = 0;

  const scan = (entry: WalkEntry): boolean => {
    if (filter !== undefined) {
      const subject = filterByName ? (entry.relative.split("/").at(-1) ?? entry.relative) : entry.relative;
      if (!filter(subject)) return true;
    }
    const size = fs.stat(entry.path)?.size ?? 0;
    if (size > GREP_MAX_FILE_BYTES) return true;
    const bytes = fs.readBytes(entry.path);
    if (bytes === undefined || looksBinary(bytes)) return true;
    const lines = splitLines(new TextDecoder().decode(bytes));
    const hits: number[] = [];
    lines.forEach((line, i) => {
      if (regex.test(line)) hits.push(i);
    });
    if (hits.length === 0) return true;
    files.push({ display: displayPath(cwd, entry.path), lines, hits });
    entries += mode === "content" ? hits.length : 1;
    // Stop once more than head_limit entries exist (one extra tells whether anything was cut).
    return entries <= headLimit;
  };

  let walkTruncated = false;
  if (stat.kind === "dir") walkTruncated = walkFiles(fs, { dir: root, realRoot, onFile: scan }).truncated;
  else scan({ path: root, relative: root.split("/").at(-1) ?? root });

  let lines: string[];
  if (mode === "files_with_matches") lines = files.map((file) => file.display);
  else if (mode === "count") lines = files.map((file) => `${file.display}:${file.hits.length}`);
  else {
    const context = input["-C"] ?? 0;
    const numbered = input["-n"] ?? true;
    lines = [];
    for (const file of files) {
      if (context > 0 && lines.length > 0) lines.push("--");
      lines.push(...contentLines(file, context, numbered));
    }
  }
  const headCut = lines.length > headLimit;
  if (headCut) lines = lines.slice(0, headLimit);
  const matchCount = files.reduce((sum, file) => sum + file.hits.length, 0);
  const metadata = { path: root, files: files.length, matches: matchCount };
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
  if (walkTruncated) notes.push("[search stopped early: too many files; narrow path or glob]");
  return { success: true, content: notes.length === 0 ? text : `${text}\n${notes.join("\n")}`, metadata, details };
}

export const grepTool: Tool = {
  name: "grep",
  description:
    "Search file contents with a JavaScript regular expression. output_mode: files_with_matches (default, file paths), content (matching lines; -n line numbers, -C context), count. Filter files with glob; -i ignores case; head_limit caps results.",
  parameters: toolJsonSchema("grep"),
  async execute(input, ctx) {
    const checked = validateWith(grepInputSchema, input);
    if (!checked.ok) return failure(`invalid input: ${checked.path}: ${checked.message}`);
    try {
      return searchFiles(checked.input, ctx);
    } catch (error) {
      return failure(`grep failed: ${describeError(error)}`);
    }
  },
};
