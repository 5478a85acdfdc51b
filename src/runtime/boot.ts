/**
 * The little that `main.ts` needs before it loads anything else, so `agent --version` stays fast:
 * no imports here, because each `node:*` builtin (crypto, stream, fs…) costs milliseconds to load in
 * a compiled binary, and `process.stdout` costs more than `console.log` on Bun. Same on Bun, Deno, Node.
 */
export function bootArgs(): string[] {
  return process.argv.slice(2);
}

/** Prints one line on stdout and exits 0. */
export function printLineAndExit(line: string): never {
  console.log(line);
  process.exit(0);
}
