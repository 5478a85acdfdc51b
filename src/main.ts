/**
 * Entry point. The only place that maps errors to exit codes and calls `exit`.
 * `--version` is answered before anything else is imported, so it reads no config and stays fast:
 * only the import-free `runtime/boot.ts` is static; the rest (even the runtime shim, whose `node:*`
 * imports cost milliseconds) is imported afterwards, and build.ts's `--splitting` keeps it out of the
 * entry chunk of the compiled binary (BENCHMARKS.md, Startup).
 */
import pkg from "../package.json" with { type: "json" };
import { bootArgs, printLineAndExit } from "./runtime/boot.ts";

const args = bootArgs();
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) printLineAndExit(`agent ${pkg.version}`);

// Credentials leave the initial environment before anything else runs: with a key present, this
// re-execs the agent (same pid) without it, so no child reads it from /proc/<pid>/environ.
// The user's config may name a key variable that looks like nothing (`api_key_env = "LLM_CRED"`):
// those names are read first and handed over too.
const { isCredentialEnv } = await import("./hooks/env.ts");
const { createRuntime } = await import("./runtime/index.ts");
const preflightRuntime = createRuntime();
const configuredKeys = new Set((await import("./config/key-env-names.ts")).userKeyEnvNames(preflightRuntime.fs, preflightRuntime.env(), preflightRuntime.platform.homedir, preflightRuntime.cwd()));
await (await import("./runtime/credentials.ts")).isolateCredentials((name, value) => configuredKeys.has(name) || isCredentialEnv(name, value));
const runtime = createRuntime();
const signals = await import("./runtime/signals.ts");
signals.installSignalExits();
// Linux + Bun: orphaned descendants (`setsid -f …` from a hook or bash) come back to the agent and
// are killed at exit (issue 9 item 11). Elsewhere a no-op that `hooks validate` reports.
await (await import("./runtime/subreaper.ts")).becomeSubreaper();
const { runCli } = await import("./cli/index.ts");
const { AgentError } = await import("./errors.ts");

async function runCommand(): Promise<number> {
  try {
    return await runCli(runtime, args, pkg.version);
  } catch (error) {
    if (error instanceof AgentError) {
      runtime.writeStderr(`agent: ${error.render()}\n`);
      return exitCodeFor(error.code, args);
    }
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    runtime.writeStderr(`agent: internal error: ${message}\n`);
    return 1;
  }
}

// A second stop signal (or one no command handles) ends the race at once: every group is already
// SIGKILLed, and stdout gets at most SIGNAL_DRAIN_MS.
const outcome = await Promise.race([runCommand().then((code) => ({ code, forced: false })), signals.forcedExitCode().then((code) => ({ code, forced: true }))]);
let code = outcome.code;
// A SIGTERM or SIGHUP that stopped the session decides the exit code (143, 129), like Ctrl-C's 130.
const terminated = signals.terminationSignal();
if (!outcome.forced && terminated !== null) code = signals.SIGNAL_EXIT_CODES[terminated];
// Waits for stdout/stderr to drain: a slow reader on a pipe gets every byte (issue 10 item 2).
await runtime.exit(code, outcome.forced ? { drainWithinMs: signals.SIGNAL_DRAIN_MS } : undefined);

function exitCodeFor(code: InstanceType<typeof AgentError>["code"], argv: readonly string[]): number {
  switch (code) {
    case "usage":
      // Bad usage exits 2 everywhere but `agent hooks test`, whose 2 means deny/block (DESIGN.md).
      return argv[0] === "hooks" && argv[1] === "test" ? 1 : 2;
    case "hook_blocked":
      return 3;
    case "interrupted":
      return 130;
    default:
      return 1;
  }
}
