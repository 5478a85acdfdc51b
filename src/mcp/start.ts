/**
 * Builds the McpManager of one command run from the loaded config, with the environment rules of
 * hooks and bash: a stdio server starts from the stripped environment (no provider keys or
 * secret-named variables, D18) plus its own `env`.
 *
 * Where `${NAME}` in `env` and `headers` is looked up depends on who wrote the server: a user
 * server's references read the agent's whole environment (its own token is the point), a project
 * server's read the stripped one, as project http hooks do, so a cloned repository cannot send
 * `${OPENAI_API_KEY}` anywhere.
 *
 * A user server is the user's program and must not run the project's: without its own `cwd` it
 * starts in a neutral directory (`$AGENT_HOME`, or the file-system root when that lies inside the
 * project), so `npx -y pkg` cannot resolve the project's `node_modules` copy, and its PATH keeps
 * no entry inside the project and no relative entry. A user who wants it in the project says
 * `cwd = "."` (relative to the agent's cwd). Project servers start in the agent's cwd, as before.
 */
import pkg from "../../package.json" with { type: "json" };
import type { Runtime } from "../runtime/types.ts";
import { stripEnv } from "../hooks/shell/env.ts";
import { PROVIDER_KEY_VARS } from "../hooks/engine.ts";
import type { McpServerSpec } from "../config/mcp-servers.ts";
import { locateConfig } from "../config/paths.ts";
import { isAbsolutePath, isInside, rootOf } from "../util/path-utils.ts";
import { McpManager } from "./manager.ts";

export function createMcpManager(
  runtime: Runtime,
  options: { readonly servers: readonly McpServerSpec[]; readonly cwd: string; readonly onNotice: (text: string) => void },
): McpManager {
  const env = runtime.env();
  const baseEnv = stripEnv(env, { providerKeyVars: PROVIDER_KEY_VARS }).env;
  const location = locateConfig(runtime.fs, { env, homedir: runtime.platform.homedir, cwd: options.cwd });
  const project = location.projectScope ? location.projectRoot : options.cwd;
  return new McpManager({
    runtime,
    servers: options.servers,
    cwd: options.cwd,
    baseEnv,
    refEnv: env,
    user: { cwd: neutralCwd(runtime, location.agentHome, project), baseEnv: withoutProjectPath(baseEnv, project, runtime.platform.os === "win32" ? ";" : ":") },
    version: pkg.version,
    onNotice: options.onNotice,
  });
}

/** `$AGENT_HOME` when it is a directory outside the project; else the root of the file system it is on. */
export function neutralCwd(runtime: Pick<Runtime, "fs">, agentHome: string, project: string): string {
  const real = runtime.fs.realpath(agentHome) ?? agentHome;
  const realProject = runtime.fs.realpath(project) ?? project;
  if (runtime.fs.stat(real)?.kind === "dir" && !isInside(real, realProject)) return real;
  return rootOf(agentHome);
}

/** `env` with PATH entries that are relative (they follow the cwd) or inside the project removed. */
export function withoutProjectPath(env: Readonly<Record<string, string>>, project: string, separator: string): Record<string, string> {
  const out = { ...env };
  const path = env.PATH;
  // A project at the file-system root holds every directory: nothing could be kept.
  if (path === undefined || rootOf(project) === project) return out;
  out.PATH = path
    .split(separator)
    .filter((entry) => entry !== "" && isAbsolutePath(entry) && !isInside(entry, project))
    .join(separator);
  return out;
}
