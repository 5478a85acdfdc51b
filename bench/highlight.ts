/**
 * Cost of highlighting code blocks in the streamed markdown (BENCHMARKS.md, Interactive session): a
 * 2,000-line TypeScript block, and a 2,000-line block of CJK prose wrapped by display width, each
 * against its baseline in the same run — the same block under a fence language the highlighter does
 * not know (coloured as a whole, as before highlighting), and the same prose wrapped by UTF-16 length.
 * The reply arrives in 64-character deltas, as a streaming provider sends it.
 * Run: `npx bun bench/highlight.ts [runs]`. Prints a markdown table (medians; ms per 2,000 lines).
 */
import { MarkdownStream } from "../src/ui/markdown.ts";
import { chooseStyle } from "../src/ui/style.ts";
import { wrapColumns } from "../src/util/display-width.ts";

const RUNS = Number(process.argv[2] ?? 31);
const style = chooseStyle({ TERM: "xterm-256color" }, true);
const LINES = [
  'import { readFile } from "node:fs/promises"; // the file',
  "export async function load(path: string, limit = 0x400): Promise<string[]> {",
  "  /* a comment */ const text = await readFile(path, `utf8`);",
  '  return text.split("\\n").filter((line) => line.length < limit && line !== "");',
  "}",
];
const code = Array.from({ length: 2_000 }, (_, index) => LINES[index % LINES.length]).join("\n");
const prose = Array.from({ length: 2_000 }, (_, index) => `${index}: 日本語のテキストと English words 😀 混在した行です`.repeat(2));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function stream(language: string): number {
  const md = new MarkdownStream(style);
  const reply = `\`\`\`${language}\n${code}\n\`\`\`\n`;
  const started = performance.now();
  let written = 0;
  for (let at = 0; at < reply.length; at += 64) written += md.push(reply.slice(at, at + 64)).length;
  written += md.end().length;
  const ms = performance.now() - started;
  if (written === 0) throw new Error("nothing rendered");
  return ms;
}

function wrap(byWidth: boolean): number {
  const started = performance.now();
  let rows = 0;
  for (const line of prose) {
    if (byWidth) rows += wrapColumns(line, 80).length;
    else for (let start = 0; start < line.length; start += 80) rows += 1;
  }
  const ms = performance.now() - started;
  if (rows === 0) throw new Error("no rows");
  return ms;
}

const samples: Record<string, number[]> = { ts: [], unknown: [], width: [], length: [] };
for (let run = 0; run < RUNS + 3; run += 1) {
  const round = { ts: stream("ts"), unknown: stream("cobol"), width: wrap(true), length: wrap(false) };
  if (run < 3) continue;
  for (const [key, ms] of Object.entries(round)) samples[key]?.push(ms);
}
const m = (key: string): number => median(samples[key] ?? []);
console.log("| work (2,000 lines) | median ms | × baseline |\n| --- | ---: | ---: |");
console.log(`| \`\`\`ts block, highlighted | ${m("ts").toFixed(2)} | ${(m("ts") / m("unknown")).toFixed(1)} |`);
console.log(`| baseline: the block under an unknown language (one colour) | ${m("unknown").toFixed(2)} | 1.0 |`);
console.log(`| CJK + emoji prose wrapped by display width | ${m("width").toFixed(2)} | ${(m("width") / m("length")).toFixed(1)} |`);
console.log(`| baseline: the same prose cut by UTF-16 length | ${m("length").toFixed(2)} | 1.0 |`);
