/**
 * What the loaded plugins add to a session (`agent run` and the interactive session): the skills and
 * agents section of the system prompt, plugin agents for `task`, read access to the plugins' roots
 * (their skills' files), slash-command expansion of a prompt, and the gate for installed plugins
 * that changed since they were enabled: like an untrusted project, nothing runs until they are
 * trusted again (`agent plugin enable NAME`, or `y` in the interactive session).
 */
import type { Runtime } from "../runtime/types.ts";
import type { LoadedConfig } from "../config/load.ts";
import { pluginAgentFiles, pluginCatalog, pluginPromptSection, pluginReadRoots, type PluginCatalog } from "../plugins/components.ts";
import { expandSlashCommand } from "../plugins/commands.ts";
import { DEFAULT_SYSTEM_PROMPT } from "../agent/agent-session.ts";
import { AgentError } from "../util/errors.ts";
import { escapeControls } from "../util/escape.ts";
import { enablePlugin } from "../plugins/registry.ts";
import type { CliIO } from "./io.ts";

export interface PluginSessionParts {
  readonly catalog: PluginCatalog;
  /** Spread into AgentSessionOptions: empty when no plugin is loaded. */
  readonly sessionOptions: { systemPrompt?: string; agentFiles?: ReadonlyMap<string, string>; readRoots?: readonly string[] };
}

export function pluginSessionParts(runtime: Runtime, loaded: Pick<LoadedConfig, "plugins">): PluginSessionParts {
  const catalog = pluginCatalog(runtime.fs, loaded.plugins);
  if (catalog.plugins.length === 0) return { catalog, sessionOptions: {} };
  const section = pluginPromptSection(catalog);
  return {
    catalog,
    sessionOptions: {
      ...(section !== "" ? { systemPrompt: `${DEFAULT_SYSTEM_PROMPT}\n\n${section}` } : {}),
      agentFiles: pluginAgentFiles(catalog),
      readRoots: pluginReadRoots(catalog),
    },
  };
}

/** `prompt` with a leading plugin slash command expanded; a usage error when the name is ambiguous or unreadable. */
export function expandPromptCommand(runtime: Runtime, catalog: PluginCatalog, prompt: string): string {
  const expanded = expandSlashCommand(runtime.fs, catalog, prompt);
  if (expanded.kind === "error") throw new AgentError("usage", expanded.message, { fix: "agent plugin list shows the loaded plugins and their commands" });
  return expanded.kind === "expanded" ? expanded.prompt : prompt;
}

function changedLine(plugin: LoadedConfig["changedPlugins"][number]): string {
  return escapeControls(`agent: plugin ${plugin.name} changed since it was enabled (${plugin.reason}): review ${plugin.root}, then run agent plugin enable ${plugin.name} (or agent plugin disable ${plugin.name})`);
}

/** False (after saying why) when an enabled installed plugin changed: the run must not go on without its hooks. */
export function requirePluginsUnchanged(io: CliIO, loaded: Pick<LoadedConfig, "changedPlugins">): boolean {
  if (loaded.changedPlugins.length === 0) return true;
  for (const plugin of loaded.changedPlugins) io.err(`${changedLine(plugin)}\n`);
  io.err("agent: nothing ran\n");
  return false;
}

/**
 * The interactive form: asks, per changed plugin, whether to trust its files as they are now (and
 * pins them, as `agent plugin enable` does). False when one is refused: nothing runs.
 */
export async function askChangedPlugins(runtime: Runtime, io: CliIO, loaded: Pick<LoadedConfig, "changedPlugins" | "home">, ask: (question: string) => Promise<string | null>): Promise<boolean> {
  for (const plugin of loaded.changedPlugins) {
    io.err(`${changedLine(plugin)}\n`);
    const answer = ((await ask(`trust plugin ${plugin.name} as it is now? [y/N] `)) ?? "").trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      io.err(`agent: plugin ${plugin.name} not trusted; nothing ran\n`);
      return false;
    }
    enablePlugin(runtime, loaded.home, plugin.name);
    io.err(`agent: plugin ${plugin.name} trusted\n`);
  }
  return true;
}
