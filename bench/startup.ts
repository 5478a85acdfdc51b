/**
 * Start-up of the compiled binary (DESIGN.md performance table): `dist/agent --version` and
 * `dist/agent hooks list` on a config with 50 hooks across all three forms, against a compiled Bun
 * hello-world built by build.ts with the same flags in the same run. Each run is a new process
 * ("cold" process, warm page cache: the first runs are discarded as warm-up); the programs are
 * interleaved, so machine noise hits all of them alike. Prints a markdown table. The rows "with a
 * key" run with OPENAI_API_KEY set: the agent then moves it out of its initial environment by
 * re-executing itself (src/runtime/credentials.ts), and those rows measure what that costs.
 *
 *   npm run build && npx bun bench/startup.ts [--runs=40] [--agent=dist/agent] [--keep]
 * `--keep` leaves the temp world (HOME, AGENT_HOME, project) in place for profiling and prints its path.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { median } from "./support.ts";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 40);
const WARMUP = Math.min(5, RUNS);
const AGENT = resolve(flag("agent") ?? join(REPO, "dist/agent"));
const HOOKS = 50;

if (!existsSync(AGENT)) {
  console.error(`bench/startup: ${AGENT} not found; run \`npm run build\` first`);
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-startup-")));
const write = (path: string, text: string, executable = false): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (executable) chmodSync(path, 0o755);
};

/** The baseline: Bun's canonical hello-world, compiled by build.ts exactly as dist/agent is. */
function buildHello(): string {
  const entry = join(root, "hello.ts");
  const outfile = join(root, "hello");
  write(entry, `console.log("Hello, world!");\n`);
  const built = spawnSync(process.execPath, ["build.ts", `--entry=${entry}`, `--outfile=${outfile}`], { cwd: REPO, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`hello-world build failed: ${built.stderr}`);
  return outfile;
}

/**
 * 50 hooks, user and project scope, all three forms: 16 hook directories, 18 lifecycle commands
 * over 9 events (TOML), 16 list hooks over the 4 phases (settings.json). Returns the env to use.
 */
function writeHookWorld(): { env: Record<string, string>; cwd: string } {
  const home = join(root, "home");
  const agentHome = join(home, ".agent");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  const events = [
    "pre_tool",
    "post_tool",
    "post_tool_failure",
    "user_prompt_submit",
    "session_start",
    "session_end",
    "stop",
    "notification",
    "permission_request",
  ];
  const phases = ["before_tool", "after_tool", "after_assistant", "after_reasoning"];
  for (const [scopeDir, offset] of [
    [agentHome, 0],
    [join(project, ".agent"), 100],
  ] as const) {
    for (let i = 0; i < 8; i++) {
      const name = `dir-${offset + i}`;
      const hook = {
        name,
        event: i % 2 === 0 ? "pre_tool" : "post_tool",
        match: i % 3 === 0 ? "bash" : "*",
        run: "./run.sh",
        timeout: "5s",
        fail_closed: i % 4 === 0,
      };
      write(join(scopeDir, "hooks", name, "hook.json"), JSON.stringify(hook));
      write(join(scopeDir, "hooks", name, "run.sh"), "#!/bin/sh\ncat >/dev/null\n", true);
    }
    const toml: string[] = [];
    for (let i = 0; i < 9; i++) {
      toml.push(
        `[[hooks.lifecycle.${events[i]}]]`,
        `matcher = "${i % 2 === 0 ? "Bash|Edit" : ""}"`,
        `hooks = [{ command = "true # ${offset + i}", timeout_seconds = 10 }]`,
        "",
      );
    }
    write(join(scopeDir, "config.toml"), `${toml.join("\n")}\n`);
    const list: Record<string, unknown[]> = {};
    for (let i = 0; i < 8; i++) {
      const phase = phases[i % 4] as string;
      (list[phase] ??= []).push({
        label: `list-${offset + i}`,
        command: `true # ${offset + i}`,
        timeout_seconds: 10,
        ...(i < 4 ? {} : { failure_policy: "fail" }),
      });
    }
    write(join(scopeDir, "settings.json"), JSON.stringify({ hooks: { enabled: true, payload: "redacted", ...list } }, null, 2));
  }
  const env: Record<string, string> = { HOME: home, AGENT_HOME: agentHome, NO_COLOR: "1" };
  for (const key of ["PATH", "LANG", "TMPDIR"]) if (process.env[key]) env[key] = process.env[key] as string;
  return { env, cwd: project };
}

interface Program {
  readonly name: string;
  readonly argv: string[];
  readonly check: (stdout: string) => boolean;
  readonly times: number[];
  /** Added to the world's env for this program. */
  readonly env?: Record<string, string>;
}

const KEY_ENV = { OPENAI_API_KEY: "sk-bench-0123456789abcdef" };

function runOnce(program: Program, env: Record<string, string>, cwd: string, record: boolean): void {
  const start = performance.now();
  const result = spawnSync(program.argv[0] as string, program.argv.slice(1), { cwd, env: { ...env, ...program.env }, encoding: "utf8", maxBuffer: 1 << 24 });
  const elapsed = performance.now() - start;
  if (result.status !== 0 || !program.check(result.stdout)) {
    throw new Error(`${program.name}: exit ${result.status}, stdout ${JSON.stringify(result.stdout.slice(0, 200))}, stderr ${result.stderr.slice(0, 400)}`);
  }
  if (record) program.times.push(elapsed);
}

const quantile = (values: readonly number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] as number;

try {
  const hello = buildHello();
  const world = writeHookWorld();
  const listed = spawnSync(AGENT, ["hooks", "list", "--json"], { cwd: world.cwd, env: world.env, encoding: "utf8" });
  const parsed: unknown = JSON.parse(listed.stdout);
  const hooks = typeof parsed === "object" && parsed !== null && "hooks" in parsed && Array.isArray(parsed.hooks) ? parsed.hooks.length : -1;
  const warnings = typeof parsed === "object" && parsed !== null && "warnings" in parsed && Array.isArray(parsed.warnings) ? parsed.warnings.length : -1;
  if (hooks !== HOOKS || warnings !== 0)
    throw new Error(`hook world: expected ${HOOKS} hooks and no warnings, got ${hooks} and ${warnings}: ${listed.stdout.slice(0, 2000)}`);

  const programs: Program[] = [
    { name: "`/bin/true` (spawn cost alone)", argv: ["/bin/true"], check: () => true, times: [] },
    { name: "compiled hello-world (baseline)", argv: [hello], check: (out) => out === "Hello, world!\n", times: [] },
    { name: "`dist/agent --version`", argv: [AGENT, "--version"], check: (out) => /^agent \d+\.\d+\.\d+/.test(out), times: [] },
    {
      name: `\`dist/agent hooks list\` (${HOOKS} hooks)`,
      argv: [AGENT, "hooks", "list"],
      check: (out) => out.split("\n").filter((l) => / (dir|lifecycle|list) /.test(l)).length === HOOKS,
      times: [],
    },
    { name: "`dist/agent --version` with a key", argv: [AGENT, "--version"], check: (out) => /^agent \d+\.\d+\.\d+/.test(out), times: [], env: KEY_ENV },
    { name: "`dist/agent config path`", argv: [AGENT, "config", "path"], check: (out) => out.length > 0, times: [] },
    { name: "`dist/agent config path` with a key (re-exec)", argv: [AGENT, "config", "path"], check: (out) => out.length > 0, times: [], env: KEY_ENV },
    {
      name: `\`dist/agent hooks list\` with a key (re-exec)`,
      argv: [AGENT, "hooks", "list"],
      check: (out) => out.split("\n").filter((l) => / (dir|lifecycle|list) /.test(l)).length === HOOKS,
      times: [],
      env: KEY_ENV,
    },
  ];
  for (let i = 0; i < WARMUP + RUNS; i++) for (const program of programs) runOnce(program, world.env, world.cwd, i >= WARMUP);

  const base = median(programs[1]?.times ?? []);
  const targets: Record<number, (ms: number, ratio: number) => string> = {
    2: (ms, ratio) => `≤ 15 ms and ≤ 1.5×: ${ms <= 15 && ratio <= 1.5 ? "met" : "not met"}`,
    3: () => "report",
  };
  console.log(`${RUNS} runs each after ${WARMUP} warm-up runs; ${process.platform}/${process.arch}; times include fork+exec+wait from the bench process\n`);
  console.log("| program | median ms | p10 ms | p90 ms | × hello-world | target |");
  console.log("| --- | ---: | ---: | ---: | ---: | --- |");
  programs.forEach((program, index) => {
    const ms = median(program.times);
    const ratio = ms / base;
    const target = targets[index]?.(ms, ratio) ?? "";
    console.log(
      `| ${program.name} | ${ms.toFixed(2)} | ${quantile(program.times, 0.1).toFixed(2)} | ${quantile(program.times, 0.9).toFixed(2)} | ${ratio.toFixed(2)} | ${target} |`,
    );
  });
} finally {
  if (process.argv.includes("--keep")) console.log(`\nworld kept: ${root} (HOME=home, AGENT_HOME=home/.agent, cwd=project)`);
  else rmSync(root, { recursive: true, force: true });
}
