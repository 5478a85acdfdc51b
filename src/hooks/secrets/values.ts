/**
 * What the secret detector's context rules (secret-rules.ts) ask of a candidate: is this value
 * plausibly a credential (length, letters and digits, no placeholder, entropy), and does this key
 * name one. Pure functions; the key verdicts are memoized because keys repeat a lot.
 */
import { HAS_ALPHA, HAS_DIGIT, HAS_SPACE, kindsOf } from "./scan.ts";

/** Longest value a context rule (assignment, flag, cookie, bearer) looks at. */
export const MAX_VALUE_CHARS = 1024;

/** Shannon entropy in bits per character. */
export function entropy(text: string): number {
  if (text.length === 0) return 0;
  return asciiEntropy(text) ?? mapEntropy(text);
}

/** Per-character counts for ASCII text, reused between calls (reset through `seen`). */
const asciiCounts = new Int32Array(128);

/**
 * The same sum as mapEntropy, in the same order (first occurrence), so the result is bit-identical;
 * null when the text is not all ASCII. A Map per call costs more than the rest of a rule's check.
 */
function asciiEntropy(text: string): number | null {
  const seen: number[] = [];
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128) {
      ascii = false;
      break;
    }
    if (asciiCounts[c] === 0) seen.push(c);
    asciiCounts[c]! += 1;
  }
  let bits = 0;
  for (const c of seen) {
    const p = asciiCounts[c]! / text.length;
    bits -= p * Math.log2(p);
    asciiCounts[c] = 0;
  }
  return ascii ? bits : null;
}

function mapEntropy(text: string): number {
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

/**
 * `://` and the placeholder words (your, example, placeholder, changeme, redacted, xxxxxx, <, >,
 * ...) in any case, in one native pass: the same answer as lower-casing the value and searching
 * for each word (no character outside ASCII lower-cases to a letter of these words), without the
 * copy and the ten searches per candidate value.
 */
const PLACEHOLDER_TEXT = /:\/\/|your|example|placeholder|changeme|redacted|xxxxxx|<|>|\.\.\./i;

export function looksLikePlaceholder(value: string): boolean {
  const first = value.charCodeAt(0);
  // $VAR, ${…}, <…>, {{…}}, [REDACTED…], %(…)s, (…), *** and friends
  if (first === 36 || first === 60 || first === 123 || first === 91 || first === 37 || first === 40 || first === 42) return true;
  return PLACEHOLDER_TEXT.test(value);
}

/** A value that plausibly is a password, token or key: mixed letters and digits, not a placeholder. */
export function isSecretValue(value: string, strict: boolean): boolean {
  const min = strict ? 16 : 8;
  if (value.length < min || value.length > MAX_VALUE_CHARS) return false;
  // Cheapest tests first (all are pure, so the order does not change the answer).
  const kinds = kindsOf(value);
  if ((kinds & (HAS_DIGIT | HAS_ALPHA)) !== (HAS_DIGIT | HAS_ALPHA) || (kinds & HAS_SPACE) !== 0) return false;
  if (looksLikePlaceholder(value)) return false;
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

const TEXT_KEY_STRONG_SEGMENTS: ReadonlySet<string> = new Set(["pwd", "pass", "token", "auth", "authorization", "apikey", "creds", "signature", "passphrase"]);
const TEXT_KEY_STRONG_PARTS = ["password", "passwd", "secret", "credential"];
/** A key whose last segment is one of these names metadata about a secret, not the secret. */
const TEXT_KEY_EXCLUDED_LAST: ReadonlySet<string> = new Set([
  "url",
  "uri",
  "urls",
  "path",
  "paths",
  "file",
  "files",
  "filename",
  "dir",
  "length",
  "len",
  "size",
  "count",
  "type",
  "types",
  "id",
  "ids",
  "name",
  "names",
  "header",
  "headers",
  "env",
  "var",
  "field",
  "prefix",
  "suffix",
  "format",
  "expiry",
  "expires",
  "expiration",
  "ttl",
  "timeout",
  "seconds",
  "secs",
  "ms",
  "at",
  "endpoint",
  "version",
  "mode",
  "kind",
  "enabled",
  "required",
  "hint",
  "label",
  "policy",
  "tokens",
  "stdin",
  "stdout",
  "regex",
  "pattern",
  "host",
  "port",
  "user",
  "username",
  "email",
  "method",
  "scope",
  "scopes",
  "provider",
  "location",
  "tokenizer",
  "min",
  "max",
  "limit",
  "store",
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

export type KeyStrength = "strong" | "keyish" | "none";

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
