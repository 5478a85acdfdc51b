/**
 * The `type` of a lifecycle hook: `command` (the default), `http` or `prompt`,
 * each with its own keys. A key of another type, a missing required key, or an http URL that the
 * user's `hooks.http_allow` does not allow is a load error naming the field and the fix, and the
 * hook is skipped (an http hook never loads "half allowed").
 */
import type { HttpHandler, LifecycleHandler, PayloadMode, Scope } from "../hooks/types.ts";
import { urlAllowed } from "../hooks/handlers/http-allow.ts";
import type { WarningSink } from "./warnings.ts";

/** Claude Code's default for http and prompt hooks (a command's is 60 s). */
export const HANDLER_TIMEOUT_DEFAULT_SECONDS = 30;

const TYPE_KEYS: Readonly<Record<"command" | "http" | "prompt", readonly string[]>> = {
  command: ["command"],
  http: ["url", "headers", "payload"],
  prompt: ["prompt", "model"],
};

export interface HandlerPlace {
  readonly path: string;
  readonly field: string;
  readonly scope: Scope;
  /** The user's `hooks.http_allow`. */
  readonly httpAllow: readonly string[];
}

export type HandlerResult = { readonly ok: true; readonly command: string; readonly handler?: LifecycleHandler } | { readonly ok: false };

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
  for (const [key, item] of Object.entries(value)) if (typeof item === "string") out[key] = item;
  return out;
}

/** Reads the handler of an already field-checked entry; every problem goes to `sink`. */
export function readHandler(entry: Readonly<Record<string, unknown>>, place: HandlerPlace, sink: WarningSink): HandlerResult {
  const { path, field } = place;
  const type = entry.type === "http" || entry.type === "prompt" ? entry.type : "command";
  let ok = true;
  for (const [other, keys] of Object.entries(TYPE_KEYS)) {
    if (other === type) continue;
    for (const key of keys) {
      if (entry[key] === undefined) continue;
      const fix = type === "command" ? `set type = "${other}"` : "remove it";
      sink.error(path, `${field}.${key}`, `"${key}" belongs to type "${other}" hooks, not "${type}" (${fix}); skipped`);
      ok = false;
    }
  }
  const required = type === "command" ? "command" : type === "http" ? "url" : "prompt";
  if (entry[required] === undefined) {
    sink.error(path, `${field}.${required}`, `missing required field "${required}"${type === "command" ? "" : ` for type "${type}"`}; skipped`);
    ok = false;
  }
  if (type === "prompt" && entry.protocol === "action") {
    sink.error(path, `${field}.protocol`, `a prompt hook replies {"ok": …} and has no protocol (remove it); skipped`);
    ok = false;
  }
  if (!ok) return { ok: false };
  if (type === "command") return typeof entry.command === "string" ? { ok: true, command: entry.command } : { ok: false };
  if (type === "prompt") {
    if (typeof entry.prompt !== "string") return { ok: false };
    return { ok: true, command: "", handler: { type: "prompt", prompt: entry.prompt, ...(typeof entry.model === "string" ? { model: entry.model } : {}) } };
  }
  if (typeof entry.url !== "string") return { ok: false };
  if (!urlAllowed(entry.url, place.httpAllow)) {
    const where = place.scope === "project" ? "a project cannot widen the user's list; " : "";
    const fix = place.httpAllow.length === 0 ? "hooks.http_allow is empty" : `hooks.http_allow is ${JSON.stringify(place.httpAllow)}`;
    sink.error(
      path,
      `${field}.url`,
      `${JSON.stringify(entry.url)} is not allowed (${fix}); ${where}add a pattern such as "${originOf(entry.url)}/*" to hooks.http_allow in ~/.agent/config.toml ($AGENT_HOME); skipped`,
    );
    return { ok: false };
  }
  const payload: PayloadMode = entry.payload === "full" ? "full" : "redacted";
  const handler: HttpHandler = { type: "http", url: entry.url, headers: stringRecord(entry.headers), payload };
  return { ok: true, command: "", handler };
}

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return raw;
  }
}
