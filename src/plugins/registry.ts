/**
 * Installed plugins: `$AGENT_HOME/plugins/NAME/` holds a copy of each (never a link to where it came
 * from, so a later change there changes nothing here), and `$AGENT_HOME/plugins/installed.json`
 * their enabled flag, source and the digest of their files when last enabled (src/config/plugins.ts
 * reads it; a plugin whose files no longer match is not loaded until it is enabled again).
 * Installing is offline: from a directory, a `.tar.gz`/`.tgz` file, or a plugin of a marketplace
 * folder (`.claude-plugin/marketplace.json` naming local plugin folders); bytes from a URL only when
 * the caller fetched a URL it was given.
 */
import type { Runtime } from "../runtime/types.ts";
import { gunzip } from "../runtime/gunzip.ts";
import { isRecord } from "../util/records.ts";
import { AgentError } from "../util/errors.ts";
import { basenamePath, isInside, joinPath, normalizePath } from "../util/path-utils.ts";
import { parseJson } from "../config/parse.ts";
import { PLUGIN_REGISTRY_FILE, pluginsHome, readPluginManifest, readPluginRegistry, type PluginRegistry, type PluginRegistryEntry } from "../config/plugins.ts";
import { pluginDigest } from "../trust/material.ts";
import { readTar } from "./tar.ts";

/** An archive that inflates past this is refused. */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;

export function writePluginRegistry(runtime: Runtime, agentHome: string, registry: PluginRegistry): void {
  const dir = pluginsHome(agentHome);
  runtime.fs.mkdir(dir, { recursive: true });
  const path = joinPath(dir, PLUGIN_REGISTRY_FILE);
  const temp = `${path}.${runtime.randomId(4)}.tmp`;
  runtime.fs.writeText(temp, `${JSON.stringify(registry, null, 2)}\n`);
  runtime.fs.rename(temp, path);
}

/** Copies regular files and directories of `from` into `to`; links and special files are skipped and named. */
function copyTree(runtime: Runtime, from: string, to: string, skipped: string[]): void {
  const fs = runtime.fs;
  fs.mkdir(to, { recursive: true });
  for (const name of fs.readdir(from)) {
    const source = joinPath(from, name);
    const own = fs.lstat(source);
    if (own?.kind === "dir") {
      if (name === ".git") continue;
      copyTree(runtime, source, joinPath(to, name), skipped);
    } else if (own?.kind === "file") {
      const bytes = fs.readBytes(source);
      if (bytes === undefined) continue;
      fs.writeBytes(joinPath(to, name), bytes, { mode: own.mode & 0o777 });
    } else skipped.push(source);
  }
}

function unpackArchive(runtime: Runtime, bytes: Uint8Array, to: string): void {
  const inflated = gunzip(bytes, MAX_ARCHIVE_BYTES);
  if (!inflated.ok)
    throw new AgentError("usage", `plugin archive: ${inflated.error}`, { fix: "give a .tar.gz/.tgz of the plugin folder, or the folder itself" });
  const tar = readTar(inflated.bytes);
  if (!tar.ok) throw new AgentError("usage", `plugin archive: ${tar.error}`);
  for (const entry of tar.entries) {
    const path = joinPath(to, entry.path);
    if (!isInside(path, to)) throw new AgentError("usage", `plugin archive: ${entry.path} is outside the archive`);
    if (entry.kind === "dir") runtime.fs.mkdir(path, { recursive: true });
    else {
      runtime.fs.mkdir(normalizePath(`${path}/..`), { recursive: true });
      runtime.fs.writeBytes(path, entry.bytes, { mode: (entry.mode & 0o777) | 0o600 });
    }
  }
}

/** The plugin folder inside an unpacked archive: its top, or its only directory (`my-plugin/…`). */
function pluginRootIn(runtime: Runtime, dir: string): string {
  if (readPluginManifest(runtime.fs, dir).ok) return dir;
  const entries = runtime.fs.readdir(dir);
  const only = entries.length === 1 && entries[0] !== undefined ? joinPath(dir, entries[0]) : undefined;
  if (only !== undefined && runtime.fs.stat(only)?.kind === "dir") return only;
  return dir;
}

export interface InstallSource {
  /** A local directory, a local archive, or archive bytes fetched from a URL the user gave. */
  readonly kind: "dir" | "archive" | "bytes";
  readonly path: string;
  readonly bytes?: Uint8Array;
  readonly marketplace?: string;
}

export interface Installed {
  readonly name: string;
  readonly root: string;
  readonly replaced: boolean;
  /** Links and special files not copied. */
  readonly skipped: readonly string[];
}

/** Installs (or replaces) a plugin under `$AGENT_HOME/plugins/NAME/` and enables it, pinning its digest. */
export function installPlugin(runtime: Runtime, agentHome: string, source: InstallSource): Installed {
  const home = pluginsHome(agentHome);
  runtime.fs.mkdir(home, { recursive: true });
  const staging = joinPath(home, `.staging-${runtime.randomId(6)}`);
  const skipped: string[] = [];
  try {
    // A folder is copied under its own name: a plugin without a manifest is named after its folder.
    if (source.kind === "dir") copyTree(runtime, source.path, joinPath(staging, basenamePath(normalizePath(source.path))), skipped);
    else {
      const bytes = source.bytes ?? runtime.fs.readBytes(source.path);
      if (bytes === undefined) throw new AgentError("usage", `plugin install: cannot read ${source.path}`);
      runtime.fs.mkdir(staging, { recursive: true });
      unpackArchive(runtime, bytes, staging);
    }
    const root = pluginRootIn(runtime, staging);
    const manifest = readPluginManifest(runtime.fs, root);
    if (!manifest.ok)
      throw new AgentError("usage", `plugin install: ${source.path}: ${manifest.field === "" ? "" : `${manifest.field}: `}${manifest.message}`, {
        fix: "a plugin folder holds .claude-plugin/plugin.json and any of hooks/, commands/, agents/, skills/, .mcp.json",
      });
    const target = joinPath(home, manifest.name);
    const replaced = runtime.fs.stat(target) !== undefined;
    if (replaced) runtime.fs.rm(target, { recursive: true });
    runtime.fs.rename(root, target);
    const digest = pluginDigest(runtime, target);
    if (digest.digest === null) {
      runtime.fs.rm(target, { recursive: true });
      throw new AgentError("usage", `plugin install: ${digest.reason}`);
    }
    const registry = readPluginRegistry(runtime.fs, agentHome);
    const entry: PluginRegistryEntry = {
      enabled: true,
      source: source.path,
      digest: digest.digest,
      ...(source.marketplace ? { marketplace: source.marketplace } : {}),
    };
    writePluginRegistry(runtime, agentHome, { ...registry, plugins: { ...registry.plugins, [manifest.name]: entry } });
    return { name: manifest.name, root: target, replaced, skipped };
  } finally {
    if (runtime.fs.stat(staging) !== undefined) runtime.fs.rm(staging, { recursive: true });
  }
}

function requireInstalled(registry: PluginRegistry, name: string): PluginRegistryEntry {
  const entry = registry.plugins[name];
  if (entry === undefined)
    throw new AgentError("usage", `no installed plugin named ${JSON.stringify(name)}`, { fix: "agent plugin list shows the installed plugins" });
  return entry;
}

/** Enables a plugin and pins its files as they are now (a changed plugin is trusted again this way). */
export function enablePlugin(runtime: Runtime, agentHome: string, name: string): void {
  const registry = readPluginRegistry(runtime.fs, agentHome);
  const entry = requireInstalled(registry, name);
  const digest = pluginDigest(runtime, joinPath(pluginsHome(agentHome), name));
  if (digest.digest === null) throw new AgentError("config", `plugin ${name}: ${digest.reason}`, { fix: `agent plugin remove ${name}, then install it again` });
  writePluginRegistry(runtime, agentHome, { ...registry, plugins: { ...registry.plugins, [name]: { ...entry, enabled: true, digest: digest.digest } } });
}

export function disablePlugin(runtime: Runtime, agentHome: string, name: string): void {
  const registry = readPluginRegistry(runtime.fs, agentHome);
  const entry = requireInstalled(registry, name);
  writePluginRegistry(runtime, agentHome, { ...registry, plugins: { ...registry.plugins, [name]: { ...entry, enabled: false } } });
}

export function removePlugin(runtime: Runtime, agentHome: string, name: string): void {
  const registry = readPluginRegistry(runtime.fs, agentHome);
  requireInstalled(registry, name);
  const dir = joinPath(pluginsHome(agentHome), name);
  if (runtime.fs.stat(dir) !== undefined) runtime.fs.rm(dir, { recursive: true });
  const { [name]: _removed, ...rest } = registry.plugins;
  writePluginRegistry(runtime, agentHome, { ...registry, plugins: rest });
}

/** A marketplace folder's plugins: name → local folder, from `.claude-plugin/marketplace.json`. */
export function readMarketplace(runtime: Runtime, dir: string): { name: string; plugins: Map<string, string> } {
  const file = [joinPath(dir, ".claude-plugin/marketplace.json"), joinPath(dir, "marketplace.json")].find((path) => runtime.fs.stat(path)?.kind === "file");
  if (file === undefined)
    throw new AgentError("usage", `${dir}: no .claude-plugin/marketplace.json`, {
      fix: "a marketplace folder holds .claude-plugin/marketplace.json listing its plugins",
    });
  const parsed = parseJson(runtime.fs.readText(file) ?? "");
  if (!parsed.ok) throw new AgentError("config", `${file}:${parsed.line}:${parsed.column}: ${parsed.message}`);
  const data = parsed.value;
  if (!isRecord(data) || typeof data.name !== "string" || !Array.isArray(data.plugins)) {
    throw new AgentError("config", `${file}: needs "name" (a string) and "plugins" (a list of {"name", "source"})`);
  }
  const plugins = new Map<string, string>();
  for (const [index, item] of data.plugins.entries()) {
    if (!isRecord(item) || typeof item.name !== "string") throw new AgentError("config", `${file}: plugins[${index}]: needs "name"`);
    if (typeof item.source !== "string") {
      // Git and GitHub sources would need the network: installing stays offline.
      throw new AgentError("config", `${file}: plugins[${index}].source: only a local folder ("./plugins/${item.name}") is supported offline`, {
        fix: "clone or unpack that plugin and install it from its folder",
      });
    }
    const root =
      typeof (data.metadata as Record<string, unknown> | undefined)?.pluginRoot === "string"
        ? joinPath(dir, String((data.metadata as Record<string, unknown>).pluginRoot))
        : dir;
    const path = joinPath(item.source.startsWith("./") || item.source.startsWith("../") ? dir : root, item.source);
    if (!isInside(path, dir)) throw new AgentError("config", `${file}: plugins[${index}].source: ${item.source} is outside the marketplace folder`);
    plugins.set(item.name, path);
  }
  return { name: data.name, plugins };
}

/** Records a marketplace folder under its name. */
export function addMarketplace(runtime: Runtime, agentHome: string, dir: string): { name: string; plugins: string[] } {
  const market = readMarketplace(runtime, dir);
  const registry = readPluginRegistry(runtime.fs, agentHome);
  writePluginRegistry(runtime, agentHome, { ...registry, marketplaces: { ...registry.marketplaces, [market.name]: dir } });
  return { name: market.name, plugins: [...market.plugins.keys()] };
}
