/**
 * The envelope's redacted payload mode (seed 003, D14, D16, D16b, D18): key rules replace whole
 * values, long strings become `truncated` markers, and the substring detector of secret-rules.ts
 * replaces credential spans inside the remaining strings and object keys. It works on the parsed
 * value tree, never on serialized JSON (SEC-16), with an explicit stack (10,000-deep input, SEC-19).
 * Pure and total: never throws, never mutates its input.
 */
import { findSecrets, keySegments } from "./rules.ts";

export { RULES } from "./rules.ts";

/** A string leaf longer than this (UTF-8 bytes) that survives key redaction is truncated (D14). */
export const REDACT_STRING_MAX_BYTES = 64 * 1024;
/** Stripped env values shorter than this are not used as needles (D18, SEC-18). */
export const ENV_NEEDLE_MIN_CHARS = 8;

export type RedactionKind = "command" | "content" | "output" | "credential" | "truncated";

export interface RedactionMarker {
  readonly redacted: true;
  readonly kind: RedactionKind;
  readonly bytes: number;
}

const KIND_BY_KEY: ReadonlyMap<string, RedactionKind> = new Map<string, RedactionKind>([
  ["command", "command"],
  ["cmd", "command"],
  ["content", "content"],
  ["input", "content"],
  ["old_string", "content"],
  ["new_string", "content"],
  ["stdout", "output"],
  ["stderr", "output"],
  ["output", "output"],
  // The Claude-shaped tool_response (src/hooks/dialects/claude-tool-response.ts) carries file text
  // under its own names: Write/Edit `originalFile`, `oldString`/`newString` and the hunks' `lines`.
  ["original_file", "content"],
  ["lines", "content"],
]);

/** The marker kind of a key, compared in its normal form (`oldString` and `old_string` alike). */
function kindOfKey(key: string): RedactionKind | undefined {
  const direct = KIND_BY_KEY.get(key);
  if (direct !== undefined) return direct;
  return KIND_BY_KEY.get(keySegments(key).join("_"));
}

const CREDENTIAL_SEGMENTS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "tokens",
  "apikey",
  "auth",
  "authorization",
  "cookie",
  "credential",
  "credentials",
  "creds",
  "signature",
]);
const CREDENTIAL_PAIRS: readonly (readonly string[])[] = [
  ["api", "key"],
  ["access", "key"],
  ["secret", "key"],
  ["private", "key"],
  ["client", "secret"],
  ["set", "cookie"],
  ["session", "key"],
  ["x", "api", "key"],
  ["account", "id"],
  ["account", "number"],
  ["aws", "account", "id"],
];
const KEPT_LAST_SEGMENTS: ReadonlySet<string> = new Set(["tokens", "length", "size", "url", "path", "file"]);
const KEPT_KEYS: ReadonlySet<string> = new Set(["token_type", "token_count", "tokenizer", "public_key", "author"]);

function containsRun(segments: readonly string[], run: readonly string[]): boolean {
  outer: for (let i = 0; i + run.length <= segments.length; i++) {
    for (let j = 0; j < run.length; j++) if (segments[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}

/** D16b: does this object key name a credential? (`max_tokens`, `public_key`, `author` do not.) */
export function isCredentialKey(key: string): boolean {
  const segments = keySegments(key);
  const joined = segments.join("_");
  const last = segments[segments.length - 1];
  if (last === undefined || KEPT_KEYS.has(joined) || KEPT_LAST_SEGMENTS.has(last) || joined.startsWith("keyboard")) return false;
  if (segments.some((segment) => CREDENTIAL_SEGMENTS.has(segment))) return true;
  return CREDENTIAL_PAIRS.some((run) => containsRun(segments, run));
}

/** UTF-8 byte length without allocating (lone surrogates count 3, as U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function base64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += BASE64_ALPHABET[a >> 2]!;
    out += BASE64_ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)]!;
    out += b === undefined ? "=" : BASE64_ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)]!;
    out += c === undefined ? "=" : BASE64_ALPHABET[c & 63]!;
  }
  return out;
}

/** Needles for `[REDACTED:env]`: each value of ≥ 8 chars, its base64 and unpadded base64, longest first. */
export function envNeedles(envValues: readonly string[]): string[] {
  const needles = new Set<string>();
  for (const value of envValues) {
    if (value.length < ENV_NEEDLE_MIN_CHARS) continue;
    needles.add(value);
    const encoded = base64(new TextEncoder().encode(value));
    needles.add(encoded);
    needles.add(encoded.replace(/=+$/, ""));
  }
  return [...needles].filter((needle) => needle.length >= ENV_NEEDLE_MIN_CHARS).sort((a, b) => b.length - a.length);
}

function replaceNeedles(text: string, needles: readonly string[]): string {
  let out = text;
  for (const needle of needles) if (out.includes(needle)) out = out.split(needle).join("[REDACTED:env]");
  return out;
}

/**
 * Replaces stripped env values (and their base64 forms) with `[REDACTED:env]`, then every span the
 * detector finds with `[REDACTED:<rule-id>]`. Idempotent; linear time.
 */
export function redactText(text: string, envValues: readonly string[] = []): string {
  return redactWithNeedles(text, envNeedles(envValues));
}

function redactWithNeedles(text: string, needles: readonly string[]): string {
  const withoutEnv = needles.length === 0 ? text : replaceNeedles(text, needles);
  const spans = findSecrets(withoutEnv);
  if (spans.length === 0) return withoutEnv;
  const parts: string[] = [];
  let cursor = 0;
  for (const span of spans) {
    parts.push(withoutEnv.slice(cursor, span.start), `[REDACTED:${span.rule}]`);
    cursor = span.end;
  }
  parts.push(withoutEnv.slice(cursor));
  return parts.join("");
}

/** Compact JSON text length in UTF-8 bytes, iteratively (deep values must not overflow the stack). */
export function jsonByteLength(value: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      bytes += 2 + Math.max(0, item.length - 1);
      for (const element of item) stack.push(element === undefined || typeof element === "function" ? null : element);
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item).filter(([, v]) => v !== undefined && typeof v !== "function");
      bytes += 2 + Math.max(0, entries.length - 1);
      for (const [key, child] of entries) {
        bytes += utf8Length(JSON.stringify(key)) + 1;
        stack.push(child);
      }
    } else {
      bytes += utf8Length(JSON.stringify(item) ?? "null");
    }
  }
  return bytes;
}

const keyCache = new Map<string, string>();

/** Object keys repeat a lot (arrays of records); their redaction is memoized. */
function redactKey(key: string): string {
  const cached = keyCache.get(key);
  if (cached !== undefined) return cached;
  const safe = redactWithNeedles(key, []);
  if (keyCache.size >= 4096) keyCache.clear();
  keyCache.set(key, safe);
  return safe;
}

function marker(kind: RedactionKind, value: unknown): RedactionMarker {
  const bytes = typeof value === "string" ? utf8Length(value) : jsonByteLength(value);
  return { redacted: true, kind, bytes };
}

function redactLeafString(text: string, needles: readonly string[]): string | RedactionMarker {
  const bytes = utf8Length(text);
  if (bytes > REDACT_STRING_MAX_BYTES) return { redacted: true, kind: "truncated", bytes };
  return redactWithNeedles(text, needles);
}

interface Task {
  readonly source: unknown;
  readonly assign: (value: unknown) => void;
}

/**
 * The redacted copy of a request or result tree: key rules at any depth, then truncation and the
 * substring detector on string leaves and on object keys. Other scalars are kept.
 */
export function redactPayload(value: unknown, options: { envValues: readonly string[] }): unknown {
  const needles = envNeedles(options.envValues);
  let root: unknown = null;
  const stack: Task[] = [{ source: value, assign: (v) => (root = v) }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    const source = task.source;
    let result: unknown;
    if (typeof source === "string") {
      result = redactLeafString(source, needles);
    } else if (Array.isArray(source)) {
      const copy: unknown[] = new Array<unknown>(source.length).fill(null);
      for (let i = source.length - 1; i >= 0; i--) stack.push({ source: source[i], assign: (v) => (copy[i] = v) });
      result = copy;
    } else if (source !== null && typeof source === "object") {
      const copy: Record<string, unknown> = {};
      const pending: Task[] = [];
      for (const [key, child] of Object.entries(source)) {
        if (child === undefined || typeof child === "function") continue;
        const kind = kindOfKey(key) ?? (isCredentialKey(key) ? "credential" : undefined);
        const safeKey = needles.length === 0 ? redactKey(key) : redactWithNeedles(key, needles);
        if (kind !== undefined) {
          copy[safeKey] = marker(kind, child);
        } else {
          copy[safeKey] = null; // keeps key order; filled when the child task runs
          pending.push({ source: child, assign: (v) => (copy[safeKey] = v) });
        }
      }
      for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i]!);
      result = copy;
    } else {
      result = source === undefined ? null : source;
    }
    task.assign(result);
  }
  return root;
}
