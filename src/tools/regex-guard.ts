/**
 * Bounds the cost of the model's `grep` regex before it runs. JavaScript regexes backtrack, and one
 * `test()` call cannot be interrupted: on Deno and Node (V8, no backtrack limit) `(a+)+$` against a
 * long run of `a`s never returns, and on Bun, JavaScriptCore gives up after its internal match
 * limit (about half a second here) and silently answers "no match". So the two shapes that cause
 * catastrophic backtracking are refused up front with a tool error that says how to rewrite them:
 *
 * - a nested repeat: a group repeated by `*`, `+`, `{n,}` or `{n,m}` (m > REPEAT_BOUND) that itself
 *   contains such a repeat, at any depth (`(a+)+`, `(\w+\s*)*`, `((ab)*c)+`) — star height over 1;
 * - a backreference (`\1`…`\9`, `\k<name>`), which no linear-time engine supports either.
 *
 * Overlapping alternatives under one repeat (`(a|a)*b`) and stacked repeats (`.*.*.*x`) pass this
 * check; the grep time budget (grep.ts) bounds those. This is a scanner, not a full parser: the
 * pattern has already compiled, so it only needs to find groups, classes, escapes and quantifiers.
 */

import { describeError } from "./output.ts";

/** `{n,m}` with m above this counts as a repeat (a small fixed range cannot blow up). */
export const REPEAT_BOUND = 10;
export const PATTERN_MAX_CHARS = 4096;

export type RegexCheck = { ok: true; regex: RegExp } | { ok: false; message: string };

interface Quantifier {
  /** Characters the quantifier (and a lazy `?`) takes. */
  length: number;
  repeats: boolean;
}

/** The quantifier starting at `at`, if any. */
function quantifierAt(pattern: string, at: number): Quantifier | undefined {
  const ch = pattern[at];
  let length: number;
  let repeats: boolean;
  if (ch === "*" || ch === "+") [length, repeats] = [1, true];
  else if (ch === "?") [length, repeats] = [1, false];
  else if (ch === "{") {
    // Outside the `u` flag a `{` that is not a well-formed bound is a literal brace.
    const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
    if (bound === null) return undefined;
    const min = Number(bound[1]);
    const max = bound[2] === undefined ? min : bound[3] === "" ? Number.POSITIVE_INFINITY : Number(bound[3]);
    [length, repeats] = [bound[0].length, max > REPEAT_BOUND && max > min];
  } else return undefined;
  if (pattern[at + length] === "?") length += 1;
  return { length, repeats };
}

/** Index just past the character class opening at `at` (`[` … `]`, escapes honoured). */
function skipClass(pattern: string, at: number): number {
  let i = at + 1;
  while (i < pattern.length && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
  return i + 1;
}

/** Characters of a group opener: `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`. */
function groupOpenerLength(pattern: string, at: number): number {
  if (pattern[at + 1] !== "?") return 1;
  const kind = pattern[at + 2];
  if (kind === "<" && pattern[at + 3] !== "=" && pattern[at + 3] !== "!") {
    const close = pattern.indexOf(">", at);
    return close === -1 ? 1 : close - at + 1;
  }
  return kind === "<" ? 4 : 3;
}

/** Why `pattern` is refused, or undefined when its shape is safe to run. */
export function riskyShape(pattern: string): string | undefined {
  // One frame per open group: does it contain a repeat (at any depth)?
  const frames: boolean[] = [false];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    let atomEnd: number;
    let atomRepeats = false;
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<")) {
        return `backreference ${next === "k" ? "\\k<…>" : `\\${next}`} is not supported (it can backtrack without bound); match the text explicitly instead`;
      }
      atomEnd = i + 2;
    } else if (ch === "[") atomEnd = skipClass(pattern, i);
    else if (ch === "(") {
      frames.push(false);
      i += groupOpenerLength(pattern, i);
      continue;
    } else if (ch === ")") {
      const inner = frames.pop() ?? false;
      if (frames.length === 0) frames.push(false);
      atomEnd = i + 1;
      atomRepeats = inner;
      const quantifier = quantifierAt(pattern, atomEnd);
      if (quantifier?.repeats === true && inner) {
        const group = groupSource(pattern, i);
        return `nested quantifier: the group ${group} is repeated and repeats inside, which can backtrack exponentially; rewrite it without the outer repeat (e.g. \`(\\w+\\s*)+\` → \`[\\w\\s]+\`) or search for a literal part`;
      }
    } else atomEnd = i + 1;
    const quantifier = quantifierAt(pattern, atomEnd);
    const top = frames.length - 1;
    if (quantifier?.repeats === true || atomRepeats) frames[top] = true;
    i = atomEnd + (quantifier?.length ?? 0);
  }
  return undefined;
}

/** The source of the group closing at `close`, followed by its quantifier, for the message. */
function groupSource(pattern: string, close: number): string {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    // Escaped parens and classes are rare in the refused shapes; a rough span is enough for a message.
    if (pattern[i] === ")" && pattern[i - 1] !== "\\") depth += 1;
    else if (pattern[i] === "(" && pattern[i - 1] !== "\\") {
      depth -= 1;
      if (depth === 0) {
        const quantifier = quantifierAt(pattern, close + 1);
        return `\`${pattern.slice(i, close + 1 + (quantifier?.length ?? 0))}\``;
      }
    }
  }
  return `ending at offset ${close}`;
}

/** Compiles the grep pattern, refusing invalid, oversized and catastrophic-backtracking ones. */
export function compileSearchRegex(pattern: string, options: { ignoreCase: boolean }): RegexCheck {
  if (pattern.length > PATTERN_MAX_CHARS) {
    return { ok: false, message: `regular expression too long: ${pattern.length} characters (at most ${PATTERN_MAX_CHARS})` };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, options.ignoreCase ? "i" : "");
  } catch (error) {
    return { ok: false, message: `invalid regular expression: ${describeError(error)}` };
  }
  const risk = riskyShape(pattern);
  if (risk !== undefined) return { ok: false, message: `regular expression refused: ${risk}` };
  return { ok: true, regex };
}
