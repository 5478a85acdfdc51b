/**
 * Code-block highlighting for the streamed markdown, a line at a time: keywords, strings, comments
 * and numbers for a few language families (C-like: ts, js, go, rust, java, c; python; shell; json),
 * and added/removed lines for diff. A block comment or a multi-line string carries over to the next
 * line. A small scanner instead of a highlighting library: BENCHMARKS.md "Interactive session" has
 * the measurement. The input is escaped text (no control characters), so the only escapes in the
 * output are the style's own.
 */
import type { Style } from "./style.ts";

type Kind = "plain" | "keyword" | "string" | "comment" | "number" | "variable" | "key";

interface Grammar {
  readonly keywords: ReadonlySet<string>;
  readonly lineComments: readonly string[];
  readonly blockComment?: readonly [string, string];
  /** Quotes of one-line strings. */
  readonly quotes: readonly string[];
  /** Openers of strings that may span lines (the closer is the same text). */
  readonly longStrings: readonly string[];
  /** `#` starts a comment only at a word's start (shell: `a#b` is a word). */
  readonly commentAtWordStart?: boolean;
  /** `$name`, `${…}` are variables (shell). */
  readonly variables?: boolean;
  /** A string followed by `:` is a key (json). */
  readonly keys?: boolean;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(" "));

const JS_WORDS =
  "abstract as async await break case catch class const continue debugger declare default delete do else enum export extends false finally for from function get if implements import in instanceof interface let new null of private protected public readonly return satisfies set static super switch this throw true try type typeof undefined var void while yield";
const GO_WORDS =
  "break case chan const continue default defer else fallthrough false for func go goto if import interface iota map nil package range return select struct switch true type var";
const RUST_WORDS =
  "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while";
const C_WORDS =
  "auto break case char class const continue default do double else enum extern false final float for goto if import int long namespace new null package private protected public return short signed sizeof static struct switch this throw true try typedef union unsigned void volatile while";
const PY_WORDS =
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda match nonlocal not or pass raise return self try while with yield";
const SH_WORDS = "case do done elif else esac exit export fi for function if in local readonly return set shift source then unset until while echo cd";

const C_LIKE = { lineComments: ["//"], blockComment: ["/*", "*/"] as const, quotes: ['"', "'"] };

const GRAMMARS: Readonly<Record<string, Grammar>> = {
  js: { ...C_LIKE, keywords: words(JS_WORDS), longStrings: ["`"] },
  go: { ...C_LIKE, keywords: words(GO_WORDS), longStrings: ["`"] },
  rust: { ...C_LIKE, keywords: words(RUST_WORDS), quotes: ['"'], longStrings: [] },
  c: { ...C_LIKE, keywords: words(C_WORDS), longStrings: [] },
  python: { keywords: words(PY_WORDS), lineComments: ["#"], quotes: ['"', "'"], longStrings: ['"""', "'''"] },
  shell: { keywords: words(SH_WORDS), lineComments: ["#"], quotes: ['"', "'"], longStrings: [], commentAtWordStart: true, variables: true },
  json: { keywords: words("true false null"), lineComments: ["//"], quotes: ['"'], longStrings: [], keys: true },
};

/** Fence info words to grammars; `diff` is drawn by line, not scanned. */
const LANGUAGES: Readonly<Record<string, string>> = {
  ts: "js",
  typescript: "js",
  tsx: "js",
  js: "js",
  javascript: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  go: "go",
  golang: "go",
  rust: "rust",
  rs: "rust",
  c: "c",
  h: "c",
  cpp: "c",
  "c++": "c",
  cc: "c",
  java: "c",
  cs: "c",
  csharp: "c",
  kotlin: "c",
  swift: "c",
  py: "python",
  python: "python",
  python3: "python",
  sh: "shell",
  bash: "shell",
  shell: "shell",
  zsh: "shell",
  console: "shell",
  json: "json",
  jsonc: "json",
  json5: "json",
  diff: "diff",
  patch: "diff",
};

/** One code block being drawn: its language and what an earlier line left open. */
export class CodeBlock {
  private readonly grammar: Grammar | null;
  private readonly diff: boolean;
  /** The closer of a block comment or long string still open at the end of the last line. */
  private open: { readonly close: string; readonly kind: Kind } | null = null;

  /** `info`: the fence's info string (```ts, ```python title="x"); null when no language is known. */
  static of(info: string): CodeBlock | null {
    const name = LANGUAGES[(info.trim().split(/[\s{,]/)[0] ?? "").toLowerCase()];
    return name === undefined ? null : new CodeBlock(name);
  }

  private constructor(name: string) {
    this.diff = name === "diff";
    this.grammar = GRAMMARS[name] ?? null;
  }

  line(text: string, s: Style): string {
    if (this.diff) return diffLine(text, s);
    if (this.grammar === null) return text;
    let out = "";
    for (const token of this.tokens(text, this.grammar)) out += paint(s, token.kind, token.text);
    return out;
  }

  /** The line cut into tokens; runs of plain text are one token. */
  private tokens(text: string, g: Grammar): { readonly text: string; readonly kind: Kind }[] {
    const out: { text: string; kind: Kind }[] = [];
    const push = (piece: string, kind: Kind): void => {
      const last = out.at(-1);
      if (kind === "plain" && last?.kind === "plain") last.text += piece;
      else if (piece !== "") out.push({ text: piece, kind });
    };
    let at = 0;
    if (this.open !== null) {
      const { close, kind } = this.open;
      const end = findClose(text, 0, close, kind === "string");
      if (end < 0) return [{ text, kind }];
      this.open = null;
      push(text.slice(0, end), kind);
      at = end;
    }
    while (at < text.length) {
      const token = this.tokenAt(text, at, g) ?? { end: at + 1, kind: "plain" };
      push(text.slice(at, token.end), token.kind);
      at = token.end;
    }
    return out;
  }

  /** The token starting at `at`, or null for a plain character. */
  private tokenAt(text: string, at: number, g: Grammar): { end: number; kind: Kind } | null {
    const rest = text.slice(at);
    const before = at > 0 ? (text[at - 1] ?? "") : "";
    const wordStart = !/[\w$]/.test(before);
    for (const start of g.lineComments) {
      if (rest.startsWith(start) && (!g.commentAtWordStart || before === "" || /\s/.test(before))) return { end: text.length, kind: "comment" };
    }
    if (g.blockComment !== undefined && rest.startsWith(g.blockComment[0])) return this.spanning(text, at, g.blockComment[0], g.blockComment[1], "comment");
    for (const quote of g.longStrings) if (rest.startsWith(quote)) return this.spanning(text, at, quote, quote, "string");
    for (const quote of g.quotes) {
      if (!rest.startsWith(quote)) continue;
      const close = findClose(text, at + 1, quote, quote !== "'" || !g.variables);
      const end = close < 0 ? text.length : close;
      const key = g.keys === true && /^\s*:/.test(text.slice(end));
      return { end, kind: key ? "key" : "string" };
    }
    if (g.variables === true && before !== "\\") {
      const variable = /^\$(\{[^}]*\}?|[A-Za-z_]\w*|[0-9#?@*$!-])/.exec(rest);
      if (variable !== null) return { end: at + variable[0].length, kind: "variable" };
    }
    if (!wordStart) return null;
    const number = /^(0[xX][\da-fA-F_]+|0[bB][01_]+|\d[\d_]*(\.\d+)?([eE][+-]?\d+)?)[a-zA-Z]*/.exec(rest);
    if (number !== null && !/^[\w$]/.test(rest.slice(number[0].length))) return { end: at + number[0].length, kind: "number" };
    const word = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (word === null) return null;
    const after = rest.slice(word[0].length);
    // A keyword spelled as a property or an option (`x.new`, `--if`) is not one.
    const keyword = g.keywords.has(word[0]) && before !== "." && before !== "-" && !(g.variables === true && after.startsWith("="));
    return { end: at + word[0].length, kind: keyword ? "keyword" : "plain" };
  }

  /** A comment or string that may end on a later line: open until its closer is seen. */
  private spanning(text: string, at: number, start: string, close: string, kind: Kind): { end: number; kind: Kind } {
    const end = findClose(text, at + start.length, close, kind === "string");
    if (end >= 0) return { end, kind };
    this.open = { close, kind };
    return { end: text.length, kind };
  }
}

/** The index just after `close` at or after `from` (a backslash escapes in strings), or -1. */
function findClose(text: string, from: number, close: string, escapes: boolean): number {
  for (let at = from; at < text.length; at += 1) {
    if (escapes && text[at] === "\\") {
      at += 1;
      continue;
    }
    if (text.startsWith(close, at)) return at + close.length;
  }
  return -1;
}

function paint(s: Style, kind: Kind, text: string): string {
  switch (kind) {
    case "keyword":
      return s.magenta(text);
    case "string":
      return s.green(text);
    case "comment":
      return s.dim(text);
    case "number":
      return s.yellow(text);
    case "variable":
    case "key":
      return s.accent(text);
    default:
      return text;
  }
}

function diffLine(text: string, s: Style): string {
  if (/^(\+\+\+|---|diff |index )/.test(text)) return s.bold(text);
  if (text.startsWith("@@")) return s.accent(text);
  if (text.startsWith("+")) return s.green(text);
  if (text.startsWith("-")) return s.red(text);
  return text;
}
