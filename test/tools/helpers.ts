// Shared set-up for tool tests: a real temp workspace and the real runtime.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import type { Runtime, SpawnRequest } from "../../src/runtime/types.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { waitUntil } from "../support/procs.ts";

export interface Workspace {
  root: string;
  /** A directory next to the workspace (outside it) for escape tests. */
  outside: string;
  cleanup(): void;
}

export function makeWorkspace(): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "agent-tools-")));
  const root = join(base, "ws");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  return { root, outside, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** Writes `content` at `path` under `root`, creating parent directories. */
export function putFile(root: string, path: string, content: string | Uint8Array): void {
  const full = join(root, path);
  mkdirSync(join(full, ".."), { recursive: true });
  writeFileSync(full, content);
}

/** The built-in walk unless `ripgrep` is overridden: most search tests are about our own engine. */
export function makeContext(root: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return { runtime: createRuntime(), cwd: root, workspaceRoot: root, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, ripgrep: null, ...overrides };
}

/** The real runtime with a spy that records every spawn request. */
export function spyRuntime(): { runtime: Runtime; spawns: SpawnRequest[] } {
  const real = createRuntime();
  const spawns: SpawnRequest[] = [];
  return {
    spawns,
    runtime: {
      ...real,
      spawn: (request) => {
        spawns.push(request);
        return real.spawn(request);
      },
    },
  };
}

/** True while `pid` exists and is not a zombie (a container's PID 1 may not reap orphans). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

export function waitUntilDead(pid: number, maxMs = 5000): Promise<boolean> {
  return waitUntil(() => !isAlive(pid), maxMs, 50);
}
