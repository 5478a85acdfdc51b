/**
 * Builds the single executable with `bun build --compile`.
 *   npm run build                     → dist/agent for this host
 *   bun build.ts --target=bun-linux-arm64 --outfile=dist/agent-linux-arm64
 * Other targets: bun-linux-x64, bun-linux-arm64, bun-darwin-x64, bun-darwin-arm64, bun-windows-x64
 * (add -musl or -baseline variants as Bun documents). The binary embeds everything it needs.
 * `--splitting` keeps the lazily imported modules out of the entry chunk, so `agent --version` parses
 * and loads almost nothing; `--bytecode` (host builds only: Bun's bytecode is not portable across
 * targets, and cross-compiled bytecode binaries crash, oven-sh/bun#18416) spares every other command
 * the parse of the bundle (BENCHMARKS.md, Startup). `--entry=FILE` builds another entry the same way
 * (bench/startup.ts builds its hello-world baseline with it).
 */
const args = process.argv.slice(2);
const flag = (name: string): string | undefined =>
  args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

const target = flag("target");
const outfile = flag("outfile") ?? "dist/agent";
const entry = flag("entry") ?? "src/main.ts";
const argv = [
  process.execPath,
  "build",
  "--compile",
  "--minify",
  "--sourcemap=none",
  "--splitting",
  // A standalone Bun executable would otherwise read `.env` and `bunfig.toml` from the cwd: a cloned
  // repository could set AGENT_HOME or HTTPS_PROXY, or `preload` a script, before trust is checked.
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  ...(target ? [`--target=${target}`] : ["--bytecode", "--format=esm"]),
  entry,
  "--outfile",
  outfile,
];
const proc = Bun.spawnSync(argv, { stdout: "inherit", stderr: "inherit" });
if (proc.exitCode !== 0) {
  console.error(`build failed (exit ${proc.exitCode})`);
  process.exit(proc.exitCode ?? 1);
}
console.log(`built ${outfile}`);
