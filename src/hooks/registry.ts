/**
 * The hook registry is loaded with the rest of the config (src/config/load.ts); this module keeps
 * the old import path working for callers that only want the hooks.
 */
export { canonicalSpec, loadConfig } from "../config/load.ts";
export type { EffectiveSettings, LoadOptions, LoadedConfig, ProjectTrustMaterial } from "../config/load.ts";
