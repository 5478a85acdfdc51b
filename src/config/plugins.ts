/**
 * Claude Code plugins as a config source: where plugins come from, their manifest, and the two parts
 * that run code, their hooks (`hooks/hooks.json`) and MCP servers (`.mcp.json`). Commands, skills
 * and agents are text the agent reads (src/plugins/components.ts).
 *
 * Sources, later replacing earlier of the same name: installed plugins (`$AGENT_HOME/plugins/NAME/`,
 * listed with their enabled flag and digest in `$AGENT_HOME/plugins/installed.json`, user scope),
 * project plugins (`<project>/.agent/plugins/NAME/`, project scope: pinned with the rest of `.agent/`
 * by project trust), and `--plugin-dir DIR` (user scope, for one run). An installed plugin whose
 * files no longer match the digest pinned when it was enabled is not loaded (it asks again:
 * `agent plugin enable NAME`). A user-scope plugin never runs a project's files: a hook or server
 * command naming an existing file inside the project (outside the plugin) fails closed.
 * `CLAUDE_PLUGIN_ROOT` is the plugin's root for its hooks (env) and servers (`${CLAUDE_PLUGIN_ROOT}`
 * in command, args, env and cwd, and the env variable).
 */
import type { FileSystem, Runtime } from "../runtime/types.ts";
import type { LifecycleHookSpec, Scope } from "../hooks/types.ts";
import { isRecord } from "../util/records.ts";
import { basenamePath, isInside, joinPath, normalizePath } from "../util/path-utils.ts";
import { parseJson } from "./parse.ts";
import { loadLifecycle, type LifecycleOptions } from "./lifecycle.ts";
import { claudeHooksAsLifecycle } from "./claude-settings.ts";
import { loadAgentFileHooks } from "./agent-hooks.ts";
import { WarningSink } from "./warnings.ts";
import { referencedFiles } from "../hooks/shell/command-words.ts";
import { pluginDigest } from "../trust/material.ts";
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, type McpServerSpec } from "./mcp-servers.ts";

/** One path segment, no dots: a plugin name is a directory name and part of MCP server names. */
export const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9-]*$/;
export const PLUGIN_REGISTRY_FILE = "installed.json";

export type PluginOrigin = "installed" | "project" | "flag";

export interface PluginSource {
  readonly name: string;
  /** Absolute, real path of the plugin's root (`CLAUDE_PLUGIN_ROOT`). */
  readonly root: string;
  readonly origin: PluginOrigin;
  readonly scope: Scope;
  readonly description: string;
  readonly version: string | undefined;
  /** `.claude-plugin/plugin.json` as read ({} when the plugin has none). */
  readonly manifest: Readonly<Record<string, unknown>>;
}

export interface PluginRegistryEntry {
  readonly enabled: boolean;
  /** Where it was installed from (a directory, an archive or a URL), for `agent plugin list`. */
  readonly source: string;
  /** pluginDigest() of the installed files when last enabled. */
  readonly digest: string;
  readonly marketplace?: string;
}

export interface PluginRegistry {
  readonly plugins: Record<string, PluginRegistryEntry>;
  /** Marketplace name → absolute folder holding `.claude-plugin/marketplace.json`. */
  readonly marketplaces: Record<string, string>;
}

export function pluginsHome(agentHome: string): string {
  return joinPath(agentHome, "plugins");
}

/** `$AGENT_HOME/plugins/installed.json`; an empty registry when absent or unreadable (a warning then). */
export function readPluginRegistry(fs: FileSystem, agentHome: string, sink?: WarningSink): PluginRegistry {
  const path = joinPath(pluginsHome(agentHome), PLUGIN_REGISTRY_FILE);
  const empty: PluginRegistry = { plugins: {}, marketplaces: {} };
  const text = fs.readText(path);
  if (text === undefined) return empty;
  const parsed = parseJson(text);
  if (!parsed.ok || !isRecord(parsed.value)) {
    sink?.error(path, "", parsed.ok ? "must be a JSON object" : `${parsed.line}:${parsed.column}: ${parsed.message}`);
    return empty;
  }
  const plugins: Record<string, PluginRegistryEntry> = {};
  const rawPlugins = isRecord(parsed.value.plugins) ? parsed.value.plugins : {};
  for (const [name, entry] of Object.entries(rawPlugins)) {
    if (!isRecord(entry) || !PLUGIN_NAME.test(name)) continue;
    plugins[name] = {
      enabled: entry.enabled !== false,
      source: typeof entry.source === "string" ? entry.source : "",
      digest: typeof entry.digest === "string" ? entry.digest : "",
      ...(typeof entry.marketplace === "string" ? { marketplace: entry.marketplace } : {}),
    };
  }
  const marketplaces: Record<string, string> = {};
  if (isRecord(parsed.value.marketplaces))
    for (const [name, dir] of Object.entries(parsed.value.marketplaces)) if (typeof dir === "string") marketplaces[name] = dir;
  return { plugins, marketplaces };
}

/** The manifest of the plugin at `root`, or an error naming the file, the field and the fix. */
export function readPluginManifest(
  fs: FileSystem,
  root: string,
): { ok: true; name: string; manifest: Record<string, unknown> } | { ok: false; file: string; field: string; message: string } {
  const file = joinPath(root, ".claude-plugin/plugin.json");
  const text = fs.readText(file);
  const fallbackName = basenamePath(root);
  if (text === undefined) {
    const hasParts = ["hooks/hooks.json", "commands", "agents", "skills", ".mcp.json"].some((part) => fs.stat(joinPath(root, part)) !== undefined);
    if (!hasParts)
      return {
        ok: false,
        file: root,
        field: "",
        message: "not a Claude Code plugin (no .claude-plugin/plugin.json, hooks/hooks.json, commands/, agents/, skills/ or .mcp.json)",
      };
    if (!PLUGIN_NAME.test(fallbackName))
      return {
        ok: false,
        file,
        field: "name",
        message: `no manifest, and the directory name ${JSON.stringify(fallbackName)} is not a plugin name; add .claude-plugin/plugin.json with {"name": "my-plugin"}`,
      };
    return { ok: true, name: fallbackName, manifest: {} };
  }
  const parsed = parseJson(text);
  if (!parsed.ok) return { ok: false, file, field: "", message: `${parsed.line}:${parsed.column}: ${parsed.message}` };
  if (!isRecord(parsed.value)) return { ok: false, file, field: "", message: `must be a JSON object like {"name": "my-plugin"}` };
  const name = parsed.value.name;
  if (typeof name !== "string" || !PLUGIN_NAME.test(name)) {
    return {
      ok: false,
      file,
      field: "name",
      message: `${name === undefined ? "missing" : JSON.stringify(name)}: a plugin name uses letters, digits and - (kebab-case), e.g. "my-plugin"`,
    };
  }
  return { ok: true, name, manifest: parsed.value };
}

function sourceAt(runtime: Runtime, dir: string, origin: PluginOrigin, scope: Scope, sink: WarningSink): PluginSource | null {
  const root = runtime.fs.realpath(dir) ?? normalizePath(dir);
  const read = readPluginManifest(runtime.fs, root);
  if (!read.ok) {
    sink.error(read.file, read.field, `${read.message}; plugin not loaded`);
    return null;
  }
  const text = (key: string): string | undefined => (typeof read.manifest[key] === "string" ? (read.manifest[key] as string) : undefined);
  return { name: read.name, root, origin, scope, description: text("description") ?? "", version: text("version"), manifest: read.manifest };
}

export interface PluginDiscovery {
  readonly agentHome: string;
  /** The project root when there is a project scope, else null. */
  readonly projectRoot: string | null;
  /** `--plugin-dir` values, absolute. */
  readonly pluginDirs: readonly string[];
}

/** An enabled installed plugin whose files no longer match its pinned digest (it does not load). */
export interface ChangedPlugin {
  readonly name: string;
  readonly root: string;
  readonly reason: string;
}

/**
 * Every plugin that loads here, in source order (installed, project, `--plugin-dir`); changed
 * installed plugins go to `changed` instead. Never throws.
 */
export function discoverPlugins(runtime: Runtime, where: PluginDiscovery, sink: WarningSink, changed: ChangedPlugin[] = []): PluginSource[] {
  const fs = runtime.fs;
  const found = new Map<string, PluginSource>();
  const add = (source: PluginSource | null): void => {
    if (source === null) return;
    const earlier = found.get(source.name);
    if (earlier !== undefined) sink.warning(source.root, "", `plugin ${source.name} replaces the ${earlier.origin} plugin of that name at ${earlier.root}`);
    found.delete(source.name);
    found.set(source.name, source);
  };
  const registry = readPluginRegistry(fs, where.agentHome, sink);
  for (const [name, entry] of Object.entries(registry.plugins)) {
    if (!entry.enabled) continue;
    const dir = joinPath(pluginsHome(where.agentHome), name);
    const now = pluginDigest(runtime, dir);
    if (now.digest === null || now.digest !== entry.digest) {
      const reason = now.digest === null ? now.reason : "its files differ from the pinned digest";
      changed.push({ name, root: dir, reason });
      sink.error(dir, "", `plugin ${name} changed since it was enabled (${reason}); it is not loaded: review it, then run agent plugin enable ${name}`);
      continue;
    }
    add(sourceAt(runtime, dir, "installed", "user", sink));
  }
  if (where.projectRoot !== null) {
    const dir = joinPath(where.projectRoot, ".agent/plugins");
    for (const name of fs.readdir(dir))
      if (fs.stat(joinPath(dir, name))?.kind === "dir") add(sourceAt(runtime, joinPath(dir, name), "project", "project", sink));
  }
  for (const dir of where.pluginDirs) add(sourceAt(runtime, dir, "flag", "user", sink));
  return [...found.values()];
}

/** `${CLAUDE_PLUGIN_ROOT}` and `$CLAUDE_PLUGIN_ROOT` replaced by the plugin's root (for static checks and MCP servers). */
export function expandPluginRoot(text: string, root: string): string {
  return text.replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])/g, root);
}

/**
 * A user-scope plugin's spawn-time check: the command must not run or name an existing file of the
 * project outside the plugin itself (such a file is the project's to change, and no project trust
 * covers it). Non-null: the failure detail, and the hook fails closed.
 */
function projectFileGuard(
  fs: FileSystem,
  plugin: PluginSource,
  command: string,
  where: { projectRoot: string | null; cwd: string },
): (() => string | null) | undefined {
  const projectRoot = where.projectRoot;
  if (plugin.scope !== "user" || projectRoot === null) return undefined;
  return () => {
    const named = referencedFiles(expandPluginRoot(command, plugin.root), projectRoot, where.cwd, fs).filter((path) => !isInside(path, plugin.root));
    return named.length === 0
      ? null
      : `user plugin ${plugin.name} would run or read a project file (${named[0]}); a user plugin never runs a project's files (move the file into the plugin, or declare the hook in the project and trust it)`;
  };
}

/** The plugin's hooks file: the manifest's `hooks` (a path or an inline object), else `hooks/hooks.json`. */
function hooksOf(fs: FileSystem, plugin: PluginSource, sink: WarningSink): { file: string; hooks: Record<string, unknown> } | null {
  const declared = plugin.manifest.hooks;
  const manifestFile = joinPath(plugin.root, ".claude-plugin/plugin.json");
  if (isRecord(declared)) return { file: manifestFile, hooks: isRecord(declared.hooks) ? declared.hooks : declared };
  const file = typeof declared === "string" ? joinPath(plugin.root, declared) : joinPath(plugin.root, "hooks/hooks.json");
  if (typeof declared === "string" && !isInside(file, plugin.root)) {
    sink.error(manifestFile, "hooks", `${JSON.stringify(declared)} points outside the plugin; use a path like "./hooks/hooks.json"`);
    return null;
  }
  const text = fs.readText(file);
  if (text === undefined) {
    if (typeof declared === "string") sink.error(manifestFile, "hooks", `${declared}: no such file in the plugin`);
    return null;
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    sink.syntax(file, parsed.line, parsed.column, parsed.message);
    return null;
  }
  if (!isRecord(parsed.value)) {
    sink.error(file, "", `must be an object like {"hooks": {"PreToolUse": [...]}}`);
    return null;
  }
  const hooks = parsed.value.hooks;
  if (hooks === undefined) return { file, hooks: Object.fromEntries(Object.entries(parsed.value).filter(([key]) => key !== "description")) };
  if (!isRecord(hooks)) {
    sink.error(file, "hooks", "must be an object of event names (PreToolUse, …) to groups");
    return null;
  }
  return { file, hooks };
}

/** The hooks of every plugin of `scope`, as lifecycle specs (claude dialect) carrying their plugin's root. */
export function loadPluginHooks(
  runtime: Runtime,
  plugins: readonly PluginSource[],
  scope: Scope,
  sink: WarningSink,
  options: LifecycleOptions & { projectRoot: string | null; cwd: string },
): LifecycleHookSpec[] {
  const specs: LifecycleHookSpec[] = [];
  for (const plugin of plugins) {
    if (plugin.scope !== scope) continue;
    const found = hooksOf(runtime.fs, plugin, sink);
    if (found === null) continue;
    const local = new WarningSink();
    const loaded = loadLifecycle(
      { file: { path: found.file, scope, format: "json" }, present: true, data: { hooks: { lifecycle: claudeHooksAsLifecycle(found.hooks) } } },
      local,
      options,
    );
    for (const item of local.items) sink.items.push({ ...item, field: item.field.replace(/^hooks\.lifecycle\./, "hooks.") });
    for (const spec of loaded) specs.push(asPluginSpec(runtime.fs, plugin, spec, spec.label.replace(/^settings\.json:/, ""), options));
  }
  for (const plugin of plugins) if (plugin.scope === scope) specs.push(...pluginAgentHooks(runtime.fs, plugin, sink, options));
  return specs;
}

function asPluginSpec(
  fs: FileSystem,
  plugin: PluginSource,
  spec: LifecycleHookSpec,
  label: string,
  options: { projectRoot: string | null; cwd: string },
): LifecycleHookSpec {
  const guard = spec.handler === undefined ? projectFileGuard(fs, plugin, spec.command, options) : undefined;
  return {
    ...spec,
    label: `plugin:${plugin.name}:${label}`,
    field: spec.field.replace(/^hooks\.lifecycle\./, "hooks."),
    plugin: plugin.name,
    pluginRoot: plugin.root,
    ...(guard ? { trustCheck: guard } : {}),
  };
}

const AGENT_FILE_NAME = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.md$/;

/**
 * The front-matter `hooks:` of a plugin's agents (`agents/*.md` and the manifest's `agents` folders),
 * active only while that subagent runs, as `plugin:name` (the name `task` resolves it to). Their
 * subagent_start/subagent_stop hooks fire in the parent for `name` or `plugin:name`.
 */
function pluginAgentHooks(
  fs: FileSystem,
  plugin: PluginSource,
  sink: WarningSink,
  options: LifecycleOptions & { projectRoot: string | null; cwd: string },
): LifecycleHookSpec[] {
  const declared = plugin.manifest.agents;
  const extra = typeof declared === "string" ? [declared] : stringList(declared);
  const dirs = [joinPath(plugin.root, "agents"), ...extra.map((dir) => joinPath(plugin.root, dir))].filter(
    (dir, index, all) => isInside(dir, plugin.root) && all.indexOf(dir) === index,
  );
  const specs: LifecycleHookSpec[] = [];
  for (const dir of dirs) {
    for (const entry of [...fs.readdir(dir)].sort()) {
      const match = AGENT_FILE_NAME.exec(entry);
      if (match?.[1] === undefined) continue;
      const path = joinPath(dir, entry);
      const text = fs.readText(path) ?? "";
      const front = text.startsWith("---") ? (text.split(/\n---/)[0] ?? "") : "";
      // The name `task` knows it by, as src/plugins/components.ts reads it.
      const declaredName = /^name:[ \t]*["']?([A-Za-z0-9][A-Za-z0-9._-]*)["']?[ \t]*$/m.exec(front)?.[1];
      const name = declaredName ?? match[1];
      const loaded = loadAgentFileHooks(fs, `${plugin.name}:${name}`, { path, scope: plugin.scope }, sink, { ...options, alsoCalled: name });
      for (const spec of loaded) specs.push(asPluginSpec(fs, plugin, spec, spec.label.replace(/^agents\/[^/]*?\.md:/, `agents/${entry}:`), options));
    }
  }
  return specs;
}

/** The servers table of a plugin: the manifest's `mcpServers` (a path or an object), else `.mcp.json`. */
function serversOf(fs: FileSystem, plugin: PluginSource, sink: WarningSink): { file: string; servers: Record<string, unknown> } | null {
  const declared = plugin.manifest.mcpServers;
  const manifestFile = joinPath(plugin.root, ".claude-plugin/plugin.json");
  if (isRecord(declared)) return { file: manifestFile, servers: declared };
  const file = typeof declared === "string" ? joinPath(plugin.root, declared) : joinPath(plugin.root, ".mcp.json");
  if (!isInside(file, plugin.root)) {
    sink.error(manifestFile, "mcpServers", `${JSON.stringify(declared)} points outside the plugin; use a path like "./.mcp.json"`);
    return null;
  }
  const text = fs.readText(file);
  if (text === undefined) return null;
  const parsed = parseJson(text);
  if (!parsed.ok) {
    sink.syntax(file, parsed.line, parsed.column, parsed.message);
    return null;
  }
  if (!isRecord(parsed.value)) {
    sink.error(file, "", `must be an object like {"mcpServers": {"name": {"command": "…"}}}`);
    return null;
  }
  return { file, servers: isRecord(parsed.value.mcpServers) ? parsed.value.mcpServers : parsed.value };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function stringMap(value: unknown, root: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(value)) for (const [key, item] of Object.entries(value)) if (typeof item === "string") out[key] = expandPluginRoot(item, root);
  return out;
}

/**
 * A plugin's MCP servers, named `plugin_<plugin>_<server>` as in Claude Code (tools:
 * `mcp__plugin_<plugin>_<server>__<tool>`). Stdio servers get `CLAUDE_PLUGIN_ROOT` in their env
 * and in place of `${CLAUDE_PLUGIN_ROOT}`; their cwd defaults to the plugin's root.
 */
export function pluginMcpServers(fs: FileSystem, plugins: readonly PluginSource[], sink: WarningSink): McpServerSpec[] {
  const specs: McpServerSpec[] = [];
  for (const plugin of plugins) {
    const found = serversOf(fs, plugin, sink);
    if (found === null) continue;
    for (const [server, entry] of Object.entries(found.servers)) {
      const field = `mcpServers.${server}`;
      const name = `plugin_${plugin.name}_${server}`;
      if (!/^[A-Za-z0-9-]+$/.test(server) || !isRecord(entry)) {
        sink.error(found.file, field, `a server needs a name of letters, digits and - and an object with "command" or "url"; skipped`);
        continue;
      }
      const common = {
        name,
        scope: plugin.scope,
        file: found.file,
        startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
        toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
        disabled: false,
      };
      if (typeof entry.command === "string") {
        const cwd = typeof entry.cwd === "string" ? expandPluginRoot(entry.cwd, plugin.root) : plugin.root;
        const env = { ...stringMap(entry.env, plugin.root), CLAUDE_PLUGIN_ROOT: plugin.root };
        specs.push({
          ...common,
          transport: "stdio",
          command: expandPluginRoot(entry.command, plugin.root),
          args: stringList(entry.args).map((arg) => expandPluginRoot(arg, plugin.root)),
          env,
          cwd,
        });
      } else if (typeof entry.url === "string") {
        specs.push({ ...common, transport: "http", url: entry.url, headers: stringMap(entry.headers, plugin.root) });
      } else sink.error(found.file, field, `needs "command" (a stdio server) or "url" (streamable HTTP); skipped`);
    }
  }
  return specs;
}
