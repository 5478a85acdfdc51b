/**
 * Anthropic prompt-cache hit share over a 50-turn session, against the fake Anthropic server of
 * test/support/fake-anthropic.ts with its prompt-cache simulation (a breakpoint writes the prefix
 * up to it; a later request reads the longest written prefix within 20 blocks before one of its
 * breakpoints; tokens ≈ JSON length ÷ 4). The session: 49 replies that each read one of 10 files
 * (~2 KB each), then a final text — 50 provider requests in one `agent run`.
 *
 * Hit share = cache-read tokens ÷ all input tokens (plain + cache read + cache write), from the
 * run's `--output-format json` usage. Baselines, measured in the same run by replaying the very
 * request bodies the agent sent through a fresh simulated cache: with no cache marks at all, and
 * with marks on the system prompt and tools only (no conversation prefix).
 *
 *   npx bun bench/prompt-cache.ts [--turns=50]
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FakePromptCache, startFakeAnthropic, type FakeReply } from "../test/support/fake-anthropic.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const TURNS = Number(flag("turns") ?? 50);

type Block = Record<string, unknown>;
type Body = { system?: Block[]; tools?: Block[]; messages: { role: string; content: Block[] }[] };

function strip(body: Body, keep: "none" | "system-and-tools"): Body {
  const clean = (block: Block): Block => {
    const { cache_control: _mark, ...rest } = block;
    return rest;
  };
  const copy = JSON.parse(JSON.stringify(body)) as Body;
  copy.messages = copy.messages.map((message) => ({ ...message, content: message.content.map(clean) }));
  if (keep === "none") {
    if (copy.system) copy.system = copy.system.map(clean);
    if (copy.tools) copy.tools = copy.tools.map(clean);
  }
  return copy;
}

function share(usages: readonly { input: number; cacheRead: number; cacheWrite: number }[]): { share: number; read: number; total: number } {
  const read = usages.reduce((sum, u) => sum + u.cacheRead, 0);
  const total = usages.reduce((sum, u) => sum + u.input + u.cacheRead + u.cacheWrite, 0);
  return { share: total === 0 ? 0 : read / total, read, total };
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-cache-")));
try {
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  for (let i = 0; i < 10; i++) writeFileSync(join(project, `file${i}.txt`), `${`line ${i}: ${"lorem ipsum dolor sit amet ".repeat(3)}\n`.repeat(24)}`);
  const replies: FakeReply[] = [];
  for (let turn = 0; turn < TURNS - 1; turn++)
    replies.push({
      text: `Reading file${turn % 10}.txt.`,
      toolCalls: [{ id: `r${turn}`, name: "read", arguments: { file_path: `file${turn % 10}.txt` } }],
      usage: { input: 0, output: 20 },
    });
  replies.push({ text: "done", usage: { input: 0, output: 5 } });

  const server = await startFakeAnthropic(replies, { promptCache: new FakePromptCache() });
  const env: Record<string, string> = { HOME: home, AGENT_HOME: join(home, ".agent"), NO_COLOR: "1", ANTHROPIC_API_KEY: "bench-key" };
  for (const key of ["PATH", "LANG", "TMPDIR"]) if (process.env[key]) env[key] = process.env[key] as string;
  // Asynchronous: the fake server answers from this process's event loop.
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(
      process.execPath,
      [
        join(REPO, "src/main.ts"),
        "run",
        "--provider",
        "anthropic",
        "--base-url",
        server.url,
        "--model",
        "claude-sonnet-4-5",
        "--permission-mode",
        "bypass",
        "--output-format",
        "json",
        "--no-session",
        "read the files",
      ],
      { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("close", (status) => done({ status, stdout, stderr }));
  });
  // The child has exited; the requests it made are all recorded.
  const bodies = [...server.requests] as Body[];
  await server.close();
  if (run.status !== 0) throw new Error(`agent run exited ${run.status}: ${run.stderr}`);
  const out = JSON.parse(run.stdout.trim().split("\n").pop() as string) as { turns: number; usage: Record<string, number> };
  if (out.turns !== TURNS || bodies.length !== TURNS) throw new Error(`expected ${TURNS} requests, got ${out.turns} (server saw ${bodies.length})`);

  const u = out.usage as { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  const agent = share([{ input: u.input_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens }]);
  const replay = (keep: "none" | "system-and-tools") => {
    const cache = new FakePromptCache();
    return share(bodies.map((body) => cache.usage(strip(body, keep))));
  };
  const none = replay("none");
  const systemOnly = replay("system-and-tools");
  const pct = (value: number): string => `${(value * 100).toFixed(1)}%`;
  console.log(`| cache marks (${TURNS} requests, one session) | cache-read tokens | all input tokens | hit share |`);
  console.log("| --- | ---: | ---: | ---: |");
  console.log(`| agent: system, last tool, conversation prefix (2 marks) | ${agent.read} | ${agent.total} | ${pct(agent.share)} |`);
  console.log(`| baseline: system and tools only | ${systemOnly.read} | ${systemOnly.total} | ${pct(systemOnly.share)} |`);
  console.log(`| baseline: no marks | ${none.read} | ${none.total} | ${pct(none.share)} |`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
