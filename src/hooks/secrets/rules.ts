/**
 * Our own substring detector for credential-shaped text (D16), written for linear time: every rule
 * finds its trigger with `indexOf` or a literal regex, then inspects a run of characters with plain
 * loops and fixed bounds, and resumes after that run. No rule uses a regex that can backtrack
 * over unbounded input (SEC-19). The rule ids appear in `[REDACTED:<id>]` and in the README.
 */

export interface SecretSpan {
  readonly start: number;
  readonly end: number;
  readonly rule: string;
}

export interface SecretRule {
  readonly id: string;
  readonly description: string;
}

import {
  allOf,
  charClass,
  inClass,
  isAlnum,
  isAlpha,
  isBareAssignmentValue,
  isBareFlagValue,
  isBase64,
  isBearerChar,
  isBlank,
  isCookieName,
  isCookieValue,
  isDigit,
  isDotToken,
  isHexLower,
  isKeyChar,
  isSlackBody,
  isToken,
  isUpperOrDigit,
  isUrlPathToken,
  isUrlUserinfo,
  isWord,
  quotedBody,
  runEnd,
  someOf,
  kindsOf,
  HAS_DIGIT,
  HAS_ALPHA,
  type CharClass,
} from "./scan.ts";
import { isSecretValue, looksLikePlaceholder, MAX_VALUE_CHARS, textKeyStrength, type KeyStrength } from "./values.ts";

export { entropy, keySegments, textKeyStrength } from "./values.ts";

/** Longest key name an assignment may have. */
const MAX_KEY_CHARS = 64;

// ---------------------------------------------------------------------------------------------
// scanner

type Emit = (start: number, end: number, rule: string) => void;

interface RuleImpl extends SecretRule {
  scan(text: string, emit: Emit): void;
}

/** What a vendor token's body must be: at least `min` characters (checked first), then `accept`. */
interface BodyShape {
  readonly min: number;
  readonly accept: (bodyText: string) => boolean;
}

/** A vendor token: a literal prefix, then a body of one character class with a length check. */
interface PrefixRule extends SecretRule {
  readonly prefixes: readonly string[];
  readonly body: CharClass;
  readonly shape: BodyShape;
  /** The character before the prefix must not be in this class. */
  readonly leftBoundary: CharClass;
}

function prefixRule(
  id: string,
  description: string,
  prefixes: readonly string[],
  body: CharClass,
  shape: BodyShape,
  leftBoundary: CharClass = isWord,
): PrefixRule {
  return { id, description, prefixes, body, shape, leftBoundary };
}

/**
 * All vendor-token rules in one pass over the text instead of one pass each. A match (prefix and
 * body) is a run of at least `shortest` characters of the union of the prefixes' and bodies'
 * characters, so the pass reads one character per `shortest` in the text outside such runs (as in
 * Boyer-Moore: a character outside the union rules out every window holding it), and inside the
 * long runs only: there a table of the prefixes' first two characters finds candidate positions,
 * then each rule applies exactly its own logic (left boundary, body run, length check, resume after
 * the body it read). A rule's resume point never leaves the run it was set in, so skipping the
 * short runs changes nothing. Spans are emitted rule by rule in priority order, so the result
 * equals running the rules one after another. No rule has one prefix that starts another of its
 * prefixes, so at most one matches per position.
 */
function prefixRuleGroup(rules: readonly PrefixRule[]): RuleImpl & { readonly members: readonly PrefixRule[] } {
  const table = prefixTable(rules);
  return {
    id: "prefix_rules",
    description: "vendor token prefixes",
    members: rules,
    scan(text, emit) {
      const spans: number[][] = rules.map(() => []);
      const resume = new Int32Array(rules.length);
      const { inRun, shortest } = table;
      const length = text.length;
      let i = shortest - 1;
      while (i < length) {
        const c = text.charCodeAt(i);
        if (c >= 128 || inRun[c] !== 1) {
          i += shortest; // no run of `shortest` characters holds position i
          continue;
        }
        let start = i;
        while (start > 0 && isRunChar(inRun, text.charCodeAt(start - 1))) start--;
        let end = i + 1;
        while (end < length && isRunChar(inRun, text.charCodeAt(end))) end++;
        if (end - start >= shortest) scanRun(table, text, start, end, spans, resume);
        i = end + shortest; // text[end] is outside the union
      }
      rules.forEach((rule, index) => {
        const found = spans[index]!;
        for (let k = 0; k < found.length; k += 2) emit(found[k]!, found[k + 1]!, rule.id);
      });
    },
  };
}

function isRunChar(inRun: Uint8Array, code: number): boolean {
  return code < 128 && inRun[code] === 1;
}

/**
 * The group's lookup tables. Candidates are grouped by the prefix's first two chars, in flat arrays:
 * for bigram `key`, candidates first[key] .. first[key + 1] - 1 (no objects or sparse arrays in the
 * hot loop).
 */
interface PrefixTable {
  readonly rules: readonly PrefixRule[];
  readonly inRun: Uint8Array;
  readonly startsPrefix: Uint8Array;
  readonly shortest: number;
  readonly first: Int32Array;
  readonly candidateRule: Int32Array;
  readonly candidatePrefix: readonly string[];
}

function prefixTable(rules: readonly PrefixRule[]): PrefixTable {
  const all: { key: number; rule: number; prefix: string }[] = [];
  const inRun = new Uint8Array(128);
  const startsPrefix = new Uint8Array(128);
  let shortest = Number.POSITIVE_INFINITY;
  rules.forEach((rule, index) => {
    // The grouping relies on it (a regex alternation would pick the first listed prefix instead).
    for (const p of rule.prefixes) {
      if (p.length < 2 || rule.prefixes.some((q) => q !== p && q.startsWith(p)))
        throw new Error(`secret rule ${rule.id}: prefix ${p} is too short or starts another`);
      if (rule.body.high || [...p].some((ch) => ch.charCodeAt(0) >= 128))
        throw new Error(`secret rule ${rule.id}: the run scan assumes ASCII prefixes and bodies`);
    }
    for (const prefix of rule.prefixes) {
      all.push({ key: prefix.charCodeAt(0) * 128 + prefix.charCodeAt(1), rule: index, prefix });
      startsPrefix[prefix.charCodeAt(0)] = 1;
      for (let k = 0; k < prefix.length; k++) inRun[prefix.charCodeAt(k)] = 1;
      shortest = Math.min(shortest, prefix.length + rule.shape.min);
    }
    for (let c = 0; c < 128; c++) if (rule.body.ascii[c] === 1) inRun[c] = 1;
  });
  all.sort((x, y) => x.key - y.key || x.rule - y.rule);
  const first = new Int32Array(128 * 128 + 1);
  for (const { key } of all) first[key + 1]! += 1;
  for (let k = 0; k < 128 * 128; k++) first[k + 1]! += first[k]!;
  return { rules, inRun, startsPrefix, shortest, first, candidateRule: Int32Array.from(all, (c) => c.rule), candidatePrefix: all.map((c) => c.prefix) };
}

/** Every candidate position in the run [from, to) of `inRun` characters. */
function scanRun(table: PrefixTable, text: string, from: number, to: number, spans: number[][], resume: Int32Array): void {
  const { rules, startsPrefix, first, candidateRule, candidatePrefix } = table;
  for (let at = from; at + 1 < to; at++) {
    const a = text.charCodeAt(at);
    if (startsPrefix[a] !== 1) continue; // most characters of a long run (hex, digits) start none
    const key = (a << 7) | text.charCodeAt(at + 1);
    const last = first[key + 1]!;
    for (let k = first[key]!; k < last; k++) {
      const index = candidateRule[k]!;
      const prefix = candidatePrefix[k]!;
      if (at < resume[index]!) continue;
      let same = 2;
      while (same < prefix.length && text.charCodeAt(at + same) === prefix.charCodeAt(same)) same++;
      if (same < prefix.length) continue;
      const rule = rules[index]!;
      let next = at + 1;
      if (at === 0 || !inClass(rule.leftBoundary, text.charCodeAt(at - 1))) {
        const bodyStart = at + prefix.length;
        const end = runEnd(text, bodyStart, rule.body);
        if (end - bodyStart >= rule.shape.min && rule.shape.accept(text.slice(bodyStart, end))) spans[index]!.push(at, end);
        next = Math.max(end, next);
      }
      resume[index] = next;
    }
  }
}

const exactly = (n: number, cls: CharClass): BodyShape => ({ min: n, accept: (b) => b.length === n && allOf(b, 0, b.length, cls) });
const between = (min: number, max: number): BodyShape => ({ min, accept: (b) => b.length >= min && b.length <= max });
const withDigit = (min: number): BodyShape => ({ min, accept: (b) => b.length >= min && b.length <= MAX_VALUE_CHARS && (kindsOf(b) & HAS_DIGIT) !== 0 });

function privateKeyRule(): RuleImpl {
  const id = "private_key";
  return {
    id,
    description: "PEM/OpenSSH/PGP private key blocks, BEGIN to END (or to the end of the text when END is missing)",
    scan(text, emit) {
      const marker = "-----BEGIN ";
      let at = text.indexOf(marker);
      while (at !== -1) {
        const labelStart = at + marker.length;
        const labelEnd = text.indexOf("-----", labelStart);
        const label = labelEnd === -1 || labelEnd - labelStart > 64 ? "" : text.slice(labelStart, labelEnd);
        if (!label.includes("PRIVATE KEY")) {
          at = text.indexOf(marker, at + 1);
          continue;
        }
        const endMarker = `-----END ${label}-----`;
        const endAt = text.indexOf(endMarker, labelEnd + 5);
        const end = endAt === -1 ? text.length : endAt + endMarker.length;
        emit(at, end, id);
        at = text.indexOf(marker, end);
      }
    },
  };
}

function jwtRule(): RuleImpl {
  const id = "jwt";
  return {
    id,
    description: "JSON Web Tokens: three or more base64url segments, the first starting with eyJ",
    scan(text, emit) {
      let at = text.indexOf("eyJ");
      while (at !== -1) {
        if (at > 0 && inClass(isToken, text.charCodeAt(at - 1))) {
          at = text.indexOf("eyJ", at + 1);
          continue;
        }
        const end = runEnd(text, at, isDotToken);
        const segments = text.slice(at, end).split(".");
        while (segments.length > 0 && segments[segments.length - 1] === "") segments.pop();
        const ok = segments.length >= 3 && segments.length <= 5 && segments.every((s) => s.length >= 8);
        if (ok) emit(at, at + segments.join(".").length, id);
        at = text.indexOf("eyJ", Math.max(end, at + 1));
      }
    },
  };
}

function telegramRule(): RuleImpl {
  const id = "telegram_bot_token";
  return {
    id,
    description: "Telegram bot tokens: <bot id>:AA<base64url>",
    scan(text, emit) {
      let at = text.indexOf(":AA");
      while (at !== -1) {
        let start = at;
        while (start > 0 && at - start < 12 && inClass(isDigit, text.charCodeAt(start - 1))) start--;
        const digits = at - start;
        const leftOk = start === 0 || !inClass(isDigit, text.charCodeAt(start - 1));
        const end = runEnd(text, at + 1, isToken);
        if (digits >= 6 && leftOk && end - (at + 1) >= 30 && end - (at + 1) <= 40) emit(start, end, id);
        at = text.indexOf(":AA", Math.max(end, at + 1));
      }
    },
  };
}

/** The 6-bit value of a base64 / base64url character, or -1. */
function base64Value(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  if (c === 45 || c === 43) return 62;
  if (c === 95 || c === 47) return 63;
  return -1;
}

/** Does text[start, end) decode (base64, no padding) to 17..20 ASCII digits not starting with 0? */
function decodesToSnowflake(text: string, start: number, end: number): boolean {
  let bits = 0;
  let width = 0;
  let count = 0;
  for (let i = start; i < end; i++) {
    const value = base64Value(text.charCodeAt(i));
    if (value < 0) return false;
    bits = ((bits << 6) | value) & 0xffff;
    width += 6;
    if (width >= 8) {
      width -= 8;
      const byte = (bits >> width) & 0xff;
      if (byte < 48 || byte > 57 || (count === 0 && byte === 48)) return false;
      count++;
    }
  }
  return count >= 17 && count <= 20;
}

function discordBotTokenRule(): RuleImpl {
  const id = "discord_bot_token";
  return {
    id,
    description: "Discord bot tokens: <base64 of the numeric bot id>.<6 chars>.<27..100 chars>",
    scan(text, emit) {
      // Driven by the dots: a candidate is a dot with another dot 7 characters on, the 6 between
      // them token characters. The id before it is read back at most 28 characters and must
      // decode to the digits of a Discord id (17..20, no leading 0): that keeps dotted names,
      // versions and hostnames out at the cost of a few character reads per dot.
      let dot = text.indexOf(".");
      while (dot !== -1) {
        let next = dot + 1;
        const second = dot + 7;
        if (text.charCodeAt(second) === 46 && allOf(text, dot + 1, second, isToken)) {
          let start = dot;
          while (start > 0 && dot - start < 28 && inClass(isToken, text.charCodeAt(start - 1))) start--;
          const idLength = dot - start;
          const leftOk = start === 0 || !inClass(isToken, text.charCodeAt(start - 1));
          const end = runEnd(text, second + 1, isToken, 101);
          const tail = end - (second + 1);
          if (leftOk && idLength >= 23 && idLength <= 27 && tail >= 27 && tail <= 100 && decodesToSnowflake(text, start, dot)) {
            emit(start, end, id);
            next = end;
          }
        }
        dot = text.indexOf(".", next);
      }
    },
  };
}

/**
 * Runs a global regex of bounded width over `text` and calls `visit` per match; `visit` returns
 * where to resume, so a rule never re-reads the run it just consumed.
 */
function forEachMatch(text: string, pattern: RegExp, visit: (match: RegExpExecArray) => number): void {
  pattern.lastIndex = 0;
  let match = pattern.exec(text);
  while (match !== null) {
    const resume = visit(match);
    pattern.lastIndex = Math.max(resume, match.index + 1);
    match = pattern.exec(text);
  }
}

function forEachWord(text: string, pattern: RegExp, visit: (index: number) => number): void {
  forEachMatch(text, pattern, (match) => visit(match.index));
}

function bearerRule(): RuleImpl {
  const id = "bearer_token";
  return {
    id,
    description: "The credential after an HTTP `Bearer` scheme",
    scan(text, emit) {
      forEachWord(text, /bearer/gi, (index) => {
        if (index > 0 && inClass(isAlpha, text.charCodeAt(index - 1))) return index + 6;
        const tokenStart = runEnd(text, index + 6, isBlank, 4);
        if (tokenStart === index + 6) return tokenStart;
        const end = runEnd(text, tokenStart, isBearerChar, MAX_VALUE_CHARS + 1);
        const token = text.slice(tokenStart, end);
        if (token.length >= 16 && token.length <= MAX_VALUE_CHARS && someOf(token, isDigit) && someOf(token, isAlpha)) {
          emit(tokenStart, end, id);
        }
        return end;
      });
    },
  };
}

function basicAuthRule(): RuleImpl {
  const id = "basic_auth";
  return {
    id,
    description: "The base64 credential after `Authorization: Basic`",
    scan(text, emit) {
      forEachWord(text, /basic/gi, (index) => {
        if (index > 0 && inClass(isAlpha, text.charCodeAt(index - 1))) return index + 5;
        const before = text.slice(Math.max(0, index - 32), index).toLowerCase();
        if (!before.includes("authorization")) return index + 5;
        const start = runEnd(text, index + 5, isBlank, 4);
        if (start === index + 5) return start;
        const end = runEnd(text, start, isBase64, MAX_VALUE_CHARS + 1);
        if (end - start >= 12 && end - start <= MAX_VALUE_CHARS) emit(start, end, id);
        return end;
      });
    },
  };
}

function urlCredentialsRule(): RuleImpl {
  const id = "url_credentials";
  return {
    id,
    description: "The password in scheme://user:password@host URLs and connection strings",
    scan(text, emit) {
      let at = text.indexOf("://");
      while (at !== -1) {
        const start = at + 3;
        const i = runEnd(text, start, isUrlUserinfo, 512);
        if (i < text.length && text.charCodeAt(i) === 64) {
          const colon = text.indexOf(":", start);
          if (colon !== -1 && colon < i && !text.slice(start, i).includes("[REDACTED:")) {
            const password = text.slice(colon + 1, i);
            if (password.length >= 3 && !looksLikePlaceholder(password)) emit(colon + 1, i, id);
          }
        }
        at = text.indexOf("://", Math.max(i, at + 1));
      }
    },
  };
}

function cookieRule(): RuleImpl {
  const id = "cookie";
  return {
    id,
    description: "Random-looking values in Cookie / Set-Cookie headers and cookie strings",
    scan(text, emit) {
      forEachWord(text, /cookie/gi, (index) => {
        let i = index + 6;
        if (text.charCodeAt(i) === 34 || text.charCodeAt(i) === 39) i++;
        i = runEnd(text, i, isBlank, 4);
        const sep = text.charCodeAt(i);
        if (sep !== 58 && sep !== 61) return i;
        i = runEnd(text, i + 1, isBlank, 4);
        if (text.charCodeAt(i) === 34 || text.charCodeAt(i) === 39) i++;
        const limit = Math.min(text.length, i + 4096);
        while (i < limit) {
          const nameEnd = runEnd(text, i, isCookieName, 128);
          if (text.charCodeAt(nameEnd) !== 61) {
            i = nameEnd;
          } else {
            const valueStart = nameEnd + 1;
            i = runEnd(text, valueStart, isCookieValue, MAX_VALUE_CHARS + 1);
            if (isSecretValue(text.slice(valueStart, i), false)) emit(valueStart, i, id);
          }
          if (text.charCodeAt(i) !== 59) break;
          i = runEnd(text, i + 1, isBlank, 4);
        }
        return i;
      });
    },
  };
}

/** Reads a value after a separator: quoted (no whitespace inside) or a bare run; returns its span. */
function readValue(text: string, from: number, bare: CharClass): { start: number; end: number } | null {
  const first = text.charCodeAt(from);
  if (first === 34 || first === 39 || first === 96) {
    const start = from + 1;
    const end = runEnd(text, start, quotedBody[first]!, MAX_VALUE_CHARS + 1);
    if (text.charCodeAt(end) !== first) return null;
    return { start, end };
  }
  const end = runEnd(text, from, bare, MAX_VALUE_CHARS + 1);
  return end > from ? { start: from, end } : null;
}

/** JavaScript's `\s` (what `(?:^|\s)` in a regex would accept). */
function isJsSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}
/** What may precede a long flag: whitespace, a quote or `(`. */
const isFlagLead = (c: number): boolean => isJsSpace(c) || c === 34 || c === 39 || c === 40;

/**
 * The matches a global regex `(?:^|[lead])<literal>…` would give under forEachMatch, in the same
 * order, found with `indexOf` instead of trying the regex at every whitespace: a `literal` at `at`
 * matches at index `at - 1` when the character there is a lead, or at 0 when `at` is 0. `visit`
 * returns where to resume, or -1 when the rest of the pattern does not match there.
 */
function forEachAfter(text: string, literal: string, lead: (c: number) => boolean, visit: (index: number, at: number) => number): void {
  let from = 0; // the regex's lastIndex
  for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, Math.max(at + 1, from))) {
    const index = at === 0 ? 0 : lead(text.charCodeAt(at - 1)) ? at - 1 : -1;
    if (index < from) continue;
    const resume = visit(index, at);
    if (resume >= 0) from = Math.max(resume, index + 1);
  }
}

function lineBefore(text: string, index: number): string {
  const from = Math.max(0, index - 256);
  const slice = text.slice(from, index);
  const newline = slice.lastIndexOf("\n");
  return newline === -1 ? slice : slice.slice(newline + 1);
}

function cliRule(): RuleImpl {
  const id = "cli_credential";
  return {
    id,
    description: "Credentials passed as command-line flags: --password X, --token=X, -p X after -u, sshpass -p",
    scan(text, emit) {
      forEachAfter(text, "--", isFlagLead, (index, at) => {
        // FLAG_LONG: `--` + a name of 1..40 `[A-Za-z][A-Za-z0-9_-]*`, then `=`, whitespace, a quote or the end.
        const nameStart = at + 2;
        if (!inClass(isAlpha, text.charCodeAt(nameStart))) return -1;
        const after = runEnd(text, nameStart + 1, isToken, 40);
        const next = text.charCodeAt(after);
        if (after - nameStart > 40 || !(after === text.length || next === 61 || next === 34 || next === 39 || isJsSpace(next))) return -1;
        const strength = textKeyStrength(text.slice(nameStart, after));
        if (strength === "none") return after;
        const valueFrom = text.charCodeAt(after) === 61 ? after + 1 : runEnd(text, after, isBlank, 4);
        if (valueFrom === after && text.charCodeAt(after) !== 61) return after;
        const value = readValue(text, valueFrom, isBareFlagValue);
        if (value !== null && isSecretValue(text.slice(value.start, value.end), strength === "keyish")) {
          emit(value.start, value.end, id);
          return value.end;
        }
        return after;
      });
      forEachAfter(text, "-p", isJsSpace, (index) => {
        const flagEnd = text.indexOf("-p", index) + 2;
        const line = lineBefore(text, index);
        const userGiven = / -u\b|--user\b|--username\b|sshpass/.test(line);
        const separate = inClass(isBlank, text.charCodeAt(flagEnd));
        const valueFrom = separate ? runEnd(text, flagEnd, isBlank, 4) : flagEnd;
        const value = readValue(text, valueFrom, isBareFlagValue);
        if (value === null) return flagEnd;
        const quoted = value.start !== valueFrom;
        if ((userGiven || (quoted && separate)) && isSecretValue(text.slice(value.start, value.end), false)) {
          emit(value.start, value.end, id);
        }
        return value.end;
      });
    },
  };
}

/** netrc keywords that may come between an entry's `machine h` (or `default`) and its `password`. */
const NETRC_PAIR_KEYWORDS: ReadonlySet<string> = new Set(["login", "account"]);
const isNetrcValue = charClass((c) => !(c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12));
const isNetrcSpace = charClass((c) => c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12);
const NETRC_TOKEN_MAX = 256;

/** Start of the whitespace-delimited token ending at `end` (exclusive), reading back at most NETRC_TOKEN_MAX characters; -1 if longer or empty. */
function tokenStartBefore(text: string, end: number): number {
  let start = end;
  while (start > 0 && end - start <= NETRC_TOKEN_MAX && inClass(isNetrcValue, text.charCodeAt(start - 1))) start--;
  if (start === end || end - start > NETRC_TOKEN_MAX) return -1;
  return start;
}

/** Start of the whitespace run ending at `end`, reading back at most 64; -1 when there is none. */
function spaceStartBefore(text: string, end: number): number {
  if (end <= 0) return -1;
  let start = end;
  while (start > 0 && end - start < 64 && inClass(isNetrcSpace, text.charCodeAt(start - 1))) start--;
  return start === end ? -1 : start;
}

/**
 * Is the `password` at `at` a netrc keyword? Reading back over `login u` / `account a` pairs (at
 * most two) must reach the entry's start: a `machine h` pair or the word `default`. So
 * `machine h login u password p` on one line and the multi-line layout count, while prose ("the
 * password field", "the login page password reset") does not. Bounded look-back: at most three
 * pairs of tokens of at most 256 characters each.
 */
function isNetrcPassword(text: string, at: number): boolean {
  let pos = at;
  for (let pair = 0; pair < 3; pair++) {
    const valueEnd = spaceStartBefore(text, pos);
    const valueStart = valueEnd < 0 ? -1 : tokenStartBefore(text, valueEnd);
    if (valueStart < 0) return false;
    if (valueEnd - valueStart === 7 && text.startsWith("default", valueStart))
      return valueStart === 0 || inClass(isNetrcSpace, text.charCodeAt(valueStart - 1));
    const keywordEnd = spaceStartBefore(text, valueStart);
    const keywordStart = keywordEnd < 0 ? -1 : tokenStartBefore(text, keywordEnd);
    if (keywordStart < 0 || keywordEnd - keywordStart > 7) return false;
    const keyword = text.slice(keywordStart, keywordEnd);
    if (keyword === "machine") return true;
    if (!NETRC_PAIR_KEYWORDS.has(keyword)) return false;
    pos = keywordStart;
  }
  return false;
}

function netrcRule(): RuleImpl {
  const id = "netrc_password";
  return {
    id,
    description: "The password of a netrc entry (`machine h login u password p`, on one line or several)",
    scan(text, emit) {
      let at = text.indexOf("password");
      while (at !== -1) {
        let next = at + 8;
        const leftOk = at === 0 || inClass(isNetrcSpace, text.charCodeAt(at - 1));
        const valueFrom = runEnd(text, at + 8, isNetrcSpace, 64);
        if (leftOk && valueFrom > at + 8 && isNetrcPassword(text, at)) {
          // netrc allows a value in double quotes (spaces inside); the quotes are not part of it.
          const closing = text.charCodeAt(valueFrom) === 34 ? runEnd(text, valueFrom + 1, quotedBody[34]!, MAX_VALUE_CHARS + 1) : -1;
          const quoted = closing >= 0 && text.charCodeAt(closing) === 34;
          const valueEnd = quoted ? closing + 1 : runEnd(text, valueFrom, isNetrcValue, MAX_VALUE_CHARS + 1);
          const start = quoted ? valueFrom + 1 : valueFrom;
          const end = quoted ? closing : valueEnd;
          const value = text.slice(start, end);
          const first = text.charCodeAt(start);
          // `password = x` / `password: x` are assignments (generic_assignment's), not netrc.
          if (end > start && end - start <= MAX_VALUE_CHARS && first !== 61 && first !== 58 && !looksLikePlaceholder(value)) emit(start, end, id);
          next = Math.max(next, valueEnd);
        }
        at = text.indexOf("password", next);
      }
    },
  };
}

/** A credential key names one of these (case-insensitive). */
const KEY_HINTS = /pass|pwd|secret|token|key|auth|cred|signature|value/i;
/**
 * Each hint word holds one of these letter pairs (pa·ss, pw·d, se·cr·et, to·ke·n, ke·y, au·th,
 * cr·ed, sig·na·ture → gn, va·lue): a key without any is skipped without slicing it.
 */
const HINT_PAIRS = new Uint8Array(128 * 128);
for (const pair of ["pa", "pw", "cr", "ke", "au", "gn", "va"]) HINT_PAIRS[pair.charCodeAt(0) * 128 + pair.charCodeAt(1)] = 1;

/**
 * A key's verdict, memoized by key text: null when the key holds no hint word, else
 * textKeyStrength. A direct-mapped table probed with a hash the look-back computes anyway and a
 * comparison against the text, so the common case (a key seen before) neither slices the key nor
 * hashes a new string: keys repeat a lot, and a Map lookup of a fresh slice per key cost more than
 * the look-back itself.
 */
const KEY_SLOTS = 1024;
const slotHash = new Int32Array(KEY_SLOTS);
const slotKey: string[] = new Array<string>(KEY_SLOTS).fill("");
const slotStrength: (KeyStrength | null)[] = new Array<KeyStrength | null>(KEY_SLOTS).fill(null);

/** The slot holding the key text[start, end) (hash: keyHash of it), filled on a miss. */
function keySlot(text: string, start: number, end: number, hash: number): number {
  const slot = (hash ^ (hash >>> 10) ^ (hash >>> 20)) & (KEY_SLOTS - 1);
  const cached = slotKey[slot]!;
  if (slotHash[slot] === hash && cached.length === end - start) {
    let k = 0;
    while (k < cached.length && cached.charCodeAt(k) === text.charCodeAt(start + k)) k++;
    if (k === cached.length) return slot;
  }
  const key = text.slice(start, end);
  slotHash[slot] = hash;
  slotKey[slot] = key;
  slotStrength[slot] = KEY_HINTS.test(key) ? textKeyStrength(key) : null;
  return slot;
}
const XML_KEY_BEFORE = /(?:key|name)["']?\s*[=:]\s*["']([A-Za-z0-9_.-]{1,64})["']\s*,?\s*["']?$/i;

/**
 * `key = value`, `key: value`, `"key": "value"`, `key := value`, `key => value`, and XML/JSON
 * `key="X" value="…"` pairs, where the key names a credential. Driven by the separators (found
 * with `indexOf`), each examined once with a bounded look-back that also notes whether the key
 * could hold a hint word, so the pass is linear and most keys are never sliced.
 */
function assignmentRule(): RuleImpl {
  const id = "generic_assignment";
  /**
   * Examines the separator at `i`; returns where the next separator may be. `last` is the last
   * bare value read in full: a later value starting inside it is its suffix, so when `last` lacks
   * a digit or a letter that suffix cannot be a secret either, and is not read again (this keeps
   * `key=key=…` linear instead of re-reading up to 1 KiB per separator).
   */
  const examine = (text: string, i: number, emit: Emit, last: { start: number; end: number; kinds: number }): number => {
    const sep = text.charCodeAt(i);
    let j = i - 1;
    while (j >= 0 && i - j <= 4 && inClass(isBlank, text.charCodeAt(j))) j--;
    const closing = j >= 0 ? text.charCodeAt(j) : 0;
    if (closing === 34 || closing === 39) j--;
    const keyEnd = j + 1;
    let hinted = false;
    let right = 0; // the lower-cased character right of j
    let hash = 0; // of the key read right to left, for keySlot
    const keyTable = isKeyChar.ascii;
    while (j >= 0 && keyEnd - j <= MAX_KEY_CHARS) {
      const c = text.charCodeAt(j);
      if (c >= 128 || keyTable[c] !== 1) break;
      const folded = c | 0x20; // ASCII letters to lower case; no other key character becomes a letter
      if (HINT_PAIRS[folded * 128 + right] === 1) hinted = true;
      right = folded;
      hash = (Math.imul(hash, 31) + c) | 0;
      j--;
    }
    const keyStart = j + 1;
    if (!hinted || keyStart === keyEnd || (j >= 0 && inClass(isKeyChar, text.charCodeAt(j)))) return i + 1;
    const slot = keySlot(text, keyStart, keyEnd, hash);
    let strength = slotStrength[slot] ?? null;
    if (strength === null) return i + 1;
    if (strength === "none" && slotKey[slot]!.toLowerCase() === "value") {
      const named = XML_KEY_BEFORE.exec(text.slice(Math.max(0, keyStart - 96), keyStart));
      if (named?.[1] !== undefined) strength = textKeyStrength(named[1]);
    }
    if (strength === "none") return i + 1;
    let v = i + 1;
    const next = text.charCodeAt(v);
    if (sep === 58 && (next === 47 || next === 58)) return i + 1; // scheme:// or ::
    if (sep === 61 && next === 61) return i + 1; // comparison ==
    if (next === 61 || next === 62) v++; // := and =>
    v = runEnd(text, v, isBlank, 8);
    if (v >= last.start && v < last.end && (last.kinds & (HAS_DIGIT | HAS_ALPHA)) !== (HAS_DIGIT | HAS_ALPHA)) return i + 1;
    const value = readValue(text, v, isBareAssignmentValue);
    if (value === null) return i + 1;
    const valueText = text.slice(value.start, value.end);
    if (value.start === v && value.end - value.start <= MAX_VALUE_CHARS) {
      last.start = value.start;
      last.end = value.end;
      last.kinds = kindsOf(valueText);
    }
    if (isSecretValue(valueText, strength === "keyish")) {
      emit(value.start, value.end, id);
      return value.end; // separators inside the value are not keys of their own
    }
    return value.end - value.start > MAX_VALUE_CHARS ? value.end : i + 1;
  };
  return {
    id,
    description: "High-entropy values assigned to credential-named keys (password, secret, token, api_key, *_key, …)",
    scan(text, emit) {
      const last = { start: -1, end: -1, kinds: 0 };
      let eq = text.indexOf("=");
      let colon = text.indexOf(":");
      while (eq !== -1 || colon !== -1) {
        const i = colon === -1 || (eq !== -1 && eq < colon) ? eq : colon;
        const from = examine(text, i, emit, last);
        if (eq !== -1 && eq < from) eq = text.indexOf("=", from);
        if (colon !== -1 && colon < from) colon = text.indexOf(":", from);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the rule set, in priority order: when spans overlap, the earlier rule wins

const RULE_IMPLS: readonly (RuleImpl & { readonly members?: readonly SecretRule[] })[] = [
  privateKeyRule(),
  prefixRuleGroup([
    prefixRule("anthropic_api_key", "Anthropic API keys (sk-ant-…)", ["sk-ant-"], isToken, between(32, MAX_VALUE_CHARS)),
    prefixRule("openrouter_api_key", "OpenRouter API keys (sk-or-v1-…)", ["sk-or-"], isToken, between(32, MAX_VALUE_CHARS)),
    prefixRule("openai_api_key", "OpenAI-style API keys (sk-proj-…, sk-svcacct-…, sk-… with digits)", ["sk-"], isToken, {
      min: 20,
      accept: (b) =>
        b.length <= MAX_VALUE_CHARS && (kindsOf(b) & (HAS_DIGIT | HAS_ALPHA)) === (HAS_DIGIT | HAS_ALPHA) && !b.startsWith("ant-") && !b.startsWith("or-"),
    }),
    prefixRule("stripe_api_key", "Stripe secret and restricted keys", ["sk_live_", "sk_test_", "rk_live_", "rk_test_"], isAlnum, between(20, MAX_VALUE_CHARS)),
    prefixRule("github_pat", "GitHub classic personal access tokens (ghp_)", ["ghp_"], isAlnum, between(36, 255)),
    prefixRule("github_oauth", "GitHub OAuth tokens (gho_)", ["gho_"], isAlnum, between(36, 255)),
    prefixRule("github_app_token", "GitHub app user/installation tokens (ghu_, ghs_)", ["ghu_", "ghs_"], isAlnum, between(36, 255)),
    prefixRule("github_refresh_token", "GitHub refresh tokens (ghr_)", ["ghr_"], isAlnum, between(36, 255)),
    prefixRule("github_fine_grained_pat", "GitHub fine-grained tokens (github_pat_)", ["github_pat_"], isWord, between(40, 255)),
    prefixRule(
      "gitlab_token",
      "GitLab tokens (glpat-, glptt-, gldt-, glrt-, glsoat-, glcbt-)",
      ["glpat-", "glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-"],
      isToken,
      between(20, 255),
    ),
    prefixRule(
      "aws_access_key_id",
      "AWS access key ids (AKIA…, ASIA…, …)",
      ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA"],
      isAlnum,
      exactly(16, isUpperOrDigit),
      isAlnum,
    ),
    prefixRule("google_api_key", "Google API keys (AIza…)", ["AIza"], isToken, exactly(35, isToken)),
    prefixRule("google_oauth_client_secret", "Google OAuth client secrets (GOCSPX-)", ["GOCSPX-"], isToken, between(24, 64)),
    prefixRule(
      "slack_token",
      "Slack bot/user/app tokens (xoxb-, xoxp-, xapp-, …)",
      ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xapp-"],
      isSlackBody,
      withDigit(20),
    ),
    prefixRule(
      "slack_webhook",
      "Slack incoming webhook URLs",
      ["https://hooks.slack.com/services/", "https://hooks.slack.com/workflows/", "https://hooks.slack.com/triggers/"],
      isUrlPathToken,
      withDigit(20),
    ),
    prefixRule(
      "discord_webhook",
      "Discord webhook URLs",
      [
        "https://discord.com/api/webhooks/",
        "https://discordapp.com/api/webhooks/",
        "https://ptb.discord.com/api/webhooks/",
        "https://canary.discord.com/api/webhooks/",
      ],
      isUrlPathToken,
      { min: 40, accept: (b) => b.includes("/") },
    ),
    prefixRule("npm_token", "npm access tokens (npm_)", ["npm_"], isAlnum, exactly(36, isAlnum)),
    prefixRule("pypi_token", "PyPI upload tokens", ["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"], isToken, between(40, MAX_VALUE_CHARS)),
    prefixRule("huggingface_token", "Hugging Face tokens (hf_)", ["hf_"], isAlnum, between(30, 40)),
    prefixRule("sendgrid_api_key", "SendGrid API keys (SG.x.y)", ["SG."], isDotToken, {
      min: 16 + 1 + 30,
      accept: (b) => {
        const parts = b.split(".");
        return parts.length === 2 && (parts[0]?.length ?? 0) >= 16 && (parts[1]?.length ?? 0) >= 30;
      },
    }),
    prefixRule("twilio_api_key", "Twilio API key SIDs (SK + 32 hex)", ["SK"], isAlnum, exactly(32, isHexLower), isWord),
    prefixRule("digitalocean_token", "DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_)", ["dop_v1_", "doo_v1_", "dor_v1_"], isAlnum, exactly(64, isHexLower)),
    prefixRule(
      "shopify_token",
      "Shopify access tokens (shpat_, shpss_, shpca_, shppa_)",
      ["shpat_", "shpss_", "shpca_", "shppa_"],
      isAlnum,
      exactly(32, isHexLower),
    ),
    prefixRule("docker_hub_pat", "Docker Hub personal access tokens (dckr_pat_)", ["dckr_pat_"], isToken, between(20, 255)),
    prefixRule("vault_token", "HashiCorp Vault service tokens (hvs.)", ["hvs."], isToken, withDigit(24)),
    prefixRule("google_oauth_access_token", "Google OAuth access tokens (ya29.)", ["ya29."], isToken, withDigit(30)),
    prefixRule("age_secret_key", "age encryption secret keys", ["AGE-SECRET-KEY-1"], isUpperOrDigit, between(50, 80)),
  ]),
  jwtRule(),
  telegramRule(),
  discordBotTokenRule(),
  bearerRule(),
  basicAuthRule(),
  urlCredentialsRule(),
  cookieRule(),
  cliRule(),
  netrcRule(),
  assignmentRule(),
];

/** Rule metadata for the README (id + description), in priority order. */
export const RULES: readonly SecretRule[] = RULE_IMPLS.flatMap((rule) => rule.members ?? [rule]).map(({ id, description }) => ({ id, description }));

/**
 * Every secret span in `text`, non-overlapping, sorted by start. Linear in `text.length` for a
 * fixed rule set; never throws.
 */
export function findSecrets(text: string): SecretSpan[] {
  if (text.length < 8) return []; // shorter than any rule's smallest match
  const marks: { covered: Uint8Array | null } = { covered: null }; // taken on the first span: most texts hold none
  const spans: SecretSpan[] = [];
  const emit: Emit = (start, end, rule) => {
    if (end <= start) return;
    const covered = (marks.covered ??= coverage(text.length));
    for (let i = start; i < end; i++) if (covered[i] === 1) return;
    for (let i = start; i < end; i++) covered[i] = 1; // spans are short: a loop beats fill's call cost
    spans.push({ start, end, rule });
  };
  for (const rule of RULE_IMPLS) rule.scan(text, emit);
  if (marks.covered === sharedCoverage) for (const span of spans) sharedCoverage.fill(0, span.start, span.end); // all zero again
  return spans.sort((a, b) => a.start - b.start);
}

/**
 * Texts up to this length mark their spans in one buffer kept between calls (cleared span by span
 * afterwards): a fresh zeroed megabyte per call, touched page by page, cost more than the scan of
 * a text with many secrets. findSecrets is synchronous and not re-entered, so one buffer suffices.
 */
const SHARED_COVERAGE_CHARS = 1 << 20;
let sharedCoverage = new Uint8Array(0);

function coverage(length: number): Uint8Array {
  if (length > SHARED_COVERAGE_CHARS) return new Uint8Array(length);
  if (sharedCoverage.length < length) sharedCoverage = new Uint8Array(Math.min(SHARED_COVERAGE_CHARS, Math.max(length, 2 * sharedCoverage.length)));
  return sharedCoverage;
}
