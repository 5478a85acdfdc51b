/**
 * Runs the CLI inside the test process: the same `runCli` that `src/main.ts` calls, on a Runtime
 * whose env, cwd, home, stdin and output belong to the test's world. It skips what a real process
 * costs (Bun boot and transpiling, ~150–300 ms of CPU per call) for tests that are about a command,
 * not about the process (signals, exit-on-drain, the credentials re-exec and TTYs stay on
 * `runCli`/`runCliAsync` in cli.ts). Hooks and bash calls still run as real child processes.
 *
 * Isolation: each call builds a fresh Runtime. `onSignal` registers nothing, so the signal module's
 * termination flag is never set; `exit` throws instead of ending the test process; the process
 * registry (`liveGroups`) empties when each run's groups end; the remaining module-level maps
 * (session file stamps, secret-key caches) are keyed by random ids or pure functions of their input.
 */
import { isAbsolute, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { runCli } from "../../src/cli/index.ts";
import { reportCommandError } from "../../src/cli/error-exit.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import type { FileSystem, Runtime } from "../../src/runtime/types.ts";
import type { CliResult, World } from "./cli.ts";

export interface InProcessOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  readonly input?: string;
}

/** A file system whose relative paths resolve against `cwd`, as they would in a process started there. */
function fsAt(fs: FileSystem, cwd: string): FileSystem {
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(cwd, path));
  return {
    readText: (path, options) => fs.readText(at(path), options),
    readBytes: (path, options) => fs.readBytes(at(path), options),
    writeText: (path, text, options) => fs.writeText(at(path), text, options),
    writeBytes: (path, bytes, options) => fs.writeBytes(at(path), bytes, options),
    appendText: (path, text) => fs.appendText(at(path), text),
    stat: (path) => fs.stat(at(path)),
    lstat: (path) => fs.lstat(at(path)),
    realpath: (path) => fs.realpath(at(path)),
    readdir: (path) => fs.readdir(at(path)),
    mkdir: (path, options) => fs.mkdir(at(path), options),
    mkdtemp: (prefix) => fs.mkdtemp(at(prefix)),
    rm: (path, options) => fs.rm(at(path), options),
    chmod: (path, mode) => fs.chmod(at(path), mode),
    rename: (from, to) => fs.rename(at(from), at(to)),
    isExecutable: (path) => fs.isExecutable(at(path)),
  };
}

/** The Runtime a process started in `cwd` with exactly `env` would build. */
export function worldRuntime(
  env: Record<string, string>,
  cwd: string,
  io: { input: string; out(text: string): void; err(text: string): void },
  args: readonly string[],
): Runtime {
  const base = createRuntime();
  const tmp = env.TMPDIR !== undefined && env.TMPDIR.length > 0 ? env.TMPDIR : "/tmp";
  return {
    ...base,
    fs: fsAt(base.fs, cwd),
    // platformFacts() reads HOME and TMPDIR from the process env; here they come from the world's.
    platform: { ...base.platform, tmpdir: tmp.replace(/\/+$/, "") || "/", homedir: env.HOME ?? base.platform.homedir },
    env: () => ({ ...env }),
    cwd: () => cwd,
    argv: () => [process.execPath, "src/main.ts", ...args],
    which: (command, pathValue) => base.which(command, pathValue ?? env.PATH ?? ""),
    writeStdout: io.out,
    writeStderr: io.err,
    readStdin: () => Promise.resolve(io.input),
    isTTY: () => false,
    onSignal: () => () => undefined,
    exit: (code) => Promise.reject(new Error(`runtime.exit(${code}) called in-process: this test needs the real process (runCli)`)),
  };
}

/** Like `runCli` (cli.ts) with the same world, args and options, but in this process. */
export async function runCliInProcess(world: World, args: readonly string[], options: InProcessOptions = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const out = (text: string): void => {
    stdout += text;
  };
  const err = (text: string): void => {
    stderr += text;
  };
  const runtime = worldRuntime(options.env ?? world.env(), options.cwd ?? world.project, { input: options.input ?? "", out, err }, args);
  let code: number;
  try {
    code = await runCli(runtime, args, pkg.version);
  } catch (error) {
    code = reportCommandError(error, args, err);
  }
  return { code, stdout, stderr };
}
