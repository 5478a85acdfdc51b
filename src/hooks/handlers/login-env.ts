/**
 * The login environment of tool-call list hooks (seed 003 spawns them as `/bin/bash -lc`). A real
 * profile (pyenv, nvm, conda…) can take hundreds of milliseconds, paid on every hook run; what hooks
 * rely on from `-l` is the environment the profile exports (PATH above all). So the profile runs once:
 * `/bin/bash -lc` prints its exported variables, and each hook then runs as `/bin/bash -c` with them.
 * The capture is taken again when a profile file changes (mtime or size) or for another cwd. When it
 * fails (no marker in the output, a timeout, a spawn error) hooks keep `/bin/bash -lc` for that
 * profile state. docs/hooks.md lists what differs from a fresh login shell.
 */
import type { FileSystem, Runtime } from "../../runtime/types.ts";
import { runProcess, type ProcessGroups } from "./runner.ts";

/** The files bash -l reads (and the usual ~/.bashrc they source); a change to any of them retakes the capture. */
export function profileFiles(home: string): string[] {
  const files = ["/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc"];
  if (home !== "") files.push(`${home}/.bash_profile`, `${home}/.bash_login`, `${home}/.profile`, `${home}/.bashrc`);
  return files;
}

function fingerprint(fs: FileSystem, files: readonly string[]): string {
  return files
    .map((file) => {
      const stat = fs.stat(file);
      return stat ? `${stat.mtimeMs}:${stat.size}` : "-";
    })
    .join("|");
}

const MARKER = "\u0000agent-login-env\u0000";
/** Bash builtins only (the profile may have broken PATH): every exported name, NUL-separated after a marker. */
const CAPTURE_SCRIPT = `IFS=$' \\t\\n'; printf '\\0agent-login-env\\0'; for agent_name in $(compgen -e); do printf '%s=%s\\0' "$agent_name" "\${!agent_name}"; done`;
const CAPTURE_TIMEOUT_MS = 30_000;
const CAPTURE_CAP_BYTES = 4 * 1024 * 1024;
/** Set by every bash for itself: never carried over from the capture. */
const SHELL_OWN = ["SHLVL", "PWD", "OLDPWD", "_"] as const;

/** Parses the capture's stdout; null when the marker is missing (the script did not run to the end). */
export function parseCapture(stdout: Uint8Array): Record<string, string> | null {
  const text = new TextDecoder().decode(stdout);
  const at = text.lastIndexOf(MARKER);
  if (at < 0) return null;
  const env: Record<string, string> = {};
  for (const pair of text.slice(at + MARKER.length).split("\u0000")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) continue;
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  for (const name of SHELL_OWN) delete env[name];
  return env;
}

/**
 * The environment of one hook run: the login capture, with the hook's own variables on top. `base`
 * is the environment the capture ran with. A name the hook environment sets to something else than
 * that base (AGENT_*, CLAUDE_*, the dialect's, a session variable added since) wins; a base name the
 * profile changed or unset follows the profile, as under `-l`; a base name the hook environment
 * removed stays removed; bash's own (SHLVL, PWD, …) are the hook's.
 */
export function mergeLoginEnv(
  login: Readonly<Record<string, string>>,
  base: Readonly<Record<string, string>>,
  hook: Readonly<Record<string, string>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(login)) {
    if (Object.hasOwn(base, name) && !Object.hasOwn(hook, name)) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(hook)) {
    if (!Object.hasOwn(base, name) || base[name] !== value) env[name] = value;
  }
  for (const name of SHELL_OWN) {
    const value = hook[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A capture: the login environment and the environment the profile ran with. */
export interface LoginCapture {
  readonly env: Readonly<Record<string, string>>;
  readonly base: Readonly<Record<string, string>>;
}

export interface LoginEnvCache {
  /** The login capture for `cwd`, or null when hooks must keep `/bin/bash -lc`. */
  get(runtime: Runtime, base: Readonly<Record<string, string>>, cwd: string, groups?: ProcessGroups): Promise<LoginCapture | null>;
  /** How many captures ran (each is one `/bin/bash -lc`). */
  readonly captures: number;
}

async function capture(runtime: Runtime, base: Readonly<Record<string, string>>, cwd: string, groups?: ProcessGroups): Promise<LoginCapture | null> {
  const result = await runProcess(runtime, {
    argv: ["/bin/bash", "-lc", CAPTURE_SCRIPT],
    cwd,
    env: base,
    stdin: new Uint8Array(0),
    timeoutMs: CAPTURE_TIMEOUT_MS,
    stdoutCapBytes: CAPTURE_CAP_BYTES,
    stderrCapBytes: 64 * 1024,
    overflow: "fail",
    shellForm: true,
    ...(groups ? { groups } : {}),
  });
  const env = result.kind === "ok" ? parseCapture(result.stdout) : null;
  return env === null ? null : { env, base: { ...base } };
}

/** One cache per hook engine (a session): the latest capture per cwd, keyed by the profile files' state. */
export function createLoginEnvCache(): LoginEnvCache {
  const latest = new Map<string, { readonly key: string; readonly env: Promise<LoginCapture | null> }>();
  let captures = 0;
  return {
    get(runtime, base, cwd, groups) {
      const files = profileFiles(base.HOME ?? "");
      const key = fingerprint(runtime.fs, files);
      const held = latest.get(cwd);
      if (held !== undefined && held.key === key) return held.env;
      captures += 1;
      const env = capture(runtime, base, cwd, groups);
      latest.set(cwd, { key, env });
      return env;
    },
    get captures() {
      return captures;
    },
  };
}
