/**
 * Size of every release artefact, and `--version` start-up of each one that runs here: linux-x64
 * natively, linux-arm64 under qemu-user-static, windows-x64 under Wine. Baseline: a compiled Bun
 * hello-world for the same target, built by build.ts with the release's flags and run the same way
 * in the same run (interleaved, medians after warm-up runs). Prints a markdown table.
 *
 *   SMOKE_KEEP_RELEASE=$PWD/dist/release SMOKE_KEEP_WINEPREFIX=/tmp/agent-wine bash scripts/smoke-platforms.sh
 *   WINEPREFIX=/tmp/agent-wine npx bun bench/artefacts.ts [--release=dist/release] [--runs=15]
 * (the smoke run leaves the release and a Wine prefix with its stub DLL in place for this bench).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median } from "./support.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RELEASE = resolve(flag("release") ?? join(REPO, "dist/release"));
const RUNS = Number(flag("runs") ?? 15);
const WARMUP = 2;

interface Artefact {
  readonly name: string;
  readonly file: string;
  /** How it runs here: the argv prefix, or undefined when it cannot. */
  readonly runner?: readonly string[];
  readonly where: string;
  readonly bytecode?: boolean;
}

const ARTEFACTS: Artefact[] = [
  { name: "linux-x64", file: "agent-linux-x64", runner: [], where: "native", bytecode: true },
  {
    name: "linux-arm64",
    file: "agent-linux-arm64",
    runner: ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu"],
    where: "qemu-user-static",
    bytecode: true,
  },
  { name: "linux-x64-musl", file: "agent-linux-x64-musl", where: "cannot run here" },
  { name: "darwin-x64", file: "agent-darwin-x64", where: "cannot run here" },
  { name: "darwin-arm64", file: "agent-darwin-arm64", where: "cannot run here" },
  { name: "windows-x64", file: "agent-windows-x64.exe", runner: ["wine"], where: "Wine 8" },
];

const root = mkdtempSync(join(tmpdir(), "agent-bench-artefacts-"));

function buildHello(artefact: Artefact): string {
  const entry = join(root, "hello.ts");
  writeFileSync(entry, `console.log("Hello, world!");\n`);
  const outfile = join(root, `hello-${artefact.name}${artefact.name.startsWith("windows") ? ".exe" : ""}`);
  const args = ["build.ts", `--entry=${entry}`, `--outfile=${outfile}`, `--target=bun-${artefact.name}`, ...(artefact.bytecode ? ["--bytecode"] : [])];
  const built = spawnSync(process.execPath, args, { cwd: REPO, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`hello-world build for ${artefact.name} failed: ${built.stderr}`);
  return outfile;
}

/** Milliseconds of one run, or null when it failed. */
function timeRun(argv: readonly string[]): number | null {
  const started = performance.now();
  const run = spawnSync(argv[0] as string, argv.slice(1), { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, WINEDEBUG: "-all" } });
  const ms = performance.now() - started;
  return run.status === 0 ? ms : null;
}

function measure(artefact: Artefact): { agent: number; hello: number } | string {
  const runner = artefact.runner ?? [];
  const agent = [...runner, join(RELEASE, artefact.file), "--version"];
  if (timeRun(agent) === null) return `does not run (${artefact.where}: ${runner[0] ?? "native"} failed)`;
  const hello = [...runner, buildHello(artefact)];
  const times = { agent: [] as number[], hello: [] as number[] };
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const a = timeRun(agent);
    const h = timeRun(hello);
    if (a === null || h === null) return "a run failed";
    if (i >= WARMUP) {
      times.agent.push(a);
      times.hello.push(h);
    }
  }
  return { agent: median(times.agent), hello: median(times.hello) };
}

try {
  const rows = [
    "| artefact | size (MiB) | runs here | `--version` median (ms) | hello-world median (ms) | ratio |",
    "| --- | ---: | --- | ---: | ---: | ---: |",
  ];
  for (const artefact of ARTEFACTS) {
    const path = join(RELEASE, artefact.file);
    if (!existsSync(path)) {
      rows.push(`| ${artefact.name} | — | not built | | | |`);
      continue;
    }
    const size = (statSync(path).size / 1024 / 1024).toFixed(1);
    if (artefact.runner === undefined) {
      rows.push(`| ${artefact.name} | ${size} | ${artefact.where} | — | — | — |`);
      continue;
    }
    const result = measure(artefact);
    if (typeof result === "string") rows.push(`| ${artefact.name} | ${size} | ${result} | — | — | — |`);
    else
      rows.push(
        `| ${artefact.name} | ${size} | ${artefact.where} | ${result.agent.toFixed(1)} | ${result.hello.toFixed(1)} | ${(result.agent / result.hello).toFixed(2)}× |`,
      );
  }
  console.log(`${RUNS} runs each after ${WARMUP} warm-up runs, interleaved; release: ${RELEASE}\n`);
  console.log(rows.join("\n"));
} finally {
  rmSync(root, { recursive: true, force: true });
}
