/**
 * Applies the chunks of one `*** Update File:` section to a file's text (Codex's rules): chunks are
 * found in order, each after the previous one; an `@@ <line>` anchor moves the search past the first
 * line equal to it; old lines are matched exactly first, then ignoring trailing whitespace, then
 * ignoring surrounding whitespace, then with typographic quotes, dashes and spaces read as ASCII. A
 * chunk with no old lines appends at the end. The result ends with a newline; CRLF files stay CRLF.
 * Pure.
 */
import type { PatchChunk } from "./patch-parse.ts";

/** How a line is read in each matching pass, strictest first. */
type Normalise = (line: string) => string;

const TYPOGRAPHIC: ReadonlyArray<[RegExp, string]> = [
  [/[\u2010-\u2015\u2212]/g, "-"],
  [/[\u2018\u2019\u201A\u201B]/g, "'"],
  [/[\u201C\u201D\u201E\u201F]/g, '"'],
  [/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " "],
];

function ascii(text: string): string {
  let out = text.trim();
  for (const [from, to] of TYPOGRAPHIC) out = out.replace(from, to);
  return out;
}

const PASSES: readonly Normalise[] = [(line) => line, (line) => line.trimEnd(), (line) => line.trim(), ascii];

/**
 * Index where `pattern` starts in `lines` at or after `start` (an end-of-file chunk: at the end
 * first). Each pass normalises every line once, so a big file costs lines × passes, not more.
 */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, endOfFile: boolean): number | undefined {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return undefined;
  const last = lines.length - pattern.length;
  const from = endOfFile ? last : start;
  for (const normalise of PASSES) {
    const wanted = pattern.map(normalise);
    const have = lines.map(normalise);
    for (let i = from; i <= last; i++) {
      let all = true;
      for (let j = 0; j < wanted.length && all; j++) all = have[i + j] === wanted[j];
      if (all) return i;
    }
  }
  return undefined;
}

export type ChunkOutcome = { ok: true; text: string } | { ok: false; message: string };

interface Replacement {
  readonly start: number;
  readonly remove: number;
  readonly insert: readonly string[];
}

function findReplacements(lines: readonly string[], chunks: readonly PatchChunk[], name: string): Replacement[] | string {
  const out: Replacement[] = [];
  let at = 0;
  for (const chunk of chunks) {
    if (chunk.context !== null) {
      const found = seekSequence(lines, [chunk.context], at, false);
      if (found === undefined) return `cannot find the @@ context line '${chunk.context}' in ${name}`;
      at = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      out.push({ start: lines.length, remove: 0, insert: chunk.newLines });
      continue;
    }
    let pattern = chunk.oldLines;
    let insert = chunk.newLines;
    let found = seekSequence(lines, pattern, at, chunk.endOfFile);
    // A trailing empty old line stands for the file's final newline, which `lines` does not hold.
    if (found === undefined && pattern.at(-1) === "") {
      pattern = pattern.slice(0, -1);
      if (insert.at(-1) === "") insert = insert.slice(0, -1);
      found = seekSequence(lines, pattern, at, chunk.endOfFile);
    }
    if (found === undefined) return `cannot find these lines in ${name} (re-read the file and copy them exactly):\n${chunk.oldLines.join("\n")}`;
    out.push({ start: found, remove: pattern.length, insert });
    at = found + pattern.length;
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The file's text after the chunks; `name` is the path as the patch wrote it. */
export function applyChunks(original: string, chunks: readonly PatchChunk[], name: string): ChunkOutcome {
  const eol = original.includes("\r\n") ? "\r\n" : "\n";
  const lines = original.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const found = findReplacements(lines, chunks, name);
  if (typeof found === "string") return { ok: false, message: found };
  for (const { start, remove, insert } of [...found].reverse()) lines.splice(start, remove, ...insert);
  return { ok: true, text: `${lines.join(eol)}${eol}` };
}
