/**
 * Project trust (D17). A project's hooks, its `hooks.*`, `tools.bash.absolute_paths`,
 * `permissions.*` and request-routing settings apply only once the user has pinned a SHA-256 over
 * them, over the bytes of every script they reference and of every file under `.agent/`
 * (src/trust/material.ts). Pins live only in `$AGENT_HOME/trust.json`, keyed by the project
 * root's real path, so a cloned or copied project is never trusted by accident.
 */
import * as v from "valibot";
import { escapeControls } from "../util/escape.ts";
import { pinnedFiles, pinOf, type ProjectTrustMaterial } from "./material.ts";
import { AgentError } from "../util/errors.ts";
import type { Runtime } from "../runtime/types.ts";
import type { HookSpec } from "../hooks/types.ts";
import { commandText } from "../hooks/describe.ts";

export type TrustMaterial = ProjectTrustMaterial;

export const EMPTY_MATERIAL: TrustMaterial = {
  hooks: [],
  settings: {},
  scripts: [],
  tree: [],
  treeRoots: [],
  fileHashes: {},
  links: {},
  outside: [],
  shadows: [],
  unpinnable: undefined,
};

const TrustFileSchema = v.object({
  version: v.literal(1),
  projects: v.record(
    v.string(),
    v.object({
      digest: v.pipe(v.string(), v.startsWith("sha256:")),
      trusted_at: v.string(),
      items: v.optional(v.record(v.string(), v.string()), {}),
    }),
  ),
});
type TrustFile = v.InferOutput<typeof TrustFileSchema>;

/** JSON with object keys sorted, so equal material always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A file's pin (material.ts `pinOf`): the SHA-256 of a regular file's bytes, `missing`, or what it is instead. */
export function fileDigest(runtime: Runtime, path: string): string {
  return pinOf(runtime, path);
}

/**
 * One digest per reviewable item, so a refusal can name what changed (SEC-31). Hook items are
 * keyed by what a person recognises (form, event, label, command or run path), not by position,
 * so adding one hook names that hook instead of every hook after it.
 */
export function trustItems(runtime: Runtime, material: TrustMaterial): Record<string, string> {
  const items: Record<string, string> = {};
  for (const hook of material.hooks) {
    const base = `hook ${describeMaterialHook(hook)}`;
    let key = base;
    for (let n = 2; key in items; n++) key = `${base} #${n}`;
    items[key] = runtime.sha256Hex(canonicalJson(hook));
  }
  for (const [key, value] of Object.entries(material.settings).sort(([a], [b]) => (a < b ? -1 : 1))) {
    items[`setting ${key}`] = settingDigest(runtime, value);
  }
  for (const path of [...pinnedFiles(material)].sort()) items[`file ${path}`] = material.fileHashes[path] ?? fileDigest(runtime, path);
  for (const [path, target] of Object.entries(material.links)) items[`link ${path}`] = runtime.sha256Hex(target);
  // Which user hooks the project switches off is part of what was reviewed.
  for (const shadow of material.shadows) items[`replaces user hook ${shadow.name}`] = runtime.sha256Hex(canonicalJson(shadow));
  return items;
}

function settingDigest(runtime: Runtime, value: unknown): string {
  return runtime.sha256Hex(canonicalJson(value));
}

function describeMaterialHook(hook: unknown): string {
  if (hook === null || typeof hook !== "object") return "?";
  const field = (name: string): string | undefined => {
    const value: unknown = Reflect.get(hook, name);
    return typeof value === "string" ? value : undefined;
  };
  const head = [field("form"), field("event"), field("label") ?? field("name")].filter((part) => part !== undefined).join(" ");
  // http and prompt hooks have an empty command: name their URL or "prompt".
  const handler: unknown = Reflect.get(hook, "handler");
  const url = handler !== null && typeof handler === "object" ? Reflect.get(handler, "url") : undefined;
  const kind = handler !== null && typeof handler === "object" ? Reflect.get(handler, "type") : undefined;
  const what = typeof url === "string" ? `http ${url}` : kind === "prompt" ? "prompt" : (field("command") ?? field("run"));
  return what === undefined ? head : `${head}: ${what}`;
}

export function digestOf(runtime: Runtime, items: Record<string, string>): string {
  return `sha256:${runtime.sha256Hex(canonicalJson(items))}`;
}

function trustPath(home: string): string {
  return `${home}/trust.json`;
}

type TrustFileRead = { readonly ok: true; readonly file: TrustFile } | { readonly ok: false; readonly message: string };

/**
 * A missing file is no pins; an unreadable or invalid one is an error naming the file and the fix,
 * never "no pins": reading it as empty and writing it back would drop every other project's pin.
 */
function readTrustFile(runtime: Runtime, home: string): TrustFileRead {
  const path = trustPath(home);
  const corrupt = (why: string): TrustFileRead => ({
    ok: false,
    message: `${path}: ${why}; nothing was trusted or rewritten (fix the file, or move it away to forget every pinned project, then run \`agent hooks trust\`)`,
  });
  let text: string | undefined;
  try {
    text = runtime.fs.readText(path);
  } catch (error) {
    return corrupt(`could not be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (text === undefined) return { ok: true, file: { version: 1, projects: {} } };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return corrupt(`is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = v.safeParse(TrustFileSchema, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue ? v.getDotPath(issue) : null;
    return corrupt(`is not a trust file${where ? ` (at ${where}: ${issue?.message})` : issue ? ` (${issue.message})` : ""}`);
  }
  return { ok: true, file: parsed.output };
}

export type TrustState =
  | { readonly status: "not-needed" }
  | { readonly status: "trusted"; readonly digest: string; readonly once: boolean }
  | { readonly status: "untrusted" | "changed"; readonly digest: string; readonly changes: readonly string[] }
  /** trust.json is unreadable, or the material is over its bound: asking cannot help. */
  | { readonly status: "error"; readonly message: string };

/**
 * Decides whether the project's hooks may run. `once` is `--trust`: trusted for this run, nothing
 * written. `subset` (hooks off, only the routing settings in the material): trusted when every item
 * is pinned unchanged, whatever else the pin holds.
 */
export function checkTrust(
  runtime: Runtime,
  home: string,
  projectRoot: string,
  material: TrustMaterial | null,
  options: { once?: boolean; subset?: boolean } = {},
): TrustState {
  if (material === null) return { status: "not-needed" };
  if (material.unpinnable !== undefined) return { status: "error", message: unpinnableMessage(material.unpinnable) };
  const items = trustItems(runtime, material);
  const digest = digestOf(runtime, items);
  if (options.once) return { status: "trusted", digest, once: true };
  const read = readTrustFile(runtime, home);
  if (!read.ok) return { status: "error", message: read.message };
  const key = runtime.fs.realpath(projectRoot) ?? projectRoot;
  const pinned = read.file.projects[key];
  if (pinned === undefined) return { status: "untrusted", digest, changes: [] };
  if (pinned.digest === digest) return { status: "trusted", digest, once: false };
  const changes: string[] = [];
  for (const [item, hash] of Object.entries(items)) {
    if (!(item in pinned.items)) changes.push(`added: ${item}`);
    else if (pinned.items[item] !== hash) changes.push(`changed: ${item}`);
  }
  if (options.subset) return changes.length === 0 ? { status: "trusted", digest, once: false } : { status: "changed", digest, changes };
  for (const item of Object.keys(pinned.items)) if (!(item in items)) changes.push(`removed: ${item}`);
  return { status: "changed", digest, changes };
}

function unpinnableMessage(reason: string): string {
  return `agent: cannot trust this project: ${reason}, past what the trust digest covers; move data out of .agent/ (or into .agent/state/, which is never pinned)`;
}

function writeTrustFile(runtime: Runtime, home: string, file: TrustFile): void {
  runtime.fs.mkdir(home, { recursive: true });
  const temp = `${trustPath(home)}.${runtime.randomId(4)}.tmp`;
  runtime.fs.writeText(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  runtime.fs.rename(temp, trustPath(home));
}

/**
 * Pins the digest. Writes trust.json atomically (temp file + rename), mode 0600. Throws AgentError
 * when trust.json is unreadable or the material is over its bound: nothing is written then.
 */
export function pinTrust(runtime: Runtime, home: string, projectRoot: string, material: TrustMaterial): string {
  if (material.unpinnable !== undefined) throw new AgentError("untrusted", unpinnableMessage(material.unpinnable).replace(/^agent: /, ""));
  const read = readTrustFile(runtime, home);
  if (!read.ok) throw new AgentError("config", read.message);
  const items = trustItems(runtime, material);
  const digest = digestOf(runtime, items);
  const key = runtime.fs.realpath(projectRoot) ?? projectRoot;
  writeTrustFile(runtime, home, { version: 1, projects: { ...read.file.projects, [key]: { digest, trusted_at: new Date().toISOString(), items } } });
  return digest;
}

/** Rules the agent itself appended to one `permissions.<behavior>` list of the project (LOOP-14). */
export interface RuleAddition {
  readonly behavior: "allow" | "ask" | "deny";
  readonly rules: readonly string[];
}

/**
 * Re-pins exactly the rules a permission_request hook added to `.agent/settings.json`: each touched `setting permissions.<behavior>` item moves from its pinned value to that
 * value plus the added rules, and every other pinned item stays as it was. Anything else changed
 * on disk (a hook the model just wrote) is therefore still a change at the next start. Refuses
 * (and writes nothing) when the list did not equal its pin before the addition.
 */
export function repinRuleAdditions(
  runtime: Runtime,
  options: { home: string; projectRoot: string; material: TrustMaterial | null; additions: readonly RuleAddition[] },
): { ok: true } | { ok: false; message: string } {
  const settings = options.material?.settings ?? {};
  const read = readTrustFile(runtime, options.home);
  if (!read.ok) return { ok: false, message: read.message };
  const key = runtime.fs.realpath(options.projectRoot) ?? options.projectRoot;
  const pinnedItems: Record<string, string> = { ...(read.file.projects[key]?.items ?? {}) };
  for (const { behavior, rules } of options.additions) {
    if (rules.length === 0) continue;
    const item = `setting permissions.${behavior}`;
    const now = settings[`permissions.${behavior}`];
    const list = Array.isArray(now) ? now : [];
    const tail = list.slice(list.length - rules.length);
    const before = list.slice(0, list.length - rules.length);
    const beforeHash = before.length === 0 ? undefined : settingDigest(runtime, before);
    if (tail.length !== rules.length || tail.some((rule, index) => rule !== rules[index]) || beforeHash !== pinnedItems[item]) {
      return {
        ok: false,
        message: `permissions.${behavior} in .agent/settings.json no longer matches its trusted value; the new rule was not trusted (review, then run \`agent hooks trust\`)`,
      };
    }
    pinnedItems[item] = settingDigest(runtime, list);
  }
  const digest = digestOf(runtime, pinnedItems);
  writeTrustFile(runtime, options.home, {
    version: 1,
    projects: { ...read.file.projects, [key]: { digest, trusted_at: new Date().toISOString(), items: pinnedItems } },
  });
  return { ok: true };
}

/**
 * What a person reviews before trusting: exact commands or run paths, the settings, the hooks that
 * run files outside the project, and user hooks a project hook replaces. Every piece of config
 * text is escaped (`escapeControls`), so a `\r` or an ESC sequence cannot hide what runs.
 */
export function trustListing(hooks: readonly HookSpec[], material: TrustMaterial): string[] {
  const lines: string[] = [];
  for (const spec of hooks) {
    if (spec.scope !== "project") continue;
    const what = commandText(spec);
    lines.push(escapeControls(`  ${spec.form} ${spec.event} ${spec.label}${spec.disabled ? " (disabled)" : ""}: ${what}`));
  }
  for (const [key, value] of Object.entries(material.settings)) lines.push(escapeControls(`  setting ${key} = ${JSON.stringify(value)}`));
  for (const shadow of material.shadows) {
    const what = shadow.userFailClosed ? "your fail_closed hook" : "your hook";
    lines.push(escapeControls(`  hook ${shadow.name} REPLACES ${what} ${shadow.name} (${shadow.userRun}): yours will not run in this project`));
  }
  for (const { hook, path } of material.outside) {
    lines.push(escapeControls(`  outside the project (pinned; a change to it needs trust again): hook ${hook} runs or names ${path}`));
  }
  return lines;
}

/** The refusal printed by `agent run`, `agent hooks test` and `agent notify` (D17). */
export function refusalMessage(state: Extract<TrustState, { status: "untrusted" | "changed" }>, projectRoot: string, listing: readonly string[]): string {
  const root = escapeControls(projectRoot);
  const head =
    state.status === "untrusted"
      ? `agent: project ${root} defines hooks or hook/permission/provider settings that are not trusted yet:`
      : `agent: project ${root} changed since it was trusted:`;
  const changes = state.changes.map((change) => `  ${escapeControls(change)}`);
  return [
    head,
    ...(state.status === "changed" ? [...changes, "current project hooks and settings:"] : []),
    ...listing,
    "review them with `agent hooks list`, then trust them with `agent hooks trust` (or pass --trust for one run)",
  ].join("\n");
}
