/**
 * The HTTP transport shared by the openai and anthropic providers: POST a JSON body, retry with
 * exponential backoff on 429/5xx/408 and on refused or reset connections (only while no byte of the
 * response body has been consumed), honour a small `retry-after`, time out waiting for the first byte
 * and between body chunks, and turn every failure into one line that names the URL and the likely fix.
 * A timeout is never retried: a server that accepted the connection and then said nothing for the
 * whole bound is stuck, and retrying would multiply the wait (4 × 300 s). So one request
 * fails within `timeoutMs` of silence, `AGENT_PROVIDER_TIMEOUT` seconds when set.
 * Secrets passed in `secrets` are scrubbed from every message.
 */
import * as v from "valibot";
import type { ProviderEvent, RetryOptions } from "./types.ts";

export type ErrorEvent = Extract<ProviderEvent, { type: "error" }>;

export const DEFAULT_RETRY: RetryOptions = { attempts: 4, baseDelayMs: 500 };
/** Longest silence allowed before the first byte and between body chunks; README, Providers. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/** `AGENT_PROVIDER_TIMEOUT` (seconds) bounds. */
export const PROVIDER_TIMEOUT_BOUNDS_S = { min: 1, max: 3600 } as const;
export const PROVIDER_TIMEOUT_VARIABLE = "AGENT_PROVIDER_TIMEOUT";

/** `AGENT_PROVIDER_TIMEOUT` → milliseconds; undefined when unset or empty; an error naming the variable and its bound otherwise. */
export function providerTimeoutFromEnv(env: Readonly<Record<string, string | undefined>>): { ok: true; ms: number | undefined } | { ok: false; error: string } {
  const raw = (env[PROVIDER_TIMEOUT_VARIABLE] ?? "").trim();
  if (raw === "") return { ok: true, ms: undefined };
  const seconds = Number(raw);
  const { min, max } = PROVIDER_TIMEOUT_BOUNDS_S;
  if (!/^\d+(\.\d+)?$/.test(raw) || seconds < min || seconds > max) {
    return {
      ok: false,
      error: `${PROVIDER_TIMEOUT_VARIABLE}: "${raw}" is not a number of seconds in ${min}..${max} (e.g. ${PROVIDER_TIMEOUT_VARIABLE}=600 for a slow local model)`,
    };
  }
  return { ok: true, ms: Math.round(seconds * 1000) };
}
/** A `retry-after` above this is not waited for: the error is returned instead. */
const RETRY_AFTER_MAX_MS = 60_000;
const BACKOFF_MAX_MS = 30_000;
const ERROR_DETAIL_MAX_CHARS = 300;

export interface HttpRequest {
  /** `openai` / `anthropic`, used in messages. */
  providerName: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  fetch: typeof fetch;
  retry: RetryOptions;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Values that must never appear in a message (API keys). */
  secrets: readonly string[];
  /** True for the provider's hosted API (the unreachable fix then is the network, not --base-url). */
  hosted: boolean;
  /** Environment variable holding the key, named in 401/403 fixes. */
  keyVariable: string;
}

/** Thrown only inside this module's iterables; providers catch it and emit `event`. */
export class TransportError extends Error {
  readonly event: ErrorEvent;
  constructor(event: ErrorEvent) {
    super(event.message);
    this.event = event;
  }
}

export type OpenResult = { ok: true; chunks: AsyncIterable<Uint8Array> } | { ok: false; event: ErrorEvent };

const TIMEOUT = Symbol("timeout");

type ReadResult = { done: true; value?: undefined } | { done: false; value: Uint8Array };
interface ChunkReader {
  read(): Promise<ReadResult>;
  cancel(): Promise<void>;
}

interface Classified {
  reason: string;
  retryable: boolean;
}

/** Maps the error shapes of Bun, Node (undici) and Deno fetch to one reason. */
function classifyNetworkError(error: unknown): Classified {
  const parts: string[] = [];
  const collect = (value: unknown, depth: number): void => {
    if (depth > 3 || value === null || value === undefined) return;
    if (typeof value !== "object") {
      parts.push(String(value));
      return;
    }
    const record = value as { code?: unknown; message?: unknown; cause?: unknown };
    if (record.code !== undefined) parts.push(String(record.code));
    if (record.message !== undefined) parts.push(String(record.message));
    collect(record.cause, depth + 1);
  };
  collect(error, 0);
  const text = parts.join(" ");
  if (/ECONNREFUSED|ConnectionRefused|connection refused|os error 111/i.test(text)) return { reason: "connection refused", retryable: true };
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|dns error|getaddrinfo|Name or service not known|nodename nor servname/i.test(text))
    return { reason: "host not found", retryable: false };
  if (/bad port|are blocked/i.test(text)) return { reason: "port blocked by fetch (use another port)", retryable: false };
  if (
    /ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed|connection closed|socket connection was closed|reset|terminated|error reading a body|ConnectionClosed/i.test(
      text,
    )
  )
    return { reason: "connection reset", retryable: true };
  if (/certificate|TLS|SSL/i.test(text)) return { reason: "TLS error", retryable: false };
  if (/ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/i.test(text)) return { reason: "host unreachable", retryable: true };
  const first = parts.find((part) => part.length > 0) ?? "unknown network error";
  return { reason: first.split("\n")[0] ?? first, retryable: false };
}

export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join("[REDACTED]");
  return out;
}

const ErrorBodySchema = v.object({
  error: v.union([v.object({ message: v.string(), type: v.optional(v.nullable(v.string())) }), v.string()]),
});

/** The human part of an error body: `error.message` of OpenAI/Anthropic JSON, else the text itself. */
export function errorDetail(bodyText: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const result = v.safeParse(ErrorBodySchema, parsed);
  const detail = result.success ? (typeof result.output.error === "string" ? result.output.error : result.output.error.message) : bodyText;
  const line = detail.replace(/\s+/g, " ").trim();
  return line.length > ERROR_DETAIL_MAX_CHARS ? `${line.slice(0, ERROR_DETAIL_MAX_CHARS)}…` : line;
}

function statusMessage(request: HttpRequest, status: number, bodyText: string): string {
  const detail = errorDetail(bodyText);
  const base = `${request.providerName} API error ${status}${detail ? `: ${detail}` : ""}`;
  if (status === 401 || status === 403) return `${base} — check ${request.keyVariable}`;
  if (status === 404) return `${base} — check --model and --base-url (${request.url})`;
  return base;
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; undefined when absent or invalid. */
export function retryAfterMs(headers: Headers, nowMs: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms.trim());
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Resolves after `ms`, or early (false) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** One attempt's abort controller: aborts on the caller's signal, or with TIMEOUT when its timer fires. */
class AttemptControl {
  readonly controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #deadline = 0;
  readonly #outer: AbortSignal | undefined;
  readonly #timeoutMs: number;
  readonly #onOuterAbort = (): void => this.controller.abort(this.#outer?.reason);

  constructor(outer: AbortSignal | undefined, timeoutMs: number) {
    this.#outer = outer;
    this.#timeoutMs = timeoutMs;
    outer?.addEventListener("abort", this.#onOuterAbort, { once: true });
    this.arm();
  }

  get timedOut(): boolean {
    return this.controller.signal.aborted && this.controller.signal.reason === TIMEOUT;
  }

  get cancelled(): boolean {
    return this.#outer?.aborted === true;
  }

  /**
   * Restarts the inactivity window. Called per body chunk, so it only moves a deadline; the one
   * timer, when it fires early, waits out the rest (a clear and a new timer per chunk cost more
   * than decoding the chunk).
   */
  arm(): void {
    this.#deadline = performance.now() + this.#timeoutMs;
    if (this.#timer === undefined) this.#schedule(this.#timeoutMs);
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => {
      const left = this.#deadline - performance.now();
      if (left > 0) this.#schedule(left);
      else this.controller.abort(TIMEOUT);
    }, ms);
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#outer?.removeEventListener("abort", this.#onOuterAbort);
  }
}

function failure(request: HttpRequest, message: string, retryable: boolean, status?: number): ErrorEvent {
  const event: ErrorEvent = { type: "error", message: scrub(message, request.secrets), retryable };
  if (status !== undefined) event.status = status;
  return event;
}

function unreachable(request: HttpRequest, reason: string, retryable: boolean): ErrorEvent {
  const fix = reason.startsWith("port blocked")
    ? "check --base-url"
    : request.hosted
      ? "check your network connection"
      : reason === "host not found"
        ? "check --base-url"
        : "is the server running? check --base-url";
  return failure(request, `cannot reach ${request.url}: ${reason} — ${fix}`, retryable);
}

function timeoutEvent(request: HttpRequest, midStream: boolean): ErrorEvent {
  const seconds = Math.round(request.timeoutMs / 100) / 10;
  const what = midStream ? "stalled mid-stream" : "got no response";
  return failure(
    request,
    `request to ${request.url} ${what} for ${seconds} s (timeout, not retried) — the server accepted the connection but sent nothing; for a slow model raise ${PROVIDER_TIMEOUT_VARIABLE} (seconds, ${PROVIDER_TIMEOUT_BOUNDS_S.min}..${PROVIDER_TIMEOUT_BOUNDS_S.max})`,
    false,
  );
}

const CANCELLED = (request: HttpRequest): ErrorEvent => failure(request, "request cancelled", false);

/**
 * Sends the request and returns its body as chunks once the status is 2xx and the first chunk
 * arrived. Never throws; iterating `chunks` may throw `TransportError` (mid-stream failures).
 */
export async function openStream(request: HttpRequest): Promise<OpenResult> {
  const attempts = Math.max(1, Math.floor(request.retry.attempts));
  let last: ErrorEvent = failure(request, `request to ${request.url} failed`, true);
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (request.signal?.aborted) return { ok: false, event: CANCELLED(request) };
    const control = new AttemptControl(request.signal, request.timeoutMs);
    let waitMs: number | undefined;
    let response: Response;
    try {
      response = await request.fetch(request.url, {
        method: "POST",
        headers: request.headers,
        body: request.body,
        signal: control.controller.signal,
      });
    } catch (error) {
      control.dispose();
      if (control.cancelled) return { ok: false, event: CANCELLED(request) };
      if (control.timedOut) last = timeoutEvent(request, false);
      else {
        const classified = classifyNetworkError(error);
        last = unreachable(request, classified.reason, classified.retryable);
      }
      if (!last.retryable) return { ok: false, event: last };
      const proceed = attempt < attempts && (await sleep(backoff(request.retry, attempt), request.signal));
      if (!proceed) return { ok: false, event: request.signal?.aborted ? CANCELLED(request) : last };
      continue;
    }

    if (!response.ok) {
      let bodyText = "";
      try {
        bodyText = await response.text();
      } catch {
        bodyText = "";
      }
      control.dispose();
      const retryable = isRetryableStatus(response.status);
      last = failure(request, statusMessage(request, response.status, bodyText), retryable, response.status);
      if (!retryable || attempt >= attempts) return { ok: false, event: last };
      const after = retryAfterMs(response.headers);
      if (after !== undefined && after > RETRY_AFTER_MAX_MS) {
        return {
          ok: false,
          event: failure(request, `${last.message} (retry after ${Math.ceil(after / 1000)} s)`, true, response.status),
        };
      }
      waitMs = after ?? backoff(request.retry, attempt);
      if (!(await sleep(waitMs, request.signal))) return { ok: false, event: CANCELLED(request) };
      continue;
    }

    // 2xx: read the first chunk here so a connection lost before any body byte is still retried.
    const reader: ChunkReader | undefined = response.body?.getReader();
    if (!reader) {
      control.dispose();
      return { ok: true, chunks: emptyChunks() };
    }
    let first: ReadResult;
    try {
      first = await reader.read();
      control.arm();
    } catch (error) {
      control.dispose();
      if (control.cancelled) return { ok: false, event: CANCELLED(request) };
      if (control.timedOut) return { ok: false, event: timeoutEvent(request, false) };
      last = unreachable(request, classifyNetworkError(error).reason, true);
      const proceed = attempt < attempts && (await sleep(backoff(request.retry, attempt), request.signal));
      if (!proceed) return { ok: false, event: request.signal?.aborted ? CANCELLED(request) : last };
      continue;
    }
    return { ok: true, chunks: bodyChunks(request, control, reader, first) };
  }
  return { ok: false, event: last };
}

function backoff(retry: RetryOptions, attempt: number): number {
  return Math.min(BACKOFF_MAX_MS, Math.max(0, retry.baseDelayMs) * 2 ** (attempt - 1));
}

async function* emptyChunks(): AsyncGenerator<Uint8Array> {}

async function* bodyChunks(request: HttpRequest, control: AttemptControl, reader: ChunkReader, first: ReadResult): AsyncGenerator<Uint8Array> {
  let finished = false;
  try {
    let result = first;
    while (!result.done) {
      if (result.value.byteLength > 0) yield result.value;
      try {
        result = await reader.read();
      } catch (error) {
        if (control.cancelled) throw new TransportError(CANCELLED(request));
        if (control.timedOut) throw new TransportError(timeoutEvent(request, true));
        const reason = classifyNetworkError(error).reason;
        throw new TransportError(failure(request, `connection to ${request.url} lost mid-stream: ${reason}`, true));
      }
      control.arm();
    }
    finished = true;
  } finally {
    control.dispose();
    // Stopped early (consumer broke out, or an error): release the connection.
    if (!finished) reader.cancel().catch(() => undefined);
  }
}
