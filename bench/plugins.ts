/**
 * What installed plugins add to every config load (src/config/plugins.ts): each enabled plugin's
 * files are hashed and compared with the digest pinned at `agent plugin enable`, then its manifest,
 * hooks and `.mcp.json` are read. Baseline: `loadConfig` of the same world with no plugin, measured
 * in the same run, interleaved. Plugins are written as `agent plugin install` leaves them; "typical"
 * is 20 files of 4 KiB (a hooks.json, scripts, commands, skills), "large" 500 files of 4 KiB.
 *
 * Run: `npx bun bench/plugins.ts [runs]` (default 51). Prints a markdown table of medians.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRuntime } from "../src/runtime/index.ts";
import type { Runtime } from "../src/runtime/types.ts";
import { loadConfig } from "../src/config/load.ts";
import { installPlugin } from "../src/plugins/registry.ts";
import { median } from "./support.ts";

const RUNS = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 51);
const WARMUP = 5;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A plugin folder with a guard hook and `files` files of 4 KiB in all. */
function pluginSource(dir: string, name: string, files: number): string {
  write(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name, version: "1.0.0" }));
  write(
    join(dir, "hooks/hooks.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }] }] } }),
  );
  for (let i = 0; i < files - 2; i++) write(join(dir, `commands/c${i}.md`), `---\ndescription: command ${i}\n---\n${"x".repeat(4000)}\n`);
  return dir;
}

/** A world (HOME, AGENT_HOME, project) with `plugins` installed plugins of `files` files each. */
function world(root: string, label: string, plugins: number, files: number): { runtime: Runtime; cwd: string } {
  const home = join(root, label, "home");
  const cwd = join(root, label, "project");
  mkdirSync(join(cwd, ".git"), { recursive: true });
  const base = createRuntime();
  const env = { ...base.env(), HOME: home, AGENT_HOME: join(home, ".agent") };
  const runtime: Runtime = { ...base, env: () => ({ ...env }), cwd: () => cwd };
  for (let p = 0; p < plugins; p++) installPlugin(runtime, env.AGENT_HOME, { kind: "dir", path: pluginSource(join(root, label, `src/p${p}`), `p${p}`, files) });
  return { runtime, cwd };
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-plugins-")));
try {
  const cases = [
    { label: "no plugin (baseline)", ...world(root, "none", 0, 0) },
    { label: "1 typical plugin (20 files, 80 KiB)", ...world(root, "one", 1, 20) },
    { label: "5 typical plugins (100 files, 400 KiB)", ...world(root, "five", 5, 20) },
    { label: "1 large plugin (500 files, 2 MiB)", ...world(root, "large", 1, 500) },
  ];
  const times = cases.map(() => [] as number[]);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    cases.forEach((c, index) => {
      const t = performance.now();
      const loaded = loadConfig(c.runtime, { cwd: c.cwd });
      const ms = performance.now() - t;
      if (loaded.warnings.length > 0) throw new Error(`${c.label}: ${loaded.warnings[0]?.message}`);
      if (i >= WARMUP) times[index]?.push(ms);
    });
  }
  const base = median(times[0] ?? []);
  console.log(
    `Command: \`npx bun bench/plugins.ts ${RUNS}\` (runtime bun, ${process.platform}; medians of ${RUNS} interleaved runs after ${WARMUP} warm-up runs).\n`,
  );
  console.log("| config | loadConfig (ms) | × baseline | added (ms) |");
  console.log("| --- | ---: | ---: | ---: |");
  cases.forEach((c, index) => {
    const m = median(times[index] ?? []);
    console.log(`| ${c.label} | ${m.toFixed(3)} | ${(m / base).toFixed(2)}× | ${(m - base).toFixed(3)} |`);
  });
} finally {
  rmSync(root, { recursive: true, force: true });
}
