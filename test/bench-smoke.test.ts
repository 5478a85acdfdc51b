// The benchmark scripts run end to end with tiny iteration counts against a freshly built binary.
// Only that they run and print their tables: never a timed assertion (BENCHMARKS.md holds numbers).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./support/cli.ts";

const dir = mkdtempSync(join(tmpdir(), "agent-bench-smoke-"));
const agent = join(dir, "agent");

function bench(script: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, "bench", script), `--agent=${agent}`, ...args], { cwd: REPO, encoding: "utf8", timeout: 240_000 });
  return { code: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

describe("bench scripts", () => {
  beforeAll(() => {
    const built = spawnSync(process.execPath, ["build.ts", `--outfile=${agent}`], { cwd: REPO, encoding: "utf8", timeout: 240_000 });
    expect(built.status).toBe(0);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("PERF-startup bench/startup.ts runs and reports --version and hooks list against the hello-world", () => {
    const r = bench("startup.ts", ["--runs=1"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("| compiled hello-world (baseline) |");
    expect(r.stdout).toContain("| `dist/agent --version` |");
    expect(r.stdout).toContain("| `dist/agent hooks list` (50 hooks) |");
  }, 240_000);

  test("PERF-loop bench/loop.ts runs both parts and finds no process left behind", () => {
    const r = bench("loop.ts", ["--runs=1", "--turns=3"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("| no hooks, one message |");
    expect(r.stdout).toContain("| list before + after (`true`) |");
    expect(r.stdout).toContain("### 30 tool calls × 10 hooks");
    expect(r.stdout).toContain("processes left after exit: 0.");
  }, 240_000);

  test("bench/prompt-cache.ts runs a short session and prints the hit shares", () => {
    const r = bench("prompt-cache.ts", ["--turns=5"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("| agent: system, last tool, conversation prefix");
    expect(r.stdout).toContain("| baseline: no marks | 0 |");
  }, 240_000);

  test("bench/environment.ts runs and prints its steps", () => {
    const r = bench("environment.ts", ["--runs=1", `--repo=${REPO}`]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("| git facts (status + log, in parallel) |");
  }, 240_000);

  test("bench/artefacts.ts sizes a release folder, times what runs here and marks what was not built", () => {
    const release = join(dir, "release");
    mkdirSync(release, { recursive: true });
    copyFileSync(agent, join(release, "agent-linux-x64"));
    const r = spawnSync(process.execPath, [join(REPO, "bench", "artefacts.ts"), `--release=${release}`, "--runs=1"], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\| linux-x64 \| \d+\.\d \| native \| \d+\.\d \| \d+\.\d \| \d+\.\d\d× \|/);
    expect(r.stdout).toContain("| windows-x64 | — | not built | | | |");
  }, 240_000);

  test("bench/highlight.ts runs and prints highlighting and display-width rows against their baselines", () => {
    const r = spawnSync(process.execPath, [join(REPO, "bench", "highlight.ts"), "1"], { cwd: REPO, encoding: "utf8", timeout: 240_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\| ```ts block, highlighted \| \d+\.\d\d \| \d+\.\d \|/);
    expect(r.stdout).toMatch(/\| CJK \+ emoji prose wrapped by display width \| \d+\.\d\d \| \d+\.\d \|/);
  }, 240_000);
});
