/**
 * `web_fetch`: one http(s) page as text. Off unless the user's own config lists hosts in
 * `tools.web_fetch.allow` (a project cannot enable or widen it, and an air-gapped default never
 * reaches the network). Every URL, and every redirect (followed by hand, at most
 * WEB_FETCH_MAX_REDIRECTS), must name an allowed host; user info in a URL is refused. The body is
 * read up to WEB_FETCH_MAX_BYTES within WEB_FETCH_TIMEOUT_MS; HTML becomes text (html-text.ts),
 * other text types are returned as they are, binary types (images, PDFs, archives) are refused.
 */
import type { ToolContext, ToolResult, WebFetchSettings } from "./types.ts";
import { defineTool } from "./define-tool.ts";
import { webFetchInputSchema, type WebFetchInput } from "./schemas.ts";
import { describeError, failure, joinCapped, looksBinary } from "./output.ts";
import { htmlToText } from "./html-text.ts";
import { mediaKind } from "./media.ts";

export const WEB_FETCH_MAX_BYTES = 5 * 1024 * 1024;
export const WEB_FETCH_TIMEOUT_MS = 30_000;
export const WEB_FETCH_MAX_REDIRECTS = 5;

/** `docs.example.com`, `*.example.com` (subdomains only) or `host:port`; why `entry` is not one, or null. */
export function hostPatternProblem(entry: string): string | null {
  if (/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/i.test(entry)) return null;
  if (/^\[[0-9a-f:.]+\](:\d{1,5})?$/i.test(entry)) return null;
  return `${JSON.stringify(entry)} is not a host (write it like "docs.example.com", "*.example.com" or "127.0.0.1:8080", without scheme or path)`;
}

/** Does the allowlist name `url`'s host (and port, when the entry gives one)? */
export function hostAllowed(url: URL, allow: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return allow.some((raw) => {
    const entry = raw.toLowerCase();
    const split = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
    const name = split?.[1] ?? entry;
    if (split?.[2] !== undefined && split[2] !== port) return false;
    if (name.startsWith("*.")) return host.endsWith(name.slice(1)) && host.length > name.length - 1;
    return host === name;
  });
}

type Checked = { ok: true; url: URL } | { ok: false; message: string };

function checkUrl(raw: string, settings: WebFetchSettings): Checked {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: `not a URL: ${raw}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, message: `only http and https URLs can be fetched, not ${url.protocol}` };
  if (url.username !== "" || url.password !== "") return { ok: false, message: "a URL with user info (user:password@host) is refused" };
  if (!hostAllowed(url, settings.allow)) {
    return {
      ok: false,
      message: `${url.host} is not in tools.web_fetch.allow (${JSON.stringify(settings.allow)}); the user can add it in ~/.agent/config.toml`,
    };
  }
  return { ok: true, url };
}

const BINARY_TYPE = /^(image|audio|video|font)\/|^application\/(pdf|zip|gzip|x-tar|x-7z|octet-stream|wasm|vnd\.)/i;

async function readCapped(response: Response): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { bytes: new Uint8Array(), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = WEB_FETCH_MAX_BYTES - size;
    chunks.push(value.byteLength <= room ? value : value.subarray(0, room));
    size += Math.min(value.byteLength, room);
    if (value.byteLength > room) {
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, truncated };
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder((charset ?? "utf-8") as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** Follows redirects by hand so each one is checked; the final response or an error text. */
async function fetchAllowed(first: URL, settings: WebFetchSettings, signal: AbortSignal): Promise<{ response: Response; url: URL } | string> {
  const doFetch = settings.fetch ?? globalThis.fetch;
  let url = first;
  for (let hop = 0; ; hop++) {
    const response = await doFetch(url.href, {
      redirect: "manual",
      signal,
      headers: { accept: "text/html, text/plain;q=0.9, */*;q=0.5", "user-agent": "agent-web-fetch" },
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) return { response, url };
    await response.body?.cancel().catch(() => undefined);
    if (hop >= WEB_FETCH_MAX_REDIRECTS) return `more than ${WEB_FETCH_MAX_REDIRECTS} redirects (last to ${location})`;
    const next = checkUrl(new URL(location, url).href, settings);
    if (!next.ok) return `redirect from ${url.href} refused: ${next.message}`;
    url = next.url;
  }
}

async function webFetch(input: WebFetchInput, ctx: ToolContext): Promise<ToolResult> {
  const settings = ctx.webFetch;
  if (settings === undefined || settings.allow.length === 0) {
    return failure("web_fetch is off: the user enables it by listing hosts in tools.web_fetch.allow in ~/.agent/config.toml");
  }
  const checked = checkUrl(input.url, settings);
  if (!checked.ok) return failure(checked.message, { url: input.url });
  const started = ctx.runtime.now();
  const signal = AbortSignal.any([AbortSignal.timeout(WEB_FETCH_TIMEOUT_MS), ...(ctx.signal ? [ctx.signal] : [])]);
  let fetched: Awaited<ReturnType<typeof fetchAllowed>>;
  let body: { bytes: Uint8Array; truncated: boolean };
  try {
    fetched = await fetchAllowed(checked.url, settings, signal);
    if (typeof fetched === "string") return failure(fetched, { url: input.url });
    body = await readCapped(fetched.response);
  } catch (error) {
    const why = ctx.signal?.aborted ? "cancelled" : signal.aborted ? `no answer within ${WEB_FETCH_TIMEOUT_MS / 1000} s` : describeError(error);
    return failure(`cannot fetch ${input.url}: ${why}`, { url: input.url });
  }
  const { response, url } = fetched;
  const type = response.headers.get("content-type") ?? "";
  const media = mediaKind(body.bytes);
  if (BINARY_TYPE.test(type) || media !== undefined || looksBinary(body.bytes)) {
    return failure(`${url.href} is ${media ?? (type || "binary data")}, not text: web_fetch returns text pages only`, {
      url: url.href,
      status: response.status,
    });
  }
  const raw = decode(body.bytes, type);
  const text = /html|xml/i.test(type) || /^\s*<(!doctype html|html)/i.test(raw) ? htmlToText(raw) : raw;
  const { text: shown, shown: lines } = joinCapped(text.split("\n"));
  const cut = body.truncated || lines < text.split("\n").length;
  const head = `URL: ${url.href}\nStatus: ${response.status} ${response.statusText}`.trimEnd();
  const content = `${head}\n\n${shown}${cut ? `\n[truncated: the page is longer than web_fetch returns]` : ""}`;
  const details = {
    tool: "web_fetch" as const,
    url: url.href,
    code: response.status,
    codeText: response.statusText,
    bytes: body.bytes.byteLength,
    durationMs: Math.round(ctx.runtime.now() - started),
    result: shown,
  };
  const metadata = { url: url.href, status: response.status, bytes: body.bytes.byteLength, truncated: cut };
  return { success: response.ok, content, metadata, details };
}

export const webFetchTool = defineTool({
  name: "web_fetch",
  description:
    "Fetch an http(s) page and return its text (HTML converted to plain text). Only hosts the user allowed in tools.web_fetch.allow can be fetched; redirects to other hosts are refused.",
  schema: webFetchInputSchema,
  run: webFetch,
});
