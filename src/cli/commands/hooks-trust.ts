/** `agent hooks trust`: shows exactly what will be trusted, then pins it (D17, CLI-17). */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { escapeControls } from "../../util/escape.ts";
import { loadConfig } from "../../config/load.ts";
import { pinTrust, trustListing } from "../../trust/trust.ts";
import { projectInstructionLines } from "../trust-gate.ts";

export async function runHooksTrust(runtime: Runtime, io: CliIO, options: { cwd: string }): Promise<number> {
  // Pinning works with hooks off too: trusting is reviewing, nothing runs.
  const loaded = loadConfig(runtime, { cwd: options.cwd, ignoreHooksOff: true });
  const material = loaded.projectScope ? loaded.projectTrustMaterial : null;
  const root = escapeControls(loaded.projectRoot);
  const instructions = projectInstructionLines(runtime, loaded, options.cwd);
  if (material === null) {
    io.out([`no project hooks to trust (project ${root})`, ...instructions].join("\n") + "\n");
    return 0;
  }
  // Throws (exit 1, nothing written) when trust.json is unreadable or `.agent/` is over its bound.
  const digest = pinTrust(runtime, loaded.home, loaded.projectRoot, material);
  const files = [...material.scripts.map((path) => `  file ${path}`), ...material.tree.map((path) => `  file ${path} (in a pinned tree)`)];
  const links = Object.entries(material.links).map(([path, target]) => `  link ${path} -> ${target} (pinned by target and by the files under it)`);
  io.out(
    [
      `trusting project ${root}:`,
      ...trustListing(loaded.hooks, material),
      ...[...files, ...links].map(escapeControls),
      ...instructions,
      `digest ${digest}`,
      `pinned in ${escapeControls(loaded.home)}/trust.json; any change to these hooks, settings or files needs trust again`,
    ].join("\n") + "\n",
  );
  return 0;
}
