/**
 * Bash's quoting, for the static readers of command strings (preflight D12, the trust digest's
 * file references, `agent hooks validate`). One pass, linear, never executes anything. It follows
 * bash exactly where quoting is concerned, because a reader that quotes differently from bash can
 * be shown a harmless word while bash runs another (`true x\' ; cd .. ; true x\'` — `\'` is a
 * literal quote to bash, not the start of a quoted run):
 *
 * - outside quotes, `\x` is the literal `x` (a backslash-newline disappears; a final `\` is kept);
 * - inside `'…'` nothing is special, not even `\`;
 * - inside `"…"`, `\` escapes only `$`, `` ` ``, `"`, `\` and newline, and is kept before anything else;
 * - `$'…'` is an ANSI-C string: `\n`, `\t`, `\xHH`, `\NNN`, `\uHHHH`, `\cX`, `\'`… are decoded;
 *   `$"…"` is a double-quoted string.
 *
 * Word breaks outside quotes: every JavaScript `\s` character (D12 step 2 asks for more than
 * bash's blank and newline) and the operator characters `; & | ( ) < >`, which are tokens of their
 * own. Comments and expansions are not interpreted: callers see `$`, `` ` ``, `~` and globs in the
 * parts where bash would expand them. An unterminated quote runs to the end of the string.
 */

/**
 * How a part of a word was written. `bare` and `double` text is where bash expands `$…` and
 * backticks (and, for `bare`, globs and a leading `~`); `escaped`, `single` and `ansi` text is literal.
 */
export type PartQuoting = "bare" | "escaped" | "single" | "double" | "ansi";

export interface WordPart {
  readonly quoting: PartQuoting;
  /** The characters bash puts into the word (quotes removed, escapes applied). */
  readonly text: string;
  /** The characters as written, without the enclosing quotes (an escape keeps its backslash). */
  readonly raw: string;
}

export type ShellToken = { readonly kind: "word"; readonly parts: readonly WordPart[] } | { readonly kind: "op"; readonly text: string };

const OPERATORS = new Set([";", "&", "|", "(", ")", "<", ">"]);
const WHITESPACE = /\s/;
/** What a backslash escapes inside double quotes (newline: a line continuation). */
const DQUOTE_ESCAPABLE = new Set(["$", "`", '"', "\\", "\n"]);

/** The word bash builds from the parts (before expansions). */
export function wordValue(parts: readonly WordPart[]): string {
  return parts.map((part) => part.text).join("");
}

/** D12's W: quotes removed, backslash escapes kept as written. */
export function wordRaw(parts: readonly WordPart[]): string {
  return parts.map((part) => part.raw).join("");
}

const SIMPLE_ANSI: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Reads up to `max` digits of `radix` at `at`; returns the value and how many were read. */
function digits(text: string, at: number, max: number, radix: number): { value: number; length: number } {
  let value = 0;
  let length = 0;
  while (length < max && at + length < text.length) {
    const digit = Number.parseInt(text[at + length] ?? "", radix);
    if (Number.isNaN(digit)) break;
    value = value * radix + digit;
    length++;
  }
  return { value, length };
}

function codePointText(value: number): string {
  return value <= 0x10ffff ? String.fromCodePoint(value) : "\uFFFD";
}

/**
 * Decodes one ANSI-C escape at `at` (pointing after the backslash); returns the text and the index
 * after the escape. An unknown escape keeps its backslash, as bash does.
 */
function ansiEscape(text: string, at: number): { text: string; next: number } {
  const ch = text[at] ?? "";
  const simple = SIMPLE_ANSI[ch];
  if (simple !== undefined) return { text: simple, next: at + 1 };
  if (ch >= "0" && ch <= "7") {
    const octal = digits(text, at, 3, 8);
    return { text: String.fromCharCode(octal.value & 0xff), next: at + octal.length };
  }
  if (ch === "x" || ch === "u" || ch === "U") {
    const hex = digits(text, at + 1, ch === "x" ? 2 : ch === "u" ? 4 : 8, 16);
    if (hex.length === 0) return { text: `\\${ch}`, next: at + 1 };
    return { text: ch === "x" ? String.fromCharCode(hex.value) : codePointText(hex.value), next: at + 1 + hex.length };
  }
  if (ch === "c" && at + 1 < text.length) {
    return { text: String.fromCharCode((text.charCodeAt(at + 1) & 0x1f) | 0), next: at + 2 };
  }
  return { text: `\\${ch}`, next: at + (ch === "" ? 0 : 1) };
}

/** Splits a command into words (with their parts) and operator characters, as bash quotes it. */
export function lexShell(command: string): ShellToken[] {
  const tokens: ShellToken[] = [];
  let parts: WordPart[] = [];
  let inWord = false;
  let bare = "";
  const part = (quoting: PartQuoting, text: string, raw: string): void => {
    if (bare !== "") {
      parts.push({ quoting: "bare", text: bare, raw: bare });
      bare = "";
    }
    parts.push({ quoting, text, raw });
  };
  const flush = (): void => {
    if (bare !== "") parts.push({ quoting: "bare", text: bare, raw: bare });
    if (inWord) tokens.push({ kind: "word", parts });
    parts = [];
    bare = "";
    inWord = false;
  };

  let i = 0;
  const n = command.length;
  while (i < n) {
    const ch = command[i] ?? "";
    if (ch === "\\") {
      const next = command[i + 1];
      if (next === undefined) {
        // A final backslash is a literal one.
        inWord = true;
        bare += "\\";
        i++;
      } else if (next === "\n") {
        i += 2; // line continuation: both disappear, the word goes on
      } else {
        inWord = true;
        part("escaped", next, `\\${next}`);
        i += 2;
      }
    } else if (ch === "'") {
      inWord = true;
      const end = command.indexOf("'", i + 1);
      const stop = end < 0 ? n : end;
      const text = command.slice(i + 1, stop);
      part("single", text, text);
      i = stop + 1;
    } else if (ch === '"' || (ch === "$" && command[i + 1] === '"')) {
      inWord = true;
      i = readDouble(command, ch === "$" ? i + 2 : i + 1, part);
    } else if (ch === "$" && command[i + 1] === "'") {
      inWord = true;
      i = readAnsi(command, i + 2, part);
    } else if (WHITESPACE.test(ch)) {
      flush();
      i++;
    } else if (OPERATORS.has(ch)) {
      flush();
      tokens.push({ kind: "op", text: ch });
      i++;
    } else {
      inWord = true;
      bare += ch;
      i++;
    }
  }
  flush();
  return tokens;
}

type PartSink = (quoting: PartQuoting, text: string, raw: string) => void;

/** Reads a double-quoted run starting at `from` (after the quote); returns the index after the closing quote. */
function readDouble(command: string, from: number, part: PartSink): number {
  let i = from;
  let run = "";
  const n = command.length;
  // An empty "" still makes a word: emit the (possibly empty) run at the end.
  while (i < n && command[i] !== '"') {
    const ch = command[i] ?? "";
    const next = command[i + 1];
    if (ch === "\\" && next !== undefined && DQUOTE_ESCAPABLE.has(next)) {
      if (run !== "") part("double", run, run);
      run = "";
      if (next !== "\n") part("escaped", next, `\\${next}`);
      i += 2;
    } else {
      run += ch;
      i++;
    }
  }
  part("double", run, run);
  return i + 1;
}

/** Reads a `$'…'` run starting at `from` (after the quote); returns the index after the closing quote. */
function readAnsi(command: string, from: number, part: PartSink): number {
  let i = from;
  let text = "";
  const n = command.length;
  while (i < n && command[i] !== "'") {
    if (command[i] === "\\" && i + 1 < n) {
      const decoded = ansiEscape(command, i + 1);
      text += decoded.text;
      i = decoded.next;
    } else {
      text += command[i] ?? "";
      i++;
    }
  }
  part("ansi", text, command.slice(from, i));
  return i + 1;
}
