/**
 * Terminal columns of text: what a character takes on screen, not its UTF-16 length. A grapheme
 * cluster (Intl.Segmenter: a base with its combining marks, an emoji ZWJ sequence, a flag) is one
 * unit the cursor moves over; it takes 2 columns when it is East Asian Wide or Fullwidth (CJK,
 * Hangul, kana, fullwidth forms, emoji with emoji presentation), when it asks for emoji
 * presentation (U+FE0F) or joins emoji (ZWJ), or is a flag; 0 when it is only combining or
 * zero-width marks; else 1. Plain ASCII takes the fast path.
 */

/**
 * East Asian Width W and F ranges (pairs, first and last code point), from Unicode's
 * EastAsianWidth.txt, with unassigned gaps merged and the CJK ideograph planes taken whole.
 */
const WIDE: readonly number[] = [
  0x1100, 0x115f, 0x231a, 0x231b, 0x2329, 0x232a, 0x23e9, 0x23ec, 0x23f0, 0x23f0, 0x23f3, 0x23f3, 0x25fd, 0x25fe, 0x2614, 0x2615, 0x2648, 0x2653, 0x267f,
  0x267f, 0x2693, 0x2693, 0x26a1, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be, 0x26c4, 0x26c5, 0x26ce, 0x26ce, 0x26d4, 0x26d4, 0x26ea, 0x26ea, 0x26f2, 0x26f3,
  0x26f5, 0x26f5, 0x26fa, 0x26fa, 0x26fd, 0x26fd, 0x2705, 0x2705, 0x270a, 0x270b, 0x2728, 0x2728, 0x274c, 0x274c, 0x274e, 0x274e, 0x2753, 0x2755, 0x2757,
  0x2757, 0x2795, 0x2797, 0x27b0, 0x27b0, 0x27bf, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b50, 0x2b55, 0x2b55, 0x2e80, 0x303e, 0x3041, 0x3247, 0x3250, 0x4dbf,
  0x4e00, 0xa4c6, 0xa960, 0xa97c, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10, 0xfe19, 0xfe30, 0xfe6b, 0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x1b2fb, 0x1f004,
  0x1f004, 0x1f0cf, 0x1f0cf, 0x1f18e, 0x1f18e, 0x1f191, 0x1f19a, 0x1f200, 0x1f320, 0x1f32d, 0x1f335, 0x1f337, 0x1f37c, 0x1f37e, 0x1f393, 0x1f3a0, 0x1f3ca,
  0x1f3cf, 0x1f3d3, 0x1f3e0, 0x1f3f0, 0x1f3f4, 0x1f3f4, 0x1f3f8, 0x1f43e, 0x1f440, 0x1f440, 0x1f442, 0x1f4fc, 0x1f4ff, 0x1f53d, 0x1f54b, 0x1f54e, 0x1f550,
  0x1f567, 0x1f57a, 0x1f57a, 0x1f595, 0x1f596, 0x1f5a4, 0x1f5a4, 0x1f5fb, 0x1f64f, 0x1f680, 0x1f6c5, 0x1f6cc, 0x1f6cc, 0x1f6d0, 0x1f6d2, 0x1f6d5, 0x1f6df,
  0x1f6eb, 0x1f6ec, 0x1f6f4, 0x1f6fc, 0x1f7e0, 0x1f7f0, 0x1f90c, 0x1f93a, 0x1f93c, 0x1f945, 0x1f947, 0x1f9ff, 0x1fa70, 0x1faff, 0x20000, 0x3fffd,
];

const ASCII = /^[\x20-\x7e]*$/;
/**
 * What can make a cluster of more than one UTF-16 unit: marks, joiners and variation selectors,
 * Hangul vowel and final jamo, and anything outside the BMP (surrogate pairs, flags, most emoji).
 * Text without them is one cluster per unit, and needs no Intl.Segmenter (1–2 ms to create).
 */
const CLUSTERING = /[\p{M}\p{Cf}\u1160-\u11ff]|[^\u0000-\uffff]/u;
/** Marks and format characters that take no column of their own. */
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff]+$/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const REGIONAL = /[\u{1f1e6}-\u{1f1ff}]/u;

let segmenter: Intl.Segmenter | undefined;

/** The grapheme clusters of `text`, in order: what the cursor steps over and a wrap never splits. */
export function graphemes(text: string): string[] {
  if (!CLUSTERING.test(text)) return text.split("");
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

function isWide(code: number): boolean {
  if (code < 0x1100) return false;
  let low = 0;
  let high = WIDE.length / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (code < (WIDE[mid * 2] ?? 0)) high = mid - 1;
    else if (code > (WIDE[mid * 2 + 1] ?? 0)) low = mid + 1;
    else return true;
  }
  return false;
}

/** Columns one grapheme cluster takes. */
export function clusterWidth(cluster: string): number {
  const code = cluster.codePointAt(0) ?? 0;
  if (code < 0x7f) return code < 0x20 ? 0 : 1;
  if (code < 0xa0) return 0;
  if (isWide(code)) return 2;
  if (cluster.length === 1 && code < 0x300) return code === 0xad ? 0 : 1;
  if (ZERO.test(cluster)) return 0;
  if (cluster.length > 1 && PICTOGRAPH.test(cluster) && (cluster.includes("\ufe0f") || cluster.includes("\u200d"))) return 2;
  if (REGIONAL.test(cluster)) return 2;
  return 1;
}

/** Columns `text` takes on one terminal row (no line breaks expected). */
export function displayWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let width = 0;
  for (const cluster of graphemes(text)) width += clusterWidth(cluster);
  return width;
}

/** The longest start of `text` that fits in `columns`, never splitting a cluster. */
export function sliceColumns(text: string, columns: number): string {
  if (ASCII.test(text)) return text.slice(0, Math.max(columns, 0));
  let width = 0;
  let out = "";
  for (const cluster of graphemes(text)) {
    width += clusterWidth(cluster);
    if (width > columns) break;
    out += cluster;
  }
  return out;
}

/** `text` cut to `columns` with `…` when it is wider. */
export function clipColumns(text: string, columns: number): string {
  return displayWidth(text) > columns ? `${sliceColumns(text, Math.max(columns - 1, 0))}…` : text;
}

/**
 * One line cut into rows of at most `columns` columns, as a terminal wraps it: a wide character
 * that does not fit in the last column starts the next row. An empty line is one empty row.
 */
export function wrapColumns(line: string, columns: number): string[] {
  const width = Math.max(columns, 2);
  if (ASCII.test(line)) {
    const rows: string[] = [];
    for (let start = 0; start < line.length || start === 0; start += width) rows.push(line.slice(start, start + width));
    return rows;
  }
  const rows: string[] = [];
  let row = "";
  let used = 0;
  for (const cluster of graphemes(line)) {
    const w = clusterWidth(cluster);
    if (used + w > width) {
      rows.push(row);
      row = "";
      used = 0;
    }
    row += cluster;
    used += w;
  }
  rows.push(row);
  return rows;
}
