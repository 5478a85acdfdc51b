/**
 * How an error that escaped a command becomes stderr text and an exit status. `src/main.ts` uses
 * it, and so does the tests' in-process runner (test/support/in-process.ts), so both agree.
 */
import { AgentError } from "../util/errors.ts";

/** Writes `agent: <message>` and returns the exit status: usage 2 (1 for `hooks test`), hook_blocked 3, interrupted 130, else 1. */
export function reportCommandError(error: unknown, argv: readonly string[], writeStderr: (text: string) => void): number {
  if (error instanceof AgentError) {
    writeStderr(`agent: ${error.render()}\n`);
    return exitCodeForError(error.code, argv);
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  writeStderr(`agent: internal error: ${message}\n`);
  return 1;
}

export function exitCodeForError(code: InstanceType<typeof AgentError>["code"], argv: readonly string[]): number {
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
