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

/** Longest value a context rule (assignment, flag, cookie, bearer) looks at. */
const MAX_VALUE_CHARS = 1024;
/** Longest key name an assignment may have. */
const MAX_KEY_CHARS = 64;

// ---------------------------------------------------------------------------------------------
// character classes (char codes)

type CharClass = (code: number) => boolean;

const isDigit: CharClass = (c) => c >= 48 && c <= 57;
const isUpper: CharClass = (c) => c >= 65 && c <= 90;
const isLower: CharClass = (c) => c >= 97 && c <= 122;
const isAlpha: CharClass = (c) => isUpper(c) || isLower(c);
const isAlnum: CharClass = (c) => isAlpha(c) || isDigit(c);
const isWord: CharClass = (c) => isAlnum(c) || c === 95; // [A-Za-z0-9_]
const isToken: CharClass = (c) => isWord(c) || c === 45; // [A-Za-z0-9_-]
const isDotToken: CharClass = (c) => isToken(c) || c === 46; // [A-Za-z0-9_.-]
const isUrlPathToken: CharClass = (c) => isToken(c) || c === 47; // [A-Za-z0-9_/-]
const isSlackBody: CharClass = (c) => isAlnum(c) || c === 45; // [A-Za-z0-9-]
const isBase64: CharClass = (c) => isAlnum(c) || c === 43 || c === 47 || c === 61; // [A-Za-z0-9+/=]
const isBearerChar: CharClass = (c) => isDotToken(c) || c === 126 || c === 43 || c === 47 || c === 61; // RFC 6750 b64token
const isKeyChar: CharClass = (c) => isDotToken(c); // assignment key names
const isBlank: CharClass = (c) => c === 32 || c === 9;
const isSpace: CharClass = (c) => c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;

function runEnd(text: string, from: number, cls: CharClass, limit = Number.POSITIVE_INFINITY): number {
  let i = from;
  const stop = Math.min(text.length, from + limit);
  while (i < stop && cls(text.charCodeAt(i))) i++;
  return i;
}

function allOf(text: string, start: number, end: number, cls: CharClass): boolean {
  for (let i = start; i < end; i++) if (!cls(text.charCodeAt(i))) return false;
  return true;
}

function someOf(text: string, cls: CharClass): boolean {
  for (let i = 0; i < text.length; i++) if (cls(text.charCodeAt(i))) return true;
  return false;
}

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

// ---------------------------------------------------------------------------------------------
// value plausibility shared by the context rules

const PLACEHOLDER_WORDS = ["your", "example", "placeholder", "changeme", "redacted", "xxxxxx", "<", ">", "..."];

function looksLikePlaceholder(value: string): boolean {
  const first = value.charCodeAt(0);
  // $VAR, ${…}, <…>, {{…}}, [REDACTED…], %(…)s, (…), *** and friends
  if (first === 36 || first === 60 || first === 123 || first === 91 || first === 37 || first === 40 || first === 42) return true;
  const lower = value.toLowerCase();
  if (lower.includes("://")) return true;
  return PLACEHOLDER_WORDS.some((word) => lower.includes(word));
}

/** A value that plausibly is a password, token or key: mixed letters and digits, not a placeholder. */
function isSecretValue(value: string, strict: boolean): boolean {
  const min = strict ? 16 : 8;
  if (value.length < min || value.length > MAX_VALUE_CHARS) return false;
  if (someOf(value, isSpace) || looksLikePlaceholder(value)) return false;
  if (!someOf(value, isDigit) || !someOf(value, isAlpha)) return false;
  return entropy(value) >= (strict ? 3.2 : 2.8);
}

// ---------------------------------------------------------------------------------------------
// key names

/** `apiKey`, `X-API-Key`, `spring.datasource.password` → lower-case segments split on `_`. */
export function keySegments(key: string): string[] {
  if (key.length > 256) return [];
  const snake = key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[-. ]/g, "_");
  return snake.split("_").filter((segment) => segment !== "");
}

const TEXT_KEY_STRONG_SEGMENTS: ReadonlySet<string> = new Set([
  "pwd", "pass", "token", "auth", "authorization", "apikey", "creds", "signature", "passphrase",
]);
const TEXT_KEY_STRONG_PARTS = ["password", "passwd", "secret", "credential"];
/** A key whose last segment is one of these names metadata about a secret, not the secret. */
const TEXT_KEY_EXCLUDED_LAST: ReadonlySet<string> = new Set([
  "url", "uri", "urls", "path", "paths", "file", "files", "filename", "dir", "length", "len", "size",
  "count", "type", "types", "id", "ids", "name", "names", "header", "headers", "env", "var", "field",
  "prefix", "suffix", "format", "expiry", "expires", "expiration", "ttl", "timeout", "seconds", "secs",
  "ms", "at", "endpoint", "version", "mode", "kind", "enabled", "required", "hint", "label", "policy",
  "tokens", "stdin", "stdout", "regex", "pattern", "host", "port", "user", "username", "email",
  "method", "scope", "scopes", "provider", "location", "tokenizer", "min", "max", "limit", "store",
]);

const strengthCache = new Map<string, KeyStrength>();

/** `strong`: a credential name; `keyish`: ends in `key` (value must look random); `none`. Memoized. */
export function textKeyStrength(key: string): KeyStrength {
  const cached = strengthCache.get(key);
  if (cached !== undefined) return cached;
  const strength = computeKeyStrength(key);
  if (strengthCache.size >= 4096) strengthCache.clear();
  strengthCache.set(key, strength);
  return strength;
}

type KeyStrength = "strong" | "keyish" | "none";

function computeKeyStrength(key: string): KeyStrength {
  if (!KEY_PREFILTER.test(key)) return "none";
  const segments = keySegments(key.replace(/^[^A-Za-z0-9]+/, ""));
  const last = segments[segments.length - 1];
  if (last === undefined || TEXT_KEY_EXCLUDED_LAST.has(last) || segments.includes("public")) return "none";
  for (const segment of segments) {
    if (TEXT_KEY_STRONG_SEGMENTS.has(segment)) return "strong";
    if (TEXT_KEY_STRONG_PARTS.some((part) => segment.includes(part))) return "strong";
    if (segment.endsWith("token") || segment.endsWith("apikey")) return "strong";
  }
  return last === "key" ? "keyish" : "none";
}

const KEY_PREFILTER = /pass|pwd|secret|token|key|auth|cred|signature/i;

// ---------------------------------------------------------------------------------------------
// scanner

type Emit = (start: number, end: number, rule: string) => void;

/** A global regex that finds any of `literals` (a plain alternation: linear, and faster than indexOf here). */
function literalFinder(literals: readonly string[]): RegExp {
  return new RegExp(literals.map((l) => l.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|"), "g");
}

/** Index of the next match of `finder` at or after `from`, or -1. */
function nextIndex(finder: RegExp, text: string, from: number): number {
  finder.lastIndex = from;
  const match = finder.exec(text);
  return match === null ? -1 : match.index;
}

interface RuleImpl extends SecretRule {
  scan(text: string, emit: Emit): void;
}

/** A vendor token: a literal prefix, then a body of one character class with a length check. */
function prefixRule(
  id: string,
  description: string,
  prefixes: readonly string[],
  body: CharClass,
  accept: (bodyText: string) => boolean,
  leftBoundary: CharClass = isWord,
): RuleImpl {
  const finder = literalFinder(prefixes);
  return {
    id,
    description,
    scan(text, emit) {
      finder.lastIndex = 0;
      let match = finder.exec(text);
      while (match !== null) {
        const at = match.index;
        let resume = at + 1;
        if (at === 0 || !leftBoundary(text.charCodeAt(at - 1))) {
          const bodyStart = at + match[0].length;
          const end = runEnd(text, bodyStart, body);
          if (accept(text.slice(bodyStart, end))) emit(at, end, id);
          resume = Math.max(end, resume);
        }
        finder.lastIndex = resume;
        match = finder.exec(text);
      }
    },
  };
}

const exactly = (n: number, cls: CharClass) => (b: string) => b.length === n && allOf(b, 0, b.length, cls);
const between = (min: number, max: number) => (b: string) => b.length >= min && b.length <= max;
const isHexLower: CharClass = (c) => isDigit(c) || (c >= 97 && c <= 102);
const isUpperOrDigit: CharClass = (c) => isUpper(c) || isDigit(c);
const withDigit = (min: number) => (b: string) => b.length >= min && b.length <= MAX_VALUE_CHARS && someOf(b, isDigit);

function privateKeyRule(): RuleImpl {
  const id = "private_key";
  const finder = literalFinder(["-----BEGIN "]);
  return {
    id,
    description: "PEM/OpenSSH/PGP private key blocks, BEGIN to END (or to the end of the text when END is missing)",
    scan(text, emit) {
      const marker = "-----BEGIN ";
      let at = nextIndex(finder, text, 0);
      while (at !== -1) {
        const labelStart = at + marker.length;
        const labelEnd = text.indexOf("-----", labelStart);
        const label = labelEnd === -1 || labelEnd - labelStart > 64 ? "" : text.slice(labelStart, labelEnd);
        if (!label.includes("PRIVATE KEY")) {
          at = nextIndex(finder, text, at + 1);
          continue;
        }
        const endMarker = `-----END ${label}-----`;
        const endAt = text.indexOf(endMarker, labelEnd + 5);
        const end = endAt === -1 ? text.length : endAt + endMarker.length;
        emit(at, end, id);
        at = nextIndex(finder, text, end);
      }
    },
  };
}

function jwtRule(): RuleImpl {
  const id = "jwt";
  const finder = literalFinder(["eyJ"]);
  return {
    id,
    description: "JSON Web Tokens: three or more base64url segments, the first starting with eyJ",
    scan(text, emit) {
      let at = nextIndex(finder, text, 0);
      while (at !== -1) {
        if (at > 0 && isToken(text.charCodeAt(at - 1))) {
          at = nextIndex(finder, text, at + 1);
          continue;
        }
        const end = runEnd(text, at, isDotToken);
        const segments = text.slice(at, end).split(".");
        while (segments.length > 0 && segments[segments.length - 1] === "") segments.pop();
        const ok = segments.length >= 3 && segments.length <= 5 && segments.every((s) => s.length >= 8);
        if (ok) emit(at, at + segments.join(".").length, id);
        at = nextIndex(finder, text, Math.max(end, at + 1));
      }
    },
  };
}

function telegramRule(): RuleImpl {
  const id = "telegram_bot_token";
  const finder = literalFinder([":AA"]);
  return {
    id,
    description: "Telegram bot tokens: <bot id>:AA<base64url>",
    scan(text, emit) {
      let at = nextIndex(finder, text, 0);
      while (at !== -1) {
        let start = at;
        while (start > 0 && at - start < 12 && isDigit(text.charCodeAt(start - 1))) start--;
        const digits = at - start;
        const leftOk = start === 0 || !isDigit(text.charCodeAt(start - 1));
        const end = runEnd(text, at + 1, isToken);
        if (digits >= 6 && leftOk && end - (at + 1) >= 30 && end - (at + 1) <= 40) emit(start, end, id);
        at = nextIndex(finder, text, Math.max(end, at + 1));
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
        if (index > 0 && isAlpha(text.charCodeAt(index - 1))) return index + 6;
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
        if (index > 0 && isAlpha(text.charCodeAt(index - 1))) return index + 5;
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

const URL_USERINFO_STOP: CharClass = (c) =>
  c === 64 || c === 47 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96 || isSpace(c);

function urlCredentialsRule(): RuleImpl {
  const id = "url_credentials";
  const finder = literalFinder(["://"]);
  return {
    id,
    description: "The password in scheme://user:password@host URLs and connection strings",
    scan(text, emit) {
      let at = nextIndex(finder, text, 0);
      while (at !== -1) {
        const start = at + 3;
        let i = start;
        const stop = Math.min(text.length, start + 512);
        while (i < stop && !URL_USERINFO_STOP(text.charCodeAt(i))) i++;
        if (i < text.length && text.charCodeAt(i) === 64) {
          const colon = text.indexOf(":", start);
          if (colon !== -1 && colon < i && !text.slice(start, i).includes("[REDACTED:")) {
            const password = text.slice(colon + 1, i);
            if (password.length >= 3 && !looksLikePlaceholder(password)) emit(colon + 1, i, id);
          }
        }
        at = nextIndex(finder, text, Math.max(i, at + 1));
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
          const nameEnd = runEnd(text, i, (c) => c !== 61 && c !== 59 && c !== 34 && c !== 39 && !isSpace(c), 128);
          if (text.charCodeAt(nameEnd) !== 61) {
            i = nameEnd;
          } else {
            const valueStart = nameEnd + 1;
            i = runEnd(text, valueStart, (c) => c !== 59 && c !== 34 && c !== 39 && c !== 92 && !isSpace(c), MAX_VALUE_CHARS + 1);
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
function readValue(text: string, from: number, bareStop: (c: number) => boolean): { start: number; end: number } | null {
  const first = text.charCodeAt(from);
  if (first === 34 || first === 39 || first === 96) {
    const start = from + 1;
    const end = runEnd(text, start, (c) => c !== first && c !== 10, MAX_VALUE_CHARS + 1);
    if (text.charCodeAt(end) !== first) return null;
    return { start, end };
  }
  const end = runEnd(text, from, (c) => !bareStop(c), MAX_VALUE_CHARS + 1);
  return end > from ? { start: from, end } : null;
}

const FLAG_LONG = /(?:^|[\s"'(])--([A-Za-z][A-Za-z0-9_-]{0,39})(?=[=\s"']|$)/g;
const FLAG_P = /(?:^|\s)-p/g;
const isBareFlagValueStop: CharClass = (c) => isSpace(c) || c === 34 || c === 39 || c === 92;

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
      forEachMatch(text, FLAG_LONG, (match) => {
        const name = match[1];
        if (name === undefined) return match.index + 1;
        const after = match.index + match[0].length;
        const strength = textKeyStrength(name);
        if (strength === "none") return after;
        const valueFrom = text.charCodeAt(after) === 61 ? after + 1 : runEnd(text, after, isBlank, 4);
        if (valueFrom === after && text.charCodeAt(after) !== 61) return after;
        const value = readValue(text, valueFrom, isBareFlagValueStop);
        if (value !== null && isSecretValue(text.slice(value.start, value.end), strength === "keyish")) {
          emit(value.start, value.end, id);
          return value.end;
        }
        return after;
      });
      forEachWord(text, FLAG_P, (index) => {
        const flagEnd = text.indexOf("-p", index) + 2;
        const line = lineBefore(text, index);
        const userGiven = / -u\b|--user\b|--username\b|sshpass/.test(line);
        const separate = isBlank(text.charCodeAt(flagEnd));
        const valueFrom = separate ? runEnd(text, flagEnd, isBlank, 4) : flagEnd;
        const value = readValue(text, valueFrom, isBareFlagValueStop);
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

const KEY_HINTS = /pass|pwd|secret|token|key|auth|cred|signature|value/gi;
const XML_KEY_BEFORE = /(?:key|name)["']?\s*[=:]\s*["']([A-Za-z0-9_.-]{1,64})["']\s*,?\s*["']?$/i;
const isAssignmentStop: CharClass = (c) =>
  isSpace(c) || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 38 || c === 40 || c === 41 ||
  c === 91 || c === 93 || c === 123 || c === 125 || c === 60 || c === 62 || c === 92;

/**
 * `key = value`, `key: value`, `"key": "value"`, `key := value`, `key => value`, and XML/JSON
 * `key="X" value="…"` pairs, where the key names a credential. Driven by the separators, each
 * examined once with a bounded look-back, so the whole pass is linear.
 */
function assignmentRule(): RuleImpl {
  const id = "generic_assignment";
  return {
    id,
    description: "High-entropy values assigned to credential-named keys (password, secret, token, api_key, *_key, …)",
    scan(text, emit) {
      // Positions of words a credential key must contain; separators whose key holds none are
      // skipped without slicing (most `=` and `:` in code and JSON).
      const hints: number[] = [];
      KEY_HINTS.lastIndex = 0;
      for (let m = KEY_HINTS.exec(text); m !== null; m = KEY_HINTS.exec(text)) hints.push(m.index);
      if (hints.length === 0) return;
      let hint = 0;
      const length = text.length;
      for (let i = 0; i < length; i++) {
        const sep = text.charCodeAt(i);
        if (sep !== 61 && sep !== 58) continue;
        let j = i - 1;
        while (j >= 0 && i - j <= 4 && isBlank(text.charCodeAt(j))) j--;
        const closing = j >= 0 ? text.charCodeAt(j) : 0;
        const quotedKey = closing === 34 || closing === 39;
        if (quotedKey) j--;
        const keyEnd = j + 1;
        while (j >= 0 && keyEnd - j <= MAX_KEY_CHARS && isKeyChar(text.charCodeAt(j))) j--;
        const keyStart = j + 1;
        if (keyStart === keyEnd || (j >= 0 && isKeyChar(text.charCodeAt(j)))) continue;
        while (hint < hints.length && hints[hint]! < keyStart) hint++;
        if (hint >= hints.length) break;
        if (hints[hint]! >= keyEnd) continue;
        const key = text.slice(keyStart, keyEnd);
        let strength = textKeyStrength(key);
        if (strength === "none" && key.toLowerCase() === "value") {
          const named = XML_KEY_BEFORE.exec(text.slice(Math.max(0, keyStart - 96), keyStart));
          if (named?.[1] !== undefined) strength = textKeyStrength(named[1]);
        }
        if (strength === "none") continue;
        let v = i + 1;
        const next = text.charCodeAt(v);
        if (sep === 58 && (next === 47 || next === 58)) continue; // scheme:// or ::
        if (sep === 61 && next === 61) continue; // comparison ==
        if (next === 61 || next === 62) v++; // := and =>
        v = runEnd(text, v, isBlank, 8);
        const value = readValue(text, v, isAssignmentStop);
        if (value === null) continue;
        if (isSecretValue(text.slice(value.start, value.end), strength === "keyish")) {
          emit(value.start, value.end, id);
          i = Math.max(i, value.end - 1);
        } else if (value.end - value.start > MAX_VALUE_CHARS) {
          i = Math.max(i, value.end - 1);
        }
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the rule set, in priority order: when spans overlap, the earlier rule wins

const RULE_IMPLS: readonly RuleImpl[] = [
  privateKeyRule(),
  prefixRule("anthropic_api_key", "Anthropic API keys (sk-ant-…)", ["sk-ant-"], isToken, between(32, MAX_VALUE_CHARS)),
  prefixRule("openrouter_api_key", "OpenRouter API keys (sk-or-v1-…)", ["sk-or-"], isToken, between(32, MAX_VALUE_CHARS)),
  prefixRule("openai_api_key", "OpenAI-style API keys (sk-proj-…, sk-svcacct-…, sk-… with digits)", ["sk-"], isToken, (b) =>
    !b.startsWith("ant-") && !b.startsWith("or-") && withDigit(20)(b) && someOf(b, isAlpha)),
  prefixRule("stripe_api_key", "Stripe secret and restricted keys", ["sk_live_", "sk_test_", "rk_live_", "rk_test_"], isAlnum, between(20, MAX_VALUE_CHARS)),
  prefixRule("github_pat", "GitHub classic personal access tokens (ghp_)", ["ghp_"], isAlnum, between(36, 255)),
  prefixRule("github_oauth", "GitHub OAuth tokens (gho_)", ["gho_"], isAlnum, between(36, 255)),
  prefixRule("github_app_token", "GitHub app user/installation tokens (ghu_, ghs_)", ["ghu_", "ghs_"], isAlnum, between(36, 255)),
  prefixRule("github_refresh_token", "GitHub refresh tokens (ghr_)", ["ghr_"], isAlnum, between(36, 255)),
  prefixRule("github_fine_grained_pat", "GitHub fine-grained tokens (github_pat_)", ["github_pat_"], isWord, between(40, 255)),
  prefixRule("gitlab_token", "GitLab tokens (glpat-, glptt-, gldt-, glrt-, glsoat-, glcbt-)", ["glpat-", "glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-"], isToken, between(20, 255)),
  prefixRule("aws_access_key_id", "AWS access key ids (AKIA…, ASIA…, …)", ["AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA", "ANPA", "ANVA", "AROA", "APKA", "ASCA"], isAlnum, exactly(16, isUpperOrDigit), isAlnum),
  prefixRule("google_api_key", "Google API keys (AIza…)", ["AIza"], isToken, exactly(35, isToken)),
  prefixRule("google_oauth_client_secret", "Google OAuth client secrets (GOCSPX-)", ["GOCSPX-"], isToken, between(24, 64)),
  prefixRule("slack_token", "Slack bot/user/app tokens (xoxb-, xoxp-, xapp-, …)", ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxe-", "xapp-"], isSlackBody, withDigit(20)),
  prefixRule("slack_webhook", "Slack incoming webhook URLs", ["https://hooks.slack.com/services/", "https://hooks.slack.com/workflows/", "https://hooks.slack.com/triggers/"], isUrlPathToken, withDigit(20)),
  prefixRule("discord_webhook", "Discord webhook URLs", ["https://discord.com/api/webhooks/", "https://discordapp.com/api/webhooks/", "https://ptb.discord.com/api/webhooks/", "https://canary.discord.com/api/webhooks/"], isUrlPathToken, (b) => b.length >= 40 && b.includes("/")),
  prefixRule("npm_token", "npm access tokens (npm_)", ["npm_"], isAlnum, exactly(36, isAlnum)),
  prefixRule("pypi_token", "PyPI upload tokens", ["pypi-AgEIcHlwaS5vcmc", "pypi-AgENdGVzdC5weXBpLm9yZw"], isToken, between(40, MAX_VALUE_CHARS)),
  prefixRule("huggingface_token", "Hugging Face tokens (hf_)", ["hf_"], isAlnum, between(30, 40)),
  prefixRule("sendgrid_api_key", "SendGrid API keys (SG.x.y)", ["SG."], isDotToken, (b) => {
    const parts = b.split(".");
    return parts.length === 2 && (parts[0]?.length ?? 0) >= 16 && (parts[1]?.length ?? 0) >= 30;
  }),
  prefixRule("twilio_api_key", "Twilio API key SIDs (SK + 32 hex)", ["SK"], isAlnum, exactly(32, isHexLower), isWord),
  prefixRule("digitalocean_token", "DigitalOcean tokens (dop_v1_, doo_v1_, dor_v1_)", ["dop_v1_", "doo_v1_", "dor_v1_"], isAlnum, exactly(64, isHexLower)),
  prefixRule("shopify_token", "Shopify access tokens (shpat_, shpss_, shpca_, shppa_)", ["shpat_", "shpss_", "shpca_", "shppa_"], isAlnum, exactly(32, isHexLower)),
  prefixRule("docker_hub_pat", "Docker Hub personal access tokens (dckr_pat_)", ["dckr_pat_"], isToken, between(20, 255)),
  prefixRule("vault_token", "HashiCorp Vault service tokens (hvs.)", ["hvs."], isToken, withDigit(24)),
  prefixRule("google_oauth_access_token", "Google OAuth access tokens (ya29.)", ["ya29."], isToken, withDigit(30)),
  prefixRule("age_secret_key", "age encryption secret keys", ["AGE-SECRET-KEY-1"], isUpperOrDigit, between(50, 80)),
  jwtRule(),
  telegramRule(),
  bearerRule(),
  basicAuthRule(),
  urlCredentialsRule(),
  cookieRule(),
  cliRule(),
  assignmentRule(),
];

/** Rule metadata for the README (id + description), in priority order. */
export const RULES: readonly SecretRule[] = RULE_IMPLS.map(({ id, description }) => ({ id, description }));

/**
 * Every secret span in `text`, non-overlapping, sorted by start. Linear in `text.length` for a
 * fixed rule set; never throws.
 */
export function findSecrets(text: string): SecretSpan[] {
  if (text.length < 8) return []; // shorter than any rule's smallest match
  const covered = new Uint8Array(text.length);
  const spans: SecretSpan[] = [];
  for (const rule of RULE_IMPLS) {
    rule.scan(text, (start, end, ruleId) => {
      if (end <= start) return;
      for (let i = start; i < end; i++) if (covered[i] === 1) return;
      covered.fill(1, start, end);
      spans.push({ start, end, rule: ruleId });
    });
  }
  return spans.sort((a, b) => a.start - b.start);
}
