/**
 * Config loading, and with it the frozen hook registry: every config source read once into one ordered, immutable array of
 * HookSpec in D13 order (the managed policy's first, then user, then project; within a scope hook dirs by name, then lifecycle
 * commands in file load order, then list hooks), plus the merged settings and load warnings.
 * `loadConfig` never throws: every problem is a LoadWarning (D21).
 */
import { loadHookDirs } from "./hook-dirs.ts";
import { loadLifecycle } from "./lifecycle.ts";
import { loadAgentHooks } from "./agent-hooks.ts";
import { claudeSettingsEnabled, claudeSettingsFiles, loadClaudeHooks } from "./claude-settings.ts";
import { loadListHooks } from "./list-hooks.ts";
import { hookDirRoots, hooksOffByEnv, locateConfig, type ConfigLocation } from "./paths.ts";
import { mergeSettings, readSettingsFile, type EffectiveSettings } from "./settings.ts";
import { WarningSink } from "./warnings.ts";
import type { Runtime } from "../runtime/types.ts";
import { createTrustGuard } from "../trust/guard.ts";
import { buildTrustMaterial, type ProjectTrustMaterial } from "../trust/material.ts";
import type { HookDirShadow, HookSpec, LoadWarning, Scope } from "../hooks/types.ts";
import { readMcpServers, type McpServerSpec } from "./mcp-servers.ts";
import { discoverPlugins, loadPluginHooks, pluginMcpServers, type ChangedPlugin, type PluginSource } from "./plugins.ts";
import { warnUnsetVariables } from "./hook-vars.ts";
import { managedPolicyOf, readManagedFiles, type ManagedPolicy } from "./managed.ts";
import { matchPattern } from "../permissions/rules.ts";
import type { MergedSettings, ParsedSettingsFile } from "./settings.ts";

export type { EffectiveSettings } from "./settings.ts";

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
  /**
   * Canonical material of the project's hooks and trust-relevant settings (D17); null when the
   * project defines none. With hooks off it holds only the request-routing settings.
   */
  readonly projectTrustMaterial: ProjectTrustMaterial | null;
  /** `mcp_servers` of every scope (project ones only when hooks are on: they need trust, D17). */
  readonly mcpServers: readonly McpServerSpec[];
  /** Claude Code plugins loaded here (src/config/plugins.ts); [] with hooks off. */
  readonly plugins: readonly PluginSource[];
  /** Enabled installed plugins whose files changed since they were enabled: not loaded, and a run asks again. */
  readonly changedPlugins: readonly ChangedPlugin[];
  /** The `--plugin-dir` values this config was loaded with (a reload passes them again). */
  readonly pluginDirs: readonly string[];
  /** The managed layer's switches (src/config/managed.ts); its files head `files`. */
  readonly managed: ManagedPolicy;
}

export interface LoadOptions {
  readonly cwd: string;
  readonly noHooks?: boolean;
  /** Load hooks even when `AGENT_HOOKS=off` (for `agent hooks validate`, which checks without running). */
  readonly ignoreHooksOff?: boolean;
  /** `--plugin-dir` values (absolute): plugins for this run only. */
  readonly pluginDirs?: readonly string[];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !(value instanceof RegExp) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function withTrustGuard(hooks: readonly HookSpec[], material: ProjectTrustMaterial, root: string, runtime: Runtime): HookSpec[] {
  const trustCheck = createTrustGuard(runtime, { root, treeRoots: material.treeRoots, files: material.fileHashes, tree: material.tree, links: material.links });
  return hooks.map((spec) => (spec.scope === "project" ? { ...spec, trustCheck } : spec));
}

/** "No project" is also a root that fell back to the cwd: no `.agent/` or `.git` was found above it. */
function projectFound(runtime: Runtime, location: ConfigLocation): boolean {
  const marked = (name: string): boolean => runtime.fs.lstat(`${location.projectRoot}/${name}`) !== undefined;
  return location.projectScope && (marked(".agent") || marked(".git"));
}

/** The plugins that load here; their MCP servers join `mcpServers`. Plugins run code: with hooks off none loads. */
function loadPlugins(
  runtime: Runtime,
  location: ConfigLocation,
  options: { hooksOff: boolean; pluginDirs: readonly string[] },
  sink: WarningSink,
  mcpServers: McpServerSpec[],
): { plugins: PluginSource[]; changed: ChangedPlugin[] } {
  const changed: ChangedPlugin[] = [];
  if (options.hooksOff) return { plugins: [], changed };
  const plugins = discoverPlugins(
    runtime,
    { agentHome: location.agentHome, projectRoot: location.projectScope ? location.projectRoot : null, pluginDirs: options.pluginDirs },
    sink,
    changed,
  );
  mcpServers.push(...pluginMcpServers(runtime.fs, plugins, sink));
  return { plugins, changed };
}

/**
 * A prompt hook's own `model` must be one the managed `provider_policy` allows; otherwise the hook
 * asks the session's model (itself checked when the provider is built), with one load error.
 */
function restrictPromptModels(hooks: HookSpec[], policy: ManagedPolicy, sink: WarningSink): void {
  const allowed = policy.allowedModels;
  if (allowed === null) return;
  hooks.forEach((spec, index) => {
    if (spec.form !== "lifecycle" || spec.handler?.type !== "prompt" || spec.handler.model === undefined) return;
    const model = spec.handler.model;
    if (allowed.some((pattern) => matchPattern(pattern, model))) return;
    sink.error(
      spec.source,
      `${spec.field}.model`,
      `model ${model} is not allowed by managed policy (${policy.files.join(", ")}); the hook asks the session's model instead`,
    );
    const { model: _dropped, ...handler } = spec.handler;
    hooks[index] = { ...spec, handler };
  });
}

interface ScopedHooksInput {
  readonly location: ConfigLocation;
  readonly parsed: readonly ParsedSettingsFile[];
  readonly merged: MergedSettings;
  readonly sink: WarningSink;
  readonly env: Readonly<Record<string, string>>;
  readonly plugins: readonly PluginSource[];
}

/** User then project hooks (D13 order within each scope); not called with hooks off or managed_hooks_only. */
function loadScopedHooks(runtime: Runtime, input: ScopedHooksInput): { hooks: HookSpec[]; manifests: string[]; shadows: HookDirShadow[] } {
  const { location, parsed, merged, sink, env, plugins } = input;
  const hooks: HookSpec[] = [];
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
  // Agent front-matter hooks come last in their scope and run only in their subagent.
  const agentRoots: { dir: string; scope: "user" | "project" }[] = [{ dir: `${location.agentHome}/agents`, scope: "user" }];
  if (location.projectScope) agentRoots.push({ dir: `${location.projectRoot}/.agent/agents`, scope: "project" });
  const lifecycleOptions = { httpAllow: merged.settings.hooks.httpAllow };
  const agentHooks = loadAgentHooks(runtime.fs, agentRoots, sink, lifecycleOptions);
  // Claude Code's own settings files, opted into from user config.
  const claudeFiles = claudeSettingsEnabled(parsed, sink)
    ? claudeSettingsFiles({ env, home: env.HOME || runtime.platform.homedir, projectRoot: location.projectScope ? location.projectRoot : null })
    : [];
  for (const scope of ["user", "project"] as const) {
    hooks.push(...dirs.hooks.filter((spec) => spec.scope === scope));
    const scoped = parsed.filter((file) => file.file.scope === scope);
    for (const file of scoped) hooks.push(...loadLifecycle(file, sink, lifecycleOptions));
    hooks.push(...loadClaudeHooks(runtime.fs, claudeFiles, scope, sink, lifecycleOptions));
    hooks.push(
      ...loadPluginHooks(runtime, plugins, scope, sink, {
        ...lifecycleOptions,
        projectRoot: location.projectScope ? location.projectRoot : null,
        cwd: location.cwd,
      }),
    );
    for (const file of scoped) {
      hooks.push(...loadListHooks(file, merged.chains[scope], { absolutePaths: merged.settings.absolutePathsByScope[scope] }, sink));
    }
    hooks.push(...agentHooks.filter((spec) => spec.scope === scope));
  }
  return { hooks, manifests: dirs.manifests, shadows: dirs.shadows };
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
  const hooksOff: LoadedConfig["hooksOff"] = options.ignoreHooksOff ? null : options.noHooks ? "--no-hooks" : hooksOffByEnv(env) ? "AGENT_HOOKS=off" : null;
  const sink = new WarningSink();
  // The managed layer loads first, whatever turns hooks off: its hooks and rules lead every list.
  const managedFiles = readManagedFiles(runtime, sink);
  const policy = managedPolicyOf(managedFiles, sink);
  const parsed = [...managedFiles, ...location.files.map((file) => readSettingsFile(runtime.fs, file, sink))];
  const merged = mergeSettings(parsed, sink, { hooksOff: hooksOff !== null, projectScope: location.projectScope });

  const allServers = readMcpServers(parsed, sink, { skipProject: hooksOff !== null });
  const mcpServers = policy.managedMcpOnly ? allServers.filter((spec) => spec.scope === "managed") : allServers;
  const { plugins, changed: changedPlugins } = loadPlugins(
    runtime,
    location,
    { hooksOff: hooksOff !== null, pluginDirs: options.pluginDirs ?? [] },
    sink,
    mcpServers,
  );
  const lifecycleOptions = { httpAllow: merged.settings.hooks.httpAllow };
  const hooks: HookSpec[] = [];
  for (const file of managedFiles) hooks.push(...loadLifecycle(file, sink, lifecycleOptions));
  for (const file of managedFiles)
    hooks.push(...loadListHooks(file, merged.chains.managed, { absolutePaths: merged.settings.absolutePathsByScope.managed }, sink));
  let manifests: string[] = [];
  let shadows: HookDirShadow[] = [];
  if (hooksOff === null && !policy.managedHooksOnly) {
    const loaded = loadScopedHooks(runtime, { location, parsed, merged, sink, env, plugins });
    hooks.push(...loaded.hooks);
    manifests = loaded.manifests;
    shadows = loaded.shadows;
    warnUnsetVariables(hooks, { projectScope: projectFound(runtime, location) }, sink);
  }
  restrictPromptModels(hooks, policy, sink);
  const material = location.projectScope
    ? buildTrustMaterial({ runtime, hooks, files: parsed, root: location.projectRoot, cwd: location.cwd, hooksOff: hooksOff !== null, shadows, mcpServers })
    : null;
  // Project hooks re-check the trusted bytes right before each spawn.
  const guarded = material !== null && material.unpinnable === undefined ? withTrustGuard(hooks, material, location.projectRoot, runtime) : hooks;

  const loaded: LoadedConfig = {
    home: location.agentHome,
    cwd: location.cwd,
    projectRoot: location.projectRoot,
    projectScope: location.projectScope,
    files: parsed.map((file) => ({ path: file.file.path, scope: file.file.scope, present: file.present })),
    manifests,
    hooksOff,
    settings: merged.settings,
    hooks: guarded,
    // With hooks off only the managed files' problems are kept: their hooks still run.
    warnings: hooksOff === null ? sink.items : sink.items.filter((item) => managedFiles.some((file) => file.file.path === item.file)),
    projectTrustMaterial: material,
    mcpServers,
    plugins,
    changedPlugins,
    pluginDirs: options.pluginDirs ?? [],
    managed: policy,
  };
  return deepFreeze(loaded);
}
