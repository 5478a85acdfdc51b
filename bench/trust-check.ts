/**
 * The spawn-time trust check (src/trust/guard.ts): what re-checking every
 * pinned file costs before each project hook spawn, against spawning one no-op hook-dir script
 * directly (the baseline, measured in the same run, interleaved). Trees of 10, 100 and 1000 (the
 * bound) files of 2 KiB under `.agent/`; "warm" is the steady state (stats only, files older than
 * RACY_MS), "cold" the first check of a session (every file hashed).
 *
 * Run: `npx bun bench/trust-check.ts [runs]` (default 51). Prints a markdown table of medians.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import type { Runtime } from "../src/runtime/types.ts";
import { scanAgentTree } from "../src/trust/material.ts";
import { createTrustGuard } from "../src/trust/guard.ts";
import { median } from "./support.ts";

const RUNS = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 51);
const WARMUP = 5;
const SIZES = [10, 100, 1000];

async function drain(stream: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!stream) return;
  const reader = stream.getReader();
  for (;;) if ((await reader.read()).done) return;
}

async function spawnNoop(runtime: Runtime, script: string): Promise<void> {
  const spawned = await runtime.spawn({
    argv: [script],
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    newGroup: true,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (!spawned.ok) throw new Error(spawned.message);
  const { child } = spawned;
  await Promise.all([child.closeStdin(), drain(child.stdout), drain(child.stderr), child.exited]);
}

/** A project whose `.agent/hooks/` holds `count` files (10 per directory), all older than RACY_MS. */
function tree(root: string, count: number): string {
  const project = join(root, `p${count}`);
  const old = new Date(Date.now() - 60_000);
  for (let i = 0; i < count; i++) {
    const dir = join(project, ".agent", "hooks", `d${Math.floor(i / 10)}`);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `f${i}.sh`);
    writeFileSync(path, `#!/bin/sh\n# ${"x".repeat(2030)}\n`);
    utimesSync(path, old, old);
  }
  return project;
}

const runtime = createRuntime();
const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-trust-")));
try {
  const noop = join(root, "noop.sh");
  writeFileSync(noop, "#!/bin/sh\nexit 0\n");
  chmodSync(noop, 0o755);
  const rows: string[] = [];
  for (const size of SIZES) {
    const project = tree(root, size);
    const treeRoots = [join(project, ".agent")];
    const scan = scanAgentTree(runtime.fs, treeRoots);
    const files: Record<string, string> = {};
    for (const path of scan.files) files[path] = runtime.sha256Hex(runtime.fs.readBytes(path) ?? new Uint8Array());
    const baseline = { root: project, treeRoots, files, tree: scan.files, links: scan.links };
    const warmGuard = createTrustGuard(runtime, baseline);
    if (warmGuard() !== null) throw new Error("bench tree does not match its baseline");
    const spawnMs: number[] = [];
    const warmMs: number[] = [];
    const coldMs: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      let t = performance.now();
      await spawnNoop(runtime, noop);
      const s = performance.now() - t;
      t = performance.now();
      warmGuard();
      const w = performance.now() - t;
      const cold = createTrustGuard(runtime, baseline);
      t = performance.now();
      cold();
      const c = performance.now() - t;
      if (i >= WARMUP) {
        spawnMs.push(s);
        warmMs.push(w);
        coldMs.push(c);
      }
    }
    const spawn = median(spawnMs);
    const warm = median(warmMs);
    const cold = median(coldMs);
    rows.push(
      `| ${size} files (${Object.keys(scan.links).length} links) | ${spawn.toFixed(2)} | ${warm.toFixed(3)} | ${(warm / spawn).toFixed(2)}× | ${cold.toFixed(3)} | ${(cold / spawn).toFixed(2)}× |`,
    );
  }
  console.log(`runtime ${runtime.name}, ${process.platform}; medians of ${RUNS} interleaved runs after ${WARMUP} warm-up runs`);
  console.log("");
  console.log("| pinned files under .agent/ | no-op spawn (ms, baseline) | warm check (ms) | warm / spawn | cold check (ms) | cold / spawn |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) console.log(row);
} finally {
  rmSync(root, { recursive: true, force: true });
}
