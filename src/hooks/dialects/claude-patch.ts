/**
 * `structuredPatch` as Claude Code sends it in Write/Edit `tool_response`: the hunks of a unified
 * line diff with 3 lines of context, each `{oldStart, oldLines, newStart, newLines, lines}` where
 * `lines` are `" ctx"`, `"-old"`, `"+new"` (and `"\ No newline at end of file"` after a last line
 * without one), as the `diff` package's `structuredPatch` gives them.
 *
 * Pure and bounded: common head and tail lines are trimmed first, then a Myers diff runs on the
 * rest with at most PATCH_MAX_EDIT_LINES edits; past that the middle becomes one delete-all /
 * insert-all hunk, which is still a correct patch, only not the smallest one.
 */

export interface StructuredHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly string[];
}

export const PATCH_CONTEXT_LINES = 3;
/** Bounds Myers' memory (the trace is O(D²) integers) and time (O((N+M)·D)). */
export const PATCH_MAX_EDIT_LINES = 2000;

const NO_NEWLINE = "\\ No newline at end of file";

type Op = " " | "-" | "+";
interface Entry {
  readonly op: Op;
  /** The line with its newline, as tokenized. */
  readonly token: string;
}

/** Lines with their trailing "\n" kept, so a missing final newline is a difference. */
function tokenize(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    if (end === -1) {
      out.push(text.slice(start));
      break;
    }
    out.push(text.slice(start, end + 1));
    start = end + 1;
  }
  return out;
}

/** Myers' O(ND) diff of two id arrays; null when more than `maxEdits` edits are needed. */
function myers(a: Int32Array, b: Int32Array, maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, maxEdits); d++) {
    // The band [-d-1, d+1] of v before step d is all that backtracking reads.
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0)) ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace: readonly Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const band = trace[d] ?? new Int32Array(0);
    const at = (k: number): number => band[k + d + 1] ?? 0;
    const k = x - y;
    const prevK = d === 0 ? 0 : k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(" ");
      x--;
      y--;
    }
    if (d > 0) ops.push(x === prevX ? "+" : "-");
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

function diffEntries(oldTokens: readonly string[], newTokens: readonly string[]): Entry[] {
  let head = 0;
  while (head < oldTokens.length && head < newTokens.length && oldTokens[head] === newTokens[head]) head++;
  let tail = 0;
  while (tail < oldTokens.length - head && tail < newTokens.length - head && oldTokens[oldTokens.length - 1 - tail] === newTokens[newTokens.length - 1 - tail])
    tail++;
  const oldMid = oldTokens.slice(head, oldTokens.length - tail);
  const newMid = newTokens.slice(head, newTokens.length - tail);
  const ids = new Map<string, number>();
  const idOf = (token: string): number => {
    let id = ids.get(token);
    if (id === undefined) {
      id = ids.size;
      ids.set(token, id);
    }
    return id;
  };
  const ops = myers(Int32Array.from(oldMid, idOf), Int32Array.from(newMid, idOf), PATCH_MAX_EDIT_LINES) ?? [
    ...oldMid.map((): Op => "-"),
    ...newMid.map((): Op => "+"),
  ];
  const entries: Entry[] = oldTokens.slice(0, head).map((token) => ({ op: " ", token }));
  let i = 0;
  let j = 0;
  for (const op of ops) {
    if (op === "+") entries.push({ op, token: newMid[j++] ?? "" });
    else {
      entries.push({ op, token: oldMid[i++] ?? "" });
      if (op === " ") j++;
    }
  }
  for (const token of oldTokens.slice(oldTokens.length - tail)) entries.push({ op: " ", token });
  return entries;
}

function render(entry: Entry): string[] {
  const text = entry.token.endsWith("\n") ? entry.token.slice(0, -1) : entry.token;
  return entry.token.endsWith("\n") ? [entry.op + text] : [entry.op + text, NO_NEWLINE];
}

/** The hunks turning `oldText` into `newText`; `[]` when they are equal. Never throws. */
export function structuredPatch(oldText: string, newText: string, context = PATCH_CONTEXT_LINES): StructuredHunk[] {
  const entries = diffEntries(tokenize(oldText), tokenize(newText));
  const changed: number[] = [];
  entries.forEach((entry, index) => {
    if (entry.op !== " ") changed.push(index);
  });
  const hunks: StructuredHunk[] = [];
  // Old/new line numbers (0-based) before each entry.
  const oldAt = new Int32Array(entries.length + 1);
  const newAt = new Int32Array(entries.length + 1);
  entries.forEach((entry, index) => {
    oldAt[index + 1] = (oldAt[index] ?? 0) + (entry.op === "+" ? 0 : 1);
    newAt[index + 1] = (newAt[index] ?? 0) + (entry.op === "-" ? 0 : 1);
  });
  let c = 0;
  while (c < changed.length) {
    const first = changed[c] ?? 0;
    let last = first;
    // Changes closer than two contexts share a hunk, as in unified diff.
    while (c + 1 < changed.length && (changed[c + 1] ?? 0) - last <= 2 * context + 1) last = changed[++c] ?? last;
    c++;
    const from = Math.max(0, first - context);
    const to = Math.min(entries.length, last + context + 1);
    const slice = entries.slice(from, to);
    const oldLines = slice.filter((entry) => entry.op !== "+").length;
    const newLines = slice.filter((entry) => entry.op !== "-").length;
    const oldStart = (oldAt[from] ?? 0) + 1;
    const newStart = (newAt[from] ?? 0) + 1;
    hunks.push({
      oldStart: oldLines === 0 ? oldStart - 1 : oldStart,
      oldLines,
      newStart: newLines === 0 ? newStart - 1 : newStart,
      newLines,
      lines: slice.flatMap(render),
    });
  }
  return hunks;
}
