/**
 * Envelope (tool-call list) command preflight, exactly D12. Pure: the verdict depends only on the
 * command string and `absolutePaths`, never on the host. The detail names the rule, never the
 * command text (it ends up in failure lines and records, SEC-08).
 */

export type PreflightRule = "$" | "~" | "`" | "{" | "}" | "control character" | "cd" | ".." | "absolute path";

export type PreflightResult = { ok: true } | { ok: false; rule: PreflightRule; detail: string };

const FORBIDDEN_CHARS: ReadonlyMap<string, PreflightRule> = new Map<string, PreflightRule>([
  ["$", "$"],
  ["~", "~"],
  ["`", "`"],
  ["{", "{"],
  ["}", "}"],
]);
/** Outside quotes each of these ends a word, like whitespace (D12 step 2). */
const WORD_BREAKS: ReadonlySet<string> = new Set([";", "&", "|", "(", ")", "<", ">"]);
const WHITESPACE = /\s/;
const DRIVE_ABSOLUTE = /^[A-Za-z]:[\\/]/;

function reject(rule: PreflightRule): PreflightResult {
  const detail =
    rule === "cd" ? "cd is not allowed"
    : rule === "control character" ? "control character is not allowed"
    : rule === "absolute path" ? "absolute path is not allowed"
    : `"${rule}" is not allowed`;
  return { ok: false, rule, detail };
}

/** D12 step 2: split into words; quotes group and are removed, backslashes stay (see `unescape`). */
export function splitWords(command: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: string | null = null;
  for (const ch of command) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
      continue;
    }
    if (WHITESPACE.test(ch) || WORD_BREAKS.has(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
      continue;
    }
    current += ch;
    inWord = true;
  }
  if (inWord) words.push(current);
  return words;
}

/** W′ of D12: every `\x` becomes `x`. */
function unescape(word: string): string {
  let out = "";
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    if (ch === "\\" && i + 1 < word.length) {
      out += word[i + 1]!;
      i++;
    } else {
      out += ch;
    }
  }
  return out;
}

/** The word itself and each suffix that follows an `=` in it. */
function pieces(word: string): string[] {
  const out = [word];
  for (let i = word.indexOf("="); i !== -1; i = word.indexOf("=", i + 1)) out.push(word.slice(i + 1));
  return out;
}

function hasDotDotComponent(piece: string): boolean {
  return piece.split(/[\\/]/).some((component) => component === "..");
}

function isAbsolutePiece(piece: string): boolean {
  return piece.startsWith("/") || piece.startsWith("\\") || DRIVE_ABSOLUTE.test(piece);
}

/** Never throws. `absolutePaths` is the effective `tools.bash.absolute_paths` (default true). */
export function preflight(command: string, options: { absolutePaths: boolean }): PreflightResult {
  for (const ch of command) {
    const forbidden = FORBIDDEN_CHARS.get(ch);
    if (forbidden !== undefined) return reject(forbidden);
    const code = ch.codePointAt(0)!;
    if (code < 0x20 && code !== 0x09) return reject("control character");
  }
  for (const word of splitWords(command)) {
    const unescaped = unescape(word);
    if (word === "cd" || unescaped === "cd") return reject("cd");
    for (const form of [word, unescaped]) {
      if (pieces(form).some(hasDotDotComponent)) return reject("..");
    }
    if (!options.absolutePaths && pieces(word).some(isAbsolutePiece)) return reject("absolute path");
  }
  return { ok: true };
}
