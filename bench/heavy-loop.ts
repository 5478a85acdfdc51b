/**
 * The agent loop where users' setups are heavy, each against a floor measured in the same run. All
 * against a local fake model server (real HTTP, real SSE: test/support/fake-*.ts renderers) that
 * records each request's size and arrival time; programs interleaved, medians.
 *
 * 1. Big outputs: 100 `bash` calls, one per turn, each printing 50 KiB of text, on the OpenAI and
 *    the Anthropic wire. Per program: the largest request, all bytes sent, the time per call over
 *    the first and the last ten calls (request to request), and peak RSS (VmHWM, polled). Floor:
 *    bench/floor-loop.ts compiled the same way (`bun build --compile`), the smallest loop holding
 *    the same history. Target: RSS ≤ 1.3× the floor on both wires. Then what each agent left on
 *    disk: the session JSONL, the Claude-shaped transcript and the outputs directory.
 * 2. Compaction that fails: 100 calls over `--max-context-tokens 200` with every summarizing
 *    request answered by a tool call: summarizing attempts and bytes sent.
 * 3. Start-up: process start → first provider request with no MCP server; floor: the compiled floor
 *    loop's first request. Then one MCP server that ignores a closed stdin versus one that exits on
 *    it: the extra time `agent run` takes to exit.
 *
 * `--base=PATH` adds a second agent binary (e.g. one built from the previous commit) to every table.
 *
 *   npm run build && npx bun bench/heavy-loop.ts [--runs=3] [--agent=dist/agent] [--base=PATH] [--skip-big] [--skip-compaction] [--skip-startup]
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { renderOpenAI, type FakeStreamReply } from "../test/support/fake-openai.ts";
import { renderAnthropic } from "../test/support/fake-anthropic.ts";
import { listenLocal } from "../test/support/listen.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 3);
const AGENT = resolve(flag("agent") ?? join(REPO, "dist/agent"));
const BASE = flag("base") !== undefined ? resolve(flag("base") as string) : undefined;
const CALLS = 100;
const BIG = "head -c 51200 /dev/zero | tr '\\0' x | fold -w 99";

for (const binary of [AGENT, ...(BASE ? [BASE] : [])]) {
  if (!existsSync(binary)) {
    console.error(`bench/heavy-loop: ${binary} not found; run \`npm run build\` first`);
    process.exit(1);
  }
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-heavy-loop-")));
const FLOOR = join(root, "floor");
const built = spawnSync(process.execPath, ["build", "--compile", "--minify", join(REPO, "bench/floor-loop.ts"), "--outfile", FLOOR], { encoding: "utf8" });
if (built.status !== 0) throw new Error(`floor build failed: ${built.stderr}`);

type Wire = "openai" | "anthropic";
interface Program {
  readonly label: string;
  readonly argv: (wire: Wire, url: string, extra: readonly string[]) => string[];
}
const agentProgram = (label: string, binary: string): Program => ({
  label,
  argv: (wire, url, extra) => [
    binary,
    "run",
    "--provider",
    wire,
    "--base-url",
    url,
    "--permission-mode",
    "bypass",
    "--output-format",
    "json",
    ...EXTRA_ARGS,
    ...extra,
    "go",
  ],
});
const floorProgram: Program = { label: "floor loop", argv: (wire, url) => [FLOOR, wire, url] };
const agents = [agentProgram("agent (this branch)", AGENT), ...(BASE ? [agentProgram("agent (base)", BASE)] : [])];
const EXTRA_ARGS = (flag("agent-args") ?? "").split(" ").filter((arg) => arg !== "");

let worldCount = 0;
/** Bytes under `$AGENT_HOME/sessions`: the session JSONL files, the Claude-shaped transcripts (`claude/`), the outputs directories. */
function sessionBytes(agentHome: string): { jsonl: number; transcript: number; outputs: number } {
  const sum = { jsonl: 0, transcript: 0, outputs: 0 };
  const walk = (dir: string, kind: keyof typeof sum | null): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, entry.name === "claude" ? "transcript" : entry.name.endsWith(".outputs") ? "outputs" : kind);
      else if (kind !== null) sum[kind] += statSync(path).size;
      else if (entry.name.endsWith(".jsonl")) sum.jsonl += statSync(path).size;
    }
  };
  walk(join(agentHome, "sessions"), null);
  return sum;
}

function world(mcp?: { ignoreStdin: boolean }): { cwd: string; env: Record<string, string> } {
  worldCount += 1;
  const home = join(root, `w${worldCount}`, "home");
  const project = join(root, `w${worldCount}`, "project");
  mkdirSync(join(home, ".agent"), { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  if (mcp) {
    const server = join(root, "mcp-server.js");
    writeFileSync(server, MCP_SERVER);
    writeFileSync(
      join(home, ".agent", "config.toml"),
      `[mcp_servers.quick]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(server)}]\nenv = { IGNORE_STDIN = "${mcp.ignoreStdin ? "1" : ""}" }\n`,
    );
  }
  const env: Record<string, string> = { HOME: home, AGENT_HOME: join(home, ".agent"), NO_COLOR: "1", PATH: process.env.PATH ?? "/usr/bin:/bin" };
  return { cwd: project, env };
}

/** A minimal stdio MCP server: initialize and an empty tools/list; on stdin EOF it exits, or (IGNORE_STDIN) keeps running. */
const MCP_SERVER = `
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\\n")) >= 0) {
    const line = buffer.slice(0, nl); buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const msg = JSON.parse(line);
    if (msg.id === undefined) continue;
    const result = msg.method === "initialize" ? { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "quick", version: "1" } } : msg.method === "tools/list" ? { tools: [] } : {};
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\\n");
  }
});
process.stdin.on("end", () => { if (process.env.IGNORE_STDIN) setInterval(() => {}, 1000); else process.exit(0); });
`;

interface Recorded {
  readonly t: number;
  readonly bytes: number;
  readonly summary: boolean;
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

/** A model server: `reply(mainIndex, summary)` decides each answer; only sizes and times are kept. */
async function modelServer(wire: Wire, reply: (main: number, summary: boolean) => FakeStreamReply) {
  const recorded: Recorded[] = [];
  let mains = 0;
  const render = wire === "openai" ? renderOpenAI : renderAnthropic;
  const server = createServer((req, res) => {
    void readText(req).then((text) => {
      const summary = text.includes("Summarize the conversation so far");
      recorded.push({ t: performance.now(), bytes: Buffer.byteLength(text), summary });
      const answer = reply(summary ? mains : mains++, summary);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(render(answer).join(""));
    });
  });
  const listening = await listenLocal(server);
  return { url: listening.url, recorded, close: listening.close };
}

function hwmKib(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function runProgram(argv: string[], cwd: string, env: Record<string, string>): Promise<{ start: number; ms: number; hwmKib: number; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(argv[0] as string, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, hwmKib(child.pid ?? -1))), 25);
    let stderr = "";
    child.stdout.on("data", () => undefined);
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`${argv[0]} exit ${code}: ${stderr.slice(0, 500)}`));
      else resolvePromise({ start, ms: performance.now() - start, hwmKib: peak, stderr });
    });
  });
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const mb = (bytes: number): string => (bytes / 1e6).toFixed(2);
const mib = (kib: number): string => (kib / 1024).toFixed(1);
const intervals = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - (times[i] as number));

async function bigOutputs(): Promise<string[]> {
  const lines = [
    `| 100 calls × 50 KiB output | wire | largest request (MB) | sent in all (MB) | ms per call, first 10 | ms per call, last 10 | peak RSS (MiB) | RSS vs floor |`,
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const disk = [
    "| on disk after 100 × 50 KiB | wire | session JSONL (MB) | Claude-shaped transcript (MB) | outputs directory (MB) | all (MB) |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const wire of ["openai", "anthropic"] as const) {
    // The last row: the same agent with 100 outputs of 2 bytes, its own floor for memory.
    const small = agents[0] ? { ...agents[0], label: `${agents[0].label}, 100 × \`echo 1\`` } : undefined;
    const programs = [floorProgram, ...agents, ...(small ? [small] : [])];
    const results = new Map<
      string,
      { largest: number[]; total: number[]; first: number[]; last: number[]; rss: number[]; disk: ReturnType<typeof sessionBytes>[] }
    >();
    for (let run = 0; run < RUNS; run++) {
      for (const program of programs) {
        const command = program === small ? "echo 1" : BIG;
        const server = await modelServer(wire, (main) =>
          main < CALLS ? { toolCalls: [{ id: `toolu_${main}`, name: "bash", arguments: { command } }] } : { text: "done" },
        );
        const w = world();
        try {
          const out = await runProgram(program.argv(wire, server.url, []), w.cwd, w.env);
          const sizes = server.recorded.map((r) => r.bytes);
          const gaps = intervals(server.recorded.map((r) => r.t));
          const entry = results.get(program.label) ?? { largest: [], total: [], first: [], last: [], rss: [], disk: [] };
          entry.disk.push(sessionBytes(w.env.AGENT_HOME as string));
          entry.largest.push(Math.max(...sizes));
          entry.total.push(sizes.reduce((a, b) => a + b, 0));
          entry.first.push(median(gaps.slice(0, 10)));
          entry.last.push(median(gaps.slice(-10)));
          entry.rss.push(out.hwmKib);
          results.set(program.label, entry);
        } finally {
          await server.close();
        }
      }
    }
    const floorRss = median(results.get(floorProgram.label)?.rss ?? []);
    for (const program of programs) {
      const r = results.get(program.label);
      if (!r) continue;
      const ratio = median(r.rss) / floorRss;
      const target = program === floorProgram ? "1.00×" : `${ratio.toFixed(2)}× (≤ 1.3×: ${ratio <= 1.3 ? "met" : "missed"})`;
      lines.push(
        `| ${program.label} | ${wire} | ${mb(median(r.largest))} | ${mb(median(r.total))} | ${median(r.first).toFixed(1)} | ${median(r.last).toFixed(1)} | ${mib(median(r.rss))} | ${target} |`,
      );
      if (program !== floorProgram && program !== small) {
        const d = (key: keyof ReturnType<typeof sessionBytes>): number => median(r.disk.map((x) => x[key]));
        disk.push(
          `| ${program.label} | ${wire} | ${mb(d("jsonl"))} | ${mb(d("transcript"))} | ${mb(d("outputs"))} | ${mb(d("jsonl") + d("transcript") + d("outputs"))} |`,
        );
      }
    }
  }
  return [...lines, "", ...disk];
}

async function compaction(): Promise<string[]> {
  const lines = ["| 100 calls, every summary answered with a tool call | summarizing attempts | sent in all (MB) | wall (s) |", "| --- | ---: | ---: | ---: |"];
  for (const program of agents) {
    const attempts: number[] = [];
    const total: number[] = [];
    const wall: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const server = await modelServer("openai", (main, summary) =>
        summary || main < CALLS
          ? { toolCalls: [{ id: `c${main}`, name: "bash", arguments: { command: "echo hi" } }], usage: { input: 500, output: 5 } }
          : { text: "done" },
      );
      const w = world();
      try {
        const out = await runProgram(program.argv("openai", server.url, ["--max-context-tokens", "200"]), w.cwd, w.env);
        attempts.push(server.recorded.filter((r) => r.summary).length);
        total.push(server.recorded.reduce((a, r) => a + r.bytes, 0));
        wall.push(out.ms / 1000);
      } finally {
        await server.close();
      }
    }
    lines.push(`| ${program.label} | ${median(attempts)} | ${mb(median(total))} | ${median(wall).toFixed(2)} |`);
  }
  return lines;
}

async function startup(): Promise<string[]> {
  const runs = Math.max(RUNS * 5, 11);
  const first = new Map<string, number[]>();
  const exit = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, key: string, value: number): void => void map.set(key, [...(map.get(key) ?? []), value]);
  for (let run = 0; run < runs; run++) {
    for (const program of [floorProgram, ...agents]) {
      const server = await modelServer("openai", () => ({ text: "done" }));
      const w = world();
      try {
        const out = await runProgram(program.argv("openai", server.url, []), w.cwd, w.env);
        push(first, program.label, (server.recorded[0]?.t ?? Number.NaN) - out.start);
      } finally {
        await server.close();
      }
    }
    for (const program of agents) {
      for (const ignoreStdin of [false, true]) {
        const server = await modelServer("openai", () => ({ text: "done" }));
        const w = world({ ignoreStdin });
        try {
          const out = await runProgram(program.argv("openai", server.url, []), w.cwd, w.env);
          push(exit, `${program.label}|${ignoreStdin}`, out.ms - ((server.recorded[0]?.t ?? Number.NaN) - out.start));
        } finally {
          await server.close();
        }
      }
    }
  }
  const floorFirst = median(first.get(floorProgram.label) ?? []);
  return [
    `| start-up (${runs} runs) | first request (ms) | vs floor | MCP server exits on EOF: request → exit (ms) | ignores EOF: request → exit (ms) | difference (ms) |`,
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    `| floor loop | ${floorFirst.toFixed(1)} | 1.00× | | | |`,
    ...agents.map((program) => {
      const f = median(first.get(program.label) ?? []);
      const polite = median(exit.get(`${program.label}|false`) ?? []);
      const rude = median(exit.get(`${program.label}|true`) ?? []);
      return `| ${program.label} | ${f.toFixed(1)} | ${(f / floorFirst).toFixed(2)}× | ${polite.toFixed(1)} | ${rude.toFixed(1)} | ${(rude - polite).toFixed(1)} |`;
    }),
  ];
}

try {
  const out = [`Command: \`npx bun bench/heavy-loop.ts --runs=${RUNS}${BASE ? " --base=…" : ""}\` (medians; programs interleaved).`, ""];
  if (!process.argv.includes("--skip-big")) out.push(...(await bigOutputs()), "");
  if (!process.argv.includes("--skip-compaction")) out.push(...(await compaction()), "");
  if (!process.argv.includes("--skip-startup")) out.push(...(await startup()), "");
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
