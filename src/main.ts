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

const { createRuntime } = await import("./runtime/index.ts");
const runtime = createRuntime();
const { runCli } = await import("./cli/index.ts");
const { AgentError } = await import("./errors.ts");

let code: number;
try {
  code = await runCli(runtime, args, pkg.version);
} catch (error) {
  if (error instanceof AgentError) {
    runtime.writeStderr(`agent: ${error.render()}\n`);
    code = exitCodeFor(error.code, args);
  } else {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    runtime.writeStderr(`agent: internal error: ${message}\n`);
    code = 1;
  }
}
runtime.exit(code);

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
