/**
 * Picks the runtime at start-up (Deno, then Bun, then Node, as std-env does) and builds the one
 * `Runtime` object the rest of the program receives. Only spawning differs between runtimes.
 */
import * as common from "./common.ts";
import { spawnBun } from "./spawn-bun.ts";
import { spawnDeno } from "./spawn-deno.ts";
import { spawnNode } from "./spawn-node.ts";
import type { Runtime, SpawnRequest, SpawnResult } from "./types.ts";

export type { Runtime } from "./types.ts";

export function detectRuntime(): Runtime["name"] {
  const g = globalThis as { Deno?: unknown; Bun?: unknown };
  if (typeof g.Deno !== "undefined") return "deno";
  if (typeof g.Bun !== "undefined") return "bun";
  return "node";
}

export function createRuntime(name: Runtime["name"] = detectRuntime()): Runtime {
  const spawnOn: (request: SpawnRequest) => Promise<SpawnResult> = name === "bun" ? spawnBun : name === "deno" ? spawnDeno : spawnNode;
  // Once the agent is exiting (waiting for its output to drain) nothing new may start.
  const spawn = (request: SpawnRequest): Promise<SpawnResult> => {
    if (common.isExiting()) return Promise.resolve({ ok: false, code: "ESHUTDOWN", message: "the agent is exiting" });
    common.noteSpawnForCollection();
    return spawnOn(request);
  };
  return {
    name,
    fs: common.nodeFileSystem,
    platform: common.platformFacts(),
    env: common.envSnapshot,
    cwd: common.cwd,
    argv: common.argv,
    which: common.which,
    spawn,
    now: common.now,
    sha256Hex: common.sha256Hex,
    randomId: common.randomId,
    writeStdout: common.writeStdout,
    writeStderr: common.writeStderr,
    readStdin: common.readStdin,
    isTTY: common.isTTY,
    onSignal: common.onSignal,
    exit: common.exit,
    sleep: common.sleep,
    collectGarbageIfDue: common.collectGarbageIfDue,
  };
}
