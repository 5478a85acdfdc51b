/**
 * Parser of Codex's patch format (the `apply_patch` tool):
 *
 *   *** Begin Patch
 *   *** Add File: <path>          then `+` lines: the new file
 *   *** Delete File: <path>
 *   *** Update File: <path>       optionally `*** Move to: <path>`, then chunks:
 *   @@ [context line]             a chunk; its ` ` (context), `-` (old) and `+` (new) lines,
 *                                 optionally ended by `*** End of File`
 *   *** End Patch
 *
 * As Codex does, marker lines may carry surrounding spaces, blank lines between chunks are skipped,
 * an empty line inside a chunk is an empty context line, the first chunk of a file may omit its
 * `@@`, and a patch wrapped in a `<<'EOF'` … `EOF` heredoc is unwrapped. Pure: no file access.
 */

export interface PatchChunk {
  /** The `@@ <line>` anchor: the chunk's lines come after the first line equal to it. */
  readonly context: string | null;
  readonly oldLines: readonly string[];
  readonly newLines: readonly string[];
  /** `*** End of File`: the old lines end the file. */
  readonly endOfFile: boolean;
}

export type PatchOp =
  | { readonly kind: "add"; readonly path: string; readonly contents: string }
  | { readonly kind: "delete"; readonly path: string }
  | { readonly kind: "update"; readonly path: string; readonly movePath: string | null; readonly chunks: readonly PatchChunk[] };

export type PatchParse = { readonly ok: true; readonly ops: readonly PatchOp[] } | { readonly ok: false; readonly message: string };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";

class PatchError extends Error {
  constructor(message: string, line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

/** The patch's body lines (between the markers), with the heredoc wrapper removed. */
function bodyLines(text: string): string[] {
  let lines = text.trim().split(/\r?\n/);
  const first = lines[0]?.trim();
  if ((first === "<<EOF" || first === "<<'EOF'" || first === '<<"EOF"') && lines.length >= 4 && (lines.at(-1) ?? "").trim().endsWith("EOF")) {
    lines = lines.slice(1, -1);
  }
  if (lines[0]?.trim() !== BEGIN) throw new PatchError(`the first line must be '${BEGIN}'`);
  if (lines.length < 2 || lines.at(-1)?.trim() !== END) throw new PatchError(`the last line must be '${END}'`);
  return lines.slice(1, -1);
}

/** Parses a whole patch. Never throws; errors name the line (1 = `*** Begin Patch`). */
export function parsePatch(text: string): PatchParse {
  try {
    const lines = bodyLines(text);
    const ops: PatchOp[] = [];
    let at = 0;
    while (at < lines.length) {
      const { op, used } = parseOp(lines, at);
      ops.push(op);
      at += used;
    }
    if (ops.length === 0) throw new PatchError("the patch changes no file (add an `*** Add File:`, `*** Update File:` or `*** Delete File:` section)");
    return { ok: true, ops };
  } catch (error) {
    return { ok: false, message: error instanceof PatchError ? error.message : String(error) };
  }
}

function headerPath(line: string, marker: string, lineNo: number): string {
  const path = line.slice(marker.length).trim();
  if (path === "") throw new PatchError(`'${marker.trim()}' needs a path`, lineNo);
  return path;
}

/** One file section starting at `lines[at]`: the op and how many lines it used. */
function parseOp(lines: readonly string[], at: number): { op: PatchOp; used: number } {
  const lineNo = at + 2;
  // A space appended so a header with its path missing (`*** Add File:`) is still recognised.
  const header = `${(lines[at] ?? "").trim()} `;
  if (header.startsWith(ADD)) {
    const path = headerPath(header, ADD, lineNo);
    let used = 1;
    let contents = "";
    while (at + used < lines.length && (lines[at + used] ?? "").startsWith("+")) {
      contents += `${(lines[at + used] ?? "").slice(1)}\n`;
      used++;
    }
    return { op: { kind: "add", path, contents }, used };
  }
  if (header.startsWith(DELETE)) return { op: { kind: "delete", path: headerPath(header, DELETE, lineNo) }, used: 1 };
  if (header.startsWith(UPDATE)) return parseUpdate(lines, at, headerPath(header, UPDATE, lineNo));
  if (header === " ") throw new PatchError("blank line where a file section ('*** Add File:', '*** Update File:' or '*** Delete File:') should start", lineNo);
  throw new PatchError(
    `'${header.trim()}' is not a file section header; expected '*** Add File: <path>', '*** Update File: <path>' or '*** Delete File: <path>'`,
    lineNo,
  );
}

function parseUpdate(lines: readonly string[], at: number, path: string): { op: PatchOp; used: number } {
  let used = 1;
  let movePath: string | null = null;
  const next = `${(lines[at + used] ?? "").trim()} `;
  if (next.startsWith(MOVE)) {
    movePath = headerPath(next, MOVE, at + used + 2);
    used++;
  }
  const chunks: PatchChunk[] = [];
  while (at + used < lines.length) {
    const line = lines[at + used] ?? "";
    if (line.trim() === "") {
      used++;
      continue;
    }
    if (line.startsWith("*")) break;
    const chunk = parseChunk(lines, at + used, chunks.length === 0);
    chunks.push(chunk.chunk);
    used += chunk.used;
  }
  if (chunks.length === 0) throw new PatchError(`'*** Update File: ${path}' has no @@ chunk`, at + 2);
  return { op: { kind: "update", path, movePath, chunks }, used };
}

function parseChunk(lines: readonly string[], at: number, first: boolean): { chunk: PatchChunk; used: number } {
  const lineNo = at + 2;
  const head = lines[at] ?? "";
  let context: string | null = null;
  let start = 0;
  if (head.trim() === "@@") start = 1;
  else if (head.startsWith("@@ ")) {
    context = head.slice(3);
    start = 1;
  } else if (!first) throw new PatchError(`expected a chunk to start with '@@', got '${head}'`, lineNo);
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let endOfFile = false;
  let used = start;
  for (; at + used < lines.length; used++) {
    const line = lines[at + used] ?? "";
    if (line.trim() === EOF_MARK) {
      endOfFile = true;
      used++;
      break;
    }
    const sign = line[0];
    if (line === "") {
      oldLines.push("");
      newLines.push("");
    } else if (sign === " ") {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    } else if (sign === "-") oldLines.push(line.slice(1));
    else if (sign === "+") newLines.push(line.slice(1));
    else {
      if (used === start) throw new PatchError(`'${line}' in a chunk: every line must start with ' ' (context), '-' (removed) or '+' (added)`, at + used + 2);
      break;
    }
  }
  if (used === start || (oldLines.length === 0 && newLines.length === 0)) throw new PatchError("a chunk has no lines", lineNo);
  return { chunk: { context, oldLines, newLines, endOfFile }, used };
}

/** Every path the patch names (sources, move destinations), in order: for hooks' affected_paths. */
export function patchPaths(ops: readonly PatchOp[]): string[] {
  const paths: string[] = [];
  for (const op of ops) {
    paths.push(op.path);
    if (op.kind === "update" && op.movePath !== null) paths.push(op.movePath);
  }
  return paths;
}
