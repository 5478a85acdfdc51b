/**
 * `type = "http"` lifecycle hooks: POST the hook's payload (the bytes a command
 * would get on stdin, redacted by default) to the hook's URL and turn the answer into the same
 * `ProcessRun` a command produces, so the hook's dialect decodes the body like stdout.
 *
 * Mapping (as Claude Code's http hooks): 2xx is exit 0 and its body is the reply; any other status
 * is a failure of category `exit` (a status alone never blocks: to deny, answer 2xx with a
 * decision, e.g. `{"hookSpecificOutput": {"permissionDecision": "deny"}}`), and the hook's
 * failure policy decides what that failure does. No answer in time is `timeout`, a body over
 * 1 MiB is `output-limit`, a connection error, a bad header or a refused redirect is `runner`.
 * Redirects are followed by hand, at most 5, and only to URLs `hooks.http_allow` allows; the
 * hook's configured headers are dropped at the first hop to another origin.
 */
import type { HttpHandler, LifecycleHookSpec } from "../types.ts";
import type { ProcessRun } from "../dialects/types.ts";
import { redactPayload } from "../secrets/redact.ts";
import { urlAllowed } from "./http-allow.ts";
import { expandEnvRefs } from "../../util/env-refs.ts";
import { formatDuration } from "./runner.ts";
import { errorMessage } from "../../util/errors.ts";

export const HTTP_HOOK_BODY_CAP_BYTES = 1024 * 1024;
export const HTTP_HOOK_MAX_REDIRECTS = 5;

export type HttpOutcome =
  | { readonly ok: true; readonly run: ProcessRun }
  | { readonly ok: false; readonly category: "exit" | "timeout" | "runner" | "output-limit"; readonly detail: string };

export interface HttpHookRequest {
  readonly spec: LifecycleHookSpec;
  readonly handler: HttpHandler;
  /** The dialect's stdin bytes (one JSON line). */
  readonly stdin: Uint8Array;
  /** Values of stripped env variables, replaced in a redacted payload (D18). */
  readonly strippedEnvValues: readonly string[];
  /** The agent's whole environment and the stripped one hooks get (D18). */
  readonly fullEnv: Readonly<Record<string, string>>;
  readonly hookEnv: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
  readonly signal?: AbortSignal;
}

const EMPTY = new Uint8Array(0);

/** The request body: the payload as is (`full`) or through the envelope's redaction (`redacted`). */
export function httpBody(stdin: Uint8Array, payload: HttpHandler["payload"], strippedEnvValues: readonly string[]): string {
  const text = new TextDecoder().decode(stdin).trim();
  if (payload === "full") return text;
  return JSON.stringify(redactPayload(JSON.parse(text), { envValues: strippedEnvValues }));
}

/**
 * Header values with `${NAME}` filled in. A project hook reads the stripped environment, so it can
 * never send a credential the agent strips (D18); a hook in the user's own or the managed config may name one.
 */
export function httpHeaders(
  request: Pick<HttpHookRequest, "spec" | "handler" | "fullEnv" | "hookEnv">,
): { ok: true; headers: Record<string, string> } | { ok: false; detail: string } {
  const env = request.spec.scope !== "project" ? request.fullEnv : request.hookEnv;
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const [name, template] of Object.entries(request.handler.headers)) {
    const expanded = expandEnvRefs(template, env);
    if (!expanded.ok) {
      const stripped = request.fullEnv[expanded.missing] !== undefined;
      return {
        ok: false,
        detail: stripped
          ? `header ${name}: \${${expanded.missing}} is a credential the agent strips from hooks; only an http hook in user config may send it`
          : `header ${name}: \${${expanded.missing}} is not set`,
      };
    }
    headers[name.toLowerCase()] = expanded.value;
  }
  return { ok: true, headers };
}

async function readCapped(response: Response, signal: AbortSignal): Promise<{ ok: true; bytes: Uint8Array } | { ok: false }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { ok: true, bytes: EMPTY };
  const chunks: Uint8Array[] = [];
  let total = 0;
  const onAbort = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      if (done) break;
      total += value.byteLength;
      if (total > HTTP_HOOK_BODY_CAP_BYTES) {
        await reader.cancel().catch(() => undefined);
        return { ok: false };
      }
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/** Runs one http hook. Never throws. */
export async function runHttpHook(request: HttpHookRequest): Promise<HttpOutcome> {
  const { spec, handler } = request;
  let body: string;
  try {
    body = httpBody(request.stdin, handler.payload, request.strippedEnvValues);
  } catch (error) {
    return { ok: false, category: "runner", detail: `could not build the payload: ${errorMessage(error)}` };
  }
  const headers = httpHeaders(request);
  if (!headers.ok) return { ok: false, category: "runner", detail: headers.detail };

  const deadline = AbortSignal.timeout(spec.timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  const timedOut = (): HttpOutcome =>
    deadline.aborted
      ? { ok: false, category: "timeout", detail: `timed out after ${formatDuration(spec.timeoutMs)}` }
      : { ok: false, category: "timeout", detail: "cancelled" };

  let url = handler.url;
  let method = "POST";
  let sent: Record<string, string> = headers.headers;
  try {
    for (let hop = 0; ; hop++) {
      const response = await request.fetch(url, { method, headers: sent, ...(method === "POST" ? { body } : {}), redirect: "manual", signal });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        const next = new URL(location, url).href;
        if (hop >= HTTP_HOOK_MAX_REDIRECTS) return { ok: false, category: "runner", detail: `more than ${HTTP_HOOK_MAX_REDIRECTS} redirects` };
        if (!urlAllowed(next, spec.httpAllow ?? []))
          return { ok: false, category: "runner", detail: `redirect to ${next} refused: not allowed by hooks.http_allow` };
        // 307/308 repeat the POST; 301/302/303 become a GET, as fetch would do.
        if (response.status !== 307 && response.status !== 308) method = "GET";
        // The hook's own headers (an Authorization, an API key) are for the origin it names: as
        // fetch does with Authorization, none of them follows a redirect to another origin.
        if (new URL(next).origin !== new URL(url).origin) sent = { "content-type": "application/json" };
        url = next;
        continue;
      }
      const read = await readCapped(response, signal);
      if (!read.ok) return { ok: false, category: "output-limit", detail: `response body exceeded ${HTTP_HOOK_BODY_CAP_BYTES} bytes` };
      if (response.status < 200 || response.status > 299) {
        return { ok: false, category: "exit", detail: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}` };
      }
      return { ok: true, run: { kind: "ok", exit: { code: 0, signal: null }, stdout: read.bytes, stderr: EMPTY, detail: "" } };
    }
  } catch (error) {
    if (signal.aborted) return timedOut();
    return { ok: false, category: "runner", detail: `request to ${url} failed: ${errorMessage(error)}` };
  }
}
