/**
 * The interactive session's cost (BENCHMARKS.md, Interactive session): time from start to the first
 * prompt on a terminal, RSS at the idle prompt and after 200 tool calls, CPU used while idle, and
 * the binary's size, for this checkout's dist/agent and (optionally) another build as a baseline.
 * `agent --version` through the same pty is the start-up baseline of the same run. The terminal is
 * `script` (util-linux); each sample is a new process; programs are interleaved.
 *
 *   npm run build && npx bun bench/interactive.ts [--runs=15] [--agent=dist/agent] [--baseline=PATH]
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median } from "./support.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 15);
const AGENT = resolve(flag("agent") ?? join(REPO, "dist/agent"));
const BASELINE = flag("baseline");
const TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim() || 100);

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-interactive-")));
const home = join(root, "home");
const project = join(root, "project");
mkdirSync(join(project, ".git"), { recursive: true });
mkdirSync(home, { recursive: true });
writeFileSync(join(project, "x.txt"), "x\n");
const calls = Array.from({ length: 200 }, () => ({ tool_calls: [{ name: "read", arguments: { file_path: "x.txt" } }] }));
writeFileSync(join(project, "script.json"), JSON.stringify({ turns: [...calls, { text: "done" }] }));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, AGENT_HOME: join(home, ".agent"), TERM: "xterm-256color", LANG: "C.UTF-8" };

interface Sample {
  firstPromptMs: number;
  rssIdleKb: number;
  idleCpuTicks: number;
  rss200Kb: number;
}

/** The agent's pid under `script`: the child whose command line names the binary. */
function agentPid(scriptPid: number, binary: string): number | null {
  const children = spawnSync("pgrep", ["-P", String(scriptPid)], { encoding: "utf8" })
    .stdout.trim()
    .split("\n")
    .filter(Boolean);
  for (const pid of children) if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] === binary) return Number(pid);
  for (const pid of children) {
    const deeper = agentPid(Number(pid), binary);
    if (deeper !== null) return deeper;
  }
  return null;
}

const rssKb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const cpuTicks = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]);
};
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** One session of `binary` in a pty: start to the first prompt, idle RSS and CPU, then 200 tool calls. */
async function session(binary: string): Promise<Sample> {
  const started = performance.now();
  const child = spawn("script", ["-qfec", `${binary} --provider script --script script.json --permission-mode bypass`, "/dev/null"], { cwd: project, env });
  let output = "";
  const seen = (text: string, times: number): Promise<void> =>
    new Promise((done) => {
      const check = (): void => {
        if (output.split(text).length - 1 >= times) {
          child.stdout.off("data", check);
          done();
        }
      };
      child.stdout.on("data", check);
      check();
    });
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // Both the line UI and the editor print `> ` once the prompt is ready (the banner has none).
  await seen("> ", 1);
  const firstPromptMs = performance.now() - started;
  const pid = agentPid(child.pid ?? 0, binary);
  if (pid === null) throw new Error("agent process not found");
  await sleep(1000);
  const rssIdleKb = rssKb(pid);
  const before = cpuTicks(pid);
  await sleep(2000);
  const idleCpuTicks = cpuTicks(pid) - before;
  child.stdin.write("go\r");
  await seen("done", 1);
  await sleep(500);
  const rss200Kb = rssKb(pid);
  child.stdin.write("\x04");
  await new Promise((done) => child.on("close", done));
  return { firstPromptMs, rssIdleKb, idleCpuTicks, rss200Kb };
}

function versionMs(binary: string): number {
  const started = performance.now();
  spawnSync("script", ["-qfec", `${binary} --version`, "/dev/null"], { env });
  return performance.now() - started;
}

const programs = [AGENT, ...(BASELINE ? [resolve(BASELINE)] : [])];
const results = new Map<string, { version: number[]; samples: Sample[] }>(programs.map((p) => [p, { version: [], samples: [] }]));
try {
  for (let run = 0; run < RUNS; run += 1) {
    for (const program of programs) {
      const entry = results.get(program);
      entry?.version.push(versionMs(program));
      entry?.samples.push(await session(program));
      rmSync(join(home, ".agent", "sessions"), { recursive: true, force: true });
    }
  }
  console.log(`runs: ${RUNS}; CPU tick = ${(1000 / TICKS_PER_SECOND).toFixed(0)} ms\n`);
  console.log(
    "| binary | size MB | `--version` ms | first prompt ms | target (1.5× version + 30 ms) | RSS idle MB | RSS after 200 tool calls MB | idle CPU ticks in 2 s |",
  );
  console.log("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |");
  for (const [program, { version, samples }] of results) {
    const v = median(version);
    const first = median(samples.map((s) => s.firstPromptMs));
    const target = 1.5 * v + 30;
    const mb = (kb: number): string => (kb / 1024).toFixed(1);
    console.log(
      `| ${program.replace(`${REPO}/`, "")} | ${(statSync(program).size / 1048576).toFixed(1)} | ${v.toFixed(1)} | ${first.toFixed(1)} | ${target.toFixed(1)}: ${first <= target ? "met" : "missed"} | ${mb(median(samples.map((s) => s.rssIdleKb)))} | ${mb(median(samples.map((s) => s.rss200Kb)))} | ${Math.max(...samples.map((s) => s.idleCpuTicks))} (max) |`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
