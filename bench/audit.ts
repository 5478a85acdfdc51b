/**
 * What the OTLP audit export costs (docs/teams.md): (1) the size of the OpenTelemetry packages in
 * the single binary — dist/agent's build flags once as shipped and once with `@opentelemetry/*` left
 * external (the baseline), with and without `--bytecode`; (2) the wall time of one `agent run`
 * (script provider, two bash calls, one hook) with no `[audit.otlp]` (baseline) and with one pointing
 * at a collector stub on 127.0.0.1, interleaved, medians. Prints markdown tables.
 *
 *   npx bun bench/audit.ts [--runs=15]
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const REPO = resolve(import.meta.dir, "..");
const flag = (name: string): string | undefined => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const RUNS = Number(flag("runs") ?? 15);
const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bench-audit-")));

function write(path: string, text: string, executable = false): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (executable) chmodSync(path, 0o755);
}

/** build.ts's flags (kept in step by hand), optionally without bytecode or with OpenTelemetry external. */
function build(outfile: string, options: { bytecode: boolean; external: boolean }): number {
  const argv = ["build", "--compile", "--minify", "--sourcemap=none", "--splitting", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
  if (options.bytecode) argv.push("--bytecode", "--format=esm");
  if (options.external) argv.push("--external", "@opentelemetry/*");
  argv.push("src/main.ts", "--outfile", outfile);
  const built = spawnSync(process.execPath, argv, { cwd: REPO, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  return statSync(outfile).size;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const mb = (bytes: number): string => (bytes / 1_000_000).toFixed(2);

async function main(): Promise<void> {
  console.log("| build | without OpenTelemetry (MB) | as shipped (MB) | delta (MB) | ratio |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const bytecode of [false, true]) {
    const base = build(join(root, `base-${bytecode}`), { bytecode, external: true });
    const full = build(join(root, `full-${bytecode}`), { bytecode, external: false });
    console.log(
      `| ${bytecode ? "--bytecode (host build)" : "no bytecode (cross builds)"} | ${mb(base)} | ${mb(full)} | ${mb(full - base)} | ${(full / base).toFixed(4)} |`,
    );
  }

  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const agent = join(root, "full-true");
  const worlds = ["off", "on"].map((mode) => {
    const home = join(root, mode, "home");
    const project = join(root, mode, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    write(
      join(project, "script.json"),
      JSON.stringify({
        turns: [
          {
            tool_calls: [
              { name: "bash", arguments: { command: "true" } },
              { name: "bash", arguments: { command: "echo hi" } },
            ],
          },
          { text: "done" },
        ],
      }),
    );
    write(join(home, ".agent", "hooks", "guard", "hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    write(join(home, ".agent", "hooks", "guard", "run.sh"), "#!/bin/sh\ncat >/dev/null\necho '{}'\n", true);
    if (mode === "on") write(join(home, ".agent", "config.toml"), `[audit.otlp]\nendpoint = "http://127.0.0.1:${port}/v1/logs"\n`);
    return { mode, home, project };
  });
  const times: Record<string, number[]> = { off: [], on: [] };
  for (let i = 0; i < RUNS + 2; i++) {
    for (const w of worlds) {
      const start = performance.now();
      // Not spawnSync: the collector stub answers from this process's event loop.
      const child = spawn(agent, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--no-session", "go"], {
        cwd: w.project,
        env: { PATH: process.env.PATH ?? "", HOME: w.home, AGENT_HOME: join(w.home, ".agent"), TMPDIR: root, NO_COLOR: "1" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((done) => child.on("exit", done));
      const elapsed = performance.now() - start;
      if (code !== 0) throw new Error(`agent run failed: ${stderr}`);
      if (i >= 2) times[w.mode]?.push(elapsed);
    }
  }
  server.close();
  const off = median(times.off ?? []);
  const on = median(times.on ?? []);
  console.log("");
  console.log(`| agent run (2 bash calls, 1 hook, ${RUNS} runs) | median ms | × baseline |`);
  console.log("| --- | ---: | ---: |");
  console.log(`| no [audit.otlp] (baseline) | ${off.toFixed(1)} | 1.00 |`);
  console.log(`| [audit.otlp] to a local collector | ${on.toFixed(1)} | ${(on / off).toFixed(2)} |`);
  console.log(`\n(${received} OTLP requests received)`);
}

try {
  await main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
