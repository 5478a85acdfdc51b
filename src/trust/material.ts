/**
 * What project trust pins (D17): the project's hook specs, its trust-relevant
 * settings as written (hook globals, `tools.bash.absolute_paths`, `permissions.*`, and the settings
 * that decide where model requests go: `provider`, `base_url`, `providers.<name>.base_url`), and the
 * bytes of every file a project hook runs or names, inside the project or outside it, plus every
 * file under `.agent/` (and `.claude/hooks/` when Claude Code settings supply project hooks), bounded.
 * A symlinked directory there is walked and pinned by its files' contents (and where it points).
 * Only regular files are read, each within PINNED_FILE_MAX_BYTES: a FIFO, `/dev/stdin` or
 * `/dev/zero` is pinned as what it is, never read.
 */
import { outsideFiles, referencedFiles } from "../hooks/shell/command-words.ts";
import type { HookDirShadow, HookSpec } from "../hooks/types.ts";
import { isRecord } from "../util/records.ts";
import type { FileStat, FileSystem, Runtime } from "../runtime/types.ts";
import { isInside, joinPath } from "../util/path-utils.ts";

/** What trust reads of a parsed settings file (config's SettingsFileInput satisfies it). */
interface SettingsFileInput {
  readonly file: { readonly scope: string; readonly path: string };
  readonly data: Record<string, unknown> | undefined;
}

/** What trust reads of an MCP server spec (config's McpServerSpec satisfies it). */
type McpServerInput = { readonly name: string; readonly scope: string; readonly file: string } & (
  | { readonly transport: "stdio"; readonly command: string; readonly args: readonly string[]; readonly cwd: string | null }
  | { readonly transport: "http" }
);

/** The spec as written, JSON-ready, for the trust digest (every field that decides what runs or where it connects). */
function mcpTrustMaterial(spec: McpServerInput): Record<string, unknown> {
  const { name: _name, scope: _scope, file: _file, ...rest } = spec;
  return { ...rest };
}

export interface ProjectTrustMaterial {
  /** Canonical JSON-ready form of each project hook spec, disabled ones included (PLUS-09). */
  readonly hooks: unknown[];
  /** Trust-relevant project settings flattened to dotted keys, as written. */
  readonly settings: Record<string, unknown>;
  /** Absolute paths of existing files the project hooks run or name, inside the project (SEC-32) or outside it. */
  readonly scripts: string[];
  /** Every other pinned file under the tree roots (see AGENT_TREE_BOUNDS). */
  readonly tree: string[];
  /** The directories whose every file is pinned: `<project>/.agent`, and `.claude/hooks` when Claude settings give project hooks. */
  readonly treeRoots: readonly string[];
  /** Every pinned file → SHA-256 hex of its bytes at load (`missing` when gone), hashed once. */
  readonly fileHashes: Record<string, string>;
  /** Symlinked directories under the tree roots (walked too): path → where it points. */
  readonly links: Record<string, string>;
  /** Project hooks that run or name an existing file outside the project: listed in the review, and pinned. */
  readonly outside: { readonly hook: string; readonly path: string }[];
  /** Project hook dirs named like a user hook dir: listed in the review. */
  readonly shadows: readonly HookDirShadow[];
  /** Why the material cannot be pinned (the `.agent/` tree is over its bound); undefined when it can. */
  readonly unpinnable: string | undefined;
}

/**
 * The bound on what `.agent/` may hold for the digest. Past it, the project cannot be trusted (a
 * pin that silently skipped files would be a pin of nothing): move data out of `.agent/` or into an
 * output directory (TREE_OUTPUT_DIRS).
 */
export const AGENT_TREE_BOUNDS = { maxFiles: 1000, maxTotalBytes: 32 * 1024 * 1024, maxDepth: 16 } as const;

/** The most of one pinned file that is read; a bigger one is pinned by its size and modification time. */
export const PINNED_FILE_MAX_BYTES = AGENT_TREE_BOUNDS.maxTotalBytes;

/** The pin of a path that is there but is no regular file (a FIFO, a device, a socket): never read. */
export const NOT_A_FILE = "not a regular file";

/**
 * A file's pin: the SHA-256 of its bytes, `missing`, NOT_A_FILE, or `unreadable: …` (past the
 * bound, or changed kind between the stat and the read). `known` is a stat already taken (followed).
 */
export function pinOf(runtime: Pick<Runtime, "fs" | "sha256Hex">, path: string, known?: FileStat): string {
  const stat = known ?? runtime.fs.stat(path);
  if (stat === undefined) return "missing";
  if (stat.kind !== "file") return NOT_A_FILE;
  // A big program a hook names (`/usr/local/bin/node`) is pinned by size and time, not read.
  if (stat.size > PINNED_FILE_MAX_BYTES) return `${stat.size} bytes, modified at ${stat.mtimeMs}`;
  try {
    const bytes = runtime.fs.readBytes(path, { maxBytes: PINNED_FILE_MAX_BYTES });
    return bytes === undefined ? "missing" : runtime.sha256Hex(bytes);
  } catch (error) {
    return `unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Outputs, not code: hooks write logs and markers here (`.agent/audit.jsonl`, `.agent/demo-out/`),
 * and pinning them would untrust a project by running it. Files in these places are never pinned,
 * so a trusted script must never run code from them.
 */
const TREE_OUTPUT_DIRS = /^(state|logs?|tmp|cache|out|.*-out)$/;
const TREE_OUTPUT_FILES = /\.(log|jsonl)$/;
/** Pinned as parsed hooks and settings instead, so a `model` edit keeps the trust (SEC-31). */
const TREE_SETTINGS_FILES = new Set(["config.toml", "settings.json"]);

/** A spec as plain data (the compiled RegExp, the spawn-time trust check and the user's http allowlist dropped). */
export function canonicalSpec(spec: HookSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (key === "matcherRegex" || key === "trustCheck" || key === "httpAllow") continue;
    out[key] = value === undefined ? null : value;
  }
  return out;
}

/** Flattens a table into dotted keys; empty tables and arrays set nothing (D17). */
function flatten(prefix: string, value: unknown, out: Record<string, unknown>): void {
  if (Array.isArray(value)) {
    if (value.length === 0) return;
    const existing = out[prefix];
    out[prefix] = Array.isArray(existing) ? [...existing, ...value] : value;
  } else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) flatten(`${prefix}.${key}`, inner, out);
  } else if (value !== undefined) out[prefix] = value;
}

const HOOK_ARRAYS = new Set(["before_tool", "after_tool", "after_assistant", "after_reasoning", "lifecycle"]);

/**
 * The project settings that decide where model requests go. `api_key` and
 * `api_key_env` are not here: they are read from user files only (src/config/settings.ts).
 */
export function projectRoutingSettings(files: readonly SettingsFileInput[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { file, data } of files) {
    if (file.scope !== "project" || !data) continue;
    if (data.provider !== undefined) out.provider = data.provider;
    if (data.base_url !== undefined) out.base_url = data.base_url;
    if (isRecord(data.providers)) {
      for (const [name, entry] of Object.entries(data.providers)) {
        if (isRecord(entry) && entry.base_url !== undefined) out[`providers.${name}.base_url`] = entry.base_url;
        else if (!isRecord(entry)) out[`providers.${name}`] = entry;
      }
    } else if (data.providers !== undefined) out.providers = data.providers;
  }
  return out;
}

function projectHookSettings(files: readonly SettingsFileInput[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { file, data } of files) {
    if (file.scope !== "project" || !data) continue;
    if (isRecord(data.hooks)) {
      for (const [key, value] of Object.entries(data.hooks)) {
        if (key === "lifecycle" && isRecord(value)) flatten("hooks.lifecycle.quiet_success_output", value.quiet_success_output, out);
        if (!HOOK_ARRAYS.has(key)) flatten(`hooks.${key}`, value, out);
      }
    }
    if (isRecord(data.tools) && isRecord(data.tools.bash)) flatten("tools.bash.absolute_paths", data.tools.bash.absolute_paths, out);
    if (data.permissions !== undefined) flatten("permissions", data.permissions, out);
  }
  return out;
}

interface TreeScan {
  readonly files: string[];
  /** The (followed) stat of each file, so a re-check needs no second stat call. */
  readonly stats: Map<string, FileStat>;
  readonly links: Record<string, string>;
  readonly overBound: string | undefined;
}

/** The tree roots of a project: `.agent/`, plus `.claude/hooks/` when Claude Code settings give it project hooks. */
export function treeRootsOf(root: string, claudeHooks: boolean): string[] {
  return claudeHooks ? [joinPath(root, ".agent"), joinPath(root, ".claude", "hooks")] : [joinPath(root, ".agent")];
}

/**
 * Every pinned file under the tree roots, in code-point order, within AGENT_TREE_BOUNDS (counted
 * over all roots). A symlinked directory is recorded with where it points and walked, so what a
 * linked hook directory runs is pinned by contents; a directory already walked (a loop, or two
 * links to one place) is not walked again. Entries that are not regular files are listed (their
 * pin says so) and never read. `.agent/config.toml` and `.agent/settings.json` are left out.
 */
export function scanAgentTree(fs: FileSystem, roots: readonly string[]): TreeScan {
  const files: string[] = [];
  const stats = new Map<string, FileStat>();
  const links: Record<string, string> = {};
  const walked = new Set<string>();
  let bytes = 0;
  let overBound: string | undefined;
  const walk = (top: string, dir: string, depth: number): void => {
    const real = fs.realpath(dir) ?? dir;
    if (walked.has(real)) return;
    walked.add(real);
    for (const name of fs.readdir(dir)) {
      if (overBound !== undefined) return;
      const path = joinPath(dir, name);
      const own = fs.lstat(path);
      if (own === undefined) continue;
      const followed = own.kind === "symlink" ? fs.stat(path) : own;
      if (followed?.kind === "dir") {
        if (TREE_OUTPUT_DIRS.test(name)) continue;
        if (own.kind === "symlink") links[path] = fs.realpath(path) ?? "?";
        if (depth >= AGENT_TREE_BOUNDS.maxDepth) overBound = `${path} is nested deeper than ${AGENT_TREE_BOUNDS.maxDepth} directories`;
        else walk(top, path, depth + 1);
        continue;
      }
      if (dir === top && top.endsWith("/.agent") && TREE_SETTINGS_FILES.has(name)) continue;
      if (TREE_OUTPUT_FILES.test(name)) continue;
      if (own.kind === "symlink" && followed === undefined) {
        links[path] = "(dangling)";
        continue;
      }
      files.push(path);
      if (followed !== undefined) stats.set(path, followed);
      bytes += followed?.kind === "file" ? followed.size : 0;
      if (files.length > AGENT_TREE_BOUNDS.maxFiles) overBound = `${top} holds more than ${AGENT_TREE_BOUNDS.maxFiles} files`;
      else if (bytes > AGENT_TREE_BOUNDS.maxTotalBytes) overBound = `${top} holds more than ${AGENT_TREE_BOUNDS.maxTotalBytes / (1024 * 1024)} MiB`;
    }
  };
  for (const top of roots) if (overBound === undefined && fs.stat(top)?.kind === "dir") walk(top, top, 0);
  return { files, stats, links, overBound };
}

/**
 * The project's trust material, or null when it defines nothing that needs trust. With `hooksOff`
 * only the request-routing settings count: no hook can run, but requests still go somewhere.
 */
export function buildTrustMaterial(options: {
  runtime: Pick<Runtime, "fs" | "sha256Hex">;
  hooks: readonly HookSpec[];
  files: readonly SettingsFileInput[];
  root: string;
  cwd: string;
  hooksOff: boolean;
  shadows?: readonly HookDirShadow[];
  /** Project `mcp_servers` (they run code or connect somewhere, like hooks): one trust item each. */
  mcpServers?: readonly McpServerInput[];
}): ProjectTrustMaterial | null {
  const { root, cwd } = options;
  const fs = options.runtime.fs;
  const routing = projectRoutingSettings(options.files);
  if (options.hooksOff) {
    if (Object.keys(routing).length === 0) return null;
    return { hooks: [], settings: routing, scripts: [], tree: [], treeRoots: [], fileHashes: {}, links: {}, outside: [], shadows: [], unpinnable: undefined };
  }
  const projectHooks = options.hooks.filter((spec) => spec.scope === "project");
  const settings: Record<string, unknown> = { ...projectHookSettings(options.files), ...routing };
  const projectServers = (options.mcpServers ?? []).filter((spec) => spec.scope === "project");
  for (const spec of projectServers) settings[`mcp_servers.${spec.name}`] = mcpTrustMaterial(spec);
  if (projectHooks.length === 0 && Object.keys(settings).length === 0) return null;
  const scripts: string[] = [];
  const outside: { hook: string; path: string }[] = [];
  const add = (path: string): void => {
    if (!scripts.includes(path)) scripts.push(path);
  };
  // What runs outside the project is pinned too: an absolute `run`, `/opt/tool.sh`, `../x.sh`.
  const addOutside = (hook: string, path: string): void => {
    outside.push({ hook, path });
    add(path);
  };
  for (const spec of projectHooks) {
    if (spec.form === "dir") {
      if (isInside(spec.run, root)) {
        if (fs.stat(spec.run) !== undefined) add(spec.run);
      } else if (fs.stat(spec.run) !== undefined) addOutside(spec.label, spec.run);
      continue;
    }
    for (const path of referencedFiles(spec.command, root, cwd, fs)) add(path);
    for (const path of outsideFiles(spec.command, root, cwd, fs)) addOutside(spec.label, path);
  }
  for (const spec of projectServers) {
    if (spec.transport !== "stdio") continue;
    const command = [spec.command, ...spec.args].join(" ");
    for (const path of referencedFiles(command, root, spec.cwd ?? cwd, fs)) add(path);
    for (const path of outsideFiles(command, root, spec.cwd ?? cwd, fs)) addOutside(`mcp server ${spec.name}`, path);
  }
  const claudeDir = joinPath(root, ".claude");
  const treeRoots = treeRootsOf(
    root,
    projectHooks.some((spec) => isInside(spec.source, claudeDir)),
  );
  const tree = scanAgentTree(fs, treeRoots);
  const treeFiles = tree.files.filter((path) => !scripts.includes(path));
  const fileHashes: Record<string, string> = {};
  if (tree.overBound === undefined) for (const path of [...scripts, ...treeFiles]) fileHashes[path] = pinOf(options.runtime, path, tree.stats.get(path));
  return {
    hooks: projectHooks.map(canonicalSpec),
    settings,
    scripts,
    tree: treeFiles,
    treeRoots,
    fileHashes,
    links: tree.links,
    outside,
    shadows: options.shadows ?? [],
    unpinnable: tree.overBound,
  };
}

/** Every pinned file of the material (scripts first, then the `.agent/` tree). */
export function pinnedFiles(material: Pick<ProjectTrustMaterial, "scripts" | "tree">): string[] {
  return [...material.scripts, ...material.tree];
}

/** The bound on what one plugin directory may hold for its digest (as for `.agent/`). */
export const PLUGIN_TREE_BOUNDS = { maxFiles: 2000, maxTotalBytes: 64 * 1024 * 1024, maxDepth: 16 } as const;

/**
 * The digest that pins a user plugin's files (every regular file under `root`, by relative path and
 * SHA-256 of its bytes; symlinks by where they point). Stored when a plugin is installed or enabled;
 * a plugin whose files no longer match is not loaded until it is enabled again. Null when the tree
 * is over PLUGIN_TREE_BOUNDS (a pin that skipped files would pin nothing), with the reason.
 */
export function pluginDigest(runtime: Pick<Runtime, "fs" | "sha256Hex">, root: string): { digest: string } | { digest: null; reason: string } {
  const fs = runtime.fs;
  const entries: string[] = [];
  let bytes = 0;
  let reason: string | undefined;
  const walk = (dir: string, rel: string, depth: number): void => {
    for (const name of [...fs.readdir(dir)].sort()) {
      if (reason !== undefined) return;
      const path = joinPath(dir, name);
      const relPath = rel === "" ? name : `${rel}/${name}`;
      const own = fs.lstat(path);
      if (own === undefined) continue;
      if (own.kind === "symlink") {
        entries.push(`link ${relPath} ${fs.realpath(path) ?? "(dangling)"}`);
        continue;
      }
      if (own.kind === "dir") {
        if (depth >= PLUGIN_TREE_BOUNDS.maxDepth) reason = `${path} is nested deeper than ${PLUGIN_TREE_BOUNDS.maxDepth} directories`;
        else walk(path, relPath, depth + 1);
        continue;
      }
      if (own.kind !== "file") continue;
      const content = fs.readBytes(path);
      bytes += content?.length ?? 0;
      entries.push(`file ${relPath} ${own.mode & 0o111 ? "x" : "-"} ${content === undefined ? "missing" : runtime.sha256Hex(content)}`);
      if (entries.length > PLUGIN_TREE_BOUNDS.maxFiles) reason = `${root} holds more than ${PLUGIN_TREE_BOUNDS.maxFiles} files`;
      else if (bytes > PLUGIN_TREE_BOUNDS.maxTotalBytes) reason = `${root} holds more than ${PLUGIN_TREE_BOUNDS.maxTotalBytes / (1024 * 1024)} MiB`;
    }
  };
  if (fs.stat(root)?.kind !== "dir") return { digest: null, reason: `${root} is not a directory` };
  walk(root, "", 0);
  if (reason !== undefined) return { digest: null, reason };
  return { digest: runtime.sha256Hex(entries.join("\n")) };
}
