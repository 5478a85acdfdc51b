/**
 * Builds the single executable with `bun build --compile`.
 *   npm run build                     → dist/agent for this host
 *   bun build.ts --target=bun-linux-arm64 --outfile=dist/agent-linux-arm64
 *   npm run release                   → every release target into dist/release/ (scripts/release.ts)
 * Options: --target=bun-… (bun-linux-x64, bun-linux-arm64, bun-linux-x64-musl, bun-darwin-x64,
 * bun-darwin-arm64, bun-windows-x64), --outfile=PATH, --entry=FILE (bench/startup.ts builds its
 * hello-world baseline with it), --bytecode (forced on for host builds), --metafile=PATH,
 * --executable-path=BUN (the Bun runtime of the target from a local file: no download).
 *
 * `--splitting` keeps the lazily imported modules out of the entry chunk, so `agent --version` parses
 * and loads almost nothing; `--bytecode` spares every other command the parse of the bundle
 * (BENCHMARKS.md, Startup). Bun's bytecode is not portable across targets and cross-compiled bytecode
 * binaries have crashed (oven-sh/bun#18416), so release builds use it only on targets the smoke test
 * runs (scripts/release.ts). `--use-system-ca` is baked into the executable's argv so TLS trusts the
 * operating system's store (corporate CAs) as well as Bun's bundled one.
 *
 * `agent --version` prints the version, commit, build date and target: the define `AGENT_BUILD_INFO`
 * (read in src/runtime/boot.ts). The date is the commit's, not the clock's, so a rebuild of the same
 * commit is byte-identical (docs/install.md, Reproducible builds).
 */
import { spawnSync } from "node:child_process";

export interface BuildOptions {
  readonly entry: string;
  readonly outfile: string;
  /** A `bun-…` target; undefined builds for this host. */
  readonly target?: string;
  readonly bytecode: boolean;
  readonly metafile?: string;
  readonly executablePath?: string;
  /** The text `agent --version` shows after the version; undefined leaves the define out. */
  readonly buildInfo?: string;
}

/** `linux-x64`, `windows-x64`, … of a `bun-…` target, or of this host. */
export function targetName(target: string | undefined): string {
  if (target !== undefined) return target.replace(/^bun-/, "");
  const os = process.platform === "win32" ? "windows" : process.platform;
  return `${os}-${process.arch}`;
}

function git(args: string[]): string | undefined {
  const run = spawnSync("git", args, { encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/**
 * Commit and date of the source being built: `AGENT_COMMIT` / `SOURCE_DATE_EPOCH` when set (a build
 * from a tarball), else git's HEAD and its commit date. A tree with uncommitted changes says so.
 */
export function sourceStamp(): { commit: string; date: string } {
  const env = process.env;
  let commit = env.AGENT_COMMIT ?? git(["rev-parse", "--short=12", "HEAD"]) ?? "unknown";
  if (env.AGENT_COMMIT === undefined && commit !== "unknown" && (git(["status", "--porcelain", "--untracked-files=no"]) ?? "") !== "") commit += "-dirty";
  const epoch = env.SOURCE_DATE_EPOCH ?? git(["log", "-1", "--format=%ct"]);
  const date = epoch !== undefined && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000).toISOString().replace(".000Z", "Z") : "unknown";
  return { commit, date };
}

export function buildInfoFor(target: string | undefined): string {
  const { commit, date } = sourceStamp();
  return `commit ${commit}, built ${date}, ${targetName(target)}`;
}

export function buildArgv(bun: string, options: BuildOptions): string[] {
  return [
    bun,
    "build",
    "--compile",
    "--minify",
    "--sourcemap=none",
    "--splitting",
    // A standalone Bun executable would otherwise read `.env` and `bunfig.toml` from the cwd: a cloned
    // repository could set AGENT_HOME or HTTPS_PROXY, or `preload` a script, before trust is checked.
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--compile-exec-argv=--use-system-ca",
    ...(options.target ? [`--target=${options.target}`] : []),
    ...(options.bytecode ? ["--bytecode", "--format=esm"] : []),
    ...(options.executablePath ? [`--compile-executable-path=${options.executablePath}`] : []),
    ...(options.metafile ? [`--metafile=${options.metafile}`] : []),
    ...(options.buildInfo !== undefined ? ["--define", `AGENT_BUILD_INFO=${JSON.stringify(options.buildInfo)}`] : []),
    options.entry,
    "--outfile",
    options.outfile,
  ];
}

/** Runs the build; returns Bun's exit code (its output goes to this process's stdout/stderr). */
export function build(options: BuildOptions): number {
  const argv = buildArgv(process.execPath, options);
  const run = spawnSync(argv[0] as string, argv.slice(1), { stdio: "inherit" });
  return run.status ?? 1;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const target = flag("target");
  const entry = flag("entry") ?? "src/main.ts";
  const code = build({
    entry,
    outfile: flag("outfile") ?? "dist/agent",
    target,
    bytecode: target === undefined || args.includes("--bytecode"),
    metafile: flag("metafile"),
    executablePath: flag("executable-path"),
    buildInfo: entry === "src/main.ts" ? buildInfoFor(target) : undefined,
  });
  if (code !== 0) {
    console.error(`build failed (exit ${code})`);
    process.exit(code);
  }
  console.log(`built ${flag("outfile") ?? "dist/agent"}`);
}
