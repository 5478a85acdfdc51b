/** The D17 gate shared by `agent run`, `agent hooks test` and `agent notify`. */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import type { LoadedConfig } from "../hooks/registry.ts";
import { checkTrust, refusalMessage, trustListing } from "../hooks/trust.ts";

/** True when the project's hooks may run; otherwise prints the refusal and returns false. */
export function requireTrust(runtime: Runtime, io: CliIO, loaded: LoadedConfig, options: { once: boolean }): boolean {
  const material = loaded.projectScope ? loaded.projectTrustMaterial : null;
  const state = checkTrust(runtime, loaded.home, loaded.projectRoot, material, { once: options.once });
  if (state.status === "not-needed" || state.status === "trusted") return true;
  io.err(`${refusalMessage(state, loaded.projectRoot, trustListing(loaded.hooks, material ?? { hooks: [], settings: {}, scripts: [] }))}\n`);
  return false;
}

export function isProjectTrusted(runtime: Runtime, loaded: LoadedConfig): boolean {
  const material = loaded.projectScope ? loaded.projectTrustMaterial : null;
  const state = checkTrust(runtime, loaded.home, loaded.projectRoot, material);
  return state.status === "not-needed" || state.status === "trusted";
}
