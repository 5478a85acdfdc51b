/**
 * The little that `main.ts` needs before it loads anything else, so `agent --version` stays fast:
 * no imports here, because each `node:*` builtin (crypto, stream, fs…) costs milliseconds to load in
 * a compiled binary, and `process.stdout` costs more than `console.log` on Bun. Same on Bun, Deno, Node.
 */

/** Set by build.ts at compile time: "commit …, built …, <target>". Absent when run from source. */
declare const AGENT_BUILD_INFO: string | undefined;

export function bootArgs(): string[] {
  return process.argv.slice(2);
}

/** `agent 0.1.0`, plus commit, build date and target in a built executable. */
export function versionLine(version: string): string {
  const info = typeof AGENT_BUILD_INFO === "string" ? AGENT_BUILD_INFO : "";
  return info === "" ? `agent ${version}` : `agent ${version} (${info})`;
}

/** Prints one line on stdout and exits 0. */
export function printLineAndExit(line: string): never {
  console.log(line);
  process.exit(0);
}
