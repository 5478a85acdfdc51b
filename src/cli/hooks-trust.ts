/** `agent hooks trust`: shows exactly what will be trusted, then pins it (D17, CLI-17). */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import { loadConfig } from "../hooks/registry.ts";
import { pinTrust, trustListing } from "../hooks/trust.ts";

export async function runHooksTrust(runtime: Runtime, io: CliIO, options: { cwd: string }): Promise<number> {
  // Pinning works with hooks off too: trusting is reviewing, nothing runs.
  const loaded = loadConfig(runtime, { cwd: options.cwd, ignoreHooksOff: true });
  const material = loaded.projectScope ? loaded.projectTrustMaterial : null;
  if (material === null) {
    io.out(`no project hooks to trust (project ${loaded.projectRoot})\n`);
    return 0;
  }
  const lines = trustListing(loaded.hooks, material);
  const scripts = material.scripts.map((path) => `  file ${path}`);
  const digest = pinTrust(runtime, loaded.home, loaded.projectRoot, material);
  io.out(
    [
      `trusting project ${loaded.projectRoot}:`,
      ...lines,
      ...scripts,
      `digest ${digest}`,
      `pinned in ${loaded.home}/trust.json; any change to these hooks, settings or files needs trust again`,
    ].join("\n") + "\n",
  );
  return 0;
}
