/**
 * Character classes and run scanning for the secret detector (secret-rules.ts). A class is a
 * 128-entry table plus one flag for every code unit above ASCII, built once from a predicate, so
 * the hot loops do a table lookup per character instead of a chain of predicate calls (the
 * detector reads every byte of a 1 MiB payload; see BENCHMARKS.md, `## Redaction`).
 */

export interface CharClass {
  /** 1 for ASCII code units in the class. */
  readonly ascii: Uint8Array;
  /** Membership of every code unit ≥ 128 (each predicate below is constant there). */
  readonly high: boolean;
}

/** Builds a class from a predicate over char codes that is constant for every code ≥ 128. */
export function charClass(pred: (code: number) => boolean): CharClass {
  const ascii = new Uint8Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = pred(c) ? 1 : 0;
  return { ascii, high: pred(128) };
}

export function inClass(cls: CharClass, code: number): boolean {
  return code < 128 ? cls.ascii[code] === 1 : cls.high;
}

const digit = (c: number): boolean => c >= 48 && c <= 57;
const upper = (c: number): boolean => c >= 65 && c <= 90;
const lower = (c: number): boolean => c >= 97 && c <= 122;
const alpha = (c: number): boolean => upper(c) || lower(c);
const alnum = (c: number): boolean => alpha(c) || digit(c);
const word = (c: number): boolean => alnum(c) || c === 95; // [A-Za-z0-9_]
const token = (c: number): boolean => word(c) || c === 45; // [A-Za-z0-9_-]
const dotToken = (c: number): boolean => token(c) || c === 46; // [A-Za-z0-9_.-]
const blank = (c: number): boolean => c === 32 || c === 9;
const space = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
const quote = (c: number): boolean => c === 34 || c === 39;

export const isDigit = charClass(digit);
export const isUpper = charClass(upper);
export const isAlpha = charClass(alpha);
export const isAlnum = charClass(alnum);
export const isWord = charClass(word);
export const isToken = charClass(token);
export const isDotToken = charClass(dotToken);
export const isUrlPathToken = charClass((c) => token(c) || c === 47); // [A-Za-z0-9_/-]
export const isSlackBody = charClass((c) => alnum(c) || c === 45); // [A-Za-z0-9-]
export const isBase64 = charClass((c) => alnum(c) || c === 43 || c === 47 || c === 61); // [A-Za-z0-9+/=]
/** RFC 6750 b64token. */
export const isBearerChar = charClass((c) => dotToken(c) || c === 126 || c === 43 || c === 47 || c === 61);
/** Assignment key names. */
export const isKeyChar = isDotToken;
export const isBlank = charClass(blank);
export const isSpace = charClass(space);
export const isHexLower = charClass((c) => digit(c) || (c >= 97 && c <= 102));
export const isUpperOrDigit = charClass((c) => upper(c) || digit(c));
/** Inside the userinfo of a URL: anything but `@ / " ' < > \`` and whitespace. */
export const isUrlUserinfo = charClass((c) => !(c === 64 || c === 47 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96 || space(c)));
/** A cookie name: up to `=`, `;`, a quote or whitespace. */
export const isCookieName = charClass((c) => c !== 61 && c !== 59 && !quote(c) && !space(c));
/** A cookie value: up to `;`, a quote, a backslash or whitespace. */
export const isCookieValue = charClass((c) => c !== 59 && !quote(c) && c !== 92 && !space(c));
/** Inside a quoted value opened by `"`, `'` or `` ` ``: up to the same quote or a newline. */
export const quotedBody: Readonly<Record<number, CharClass>> = {
  34: charClass((c) => c !== 34 && c !== 10),
  39: charClass((c) => c !== 39 && c !== 10),
  96: charClass((c) => c !== 96 && c !== 10),
};
/** A bare command-line flag value: up to whitespace, a quote or a backslash. */
export const isBareFlagValue = charClass((c) => !(space(c) || quote(c) || c === 92));
/** A bare assignment value: up to whitespace, a quote, `` ` `` or one of `,;&()[]{}<>\`. */
export const isBareAssignmentValue = charClass(
  (c) =>
    !(
      space(c) ||
      quote(c) ||
      c === 96 ||
      c === 44 ||
      c === 59 ||
      c === 38 ||
      c === 40 ||
      c === 41 ||
      c === 91 ||
      c === 93 ||
      c === 123 ||
      c === 125 ||
      c === 60 ||
      c === 62 ||
      c === 92
    ),
);

/** End of the run of `cls` characters starting at `from`, reading at most `limit` characters. */
export function runEnd(text: string, from: number, cls: CharClass, limit = Number.POSITIVE_INFINITY): number {
  const table = cls.ascii;
  const high = cls.high;
  const stop = Math.min(text.length, from + limit);
  let i = from;
  while (i < stop) {
    const c = text.charCodeAt(i);
    if (c < 128 ? table[c] !== 1 : !high) break;
    i++;
  }
  return i;
}

export function allOf(text: string, start: number, end: number, cls: CharClass): boolean {
  return runEnd(text, start, cls, end - start) === end;
}

export const HAS_DIGIT = 1;
export const HAS_ALPHA = 2;
export const HAS_SPACE = 4;
const KINDS = new Uint8Array(128);
for (let c = 0; c < 128; c++) KINDS[c] = (digit(c) ? HAS_DIGIT : 0) | (alpha(c) ? HAS_ALPHA : 0) | (space(c) ? HAS_SPACE : 0);

/** Which of digit, letter and (ASCII) whitespace occur in `text`, in one pass (none is above ASCII). */
export function kindsOf(text: string): number {
  let kinds = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) kinds |= KINDS[c]!;
  }
  return kinds;
}

export function someOf(text: string, cls: CharClass): boolean {
  const table = cls.ascii;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 ? table[c] === 1 : cls.high) return true;
  }
  return false;
}
