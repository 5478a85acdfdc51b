/**
 * Where configuration lives: `AGENT_HOME`, the project root (D26) and the four settings files in
 * load order. Reads the environment only through the `env` record it is given.
 */
import type { Scope } from "../hooks/types.ts";
import type { FileSystem } from "../runtime/types.ts";
import { dirnamePath, joinPath, normalizePath, resolvePath } from "../util/path-utils.ts";

export interface SettingsFile {
  readonly path: string;
  readonly scope: Scope;
  readonly format: "toml" | "json";
}

export interface ConfigLocation {
  /** `$AGENT_HOME`, else `$HOME/.agent`. */
  readonly agentHome: string;
  /** `$HOME` (the platform home directory when unset). */
  readonly userHome: string;
  readonly cwd: string;
  readonly projectRoot: string;
  /** False when the root's `.agent` is `$AGENT_HOME` (D26): only user scope loads. */
  readonly projectScope: boolean;
  /** The settings files in load order (D26); project files only with project scope. */
  readonly files: readonly SettingsFile[];
}

/** `AGENT_HOME` when set and non-empty, else `<home>/.agent`; always absolute and normalised. */
export function agentHomeDir(env: Readonly<Record<string, string>>, homedir: string, cwd: string): string {
  const explicit = env.AGENT_HOME?.trim();
  if (explicit) return resolvePath(cwd, explicit);
  const home = env.HOME && env.HOME.length > 0 ? env.HOME : homedir;
  return joinPath(resolvePath(cwd, home), ".agent");
}

/** D26/DIR-11: hooks are off when `AGENT_HOOKS`, trimmed, is `off` in any case. */
export function hooksOffByEnv(env: Readonly<Record<string, string>>): boolean {
  return (env.AGENT_HOOKS ?? "").trim().toLowerCase() === "off";
}

function real(fs: FileSystem, path: string): string {
  return fs.realpath(path) ?? normalizePath(path);
}

/**
 * D26: the nearest ancestor of `cwd` (itself included) holding a `.agent/` directory or a `.git`
 * entry, skipping `$HOME` and any directory whose `.agent` resolves to `$AGENT_HOME`; else `cwd`.
 */
export function findProjectRoot(fs: FileSystem, options: { cwd: string; userHome: string; agentHome: string }): { root: string; projectScope: boolean } {
  const cwd = normalizePath(options.cwd);
  const homeReal = real(fs, options.userHome);
  const agentHomeReal = real(fs, options.agentHome);
  const agentDirIsHome = (dir: string): boolean => {
    const agentDir = joinPath(dir, ".agent");
    return fs.stat(agentDir)?.kind === "dir" && real(fs, agentDir) === agentHomeReal;
  };
  let root = cwd;
  for (let dir = cwd; ; dir = dirnamePath(dir)) {
    const counts = real(fs, dir) !== homeReal && !agentDirIsHome(dir);
    if (counts && (fs.stat(joinPath(dir, ".agent"))?.kind === "dir" || fs.lstat(joinPath(dir, ".git")) !== undefined)) {
      root = dir;
      break;
    }
    if (dirnamePath(dir) === dir) break; // the root: `/`, `C:\`, `\\server\share\`
  }
  return { root, projectScope: !agentDirIsHome(root) };
}

export function locateConfig(fs: FileSystem, options: { env: Readonly<Record<string, string>>; homedir: string; cwd: string }): ConfigLocation {
  const cwd = normalizePath(options.cwd);
  const agentHome = agentHomeDir(options.env, options.homedir, cwd);
  const userHome = resolvePath(cwd, options.env.HOME && options.env.HOME.length > 0 ? options.env.HOME : options.homedir);
  const { root, projectScope } = findProjectRoot(fs, { cwd, userHome, agentHome });
  const files: SettingsFile[] = [
    { path: joinPath(agentHome, "config.toml"), scope: "user", format: "toml" },
    { path: joinPath(agentHome, "settings.json"), scope: "user", format: "json" },
  ];
  if (projectScope) {
    files.push({ path: joinPath(root, ".agent", "config.toml"), scope: "project", format: "toml" });
    files.push({ path: joinPath(root, ".agent", "settings.json"), scope: "project", format: "json" });
  }
  return { agentHome, userHome, cwd, projectRoot: root, projectScope, files };
}

/** Hook-directory roots (D4): `$H/hooks` and, with project scope, `$P/.agent/hooks`. */
export function hookDirRoots(location: ConfigLocation): { dir: string; scope: Scope }[] {
  const roots: { dir: string; scope: Scope }[] = [{ dir: joinPath(location.agentHome, "hooks"), scope: "user" }];
  if (location.projectScope) roots.push({ dir: joinPath(location.projectRoot, ".agent", "hooks"), scope: "project" });
  return roots;
}
