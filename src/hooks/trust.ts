/**
 * Project trust (D17). A project's hooks and its `hooks.*`, `tools.bash.absolute_paths` and
 * `permissions.*` settings apply only once the user has pinned a SHA-256 over them and over the
 * bytes of every script they reference. Pins live only in `$AGENT_HOME/trust.json`, keyed by the
 * project root's real path, so a cloned or copied project is never trusted by accident.
 */
import * as v from "valibot";
import type { Runtime } from "../runtime/types.ts";
import type { HookSpec } from "./types.ts";

export interface TrustMaterial {
  readonly hooks: readonly unknown[];
  readonly settings: Readonly<Record<string, unknown>>;
  /** Absolute paths of files the project's hooks reference inside the project. */
  readonly scripts: readonly string[];
}

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
    items[`setting ${key}`] = runtime.sha256Hex(canonicalJson(value));
  }
  for (const path of [...material.scripts].sort()) {
    const bytes = runtime.fs.readBytes(path);
    items[`file ${path}`] = bytes === undefined ? "missing" : runtime.sha256Hex(bytes);
  }
  return items;
}

function describeMaterialHook(hook: unknown): string {
  if (hook === null || typeof hook !== "object") return "?";
  const field = (name: string): string | undefined => {
    const value: unknown = Reflect.get(hook, name);
    return typeof value === "string" ? value : undefined;
  };
  const head = [field("form"), field("event"), field("label") ?? field("name")].filter((part) => part !== undefined).join(" ");
  const what = field("command") ?? field("run");
  return what === undefined ? head : `${head}: ${what}`;
}

export function digestOf(runtime: Runtime, items: Record<string, string>): string {
  return `sha256:${runtime.sha256Hex(canonicalJson(items))}`;
}

function trustPath(home: string): string {
  return `${home}/trust.json`;
}

function readTrustFile(runtime: Runtime, home: string): TrustFile {
  const text = runtime.fs.readText(trustPath(home));
  if (text === undefined) return { version: 1, projects: {} };
  try {
    const parsed = v.safeParse(TrustFileSchema, JSON.parse(text));
    return parsed.success ? parsed.output : { version: 1, projects: {} };
  } catch {
    return { version: 1, projects: {} };
  }
}

export type TrustState =
  | { readonly status: "not-needed" }
  | { readonly status: "trusted"; readonly digest: string; readonly once: boolean }
  | { readonly status: "untrusted" | "changed"; readonly digest: string; readonly changes: readonly string[] };

/** Decides whether the project's hooks may run. `once` is `--trust`: trusted for this run, nothing written. */
export function checkTrust(runtime: Runtime, home: string, projectRoot: string, material: TrustMaterial | null, options: { once?: boolean } = {}): TrustState {
  if (material === null) return { status: "not-needed" };
  const items = trustItems(runtime, material);
  const digest = digestOf(runtime, items);
  if (options.once) return { status: "trusted", digest, once: true };
  const key = runtime.fs.realpath(projectRoot) ?? projectRoot;
  const pinned = readTrustFile(runtime, home).projects[key];
  if (pinned === undefined) return { status: "untrusted", digest, changes: [] };
  if (pinned.digest === digest) return { status: "trusted", digest, once: false };
  const changes: string[] = [];
  for (const [item, hash] of Object.entries(items)) {
    if (!(item in pinned.items)) changes.push(`added: ${item}`);
    else if (pinned.items[item] !== hash) changes.push(`changed: ${item}`);
  }
  for (const item of Object.keys(pinned.items)) if (!(item in items)) changes.push(`removed: ${item}`);
  return { status: "changed", digest, changes };
}

/** Pins the digest. Writes trust.json atomically (temp file + rename), mode 0600. */
export function pinTrust(runtime: Runtime, home: string, projectRoot: string, material: TrustMaterial): string {
  const items = trustItems(runtime, material);
  const digest = digestOf(runtime, items);
  const key = runtime.fs.realpath(projectRoot) ?? projectRoot;
  const file = readTrustFile(runtime, home);
  const next: TrustFile = { version: 1, projects: { ...file.projects, [key]: { digest, trusted_at: new Date().toISOString(), items } } };
  runtime.fs.mkdir(home, { recursive: true });
  const temp = `${trustPath(home)}.${runtime.randomId(4)}.tmp`;
  runtime.fs.writeText(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  runtime.fs.rename(temp, trustPath(home));
  return digest;
}

/** What a person reviews before trusting: exact commands or run paths, and the settings. */
export function trustListing(hooks: readonly HookSpec[], material: TrustMaterial): string[] {
  const lines: string[] = [];
  for (const spec of hooks) {
    if (spec.scope !== "project") continue;
    const what = spec.form === "dir" ? spec.run : spec.command;
    lines.push(`  ${spec.form} ${spec.event} ${spec.label}${spec.disabled ? " (disabled)" : ""}: ${what}`);
  }
  for (const [key, value] of Object.entries(material.settings)) lines.push(`  setting ${key} = ${JSON.stringify(value)}`);
  return lines;
}

/** The refusal printed by `agent run`, `agent hooks test` and `agent notify` (D17). */
export function refusalMessage(state: Extract<TrustState, { status: "untrusted" | "changed" }>, projectRoot: string, listing: readonly string[]): string {
  const head =
    state.status === "untrusted"
      ? `agent: project ${projectRoot} defines hooks or hook/permission settings that are not trusted yet:`
      : `agent: project ${projectRoot} changed since it was trusted:`;
  const changes = state.changes.map((change) => `  ${change}`);
  return [
    head,
    ...(state.status === "changed" ? [...changes, "current project hooks and settings:"] : []),
    ...listing,
    "review them with `agent hooks list`, then trust them with `agent hooks trust` (or pass --trust for one run)",
  ].join("\n");
}
