/**
 * `glob` and `grep` on a generated 30 MB tree: the built-in walk (with .gitignore rules) against rg
 * as the lister (src/tools/ripgrep.ts), the same calls through the tools' `execute`, run alternately.
 * Also the start cost of the `ignore` package (a fresh `bun -e` importing it, against one that does
 * not). Run: `npx bun bench/search.ts`. Prints markdown tables; medians of RUNS runs after one
 * untimed warm-up each. The tree lives under $TMPDIR and is removed at the end.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import { globTool } from "../src/tools/glob.ts";
import { grepTool } from "../src/tools/grep.ts";
import type { ToolContext } from "../src/tools/types.ts";

const RUNS = 7;
const TARGET_BYTES = 30 * 1024 * 1024;

/** Deterministic pseudo-random words, so every run searches the same tree. */
function* words(seed: number): Generator<string> {
  let x = seed;
  const vocabulary = [
    "const",
    "let",
    "return",
    "function",
    "import",
    "export",
    "value",
    "result",
    "items",
    "config",
    "handler",
    "request",
    "response",
    "error",
    "await",
    "async",
    "true",
    "false",
    "null",
    "index",
  ];
  for (;;) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    yield vocabulary[x % vocabulary.length] as string;
  }
}

/** RAREMARKER sits on one line of every 40th file. */
function fileText(seed: number, bytes: number): string {
  const gen = words(seed);
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const line = `  ${Array.from({ length: 8 }, () => gen.next().value).join(" ")};${seed % 40 === 0 && n === 100 ? " // RAREMARKER" : ""}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/** ~30 MB: 20 top dirs × 10 subdirs × 15 files of ~10 KB, plus an ignored build/ and node_modules/. */
function makeTree(root: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const put = (path: string, text: string) => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
    files++;
    bytes += text.length;
  };
  mkdirSync(join(root, ".git"), { recursive: true });
  put(".gitignore", "build/\n*.log\ncoverage/\n");
  let seed = 1;
  for (let a = 0; a < 20 && bytes < TARGET_BYTES * 0.8; a++) {
    for (let b = 0; b < 10; b++) {
      for (let c = 0; c < 15; c++) put(`pkg${a}/mod${b}/file${c}.${c % 3 === 0 ? "ts" : c % 3 === 1 ? "js" : "md"}`, fileText(seed++, 8_000));
    }
  }
  // The rest in places .gitignore and the built-in skip: build output, logs, node_modules.
  for (let i = 0; bytes < TARGET_BYTES; i++)
    put(i % 3 === 0 ? `build/out${i}.js` : i % 3 === 1 ? `logs/run${i}.log` : `node_modules/dep${i % 40}/index${i}.js`, fileText(seed++, 50_000));
  return { files, bytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const runtime = createRuntime();
const rg = runtime.which("rg", process.env.PATH);
const root = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "agent-bench-search-"));
try {
  const tree = makeTree(root);
  const base: ToolContext = { runtime, cwd: root, workspaceRoot: root, env: { PATH: process.env.PATH ?? "" } };
  const cases: [string, typeof globTool, Record<string, unknown>][] = [
    ["glob `**/*.ts`", globTool, { pattern: "**/*.ts" }],
    ["grep rare word, files_with_matches", grepTool, { pattern: "RAREMARKER" }],
    ["grep rare word, content, -i", grepTool, { pattern: "raremarker", "-i": true, output_mode: "content", head_limit: 50 }],
    ["grep common word, count", grepTool, { pattern: "handler request", output_mode: "count" }],
    ["grep in one subdirectory", grepTool, { pattern: "RAREMARKER", path: "pkg3" }],
  ];
  console.log(
    `Tree: ${tree.files} files, ${(tree.bytes / 1024 / 1024).toFixed(1)} MiB (about a third of it in build/, logs/ and node_modules/, which are skipped).`,
  );
  console.log(`rg: ${rg ?? "not on PATH"}\n`);
  console.log("| call | walk ms (median) | rg ms (median) | walk / rg | same output |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  for (const [name, tool, input] of cases) {
    const walkCtx = { ...base, ripgrep: null };
    const rgCtx = { ...base, ripgrep: rg };
    const walkOut = (await tool.execute(input, walkCtx)).content;
    const rgOut = rg === null ? walkOut : (await tool.execute(input, rgCtx)).content;
    const walk: number[] = [];
    const viaRg: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      walk.push(await time(() => tool.execute(input, walkCtx)));
      if (rg !== null) viaRg.push(await time(() => tool.execute(input, rgCtx)));
    }
    const w = median(walk);
    const r = rg === null ? Number.NaN : median(viaRg);
    console.log(
      `| ${name} | ${w.toFixed(0)} | ${rg === null ? "—" : r.toFixed(0)} | ${rg === null ? "—" : (w / r).toFixed(1)} | ${walkOut === rgOut ? "yes" : "NO"} |`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

// Start cost of the `ignore` package: a fresh Bun process that imports it, against one that does not.
const bun = process.execPath;
const startMs = (code: string): number => {
  const start = performance.now();
  spawnSync(bun, ["-e", code], { cwd: join(import.meta.dir, ".."), stdio: "ignore" });
  return performance.now() - start;
};
const plain: number[] = [];
const withIgnore: number[] = [];
startMs("await import('ignore')");
for (let i = 0; i < 15; i++) {
  plain.push(startMs("0"));
  withIgnore.push(startMs("await import('ignore')"));
}
console.log(
  `\n\`ignore\` start cost: bun -e with the import ${median(withIgnore).toFixed(1)} ms, without ${median(plain).toFixed(1)} ms (medians of 15, alternating)`,
);
