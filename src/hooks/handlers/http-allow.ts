/**
 * The user's `hooks.http_allow` patterns: which URLs an http hook may POST to.
 * A pattern is `scheme://host[:port][/path]` where `*` in the host or port matches within that part
 * only (never across `/`, `:` or `@`), `*` in the path matches anything, and a pattern without a
 * path allows every path. URLs are compared in one normal form with an explicit port, so
 * `https://h/x` and `https://h:443/x` are the same URL, and a URL with user info is never allowed
 * (it would carry a credential, and `http://127.0.0.1:x@evil/` must not pass as 127.0.0.1).
 */

const PATTERN = /^(https?):\/\/([^/?#]+)(\/.*)?$/;

function defaultPort(scheme: string): string {
  return scheme === "https" ? "443" : "80";
}

function escapeRegex(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

/** Why `pattern` is not a valid allow pattern, or null. */
export function allowPatternProblem(pattern: string): string | null {
  const match = PATTERN.exec(pattern);
  if (match === null) return `${JSON.stringify(pattern)} is not a URL pattern (expected e.g. "https://hooks.example.com/*" or "http://127.0.0.1:*")`;
  if (match[2]?.includes("@")) return `${JSON.stringify(pattern)} must not contain user info (user@host)`;
  return null;
}

function compile(pattern: string): RegExp | null {
  const match = PATTERN.exec(pattern);
  if (match === null || match[2]?.includes("@")) return null;
  const scheme = match[1] ?? "http";
  const authority = (match[2] ?? "").toLowerCase();
  const colon = authority.lastIndexOf(":");
  const hasPort = colon > authority.lastIndexOf("]") && colon >= 0;
  const host = hasPort ? authority.slice(0, colon) : authority;
  const port = hasPort ? authority.slice(colon + 1) : defaultPort(scheme);
  const part = (text: string, star: string): string => text.split("*").map(escapeRegex).join(star);
  const path = match[3] === undefined ? "(?:[/?#].*)?" : part(match[3], ".*");
  return new RegExp(`^${scheme}://${part(host, "[^/?#@:]*")}:${part(port, "[0-9]*")}${path}$`);
}

/** `scheme://host:port/path?query` with the port always written; null for non-http(s) or user info. */
export function normalUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username !== "" || url.password !== "") return null;
  const scheme = url.protocol.slice(0, -1);
  return `${scheme}://${url.hostname}:${url.port || defaultPort(scheme)}${url.pathname}${url.search}`;
}

/** Does any pattern allow `raw`? */
export function urlAllowed(raw: string, patterns: readonly string[]): boolean {
  const normal = normalUrl(raw);
  if (normal === null) return false;
  return patterns.some((pattern) => compile(pattern)?.test(normal) === true);
}
