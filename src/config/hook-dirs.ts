/**
 * Seed 000 discovery (D4): `<root>/<dir>/hook.json` per scope → DirHookSpec. Directories without
 * hook.json are skipped silently; a bad manifest is a load warning and costs only that hook.
 * Within a scope the lexically later directory wins a duplicate `name`; a project hook replaces
 * the user hook of the same name (DIR-03/04), even a `fail_closed` one. That replacement is recorded
 * (`shadows`) so the trust review says it in plain words and the digest pins it: a user guard that
 * a project switches off is never switched off silently. Disabled hooks stay
 * listed but never replace anything (DIR-07).
 */
import { CONFIG_FILE_MAX_BYTES } from "./settings.ts";
import { canonicalEvent } from "../util/events.ts";
import type { Dialect, DirHookSpec, HookDirShadow, Scope } from "../hooks/types.ts";
import type { FileSystem } from "../runtime/types.ts";
import { parseHookDirTimeout } from "./duration.ts";
import { parseJson } from "./parse.ts";
import { isRecord } from "../util/records.ts";
import { joinPath, resolvePath } from "../util/path-utils.ts";
import { HOOK_JSON_KEYS, showValue } from "./schema.ts";
import type { WarningSink } from "./warnings.ts";
import { errorMessage } from "../util/errors.ts";

const VALID_EVENTS = ["pre_tool", "pre_tool_use", "before_tool", "PreToolUse", "post_tool", "post_tool_use", "after_tool", "PostToolUse"];

/** Code-point order (D13), not UTF-16 unit order. */
export function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/** `match` values that only make sense as a regex or glob (DIR-30), which hook.json never reads as such. */
function looksLikeRegex(match: string): boolean {
  return match !== "*" && /[|*+?()[\]{}^$\\.]/.test(match);
}

/** The manifest as a JSON object, its unknown keys reported; undefined when it is not one (the reason is in `sink`). */
function readManifestObject(file: string, text: string, sink: WarningSink): Record<string, unknown> | undefined {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    sink.syntax(file, parsed.line, parsed.column, `could not parse hook.json: ${parsed.message}`);
    return undefined;
  }
  const data = parsed.value;
  if (!isRecord(data)) {
    sink.error(file, "", "could not parse hook.json: it must be a JSON object");
    return undefined;
  }
  for (const key of Object.keys(data)) {
    if (!(HOOK_JSON_KEYS as readonly string[]).includes(key)) sink.error(file, key, `unknown key "${key}" (valid: ${HOOK_JSON_KEYS.join(", ")})`);
  }
  return data;
}

/** Reads the fields of one manifest, reporting each bad one; `ok` stays true only while none was. */
class ManifestFields {
  ok = true;

  constructor(
    readonly data: Record<string, unknown>,
    readonly file: string,
    readonly sink: WarningSink,
  ) {}

  fail(field: string, message: string): undefined {
    this.sink.error(this.file, field, message);
    this.ok = false;
    return undefined;
  }

  /** Trimmed; undefined when absent or null (or not a string, reported). */
  text(key: string): string | undefined {
    const value = this.data[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") return this.fail(key, `${key} must be a string (got ${showValue(value)})`);
    return value.trim();
  }

  /** False when absent (or not a boolean, reported). */
  flag(key: string): boolean {
    const value = this.data[key];
    if (value === undefined) return false;
    if (typeof value !== "boolean") {
      this.fail(key, `${key} must be a boolean (got ${showValue(value)})`);
      return false;
    }
    return value;
  }
}

function readEvent(fields: ManifestFields): "pre_tool" | "post_tool" | undefined {
  const eventText = fields.text("event");
  const raw = fields.data.event;
  if (raw === undefined || raw === null || eventText === "") return fields.fail("event", `missing required field "event"`);
  if (eventText === undefined) return undefined;
  const canonical = VALID_EVENTS.includes(eventText) ? canonicalEvent(eventText) : undefined;
  if (canonical === "pre_tool" || canonical === "post_tool") return canonical;
  return fields.fail("event", `invalid event ${JSON.stringify(eventText)} (valid: ${VALID_EVENTS.join(", ")})`);
}

/** The tool name to match, "*" when absent or empty; a regex-looking value is warned about (DIR-30). */
function readMatch(fields: ManifestFields): string {
  let match = fields.text("match") ?? "*";
  if (match === "") match = "*";
  if (looksLikeRegex(match)) {
    fields.sink.warning(
      fields.file,
      "match",
      `${JSON.stringify(match)}: match is not a regex in hook.json; it names one tool exactly (or "*" for every tool), so this hook matches nothing`,
    );
  }
  return match;
}

function readDialect(fields: ManifestFields): Dialect {
  const protocol = fields.data.protocol;
  if (protocol === undefined) return "action";
  if (protocol === "action" || protocol === "claude") return protocol;
  if (protocol === "envelope") fields.fail("protocol", `protocol "envelope" is only valid on list hooks (use action or claude)`);
  else fields.fail("protocol", `invalid protocol ${showValue(protocol)} (use action or claude)`);
  return "action";
}

/** Parses one manifest; undefined when the hook cannot load (the reason is in `sink`). */
export function parseHookJson(options: { dir: string; dirName: string; scope: Scope; file: string; text: string }, sink: WarningSink): DirHookSpec | undefined {
  const { file } = options;
  const data = readManifestObject(file, options.text, sink);
  if (data === undefined) return undefined;
  const fields = new ManifestFields(data, file, sink);

  const name = fields.text("name") || options.dirName.trim();
  const event = readEvent(fields);
  const runText = fields.text("run");
  if (data.run === undefined || data.run === null || runText === "") fields.fail("run", `missing required field "run"`);
  const match = readMatch(fields);
  const timeout = parseHookDirTimeout(data.timeout);
  if (!timeout.ok) fields.fail("timeout", timeout.message);
  const failClosed = fields.flag("fail_closed");
  const async = fields.flag("async");
  const disabled = fields.flag("disabled");
  const dialect = readDialect(fields);
  if (async && event === "pre_tool") fields.fail("async", "async is only valid for post_tool");
  if (!fields.ok || event === undefined || runText === undefined || runText === "" || !timeout.ok) return undefined;
  if (async && failClosed) sink.warning(file, "fail_closed", "fail_closed has no effect on async hooks");

  return {
    label: name,
    scope: options.scope,
    form: "dir",
    dialect,
    event,
    source: file,
    field: "",
    disabled,
    timeoutMs: timeout.ms,
    name,
    dir: options.dir,
    run: resolvePath(options.dir, runText),
    match,
    failClosed,
    async,
  };
}

export interface HookDirScan {
  readonly hooks: DirHookSpec[];
  /** Every hook.json that was read, valid or not. */
  readonly manifests: string[];
  readonly shadows: HookDirShadow[];
}

function scanScope(fs: FileSystem, root: string, scope: Scope, sink: WarningSink, manifests: string[]): DirHookSpec[] {
  const active = new Map<string, DirHookSpec>();
  const disabled: DirHookSpec[] = [];
  for (const entry of fs.readdir(root)) {
    const dir = joinPath(root, entry);
    if (fs.stat(dir)?.kind !== "dir") continue;
    const file = joinPath(dir, "hook.json");
    let text: string | undefined;
    try {
      text = fs.readText(file, { maxBytes: CONFIG_FILE_MAX_BYTES });
    } catch (error) {
      manifests.push(file);
      sink.error(file, "", `could not be read: ${errorMessage(error)}`);
      continue;
    }
    if (text === undefined) continue;
    manifests.push(file);
    const spec = parseHookJson({ dir, dirName: entry, scope, file, text }, sink);
    if (!spec) continue;
    if (spec.disabled) {
      disabled.push(spec);
      continue;
    }
    const previous = active.get(spec.name);
    if (previous) {
      sink.warning(
        file,
        "name",
        `duplicate hook name ${JSON.stringify(spec.name)} in ${previous.source} and ${file}; ${file} wins (the lexically later directory)`,
      );
    }
    active.set(spec.name, spec);
  }
  return [...active.values(), ...disabled];
}

/**
 * Scans each root (user first) and returns the hooks in D13 order: user hooks by name, then project
 * hooks by name. Never throws.
 */
export function loadHookDirs(fs: FileSystem, roots: readonly { dir: string; scope: Scope }[], sink: WarningSink): HookDirScan {
  const manifests: string[] = [];
  const byScope = roots.map((root) => ({ scope: root.scope, hooks: scanScope(fs, root.dir, root.scope, sink, manifests) }));
  const projectByName = new Map(
    byScope.filter((s) => s.scope === "project").flatMap((s) => s.hooks.filter((h) => !h.disabled).map((h) => [h.name, h] as const)),
  );
  const hooks: DirHookSpec[] = [];
  const shadows: HookDirShadow[] = [];
  for (const { scope, hooks: scoped } of byScope) {
    const kept =
      scope !== "user"
        ? scoped
        : scoped.filter((user) => {
            const project = projectByName.get(user.name);
            if (project === undefined || user.disabled) return true;
            shadows.push({ name: user.name, userRun: user.run, userFailClosed: user.failClosed, projectSource: project.source });
            if (user.failClosed) {
              sink.warning(
                project.source,
                "name",
                `replaces the user's fail_closed hook ${JSON.stringify(user.name)} (${user.source}): that guard does not run in this project`,
              );
            }
            return false;
          });
    hooks.push(...kept.sort((a, b) => compareCodePoints(a.name, b.name)));
  }
  return { hooks, manifests, shadows };
}
