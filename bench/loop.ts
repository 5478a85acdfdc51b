/**
 * Agent-loop overhead of the compiled binary (DESIGN.md performance table), two parts:
 *
 * 1. Per tool call, against the fake OpenAI server of test/support/fake-openai.ts (real HTTP, real
 *    SSE): sessions of 1 and of 1 + 20 (`--calls`) `bash` calls of `true`, so the extra calls are the only
 *    difference. `one message`: all calls in one assistant message; `one per turn`: one call per
 *    provider request (adds a request round trip per call). Then the one-message layout with one pre
 *    and one post no-op hook, per form. Baselines measured in the same run: spawning the tool's and
 *    each hook's command directly, exactly as the agent does (runtime shim, new group, pipes).
 *    Peak RSS = the agent process's VmHWM (/proc/<pid>/status), polled.
 * 2. 1,000 tool calls × 10 no-op hooks (script provider, 100 turns × 10 calls), `--long-runs` times against the
 *    same binary without hooks (the floor) and `--base`: peak RSS, and RSS, fds, children
 *    and zombies of the agent sampled while it runs, then a sweep for any process left behind.
 *
 *   npm run build && npx bun bench/loop.ts [--runs=11] [--calls=20] [--turns=100] [--agent=dist/agent] [--base=PATH] [--long-runs=5] [--skip-calls] [--skip-long]
 * Prints markdown tables. Every session is checked (exit 0, call count, hook runs in the JSONL).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import { renderOpenAI, startFakeServer, type FakeReply } from "../test/support/fake-openai.ts";
import { median } from "./support.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 11);
const LONG_TURNS = Number(flag("turns") ?? 100);
const AGENT = resolve(flag("agent") ?? join(REPO, "dist/agent"));
/** Extra calls per session beyond the one of the base session (DESIGN: 20; more gives a tighter per-call figure). */
const EXTRA = Number(flag("calls") ?? 20);
const MARK = `AGENT_BENCH_MARK=${process.pid}-${Date.now()}`;

if (!existsSync(AGENT)) {
  console.error(`bench/loop: ${AGENT} not found; run \`npm run build\` first`);
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-loop-")));
const runtime = createRuntime();
const write = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const ms = (value: number): string => value.toFixed(2);
const mib = (kib: number): string => (kib / 1024).toFixed(1);

// ---- hook worlds: each is an AGENT_HOME (user scope: no trust step) ----

type HookSet = { dirPre: number; dirPost: number; lifePre: number; lifePost: number; listPre: number; listPost: number };
const NO_HOOKS: HookSet = { dirPre: 0, dirPost: 0, lifePre: 0, lifePost: 0, listPre: 0, listPost: 0 };

/** No-op hooks: a hook dir runs /bin/true directly; lifecycle `true` via /bin/sh -c; list `true` via /bin/bash -lc. */
function makeHome(name: string, hooks: HookSet): { home: string; agentHome: string; perCall: number } {
  const home = join(root, name);
  const agentHome = join(home, ".agent");
  mkdirSync(agentHome, { recursive: true });
  for (const [event, count] of [
    ["pre_tool", hooks.dirPre],
    ["post_tool", hooks.dirPost],
  ] as const) {
    for (let i = 0; i < count; i++) write(join(agentHome, "hooks", `${event}-${i}`, "hook.json"), JSON.stringify({ event, run: "/bin/true" }));
  }
  const toml: string[] = [];
  for (const [event, count] of [
    ["pre_tool_use", hooks.lifePre],
    ["post_tool_use", hooks.lifePost],
  ] as const) {
    for (let i = 0; i < count; i++) toml.push(`[[hooks.lifecycle.${event}]]`, `hooks = [{ command = "true" }]`, "");
  }
  if (toml.length > 0) write(join(agentHome, "config.toml"), toml.join("\n"));
  const list = (count: number) => Array.from({ length: count }, (_, i) => ({ label: `noop-${i}`, command: "true" }));
  if (hooks.listPre + hooks.listPost > 0) {
    write(join(agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: list(hooks.listPre), after_tool: list(hooks.listPost) } }));
  }
  const perCall = Object.values(hooks).reduce((a, b) => a + b, 0);
  return { home, agentHome, perCall };
}

const project = join(root, "project");
mkdirSync(join(project, ".git"), { recursive: true });

function envFor(home: string, agentHome: string): Record<string, string> {
  const env: Record<string, string> = { HOME: home, AGENT_HOME: agentHome, NO_COLOR: "1" };
  for (const key of ["PATH", "LANG", "TMPDIR"]) if (process.env[key]) env[key] = process.env[key] as string;
  const [key, value] = MARK.split("=") as [string, string];
  env[key] = value;
  return env;
}

// ---- one agent process, timed and sampled ----

interface Sample {
  readonly t: number;
  readonly rssKib: number;
  readonly hwmKib: number;
  readonly fds: number;
  readonly children: number;
  readonly zombies: number;
}

function statusKib(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Direct children of `pid` and how many of them are zombies (state Z). */
function childrenOf(pid: number): { children: number; zombies: number } {
  let children = 0;
  let zombies = 0;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) !== pid) continue;
    children += 1;
    if (state === "Z") zombies += 1;
  }
  return { children, zombies };
}

function sample(pid: number, start: number, full: boolean): Sample | null {
  const rssKib = statusKib(pid, "VmRSS");
  if (rssKib === 0) return null;
  let fds = -1;
  try {
    fds = full ? readdirSync(`/proc/${pid}/fd`).length : -1;
  } catch {
    return null;
  }
  const kids = full ? childrenOf(pid) : { children: -1, zombies: -1 };
  return { t: performance.now() - start, rssKib, hwmKib: statusKib(pid, "VmHWM"), fds, ...kids };
}

interface AgentRun {
  readonly ms: number;
  readonly hwmKib: number;
  readonly samples: Sample[];
  readonly stdout: string;
}

function runAgent(args: string[], env: Record<string, string>, sampleEveryMs: number, full = false, agent = AGENT): Promise<AgentRun> {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(agent, args, { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    const pid = child.pid ?? -1;
    const samples: Sample[] = [];
    let hwmKib = 0;
    const poll = (): void => {
      const s = sample(pid, start, full);
      if (s) {
        samples.push(s);
        hwmKib = Math.max(hwmKib, s.hwmKib);
      }
    };
    const timer = setInterval(poll, sampleEveryMs);
    // The peak alone is read more often, so a session shorter than one sample still has one.
    const peakTimer = setInterval(() => (hwmKib = Math.max(hwmKib, statusKib(pid, "VmHWM"))), 20);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => {
      const elapsed = performance.now() - start;
      clearInterval(timer);
      clearInterval(peakTimer);
      if (code !== 0) reject(new Error(`agent exit ${code}: ${stderr.slice(0, 1000)}`));
      else resolvePromise({ ms: elapsed, hwmKib, samples, stdout });
    });
  });
}

/** The session JSONL of the run: tool calls and successful hook runs, for the sanity checks. */
function checkSession(agentHome: string, sessionId: string, calls: number, hookRuns: number): void {
  // Session files are `<start stamp>-<id>.jsonl`.
  const dir = join(agentHome, "sessions");
  const name = readdirSync(dir).find((file) => file.endsWith(`-${sessionId}.jsonl`) || file === `${sessionId}.jsonl`) ?? `${sessionId}.jsonl`;
  const text = readFileSync(join(dir, name), "utf8");
  const results = text.split("\n").filter((line) => line.includes('"type":"tool_result"')).length;
  const hooksOk = text.split("\n").filter((line) => line.includes('"type":"hook_lifecycle"') && line.includes('"status":"success"')).length;
  if (results !== calls || hooksOk !== hookRuns)
    throw new Error(`session ${sessionId}: ${results} tool results (want ${calls}), ${hooksOk} successful hook runs (want ${hookRuns})`);
}

function summary(stdout: string): { session_id: string; tool_calls: number; is_error: boolean } {
  const last = stdout.trim().split("\n").pop() ?? "";
  const parsed: unknown = JSON.parse(last);
  if (typeof parsed !== "object" || parsed === null || !("session_id" in parsed) || !("tool_calls" in parsed) || !("is_error" in parsed))
    throw new Error(`bad summary: ${last}`);
  return { session_id: String(parsed.session_id), tool_calls: Number(parsed.tool_calls), is_error: parsed.is_error === true };
}

// ---- part 1: per-call overhead against the fake OpenAI server ----

type Turn = { tool_calls?: ReturnType<typeof call>[]; text?: string };
const call = (n: number) => ({ id: `call_${n}`, name: "bash", arguments: { command: "true" } });
const oneMessage = (calls: number): Turn[] => [{ tool_calls: Array.from({ length: calls }, (_, i) => call(i + 1)) }, { text: "done" }];
const onePerTurn = (calls: number): Turn[] => [...Array.from({ length: calls }, (_, i) => ({ tool_calls: [call(i + 1)] })), { text: "done" }];
/** One SSE body written in one piece: the fake server's per-piece 1 ms tick is its own pacing, not the agent's cost. */
const asReply = (turn: Turn): FakeReply => ({
  raw: [renderOpenAI({ ...(turn.text ? { text: turn.text } : {}), ...(turn.tool_calls ? { toolCalls: turn.tool_calls } : {}) }).join("")],
});

interface Scenario {
  readonly name: string;
  readonly provider: "openai" | "script";
  readonly turns: (calls: number) => Turn[];
  readonly home: ReturnType<typeof makeHome>;
  readonly hookCommand?: string[];
  readonly base: AgentRun[];
  readonly more: AgentRun[];
}

async function sessionRun(scenario: Scenario, calls: number): Promise<AgentRun> {
  const turns = scenario.turns(calls);
  const server = scenario.provider === "openai" ? await startFakeServer("/v1/chat/completions", turns.map(asReply), renderOpenAI) : null;
  try {
    const env = envFor(scenario.home.home, scenario.home.agentHome);
    const script = join(root, `script-${calls}-${turns.length}.json`);
    if (server === null) writeFileSync(script, JSON.stringify({ turns }));
    const provider = server === null ? ["--provider", "script", "--script", script] : ["--provider", "openai", "--base-url", server.url, "--model", "fake"];
    const run = await runAgent(["run", ...provider, "--permission-mode", "bypass", "--output-format", "json", "go"], env, 5);
    const s = summary(run.stdout);
    if (s.is_error || s.tool_calls !== calls) throw new Error(`${scenario.name}: ${run.stdout}`);
    checkSession(scenario.home.agentHome, s.session_id, calls, calls * scenario.home.perCall);
    return run;
  } finally {
    await server?.close();
  }
}

/** Spawns `argv` as the agent does (new group, pipes, stdin written when `stdin` is given), `n` times; the times in ms. */
async function directSpawns(argv: string[], stdin: string | null, n: number): Promise<number[]> {
  const times: number[] = [];
  const env = envFor(root, join(root, "direct"));
  const drain = async (stream: ReadableStream<Uint8Array> | null): Promise<void> => {
    if (stream === null) return;
    const reader = stream.getReader();
    while (!(await reader.read()).done) {
      // discard: the agent reads the pipes too
    }
  };
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const spawned = await runtime.spawn({ argv, cwd: project, env, newGroup: true, stdin: stdin === null ? "ignore" : "pipe", stdout: "pipe", stderr: "pipe" });
    if (!spawned.ok) throw new Error(`direct spawn of ${argv.join(" ")}: ${spawned.message}`);
    const child = spawned.child;
    if (stdin !== null) {
      await child.writeStdin(new TextEncoder().encode(stdin)).catch(() => undefined);
      child.closeStdin();
    }
    await Promise.all([drain(child.stdout), drain(child.stderr), child.exited]);
    times.push(performance.now() - start);
  }
  return times;
}

/** One provider round trip without the agent: POST to the fake server and read the whole SSE body; the times in ms. */
async function directFetches(n: number): Promise<number[]> {
  const reply = asReply({ tool_calls: [call(1)] });
  const server = await startFakeServer(
    "/v1/chat/completions",
    Array.from({ length: n }, () => reply),
    renderOpenAI,
  );
  const body = JSON.stringify({ model: "fake", stream: true, messages: [{ role: "user", content: "go" }] });
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const start = performance.now();
      const response = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
      await response.text();
      times.push(performance.now() - start);
    }
  } finally {
    await server.close();
  }
  return times;
}

async function partOne(): Promise<void> {
  const plainHome = makeHome("plain", NO_HOOKS);
  const scenarios: Scenario[] = [
    { name: "no hooks, one message", provider: "openai", turns: oneMessage, home: plainHome, base: [], more: [] },
    { name: "no hooks, one call per turn", provider: "openai", turns: onePerTurn, home: plainHome, base: [], more: [] },
    { name: "no hooks, one call per turn, script provider", provider: "script", turns: onePerTurn, home: plainHome, base: [], more: [] },
    {
      name: "hook dir pre + post (`/bin/true`)",
      provider: "openai",
      turns: oneMessage,
      home: makeHome("dir", { ...NO_HOOKS, dirPre: 1, dirPost: 1 }),
      hookCommand: ["/bin/true"],
      base: [],
      more: [],
    },
    {
      name: "lifecycle pre + post (`true`)",
      provider: "openai",
      turns: oneMessage,
      home: makeHome("life", { ...NO_HOOKS, lifePre: 1, lifePost: 1 }),
      hookCommand: ["/bin/sh", "-c", "true"],
      base: [],
      more: [],
    },
    {
      name: "list before + after (`true`)",
      provider: "openai",
      turns: oneMessage,
      home: makeHome("list", { ...NO_HOOKS, listPre: 1, listPost: 1 }),
      hookCommand: ["/bin/bash", "-lc", "true"],
      base: [],
      more: [],
    },
  ];
  const payload = `${JSON.stringify({ tool_name: "Bash", tool_input: { command: "true" }, padding: "x".repeat(600) })}\n`;
  const bashTimes: number[] = [];
  const fetchTimes: number[] = [];
  const hookTimes = new Map<Scenario, number[]>();
  // The baselines are taken inside every round, so they see the same machine load as the sessions.
  const baselines = async (record: boolean): Promise<void> => {
    const bash = await directSpawns(["/bin/bash", "-c", "true"], null, 20);
    const fetches = await directFetches(20);
    if (record) bashTimes.push(...bash);
    if (record) fetchTimes.push(...fetches);
    for (const s of scenarios) {
      if (!s.hookCommand) continue;
      const times = await directSpawns(s.hookCommand, payload, 20);
      if (record) hookTimes.set(s, [...(hookTimes.get(s) ?? []), ...times]);
    }
  };
  for (const s of scenarios) await sessionRun(s, 1); // warm-up
  await baselines(false);
  for (let r = 0; r < RUNS; r++) {
    for (const s of scenarios) {
      s.base.push(await sessionRun(s, 1));
      s.more.push(await sessionRun(s, 1 + EXTRA));
    }
    await baselines(true);
  }
  const bashMs = median(bashTimes);
  const fetchMs = median(fetchTimes);
  const hookSpawn = new Map<Scenario, number>([...hookTimes].map(([s, times]) => [s, median(times)]));

  const plain = scenarios[0] as Scenario;
  const perCall = (s: Scenario): number => (median(s.more.map((r) => r.ms)) - median(s.base.map((r) => r.ms))) / EXTRA;
  console.log(`### Per tool call (${RUNS} runs each, medians; fake OpenAI server unless noted)\n`);
  console.log(
    `Baselines in this run. Direct spawn, as the agent does it: \`/bin/bash -c true\` ${ms(bashMs)} ms${[...hookSpawn].map(([s, v]) => `; \`${(s.hookCommand ?? []).join(" ")}\` ${ms(v)} ms`).join("")}. One fake-server round trip by \`fetch\` from the bench process: ${ms(fetchMs)} ms.\n`,
  );
  console.log("Loop overhead per call = per extra call − direct bash spawn (− one round trip when each call has its own provider request).\n");
  console.log(
    `| scenario | session, 1 call ms | session, ${1 + EXTRA} calls ms | per extra call ms | loop overhead per call ms | per hook invocation ms | hook overhead beyond its spawn ms | peak RSS MiB |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const s of scenarios) {
    const c = perCall(s);
    const hooked = s.hookCommand !== undefined;
    const perHook = hooked ? (c - perCall(plain)) / 2 : NaN;
    const hookOver = hooked ? perHook - (hookSpawn.get(s) ?? 0) : NaN;
    const peak = Math.max(...s.more.map((r) => r.hwmKib), ...s.base.map((r) => r.hwmKib));
    const roundTrip = s.provider === "openai" && s.turns === onePerTurn ? fetchMs : 0;
    const cells = [
      s.name,
      ms(median(s.base.map((r) => r.ms))),
      ms(median(s.more.map((r) => r.ms))),
      ms(c),
      hooked ? "—" : ms(c - bashMs - roundTrip),
      hooked ? ms(perHook) : "—",
      hooked ? ms(hookOver) : "—",
      mib(peak),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log("");
}

// ---- part 2: 1,000 calls × 10 hooks ----

/** Live processes (not zombies) carrying this run's marker in their environment. */
function markedProcesses(): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "utf8");
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (environ.split("\0").includes(MARK) && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

interface LongRun extends AgentRun {
  readonly leftovers: number;
}

/** One 1,000-call session of `agent` in `home`, checked, sampled every 250 ms, then swept for leftovers. */
async function longRun(agent: string, home: ReturnType<typeof makeHome>, script: string, calls: number): Promise<LongRun> {
  const args = ["run", "--provider", "script", "--script", script, "--permission-mode", "bypass", "--output-format", "json", "go"];
  const run = await runAgent(args, envFor(home.home, home.agentHome), 250, true, agent);
  const s = summary(run.stdout);
  if (s.is_error || s.tool_calls !== calls) throw new Error(`long run: ${run.stdout}`);
  checkSession(home.agentHome, s.session_id, calls, calls * home.perCall);
  await new Promise((r) => setTimeout(r, 300));
  return { ...run, leftovers: markedProcesses().length };
}

/**
 * `--long-runs=N` (default 5) interleaved rounds: the floor (this binary, the same 1,000 calls, no
 * hooks), then the agent with the ten hooks, then `--base=PATH` with them when given. Peak RSS is
 * VmHWM: its median and max over the runs, and the median against the floor's median.
 */
async function partTwo(): Promise<void> {
  const hooks: HookSet = { dirPre: 2, dirPost: 2, lifePre: 2, lifePost: 1, listPre: 2, listPost: 1 };
  const home = makeHome("long", hooks);
  const floorHome = makeHome("long-floor", NO_HOOKS);
  const perTurn = 10;
  const turns = Array.from({ length: LONG_TURNS }, (_, t) => ({
    tool_calls: Array.from({ length: perTurn }, (_, i) => ({ id: `c${t}_${i}`, name: "bash", arguments: { command: "true" } })),
  }));
  const script = join(root, "long-script.json");
  writeFileSync(script, JSON.stringify({ turns: [...turns, { text: "done" }] }));
  const calls = LONG_TURNS * perTurn;
  const base = flag("base");
  const rows: { name: string; agent: string; home: ReturnType<typeof makeHome>; runs: LongRun[] }[] = [
    { name: "floor: this binary, no hooks", agent: AGENT, home: floorHome, runs: [] },
    { name: `this binary, ${home.perCall} hooks per call`, agent: AGENT, home, runs: [] },
    ...(base ? [{ name: `base, ${home.perCall} hooks per call`, agent: resolve(base), home, runs: [] }] : []),
  ];
  const longRuns = Number(flag("long-runs") ?? 5);
  for (let r = 0; r < longRuns; r++) for (const row of rows) row.runs.push(await longRun(row.agent, row.home, script, calls));

  const floorPeak = median((rows[0] as (typeof rows)[number]).runs.map((x) => x.hwmKib));
  console.log(
    `### ${calls} tool calls × ${home.perCall} hooks (script provider, ${LONG_TURNS} turns × ${perTurn} calls; ${calls * home.perCall} hook runs; ${longRuns} interleaved runs)\n`,
  );
  console.log(
    "| binary | wall s (median) | ms per call | peak RSS MiB (median) | peak MB (median) | peak MiB (max) | peak MB (max) | vs floor (median) | processes left (max) |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of rows) {
    const wall = median(row.runs.map((x) => x.ms));
    const peak = median(row.runs.map((x) => x.hwmKib));
    const max = Math.max(...row.runs.map((x) => x.hwmKib));
    const mb = (kib: number): string => ((kib * 1024) / 1e6).toFixed(1);
    console.log(
      `| ${row.name} | ${(wall / 1000).toFixed(1)} | ${ms(wall / calls)} | ${mib(peak)} | ${mb(peak)} | ${mib(max)} | ${mb(max)} | ${(peak / floorPeak).toFixed(2)}× | ${Math.max(...row.runs.map((x) => x.leftovers))} |`,
    );
  }
  console.log(`\nAcross all runs, processes left after exit: ${Math.max(...rows.flatMap((row) => row.runs.map((x) => x.leftovers)))}.`);
  console.log(`\nEach run's peak MiB: ${rows.map((row) => `${row.name}: ${row.runs.map((x) => mib(x.hwmKib)).join(", ")}`).join("; ")}.\n`);

  const last = (rows[1] as (typeof rows)[number]).runs.at(-1) as LongRun;
  const samples = last.samples;
  if (samples.length < 2) throw new Error("long run: too few samples");
  const pick = (fraction: number): Sample => samples[Math.min(samples.length - 1, Math.round(fraction * (samples.length - 1)))] as Sample;
  console.log(`The last run with hooks, sampled every 250 ms (max zombies seen at once ${Math.max(...samples.map((x) => x.zombies))}):\n`);
  console.log("| elapsed | t s | RSS MiB | VmHWM MiB | open fds | children | zombies |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const fraction of [0, 0.1, 0.25, 0.5, 0.75, 1]) {
    const x = pick(fraction);
    console.log(
      `| ${Math.round(fraction * 100)}% | ${(x.t / 1000).toFixed(1)} | ${mib(x.rssKib)} | ${mib(x.hwmKib)} | ${x.fds} | ${x.children} | ${x.zombies} |`,
    );
  }
  console.log("");
}

try {
  console.log(`${process.platform}/${process.arch}; agent ${AGENT}\n`);
  if (!process.argv.includes("--skip-calls")) await partOne();
  if (!process.argv.includes("--skip-long")) await partTwo();
} finally {
  rmSync(root, { recursive: true, force: true });
}
