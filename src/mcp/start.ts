/**
 * Builds the McpManager of one command run from the loaded config, with the environment rules of
 * hooks and bash: a stdio server starts from the stripped environment (no provider keys or
 * secret-named variables, D18) plus its own `env`; `${NAME}` references read the full one.
 */
import pkg from "../../package.json" with { type: "json" };
import type { Runtime } from "../runtime/types.ts";
import { stripEnv } from "../hooks/shell/env.ts";
import { PROVIDER_KEY_VARS } from "../hooks/engine.ts";
import type { McpServerSpec } from "../config/mcp-servers.ts";
import { McpManager } from "./manager.ts";

export function createMcpManager(runtime: Runtime, options: { readonly servers: readonly McpServerSpec[]; readonly cwd: string; readonly onNotice: (text: string) => void }): McpManager {
  const env = runtime.env();
  return new McpManager({
    runtime,
    servers: options.servers,
    cwd: options.cwd,
    baseEnv: stripEnv(env, { providerKeyVars: PROVIDER_KEY_VARS }).env,
    refEnv: env,
    version: pkg.version,
    onNotice: options.onNotice,
  });
}

