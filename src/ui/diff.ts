/**
 * A small line diff for edit and write questions: what the file holds now against what the call
 * would leave, as `-`/`+` lines with a little context. Longest common subsequence on lines, bounded
 * so a huge file cannot stall the question: beyond the bound the change is summarised by counts.
 */

const CONTEXT = 2;
const MAX_CELLS = 4_000_000;
const MAX_SHOWN = 40;

export type DiffLine = { readonly kind: " " | "-" | "+"; readonly text: string };

export function diffLines(before: string, after: string): DiffLine[] | null {
  const a = before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === "" ? [] : after.replace(/\n$/, "").split("\n");
  // Common head and tail are cheap to strip and keep the table small.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  if ((midA.length + 1) * (midB.length + 1) > MAX_CELLS) return null;
  const table: number[][] = Array.from({ length: midA.length + 1 }, () => new Array<number>(midB.length + 1).fill(0));
  for (let i = midA.length - 1; i >= 0; i -= 1) {
    const row = table[i] as number[];
    const below = table[i + 1] as number[];
    for (let j = midB.length - 1; j >= 0; j -= 1) row[j] = midA[i] === midB[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
  }
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ kind: " ", text }));
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
      out.push({ kind: " ", text: midA[i] ?? "" });
      i += 1;
      j += 1;
    } else if (i < midA.length && (j >= midB.length || (table[i + 1]?.[j] ?? 0) >= (table[i]?.[j + 1] ?? 0))) out.push({ kind: "-", text: midA[i++] ?? "" });
    else out.push({ kind: "+", text: midB[j++] ?? "" });
  }
  for (const text of a.slice(a.length - tail)) out.push({ kind: " ", text });
  return out;
}

/** The changed lines with CONTEXT lines around each change, at most MAX_SHOWN lines, as text rows. */
export function diffRows(before: string, after: string): string[] {
  const lines = diffLines(before, after);
  if (lines === null) return [`(${before.split("\n").length} lines → ${after.split("\n").length} lines; too large to diff here)`];
  const keep = new Set<number>();
  lines.forEach((line, index) => {
    if (line.kind === " ") return;
    for (let k = index - CONTEXT; k <= index + CONTEXT; k += 1) if (k >= 0 && k < lines.length) keep.add(k);
  });
  const rows: string[] = [];
  let last = -1;
  for (const index of [...keep].sort((x, y) => x - y)) {
    if (last >= 0 && index > last + 1) rows.push("  ⋯");
    const line = lines[index];
    if (line !== undefined) rows.push(`${line.kind} ${line.text}`);
    last = index;
  }
  if (rows.length > MAX_SHOWN) return [...rows.slice(0, MAX_SHOWN), `  … ${rows.length - MAX_SHOWN} more diff lines`];
  return rows.length === 0 ? ["(no change)"] : rows;
}
