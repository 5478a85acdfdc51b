/**
 * Hooks where users' setups are heavy, each against a floor measured in the same run, through the
 * real engine (`engine.fire`: plan, encode, spawn, drain, decode, merge):
 *
 * 1. A tool-call list hook (`true`) under a HOME whose ~/.bash_profile takes ≈430 ms (a `sleep 0.43`
 *    and PATH/variable exports, as pyenv/nvm set-ups do). Rows: the floor (`/bin/bash -c true`
 *    spawned directly, same stdin), a direct `/bin/bash -lc true` (what each list hook cost when it
 *    was a login shell per run), the hook per invocation on one engine (the capture taken during
 *    warm-up), and the first invocation on a fresh engine (capture included). Target: per invocation
 *    ≤ floor + 2 ms.
 * 2. Ten matching claude-dialect pre_tool_use commands of `sleep 0.1` (one concurrent batch) against
 *    the floor of one such command, and the same ten with `protocol = "action"` (still one at a
 *    time) for comparison, and ten `/bin/sh -c 'sleep 0.1'` spawned at once without the engine.
 *    Target: ≤ the slowest single hook + 10%. The last column is when the last process of the
 *    batch was asked for, from the start: the engine's own work before the spawns shows there.
 *
 *   npx bun bench/heavy-hooks.ts [--runs=21]
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import type { Runtime } from "../src/runtime/types.ts";
import { loadConfig } from "../src/config/load.ts";
import { createHookEngine, type HookEngine } from "../src/hooks/engine.ts";
import { EVENT_FIELD_DEFAULTS } from "../src/hooks/event-fields.ts";
import { median, spawnDirect, time } from "./support.ts";

const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 21);
const WARMUP = 3;
const PROFILE_SLEEP = "0.43";

interface World {
  readonly root: string;
  readonly home: string;
  readonly project: string;
  readonly runtime: Runtime;
  /** When each spawn of this world's runtime was asked for (performance.now()). */
  readonly spawnCalls: number[];
}

const worlds: string[] = [];
function makeWorld(): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-heavy-")));
  worlds.push(root);
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(home, ".agent"), { recursive: true });
  const base = createRuntime();
  const env = (): Record<string, string> => ({ ...base.env(), HOME: home, AGENT_HOME: join(home, ".agent") });
  const spawnCalls: number[] = [];
  const spawn: Runtime["spawn"] = (request) => {
    spawnCalls.push(performance.now());
    return base.spawn(request);
  };
  return { root, home, project, spawnCalls, runtime: { ...base, env, spawn, platform: { ...base.platform, homedir: home } } };
}

function write(path: string, text: string, executable = false): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  if (executable) chmodSync(path, 0o755);
}

function engineFor(world: World): HookEngine {
  const loaded = loadConfig(world.runtime, { cwd: world.project });
  if (loaded.warnings.length > 0) throw new Error(`bench config warnings: ${JSON.stringify(loaded.warnings)}`);
  return createHookEngine(world.runtime, { hooks: loaded.hooks, readonlyMode: false, quietSuccessOutput: false, sinks: {} });
}

function firePre(engine: HookEngine, world: World): Promise<unknown> {
  return engine.fire({
    event: "pre_tool",
    sessionId: "bench",
    transcriptPath: null,
    cwd: world.project,
    projectDir: world.project,
    permissionMode: "bypass",
    tool: { name: "bash", callId: "call_1", input: { command: "ls -la" } },
    fields: EVENT_FIELD_DEFAULTS.pre_tool,
    context: { sessionPath: null, providerId: null, modelId: null, agentId: null, invocationMode: "print", turnId: "t", messageId: "m", subagent: false },
  });
}

/** The time of `action` and when the last spawn of `world` began, both from the start of the action. */
async function timeSpawns(world: World, action: () => Promise<unknown>): Promise<{ ms: number; lastSpawn: number }> {
  world.spawnCalls.length = 0;
  const started = performance.now();
  await action();
  const ms = performance.now() - started;
  return { ms, lastSpawn: (world.spawnCalls.at(-1) ?? started) - started };
}
const fmt = (ms: number): string => ms.toFixed(2);

async function loginProfile(): Promise<string[]> {
  const world = makeWorld();
  write(
    join(world.home, ".bash_profile"),
    [
      `sleep ${PROFILE_SLEEP}`,
      `export PYENV_ROOT="$HOME/.pyenv"`,
      `export PATH="$PYENV_ROOT/shims:$HOME/.nvm/versions/node/v22/bin:$PATH"`,
      `export NVM_DIR="$HOME/.nvm"`,
    ].join("\n") + "\n",
  );
  write(join(world.home, ".agent", "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: [{ command: "true" }] } }));
  const engine = engineFor(world);
  const env = { ...engine.baseEnv };
  const stdin = new TextEncoder().encode(`${JSON.stringify({ schema: "agent.tool_hook", payload: "x".repeat(600) })}\n`);
  for (let i = 0; i < WARMUP; i += 1) await firePre(engine, world);
  const floor: number[] = [];
  const hook: number[] = [];
  const login: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    floor.push(await time(() => spawnDirect(world.runtime, ["/bin/bash", "-c", "true"], world.project, env, stdin)));
    hook.push(await time(() => firePre(engine, world)));
    if (i < 5) login.push(await time(() => spawnDirect(world.runtime, ["/bin/bash", "-lc", "true"], world.project, env, stdin)));
  }
  const first: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const fresh = engineFor(world);
    first.push(await time(() => firePre(fresh, world)));
    await fresh.close();
  }
  await engine.close();
  const f = median(floor);
  const h = median(hook);
  return [
    `| list hook \`true\`, ~/.bash_profile ≈${Number(PROFILE_SLEEP) * 1000} ms | ms (median) | vs floor |`,
    "| --- | ---: | ---: |",
    `| floor: \`/bin/bash -c true\` spawned directly | ${fmt(f)} | 1.00× |`,
    `| \`/bin/bash -lc true\` spawned directly (a login shell per run, 5 runs) | ${fmt(median(login))} | ${(median(login) / f).toFixed(1)}× |`,
    `| list hook per invocation (login env captured once) | ${fmt(h)} | +${fmt(h - f)} ms (target ≤ +2 ms: ${h - f <= 2 ? "met" : "missed"}) |`,
    `| first invocation on a fresh engine (capture + hook, 3 runs) | ${fmt(median(first))} | ${(median(first) / f).toFixed(1)}× |`,
  ];
}

async function slowHooks(): Promise<string[]> {
  const batchOf = (count: number, protocol: string): World => {
    const world = makeWorld();
    const hooks = Array.from({ length: count }, () => `{ command = "sleep 0.1"${protocol === "" ? "" : `, protocol = "${protocol}"`} }`).join(", ");
    write(join(world.home, ".agent", "config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [${hooks}]\n`);
    return world;
  };
  const setups = [
    { label: "floor: one claude command `sleep 0.1`", world: batchOf(1, "") },
    { label: "ten claude commands (one concurrent batch)", world: batchOf(10, "") },
    { label: "ten action-dialect commands (one at a time)", world: batchOf(10, "action") },
  ].map((setup) => ({ ...setup, engine: engineFor(setup.world), runs: [] as number[], lastSpawn: [] as number[] }));
  for (const setup of setups) await firePre(setup.engine, setup.world);
  const runs = Math.max(5, Math.round(RUNS / 2));
  // What ten processes started at once cost on this machine, with no engine at all.
  const direct: number[] = [];
  const directLast: number[] = [];
  const first = setups[0];
  const env = first ? { ...first.engine.baseEnv } : {};
  const stdin = new TextEncoder().encode("{}\n");
  for (let i = 0; i < runs; i += 1) {
    for (const setup of setups) {
      const run = await timeSpawns(setup.world, () => firePre(setup.engine, setup.world));
      setup.runs.push(run.ms);
      setup.lastSpawn.push(run.lastSpawn);
    }
    if (!first) continue;
    const run = await timeSpawns(first.world, () =>
      Promise.all(Array.from({ length: 10 }, () => spawnDirect(first.world.runtime, ["/bin/sh", "-c", "sleep 0.1"], first.world.project, env, stdin))),
    );
    direct.push(run.ms);
    directLast.push(run.lastSpawn);
  }
  for (const setup of setups) await setup.engine.close();
  const floor = median(setups[0]?.runs ?? []);
  const bare = median(direct);
  return [
    `| ten matching pre_tool hooks of 100 ms (${runs} runs) | ms (median) | vs the slowest single hook | vs ten bare processes | last spawn starts at (ms) |`,
    "| --- | ---: | ---: | ---: | ---: |",
    ...setups.map((setup, index) => {
      const m = median(setup.runs);
      const target = index === 1 ? ` (target ≤ 1.10×: ${m / floor <= 1.1 ? "met" : "missed"})` : "";
      return `| ${setup.label} | ${fmt(m)} | ${(m / floor).toFixed(2)}×${target} | ${(m / bare).toFixed(2)}× | ${fmt(median(setup.lastSpawn))} |`;
    }),
    `| ten \`/bin/sh -c 'sleep 0.1'\` spawned directly at once (no engine) | ${fmt(bare)} | ${(bare / floor).toFixed(2)}× | 1.00× | ${fmt(median(directLast))} |`,
  ];
}

try {
  const runtime = createRuntime();
  const login = await loginProfile();
  const slow = await slowHooks();
  process.stdout.write(
    [
      `Command: \`npx bun bench/heavy-hooks.ts --runs=${RUNS}\` (runtime ${runtime.name}, ${runtime.platform.os}; interleaved runs after ${WARMUP} warm-up runs).`,
      "",
      ...login,
      "",
      ...slow,
      "",
    ].join("\n"),
  );
} finally {
  for (const root of worlds) rmSync(root, { recursive: true, force: true });
}
