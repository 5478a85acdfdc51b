/**
 * The gate for installed plugins that changed since they were enabled: like an untrusted project,
 * nothing runs until they are trusted again (`agent plugin enable NAME`, or `y` in the interactive
 * session). Light on imports: `agent notify` and `agent hooks test` load it too.
 */
import type { Runtime } from "../runtime/types.ts";
import type { LoadedConfig } from "../config/load.ts";
import { escapeControls } from "../util/escape.ts";
import type { CliIO } from "./io.ts";

function changedLine(plugin: LoadedConfig["changedPlugins"][number]): string {
  return escapeControls(
    `agent: plugin ${plugin.name} changed since it was enabled (${plugin.reason}): review ${plugin.root}, then run agent plugin enable ${plugin.name} (or agent plugin disable ${plugin.name})`,
  );
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
export async function askChangedPlugins(
  runtime: Runtime,
  io: CliIO,
  loaded: Pick<LoadedConfig, "changedPlugins" | "home">,
  ask: (question: string) => Promise<string | null>,
): Promise<boolean> {
  for (const plugin of loaded.changedPlugins) {
    io.err(`${changedLine(plugin)}\n`);
    const answer = ((await ask(`trust plugin ${plugin.name} as it is now? [y/N] `)) ?? "").trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      io.err(`agent: plugin ${plugin.name} not trusted; nothing ran\n`);
      return false;
    }
    const { enablePlugin } = await import("../plugins/registry.ts");
    enablePlugin(runtime, loaded.home, plugin.name);
    io.err(`agent: plugin ${plugin.name} trusted\n`);
  }
  return true;
}
