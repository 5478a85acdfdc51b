/**
 * Hook dispatch overhead (DESIGN.md performance table). Run: `npx bun bench/hooks.ts [runs]`.
 *
 * 1. One no-op hook of each form fired through the real engine (`engine.fire`: plan, encode,
 *    spawn, drain, decode, merge, records) versus spawning the same argv directly through the same
 *    runtime shim (`runtime.spawn` with a new process group, the same stdin bytes written, stdout and
 *    stderr read to the end, exit awaited). Medians over N interleaved runs after a warm-up; targets
 *    ≤ 1.3× and ≤ 2 ms absolute difference.
 * 2. Ten hook-directory post_tool hooks each sleeping 100 ms: the batch's median wall time (hook dirs
 *    run concurrently in the post phase, D13); target ≤ 130 ms.
 * Prints a markdown table and the command that made it.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import type { Runtime } from "../src/runtime/types.ts";
import { loadConfig } from "../src/config/load.ts";
import { createHookEngine, type HookEngine } from "../src/hooks/engine.ts";
import { EVENT_FIELD_DEFAULTS } from "../src/hooks/event-fields.ts";
import type { CanonicalEvent } from "../src/util/events.ts";
import { median, spawnDirect, time } from "./support.ts";

const RUNS = Number(process.argv[2] ?? 50);
const WARMUP = 5;
const SLEEP_BATCH_RUNS = Math.max(3, Math.min(15, Math.round(RUNS / 4)));

interface World {
  readonly root: string;
  readonly home: string;
  readonly project: string;
  readonly runtime: Runtime;
}

function makeWorld(): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-hooks-")));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(home, ".agent"), { recursive: true });
  const base = createRuntime();
  const env = (): Record<string, string> => ({ ...base.env(), HOME: home, AGENT_HOME: join(home, ".agent") });
  return { root, home, project, runtime: { ...base, env, platform: { ...base.platform, homedir: home } } };
}

function write(path: string, text: string, executable = false): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  if (executable) chmodSync(path, 0o755);
}

const NOOP = "#!/bin/sh\nexit 0\n";

interface FormSetup {
  readonly form: string;
  /** What the direct spawn runs: the argv the hook's form would build. */
  readonly argv: string[];
  readonly cwd: string;
  readonly install: (world: World) => void;
}

function forms(world: World): FormSetup[] {
  const agentHome = join(world.home, ".agent");
  const dirRun = join(agentHome, "hooks", "noop", "run.sh");
  const script = join(world.project, "noop.sh");
  return [
    {
      form: "hook dir (exec, action)",
      argv: [dirRun],
      cwd: join(agentHome, "hooks", "noop"),
      install: () => {
        write(join(agentHome, "hooks", "noop", "hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
        write(dirRun, NOOP, true);
      },
    },
    {
      form: "lifecycle (/bin/sh -c, claude)",
      argv: ["/bin/sh", "-c", script],
      cwd: world.project,
      install: () => {
        write(script, NOOP, true);
        write(join(agentHome, "config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "${script}" }]\n`);
      },
    },
    {
      // The login environment is captured once per engine (warm-up), then each run is `bash -c`.
      form: "list (/bin/bash -c + captured login env, envelope)",
      argv: ["/bin/bash", "-c", "./noop.sh"],
      cwd: world.project,
      install: () => {
        write(script, NOOP, true);
        write(join(agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: [{ command: "./noop.sh" }] } }));
      },
    },
  ];
}

function engineFor(world: World): HookEngine {
  const loaded = loadConfig(world.runtime, { cwd: world.project });
  if (loaded.warnings.length > 0) throw new Error(`bench config warnings: ${JSON.stringify(loaded.warnings)}`);
  return createHookEngine(world.runtime, { hooks: loaded.hooks, readonlyMode: false, quietSuccessOutput: false, sinks: {} });
}

function fireOnce(engine: HookEngine, world: World, event: CanonicalEvent): Promise<unknown> {
  return engine.fire({
    event,
    sessionId: "bench",
    transcriptPath: null,
    cwd: world.project,
    projectDir: world.project,
    permissionMode: "bypass",
    tool: { name: "bash", callId: "call_1", input: { command: "ls -la" } },
    ...(event === "post_tool" ? { result: { success: true, content: "ok" } } : {}),
    fields: EVENT_FIELD_DEFAULTS[event],
    context: { sessionPath: null, providerId: null, modelId: null, agentId: null, invocationMode: "print", turnId: "t", messageId: "m", subagent: false },
  });
}

interface Row {
  readonly form: string;
  readonly direct: number;
  readonly hook: number;
}

async function overhead(): Promise<Row[]> {
  const rows: Row[] = [];
  const probe = makeWorld();
  for (const setup of forms(probe)) {
    const world = makeWorld();
    const current = forms(world).find((f) => f.form === setup.form);
    if (!current) continue;
    current.install(world);
    const engine = engineFor(world);
    const env = { ...engine.baseEnv };
    // A stdin of the size a pre_tool payload has, so both sides write the same bytes.
    const stdin = new TextEncoder().encode(
      `${JSON.stringify({ session_id: "bench", cwd: world.project, hook_event: "pre_tool", tool: "bash", tool_use_id: "call_1", input: { command: "ls -la" } })}\n`,
    );
    for (let i = 0; i < WARMUP; i += 1) {
      await fireOnce(engine, world, "pre_tool");
      await spawnDirect(world.runtime, current.argv, current.cwd, env, stdin);
    }
    const direct: number[] = [];
    const hook: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      direct.push(await time(() => spawnDirect(world.runtime, current.argv, current.cwd, env, stdin)));
      hook.push(await time(() => fireOnce(engine, world, "pre_tool")));
    }
    rows.push({ form: current.form, direct: median(direct), hook: median(hook) });
    rmSync(world.root, { recursive: true, force: true });
  }
  rmSync(probe.root, { recursive: true, force: true });
  return rows;
}

async function sleepBatch(): Promise<{ median: number; max: number }> {
  const world = makeWorld();
  for (let i = 0; i < 10; i += 1) {
    write(join(world.home, ".agent", "hooks", `sleep${i}`, "hook.json"), JSON.stringify({ event: "post_tool", run: "./run.sh" }));
    write(join(world.home, ".agent", "hooks", `sleep${i}`, "run.sh"), "#!/bin/sh\nexec sleep 0.1\n", true);
  }
  const engine = engineFor(world);
  await fireOnce(engine, world, "post_tool");
  const runs: number[] = [];
  for (let i = 0; i < SLEEP_BATCH_RUNS; i += 1) runs.push(await time(() => fireOnce(engine, world, "post_tool")));
  rmSync(world.root, { recursive: true, force: true });
  return { median: median(runs), max: Math.max(...runs) };
}

const fmt = (ms: number): string => ms.toFixed(2);
const rows = await overhead();
const batch = await sleepBatch();
const runtime = createRuntime();
const lines = [
  `Command: \`npx bun bench/hooks.ts ${RUNS}\` (runtime ${runtime.name}, ${runtime.platform.os}; medians of ${RUNS} interleaved runs after ${WARMUP} warm-up runs).`,
  "",
  "| one no-op pre_tool hook | direct spawn (ms) | through dispatch (ms) | ratio | difference (ms) | target |",
  "| --- | ---: | ---: | ---: | ---: | --- |",
  ...rows.map((row) => {
    const ratio = row.hook / row.direct;
    const diff = row.hook - row.direct;
    const ok = ratio <= 1.3 && diff <= 2 ? "met" : "missed";
    return `| ${row.form} | ${fmt(row.direct)} | ${fmt(row.hook)} | ${ratio.toFixed(2)}× | ${fmt(diff)} | ≤ 1.3× and ≤ 2 ms: ${ok} |`;
  }),
  "",
  "| ten hook-dir post_tool hooks, each `sleep 0.1` | median (ms) | max (ms) | target |",
  "| --- | ---: | ---: | --- |",
  `| one post_tool event, ${SLEEP_BATCH_RUNS} runs | ${fmt(batch.median)} | ${fmt(batch.max)} | ≤ 130 ms: ${batch.median <= 130 ? "met" : "missed"} |`,
];
process.stdout.write(`${lines.join("\n")}\n`);
