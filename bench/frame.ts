/**
 * Frame time of the interactive renderer with a large tool output: a 10,000-line `bash` result
 * collapsed under its tool line (what the session draws), and the same output expanded whole
 * (Ctrl-O), against the floor of splitting the same 10,000 lines and writing them once, in the same
 * run, and against a 60 Hz frame (16.7 ms). The terminal keeps the scrollback; a key redraws only the prompt area, so neither frame
 * grows with what scrolled away. Run: `npx bun bench/frame.ts [runs]`. Prints a markdown table.
 */
import { createRuntime } from "../src/runtime/index.ts";
import { createRenderer } from "../src/ui/renderer.ts";
import { chooseStyle } from "../src/ui/style.ts";

const RUNS = Number(process.argv[2] ?? 51);
const runtime = createRuntime();
const output = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}: ${"x".repeat(60)}`).join("\n");
let written = 0;
const sink = { out: (text: string) => void (written += text.length), err: (text: string) => void (written += text.length) };
const style = chooseStyle({ TERM: "xterm-256color" }, true);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function collapsedFrame(): number {
  const renderer = createRenderer(runtime, sink, { format: "text", interactive: { style, previewLines: 4 } });
  const started = performance.now();
  renderer.event({ type: "tool_start", id: "c1", name: "bash", detail: "seq 10000" });
  renderer.event({ type: "tool_end", id: "c1", name: "bash", output, success: true, rejected: false });
  return performance.now() - started;
}

function expandedFrame(): number {
  const renderer = createRenderer(runtime, sink, { format: "text", interactive: { style, previewLines: 4 } });
  renderer.event({ type: "tool_end", id: "c1", name: "bash", output, success: true, rejected: false });
  const started = performance.now();
  sink.err(`${renderer.lastCollapsed?.() ?? ""}\n`);
  return performance.now() - started;
}

/** The least any renderer does with the output: split it into lines and write them once. */
function floor(): number {
  const started = performance.now();
  const lines = output.split("\n");
  sink.err(`${lines.join("\n")}\n`);
  return performance.now() - started;
}

const samples = { collapsed: [] as number[], expanded: [] as number[], floor: [] as number[] };
for (let i = 0; i < RUNS + 3; i++) {
  const c = collapsedFrame();
  const e = expandedFrame();
  const f = floor();
  if (i < 3) continue;
  samples.collapsed.push(c);
  samples.expanded.push(e);
  samples.floor.push(f);
}
const floorMs = median(samples.floor);
console.log(
  `\`npx bun bench/frame.ts ${RUNS}\` (medians of ${RUNS} interleaved runs after 3 warm-ups; floor: the 10,000 lines split and written once, same run; a 60 Hz frame is 16.7 ms)\n`,
);
console.log("| frame | median (ms) | × floor |");
console.log("| --- | ---: | ---: |");
for (const [name, values] of Object.entries(samples)) {
  const ms = median(values);
  console.log(
    `| ${name === "floor" ? "floor: split and write the 10,000 lines" : name === "collapsed" ? "10,000-line result, collapsed (escaped, 4 lines + count)" : "Ctrl-O: the same output expanded whole"} | ${ms.toFixed(2)} | ${(ms / floorMs).toFixed(1)} |`,
  );
}
if (written < 0) console.log(written);
