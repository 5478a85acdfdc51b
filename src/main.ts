/**
 * Entry point. The only place that calls `exit` (errors map to exit codes in cli/error-exit.ts).
 * `--version` is answered before anything else is imported, so it reads no config and stays fast:
 * only the import-free `runtime/boot.ts` is static; the rest (even the runtime shim, whose `node:*`
 * imports cost milliseconds) is imported afterwards, and build.ts's `--splitting` keeps it out of the
 * entry chunk of the compiled binary (BENCHMARKS.md, Startup).
 */
import pkg from "../package.json" with { type: "json" };
import { bootArgs, printLineAndExit, versionLine } from "./runtime/boot.ts";

const args = bootArgs();
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) printLineAndExit(versionLine(pkg.version));

// Credentials leave the initial environment before anything else runs: with a key present, this
// re-execs the agent (same pid) without it, so no child reads it from /proc/<pid>/environ.
// The user's config may name a key variable that looks like nothing (`api_key_env = "LLM_CRED"`):
// those names are read first and handed over too.
const { isCredentialEnv } = await import("./hooks/shell/env.ts");
// The runtime reads the environment live (`env()` adds the credentials held after the hand-over),
// so the one built here serves the whole run.
const { createRuntime } = await import("./runtime/index.ts");
const runtime = createRuntime();
const configuredKeys = new Set((await import("./config/key-env-names.ts")).userKeyEnvNames(runtime.fs, runtime.env(), runtime.platform.homedir, runtime.cwd()));
await (await import("./runtime/credentials.ts")).isolateCredentials((name, value) => configuredKeys.has(name) || isCredentialEnv(name, value));
const signals = await import("./runtime/signals.ts");
signals.installSignalExits();
// Linux + Bun: orphaned descendants (`setsid -f …` from a hook or bash) come back to the agent and
// are killed at exit. Elsewhere a no-op that `hooks validate` reports.
await (await import("./runtime/subreaper.ts")).becomeSubreaper();
const { runCli } = await import("./cli/index.ts");
const { reportCommandError } = await import("./cli/error-exit.ts");

async function runCommand(): Promise<number> {
  try {
    return await runCli(runtime, args, pkg.version);
  } catch (error) {
    return reportCommandError(error, args, (text) => runtime.writeStderr(text));
  }
}

// A second stop signal (or one no command handles) ends the race at once: every group is already
// SIGKILLed, and stdout gets at most SIGNAL_DRAIN_MS.
const outcome = await Promise.race([runCommand().then((code) => ({ code, forced: false })), signals.forcedExitCode().then((code) => ({ code, forced: true }))]);
let code = outcome.code;
// A SIGTERM or SIGHUP that stopped the session decides the exit code (143, 129), like Ctrl-C's 130.
const terminated = signals.terminationSignal();
if (!outcome.forced && terminated !== null) code = signals.SIGNAL_EXIT_CODES[terminated];
// Waits for stdout/stderr to drain: a slow reader on a pipe gets every byte.
await runtime.exit(code, outcome.forced ? { drainWithinMs: signals.SIGNAL_DRAIN_MS } : undefined);
