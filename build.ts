/**
 * Builds the single executable with `bun build --compile`.
 *   npm run build                     → dist/agent for this host
 *   bun build.ts --target=bun-linux-arm64 --outfile=dist/agent-linux-arm64
 * Other targets: bun-linux-x64, bun-linux-arm64, bun-darwin-x64, bun-darwin-arm64, bun-windows-x64
 * (add -musl or -baseline variants as Bun documents). The binary embeds everything it needs.
 */
const args = process.argv.slice(2);
const flag = (name: string): string | undefined =>
  args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);

const target = flag("target");
const outfile = flag("outfile") ?? "dist/agent";
const argv = [
  process.execPath,
  "build",
  "--compile",
  "--minify",
  "--sourcemap=none",
  ...(target ? [`--target=${target}`] : []),
  "src/main.ts",
  "--outfile",
  outfile,
];
const proc = Bun.spawnSync(argv, { stdout: "inherit", stderr: "inherit" });
if (proc.exitCode !== 0) {
  console.error(`build failed (exit ${proc.exitCode})`);
  process.exit(proc.exitCode ?? 1);
}
console.log(`built ${outfile}`);
