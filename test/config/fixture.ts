// Temp homes and projects for config tests: real files, and a runtime whose env points at them.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import type { CliIO } from "../../src/cli/io.ts";

export interface Sandbox {
  /** Real path of the sandbox root. */
  root: string;
  /** `$HOME` */
  home: string;
  /** `$AGENT_HOME` */
  agentHome: string;
  /** A project root holding `.git` */
  project: string;
  runtime: Runtime;
  /** Writes a file relative to the sandbox root (or absolute), creating parents. */
  write(path: string, text: string, mode?: number): string;
  /** A runtime with extra env values (e.g. AGENT_HOOKS). */
  withEnv(extra: Record<string, string>): Runtime;
}

export function sandbox(options: { git?: boolean } = {}): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-config-")));
  const home = join(root, "home");
  const agentHome = join(home, ".agent");
  const project = join(root, "proj");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  if (options.git !== false) mkdirSync(join(project, ".git"));
  const base = createRuntime();
  const withEnv = (extra: Record<string, string>): Runtime => {
    const env = (): Record<string, string> => {
      const out: Record<string, string> = { ...base.env(), HOME: home, AGENT_HOME: agentHome, ...extra };
      delete out.AGENT_HOOKS;
      if (extra.AGENT_HOOKS !== undefined) out.AGENT_HOOKS = extra.AGENT_HOOKS;
      return out;
    };
    return { ...base, env, platform: { ...base.platform, homedir: home } };
  };
  const write = (path: string, text: string, mode?: number): string => {
    const full = path.startsWith("/") ? path : join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    if (mode !== undefined) chmodSync(full, mode);
    return full;
  };
  return { root, home, agentHome, project, runtime: withEnv({}), write, withEnv };
}

export function captureIO(): CliIO & { stdout: () => string; stderr: () => string } {
  let out = "";
  let err = "";
  return {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    stdout: () => out,
    stderr: () => err,
  };
}

export const SCRIPT = "#!/bin/sh\ncat >/dev/null\nexit 0\n";
