/**
 * Seed 002 lifecycle groups (D5, D23): `hooks.lifecycle.<event key>` arrays of `{matcher?, hooks}`
 * in one settings file → one LifecycleHookSpec per command, in file order. A bad group or command
 * is a load warning and is skipped; unknown keys are warnings (over D23's "validate
 * errors": a Claude Code file with a key we do not know must not fail validation) and the command still loads,
 * and their message names the closest known key. Claude Code's command keys load too (`timeout`,
 * `async`, `once`, `statusMessage`, `type = "command"`), and its `http` and `prompt` handler
 * types (src/config/lifecycle-handlers.ts).
 */
import { canonicalEvent, type CanonicalEvent } from "../util/events.ts";
import type { Dialect, FailurePolicy, LifecycleHookSpec, Scope } from "../hooks/types.ts";
import { isRecord } from "../util/records.ts";
import { basenamePath } from "../util/path-utils.ts";
import { checkField, LIFECYCLE_COMMAND_FIELDS, LIFECYCLE_EVENT_KEYS, LIST_KEYS, showValue } from "./schema.ts";
import type { ParsedSettingsFile } from "./settings.ts";
import type { WarningSink } from "./warnings.ts";
import { unknownKeyMessage } from "./closest-key.ts";
import { errorMessage } from "../util/errors.ts";
import { HANDLER_TIMEOUT_DEFAULT_SECONDS, readHandler } from "./lifecycle-handlers.ts";

export const LIFECYCLE_TIMEOUT_DEFAULT_SECONDS = 60;

/** D23: `block` is a valid lifecycle policy only where a failure can block the event. */
const BLOCKABLE: ReadonlySet<CanonicalEvent> = new Set(["pre_tool", "user_prompt_submit", "permission_request"]);

/** Null when the matcher selects everything (`*`, `""`, absent); D5 anchors it to the whole value. */
export function compileMatcher(matcher: string | undefined, event: CanonicalEvent): { ok: true; regex: RegExp | null } | { ok: false; message: string } {
  if (matcher === undefined || matcher === "" || matcher === "*") return { ok: true, regex: null };
  try {
    return { ok: true, regex: new RegExp(`^(?:${matcher})$`, event === "user_prompt_submit" ? "s" : "") };
  } catch (error) {
    return { ok: false, message: `invalid regex ${JSON.stringify(matcher)}: ${errorMessage(error)}` };
  }
}

const GROUP_KEYS = new Set(["matcher", "hooks"]);

export interface LifecycleOptions {
  /** The user's `hooks.http_allow`; empty or absent: no http hook loads. */
  readonly httpAllow?: readonly string[];
}

export function loadLifecycle(parsed: ParsedSettingsFile, sink: WarningSink, options: LifecycleOptions = {}): LifecycleHookSpec[] {
  const path = parsed.file.path;
  const hooks = parsed.data?.hooks;
  if (!isRecord(hooks) || hooks.lifecycle === undefined) return [];
  const lifecycle = hooks.lifecycle;
  if (!isRecord(lifecycle)) {
    sink.error(path, "hooks.lifecycle", "must be a table/object of event keys");
    return [];
  }
  const labelPrefix = basenamePath(path) === "settings.json" ? "settings.json:" : "";
  const specs: LifecycleHookSpec[] = [];
  for (const [key, groups] of Object.entries(lifecycle)) {
    if (key === "quiet_success_output") continue;
    const keyField = `hooks.lifecycle.${key}`;
    if ((LIST_KEYS as readonly string[]).includes(key)) {
      sink.error(path, keyField, `${key} is a list key, not a lifecycle event: list hooks belong under hooks.${key}`);
      continue;
    }
    const event = LIFECYCLE_EVENT_KEYS.includes(key) ? canonicalEvent(key) : undefined;
    if (event === undefined) {
      sink.error(path, keyField, `unknown lifecycle event ${JSON.stringify(key)} (valid: ${LIFECYCLE_EVENT_KEYS.join(", ")}, quiet_success_output)`);
      continue;
    }
    if (!Array.isArray(groups)) {
      sink.error(path, keyField, "must be an array of groups ([[hooks.lifecycle.<event>]])");
      continue;
    }
    groups.forEach((group: unknown, groupIndex) => {
      const groupField = `${keyField}[${groupIndex}]`;
      if (!isRecord(group)) {
        sink.error(path, groupField, "a group must be a table/object with matcher and hooks");
        return;
      }
      for (const groupKey of Object.keys(group)) {
        if (!GROUP_KEYS.has(groupKey)) sink.warning(path, `${groupField}.${groupKey}`, unknownKeyMessage(groupKey, [...GROUP_KEYS]));
      }
      const matcher = group.matcher;
      if (matcher !== undefined && typeof matcher !== "string") {
        sink.error(path, `${groupField}.matcher`, `${showValue(matcher)} is not a string; group skipped`);
        return;
      }
      const compiled = compileMatcher(matcher, event);
      if (!compiled.ok) {
        sink.error(path, `${groupField}.matcher`, `${compiled.message}; group skipped`);
        return;
      }
      const commands = group.hooks;
      if (!Array.isArray(commands) || commands.length === 0) {
        sink.error(
          path,
          `${groupField}.hooks`,
          commands === undefined ? `missing required field "hooks"; group skipped` : "must be a non-empty array of commands; group skipped",
        );
        return;
      }
      commands.forEach((command: unknown, hookIndex) => {
        const spec = loadCommand(
          command,
          {
            path,
            scope: parsed.file.scope,
            event,
            key,
            groupIndex,
            hookIndex,
            matcher,
            regex: compiled.regex,
            labelPrefix,
            httpAllow: options.httpAllow ?? [],
          },
          sink,
        );
        if (spec) specs.push(spec);
      });
    });
  }
  return specs;
}

interface CommandPlace {
  path: string;
  scope: Scope;
  event: CanonicalEvent;
  key: string;
  groupIndex: number;
  hookIndex: number;
  matcher: string | undefined;
  regex: RegExp | null;
  labelPrefix: string;
  httpAllow: readonly string[];
}

function loadCommand(entry: unknown, place: CommandPlace, sink: WarningSink): LifecycleHookSpec | undefined {
  const { path } = place;
  const field = `hooks.lifecycle.${place.key}[${place.groupIndex}].hooks[${place.hookIndex}]`;
  if (!isRecord(entry)) {
    sink.error(path, field, 'a command must be a table/object like { command = "…" }; skipped');
    return undefined;
  }
  let ok = true;
  for (const [key, value] of Object.entries(entry)) {
    if (!(key in LIFECYCLE_COMMAND_FIELDS)) {
      sink.warning(path, `${field}.${key}`, unknownKeyMessage(key, Object.keys(LIFECYCLE_COMMAND_FIELDS)));
      continue;
    }
    if (key === "protocol" && value === "envelope") {
      sink.error(path, `${field}.protocol`, `protocol "envelope" is only valid on list hooks (use claude or action); skipped`);
      ok = false;
      continue;
    }
    const message = checkField(LIFECYCLE_COMMAND_FIELDS[key as keyof typeof LIFECYCLE_COMMAND_FIELDS], value);
    if (message !== undefined) {
      sink.error(path, `${field}.${key}`, `${message}; skipped`);
      ok = false;
    }
  }
  // Checked even when a field above failed, so every problem of the entry is said at once.
  const handler = readHandler(entry, { path, field, scope: place.scope, httpAllow: place.httpAllow }, sink);
  if (!handler.ok) ok = false;
  const policy: FailurePolicy =
    entry.failure_policy === "ignore" || entry.failure_policy === "block" || entry.failure_policy === "fail" ? entry.failure_policy : "warn";
  if (ok && policy === "block" && !BLOCKABLE.has(place.event)) {
    sink.error(
      path,
      `${field}.failure_policy`,
      `"block" is only valid on pre_tool_use, user_prompt_submit and permission_request (use ignore, warn or fail); skipped`,
    );
    ok = false;
  }
  if (ok && typeof entry.timeout_seconds === "number" && typeof entry.timeout === "number" && entry.timeout !== entry.timeout_seconds) {
    sink.error(
      path,
      `${field}.timeout`,
      `timeout (${entry.timeout}) and timeout_seconds (${entry.timeout_seconds}) disagree; timeout_seconds applies (keep one)`,
    );
  }
  const isAsync = entry.async === true;
  if (ok && isAsync && (policy === "block" || policy === "fail")) {
    sink.warning(path, `${field}.failure_policy`, `"${policy}" has no effect on an async hook: it never blocks or ends the turn`);
  }
  if (!ok || !handler.ok) return undefined;
  const dialect: Dialect = entry.protocol === "action" ? "action" : "claude";
  // Claude Code's `timeout` is in seconds too; `timeout_seconds` wins when both are set.
  const fallback = handler.handler === undefined ? LIFECYCLE_TIMEOUT_DEFAULT_SECONDS : HANDLER_TIMEOUT_DEFAULT_SECONDS;
  const seconds = typeof entry.timeout_seconds === "number" ? entry.timeout_seconds : typeof entry.timeout === "number" ? entry.timeout : fallback;
  return {
    label: `${place.labelPrefix}${place.key}[${place.groupIndex}].hooks[${place.hookIndex}]`,
    scope: place.scope,
    form: "lifecycle",
    dialect,
    event: place.event,
    source: path,
    field,
    disabled: entry.disabled === true,
    timeoutMs: seconds * 1000,
    command: handler.command,
    ...(handler.handler !== undefined ? { handler: handler.handler } : {}),
    ...(handler.handler?.type === "http" ? { httpAllow: place.httpAllow } : {}),
    matcher: place.matcher,
    matcherRegex: place.regex,
    eventKey: place.key,
    groupIndex: place.groupIndex,
    hookIndex: place.hookIndex,
    failurePolicy: policy,
    ...(isAsync ? { async: true } : {}),
    ...(entry.once === true ? { once: true } : {}),
    ...(typeof entry.statusMessage === "string" && entry.statusMessage.trim() !== "" ? { statusMessage: entry.statusMessage } : {}),
  };
}
