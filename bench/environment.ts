/**
 * What building the system prompt's context costs at session start: the git facts (two git
 * processes through the runtime's process wrapper, in parallel) and reading the instruction files.
 * Baseline in the same run: one `git --version` through the same wrapper (the cost of a spawn).
 *
 *   npx bun bench/environment.ts [--runs=21] [--repo=.]
 */
import { resolve } from "node:path";
import { gitFacts } from "../src/agent/environment.ts";
import { loadInstructions } from "../src/agent/instructions.ts";
import { CappedSink, runInGroup } from "../src/runtime/run-group.ts";
import { createRuntime } from "../src/runtime/index.ts";
import { median } from "./support.ts";

const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 21);
const REPO = resolve(flag("repo") ?? ".");
const runtime = createRuntime();

async function time(body: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

const spawnOnce = () =>
  runInGroup(runtime, {
    argv: ["git", "--version"],
    cwd: REPO,
    env: { PATH: runtime.env().PATH ?? "" },
    stdin: null,
    timeoutMs: 3000,
    stdout: new CappedSink(4096, "truncate"),
    stderr: new CappedSink(4096, "truncate"),
  });

const rows: [string, number[]][] = [
  ["baseline: one `git --version` spawn", []],
  ["git facts (status + log, in parallel)", []],
  ["instruction files (AGENTS.md, CLAUDE.md, GEMINI.md per directory)", []],
];
await gitFacts(runtime, REPO); // warm-up
for (let run = 0; run < RUNS; run++) {
  rows[0]?.[1].push(await time(spawnOnce));
  rows[1]?.[1].push(await time(() => gitFacts(runtime, REPO)));
  rows[2]?.[1].push(await time(async () => loadInstructions({ fs: runtime.fs, agentHome: runtime.platform.homedir, projectRoot: REPO, cwd: REPO })));
}
const base = median(rows[0]?.[1] ?? []);
console.log(`| step (${RUNS} runs, ${REPO}) | median ms | × baseline |`);
console.log("| --- | ---: | ---: |");
for (const [name, values] of rows) console.log(`| ${name} | ${median(values).toFixed(2)} | ${(median(values) / base).toFixed(2)} |`);
