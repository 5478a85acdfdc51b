/**
 * Config loading, and with it the frozen hook registry: every config source read once into one ordered, immutable array of
 * HookSpec in D13 order (user before project; within a scope hook dirs by name, then lifecycle
 * commands in file load order, then list hooks), plus the merged settings and load warnings.
 * `loadConfig` never throws: every problem is a LoadWarning (D21).
 */
import { loadHookDirs } from "./hook-dirs.ts";
import { loadLifecycle } from "./lifecycle.ts";
import { loadListHooks } from "./list-hooks.ts";
import { isRecord } from "./parse.ts";
import { isInside } from "./path-utils.ts";
import { hookDirRoots, hooksOffByEnv, locateConfig } from "./paths.ts";
import { mergeSettings, readSettingsFile, type EffectiveSettings, type ParsedSettingsFile } from "./settings.ts";
import { WarningSink } from "./warnings.ts";
import type { Runtime } from "../runtime/types.ts";
import { referencedFiles } from "../hooks/command-words.ts";
import type { HookSpec, LoadWarning, Scope } from "../hooks/types.ts";
import { mcpTrustMaterial, readMcpServers, type McpServerSpec } from "../mcp/config.ts";

export type { EffectiveSettings } from "./settings.ts";

export interface ProjectTrustMaterial {
  /** Canonical JSON-ready form of each project hook spec, disabled ones included (PLUS-09). */
  readonly hooks: unknown[];
  /** Project `hooks.*` globals, `tools.bash.absolute_paths` and `permissions.*`, flattened to dotted keys, as written. */
  readonly settings: Record<string, unknown>;
  /** Absolute paths of existing files inside the project that the project hooks run or name (SEC-32). */
  readonly scripts: string[];
}

export interface LoadedConfig {
  /** `$AGENT_HOME` (default `~/.agent`). */
  readonly home: string;
  readonly cwd: string;
  readonly projectRoot: string;
  readonly projectScope: boolean;
  readonly files: { path: string; scope: Scope; present: boolean }[];
  /** Every hook.json that was read (valid or not), for `agent hooks validate`'s file count. */
  readonly manifests: readonly string[];
  readonly hooksOff: null | "AGENT_HOOKS=off" | "--no-hooks";
  readonly settings: EffectiveSettings;
  readonly hooks: readonly HookSpec[];
  readonly warnings: readonly LoadWarning[];
  /** Canonical material of the project's hooks and trust-relevant settings (D17); null when the project defines none. */
  readonly projectTrustMaterial: ProjectTrustMaterial | null;
  /** `mcp_servers` of every scope (project ones only when hooks are on: they need trust, D17). */
  readonly mcpServers: readonly McpServerSpec[];
}

export interface LoadOptions {
  readonly cwd: string;
  readonly noHooks?: boolean;
  /** Load hooks even when `AGENT_HOOKS=off` (for `agent hooks validate`, which checks without running). */
  readonly ignoreHooksOff?: boolean;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !(value instanceof RegExp) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** A spec as plain data (the compiled RegExp dropped; its source stays in `matcher`). */
export function canonicalSpec(spec: HookSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (key === "matcherRegex") continue;
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

function projectSettingsMaterial(files: readonly ParsedSettingsFile[]): Record<string, unknown> {
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

function trustMaterial(hooks: readonly HookSpec[], files: readonly ParsedSettingsFile[], runtime: Runtime, root: string, cwd: string, servers: readonly McpServerSpec[]): ProjectTrustMaterial | null {
  const projectHooks = hooks.filter((spec) => spec.scope === "project");
  const settings = projectSettingsMaterial(files);
  // Project MCP servers run code (or connect somewhere) like hooks: each is one trust item.
  const projectServers = servers.filter((spec) => spec.scope === "project");
  for (const spec of projectServers) settings[`mcp_servers.${spec.name}`] = mcpTrustMaterial(spec);
  if (projectHooks.length === 0 && Object.keys(settings).length === 0) return null;
  const scripts: string[] = [];
  const add = (path: string): void => {
    if (!scripts.includes(path)) scripts.push(path);
  };
  for (const spec of projectHooks) {
    if (spec.form === "dir") {
      if (isInside(spec.run, root) && runtime.fs.stat(spec.run)?.kind === "file") add(spec.run);
    } else for (const path of referencedFiles(spec.command, root, cwd, runtime.fs)) add(path);
  }
  for (const spec of projectServers) {
    if (spec.transport === "stdio") for (const path of referencedFiles([spec.command, ...spec.args].join(" "), root, spec.cwd ?? cwd, runtime.fs)) add(path);
  }
  return { hooks: projectHooks.map(canonicalSpec), settings, scripts };
}

/**
 * Reads every config source for `options.cwd`. Environment comes from `runtime.env()`, so tests
 * point it at a temp home with a runtime wrapper. Creates `$AGENT_HOME/hooks/` when missing (DIR-05)
 * unless hooks are off. With hooks off nothing hook-related is read, no warning is kept, and
 * project `permissions.*` are skipped (D17). Never throws.
 */
export function loadConfig(runtime: Runtime, options: LoadOptions): LoadedConfig {
  const env = runtime.env();
  const location = locateConfig(runtime.fs, { env, homedir: runtime.platform.homedir, cwd: options.cwd });
  const hooksOff: LoadedConfig["hooksOff"] = options.ignoreHooksOff
    ? null
    : options.noHooks
      ? "--no-hooks"
      : hooksOffByEnv(env)
        ? "AGENT_HOOKS=off"
        : null;
  const sink = new WarningSink();
  const parsed = location.files.map((file) => readSettingsFile(runtime.fs, file, sink));
  const merged = mergeSettings(parsed, sink, { hooksOff: hooksOff !== null, projectScope: location.projectScope });

  const mcpServers = readMcpServers(parsed, sink, { skipProject: hooksOff !== null });
  const hooks: HookSpec[] = [];
  let manifests: string[] = [];
  if (hooksOff === null) {
    const roots = hookDirRoots(location);
    const userRoot = roots[0];
    if (userRoot && runtime.fs.stat(userRoot.dir) === undefined) {
      try {
        runtime.fs.mkdir(userRoot.dir, { recursive: true });
      } catch (error) {
        sink.warning(userRoot.dir, "", `could not create the user hooks directory: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const dirs = loadHookDirs(runtime.fs, roots, sink);
    manifests = dirs.manifests;
    for (const scope of ["user", "project"] as const) {
      hooks.push(...dirs.hooks.filter((spec) => spec.scope === scope));
      const scoped = parsed.filter((file) => file.file.scope === scope);
      for (const file of scoped) hooks.push(...loadLifecycle(file, sink));
      for (const file of scoped) {
        hooks.push(...loadListHooks(file, merged.chains[scope], { absolutePaths: merged.settings.absolutePathsByScope[scope] }, sink));
      }
    }
  }

  const loaded: LoadedConfig = {
    home: location.agentHome,
    cwd: location.cwd,
    projectRoot: location.projectRoot,
    projectScope: location.projectScope,
    files: parsed.map((file) => ({ path: file.file.path, scope: file.file.scope, present: file.present })),
    manifests,
    hooksOff,
    settings: merged.settings,
    hooks,
    warnings: hooksOff === null ? sink.items : [],
    projectTrustMaterial: hooksOff === null && location.projectScope ? trustMaterial(hooks, parsed, runtime, location.projectRoot, location.cwd, mcpServers) : null,
    mcpServers,
  };
  return deepFreeze(loaded);
}
