/**
 * The cost of judging a tool call (D27): normalising it (bash read into simple commands, paths
 * resolved with their real locations) and running the gate over a realistic rule set, per call,
 * against the floor every bash call pays anyway: spawning `/bin/bash -c true` through the runtime
 * shim, measured in the same run. Run: `npx bun bench/gate.ts [runs]`. Prints a markdown table.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import { normalizeCall, type CallPlace } from "../src/tools/call.ts";
import { decideGate } from "../src/permissions/gate.ts";
import { parseRules, type RuleSet } from "../src/permissions/rules.ts";
import type { ToolId } from "../src/tools/names.ts";

const RUNS = Number(process.argv[2] ?? 200);
const runtime = createRuntime();
const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-gate-")));
const project = join(root, "project");
mkdirSync(join(project, "src", "deep", "er"), { recursive: true });
const place: CallPlace = { cwd: project, projectDir: project, home: root, agentHome: join(root, ".agent") };

const rules = (texts: { allow: string[]; ask: string[]; deny: string[] }): RuleSet => ({
  allow: parseRules(texts.allow).rules,
  ask: parseRules(texts.ask).rules,
  deny: parseRules(texts.deny).rules,
});
const RULES = rules({
  allow: ["bash(npm test*)", "bash(npm run *)", "Bash(git status:*)", "bash(make *)", "write(src/*)", "edit(src/*)", "read(~/notes/*)"],
  ask: ["bash(git push*)"],
  deny: ["bash(rm -rf *)", "bash(curl *)", "read(.env)", "read(~/.ssh/*)", "write(.git/*)"],
});

const CALLS: readonly { label: string; tool: ToolId; input: Record<string, unknown> }[] = [
  { label: "bash `ls -la`", tool: "bash", input: { command: "ls -la" } },
  {
    label: "bash, 5 commands with a substitution and a pipe",
    tool: "bash",
    input: { command: 'cd src && npm run build -- --watch=false | tee "$(date +%s).log"; git status -s || echo failed' },
  },
  { label: "bash, 2 KiB script", tool: "bash", input: { command: Array.from({ length: 60 }, (_, i) => `echo step ${i} && test -f file${i}.txt`).join("\n") } },
  {
    label: "bash, 3 visible writes (`>`, `cp`, `sed -i`)",
    tool: "bash",
    input: { command: "npm test > out.log 2>&1; cp out.log src/deep/er/copy.log && sed -i 's/a/b/' src/deep/er/copy.log" },
  },
  { label: "write `src/deep/er/x.ts`", tool: "write", input: { file_path: "src/deep/er/x.ts", content: "x" } },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function spawnFloor(): Promise<number> {
  const started = performance.now();
  const spawned = await runtime.spawn({
    argv: ["/bin/bash", "-c", "true"],
    cwd: project,
    env: { PATH: "/usr/bin:/bin" },
    newGroup: true,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  if (spawned.ok) await spawned.child.exited;
  return performance.now() - started;
}

function judge(tool: ToolId, input: Record<string, unknown>): number {
  const started = performance.now();
  // 100 calls per sample: one is below the timer's resolution.
  for (let i = 0; i < 100; i++) decideGate({ mode: "default", rules: RULES, call: normalizeCall(runtime.fs, place, tool, input) });
  return (performance.now() - started) / 100;
}

const floor: number[] = [];
const samples = new Map<string, number[]>(CALLS.map((call) => [call.label, []]));
for (let run = 0; run < RUNS; run++) {
  floor.push(await spawnFloor());
  for (const call of CALLS) samples.get(call.label)?.push(judge(call.tool, call.input));
}
const floorMs = median(floor);
console.log(
  `\`npx bun bench/gate.ts ${RUNS}\` (medians of ${RUNS} interleaved runs; floor: \`/bin/bash -c true\` spawned through the runtime shim, same run)\n`,
);
console.log("| call | normalise + gate (µs) | spawn floor (ms) | share of the floor |");
console.log("| --- | ---: | ---: | ---: |");
for (const call of CALLS) {
  const cost = median(samples.get(call.label) ?? []);
  console.log(`| ${call.label} | ${(cost * 1000).toFixed(1)} | ${floorMs.toFixed(2)} | ${((cost / floorMs) * 100).toFixed(2)}% |`);
}
rmSync(root, { recursive: true, force: true });
