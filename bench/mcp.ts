/**
 * MCP start-up cost in `agent run`: servers start in the background, and the run waits
 * for them only before the first provider request. Each `agent run` gets a session_start hook that
 * sleeps 300 ms (work the agent does before its first request anyway), and a fake OpenAI server
 * (test/support/fake-openai.ts: real HTTP, real SSE) that answers with one text reply. Measured per
 * run: process start → first provider request, and → exit. Programs interleaved, medians.
 *
 *   rows: no MCP server (baseline) | the reference `everything` server (stdio, run by node) |
 *         `everything` started directly (runtime spawn + SDK initialize + tools/list, in-process,
 *         no agent): the server's own start-up cost, for comparison
 *
 * If start-up ran before the session (serially), "with everything" would be ≈ baseline + the
 * direct start-up; in the background it is ≈ max(baseline, direct start-up).
 *
 *   npx bun bench/mcp.ts [--runs=15] [--agent=dist/agent]   (default: bun src/main.ts)
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import { createMcpManager } from "../src/mcp/start.ts";
import { renderOpenAI, startFakeServer } from "../test/support/fake-openai.ts";
import { median } from "./support.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 15);
const AGENT = flag("agent");
const argv0 = AGENT ? [resolve(AGENT)] : [process.execPath, join(REPO, "src/main.ts")];
const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const HOOK_SLEEP = "sleep 0.3";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-mcp-")));
const runtime = createRuntime();

function world(name: string, withMcp: boolean): { home: string; project: string } {
  const home = join(root, name, "home");
  const project = join(root, name, "project");
  mkdirSync(join(home, ".agent"), { recursive: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  const lines = ["[[hooks.lifecycle.session_start]]", `hooks = [{ command = "${HOOK_SLEEP}" }]`];
  if (withMcp) lines.push("[mcp_servers.every]", 'command = "node"', `args = [${JSON.stringify(EVERYTHING)}, "stdio"]`);
  writeFileSync(join(home, ".agent", "config.toml"), `${lines.join("\n")}\n`);
  return { home, project };
}

async function agentRun(w: { home: string; project: string }): Promise<{ first: number; total: number }> {
  let firstAt = 0;
  const server = await startFakeServer(
    "/v1/chat/completions",
    Array.from({ length: 1 }, () => ({ text: "ok" })),
    (reply) => {
      firstAt ||= performance.now();
      return renderOpenAI(reply);
    },
  );
  const started = performance.now();
  const env = { PATH: process.env.PATH ?? "", HOME: w.home, AGENT_HOME: join(w.home, ".agent"), OPENAI_API_KEY: "sk-bench" };
  const code = await new Promise<number | null>((done) => {
    const child = spawn(argv0[0] ?? "", [...argv0.slice(1), "run", "--provider", "openai", "--base-url", server.url, "--model", "m", "--no-session", "hi"], {
      cwd: w.project,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
    child.on("close", (status) => {
      if (status !== 0) console.error(stderr);
      done(status);
    });
  });
  const total = performance.now() - started;
  await server.close();
  if (code !== 0 || firstAt === 0) throw new Error(`agent run failed (exit ${code})`);
  return { first: firstAt - started, total };
}

async function direct(): Promise<number> {
  const manager = createMcpManager(runtime, {
    cwd: root,
    onNotice: (text) => console.error(text),
    servers: [
      {
        name: "every",
        scope: "user",
        file: "bench",
        transport: "stdio",
        command: "node",
        args: [EVERYTHING, "stdio"],
        env: {},
        cwd: null,
        startupTimeoutMs: 10_000,
        toolTimeoutMs: 10_000,
        disabled: false,
      },
    ],
  });
  const started = performance.now();
  const tools = await manager.toolDefinitions();
  const elapsed = performance.now() - started;
  await manager.close();
  if (tools.length === 0) throw new Error("everything offered no tools");
  return elapsed;
}

const base = world("base", false);
const mcp = world("mcp", true);
const rows = { base: { first: [] as number[], total: [] as number[] }, mcp: { first: [] as number[], total: [] as number[] }, direct: [] as number[] };
await agentRun(base);
await agentRun(mcp);
await direct();
for (let i = 0; i < RUNS; i++) {
  const a = await agentRun(base);
  rows.base.first.push(a.first);
  rows.base.total.push(a.total);
  const b = await agentRun(mcp);
  rows.mcp.first.push(b.first);
  rows.mcp.total.push(b.total);
  rows.direct.push(await direct());
}
rmSync(root, { recursive: true, force: true });

const f = (n: number): string => n.toFixed(1);
const b1 = median(rows.base.first);
const m1 = median(rows.mcp.first);
const d = median(rows.direct);
console.log(`agent: ${argv0.join(" ")}; session_start hook: \`${HOOK_SLEEP}\`; medians of ${RUNS} interleaved runs (1 warm-up each)\n`);
console.log("| run | to first provider request (ms) | to exit (ms) | × baseline (first request) |");
console.log("| --- | ---: | ---: | ---: |");
console.log(`| no MCP server (baseline) | ${f(b1)} | ${f(median(rows.base.total))} | 1.00 |`);
console.log(`| \`everything\` server configured | ${f(m1)} | ${f(median(rows.mcp.total))} | ${(m1 / b1).toFixed(2)} |`);
console.log(`| \`everything\` started directly (no agent) | ${f(d)} | | |`);
console.log(
  `\nserial start-up would be about ${f(b1 + d)} ms to the first request; measured ${f(m1)} ms (the start-up overlapped ${f(Math.max(0, b1 + d - m1))} ms of it)`,
);
