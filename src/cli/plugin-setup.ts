/**
 * What the loaded plugins add to a session (`agent run` and the interactive session): the skills and
 * agents section of the system prompt, plugin agents for `task`, read access to the plugins' roots
 * (their skills' files) and slash-command expansion of a prompt.
 */
import type { Runtime } from "../runtime/types.ts";
import type { LoadedConfig } from "../config/load.ts";
import { pluginAgentFiles, pluginCatalog, pluginPromptSection, pluginReadRoots, pluginSkillFiles, type PluginCatalog } from "../plugins/components.ts";
import { expandSlashCommand, type PreparedCommand } from "../plugins/commands.ts";
import { DEFAULT_SYSTEM_PROMPT } from "../agent/agent-session.ts";
import { AgentError } from "../util/errors.ts";

export interface PluginSessionParts {
  readonly catalog: PluginCatalog;
  /** Spread into AgentSessionOptions: empty when no plugin is loaded. */
  readonly sessionOptions: {
    systemPrompt?: string;
    agentFiles?: ReadonlyMap<string, string>;
    skillFiles?: ReadonlyMap<string, string>;
    readRoots?: readonly string[];
  };
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
      skillFiles: pluginSkillFiles(catalog),
      readRoots: pluginReadRoots(catalog),
    },
  };
}

/**
 * `prompt` with a leading plugin slash command expanded (the command, for the session to run its
 * `!` lines, `@` files, rules and model); a usage error when the name is ambiguous or unreadable.
 */
export function expandPromptCommand(runtime: Runtime, catalog: PluginCatalog, prompt: string): { text: string; command?: PreparedCommand } {
  const expanded = expandSlashCommand(runtime.fs, catalog, prompt);
  if (expanded.kind === "error") throw new AgentError("usage", expanded.message, { fix: "agent plugin list shows the loaded plugins and their commands" });
  return expanded.kind === "expanded" ? { text: expanded.prompt, command: expanded.prepared } : { text: prompt };
}
