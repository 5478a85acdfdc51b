// Shared helpers for the end-to-end session tests under test/agent/: hook commands that log or
// reply, session file readers, and `agent run` with the script provider in a chosen mode.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runCli, readJsonl, sessionFileOf, type CliResult, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { lastJson } from "../support/events.ts";

/** `agent run` with the script provider (`script.json`), json output and `--trust`. */
export function runScript(world: World, mode: string, extra: readonly string[] = [], prompt = "go", options: { env?: Record<string, string> } = {}): CliResult {
  return runCli(world, scriptArgs(mode, extra, prompt), options);
}

/** `runScript` without a process (support/in-process.ts): hooks and bash calls still run as real processes. */
export function runScriptInProcess(
  world: World,
  mode: string,
  extra: readonly string[] = [],
  prompt = "go",
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  return runCliInProcess(world, scriptArgs(mode, extra, prompt), options);
}

function scriptArgs(mode: string, extra: readonly string[], prompt: string): string[] {
  return ["run", "--provider", "script", "--script", "script.json", "--permission-mode", mode, "--output-format", "json", "--trust", ...extra, prompt];
}

export { lastJson, ofType } from "../support/events.ts";

/** A shell command that appends its stdin as one line to `<root>/<name>`. */
export function logTo(world: World, name: string): string {
  return `cat >> '${join(world.root, name)}'; echo >> '${join(world.root, name)}'`;
}

/** A shell command that logs its stdin to `<root>/<name>` (when given) and prints `reply` as JSON. */
export function replyWith(world: World, reply: unknown, name?: string): string {
  const text = JSON.stringify(reply);
  if (text.includes("'")) throw new Error("reply JSON must not contain a single quote");
  return `${name ? logTo(world, name) : "cat >/dev/null"}; printf '%s\\n' '${text}'`;
}

/** The JSON lines a logging hook wrote; [] when it never ran. */
export function readLog(world: World, name: string): Record<string, unknown>[] {
  const path = join(world.root, name);
  if (!existsSync(path)) return [];
  return readJsonl(readFileSync(path, "utf8"));
}

/** The records of session `id` (from the json output), or of the only session. */
export function sessionOf(world: World, id?: string): Record<string, unknown>[] {
  const dir = join(world.agentHome, "sessions");
  if (id !== undefined) return readJsonl(readFileSync(sessionFileOf(dir, id), "utf8"));
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  if (files.length !== 1) throw new Error(`expected one session file, found ${files.length}`);
  return readJsonl(readFileSync(join(dir, files[0] as string), "utf8"));
}

/** Records of the session that `result` printed (`--output-format json`). */
export function recordsOf(world: World, result: CliResult): Record<string, unknown>[] {
  return sessionOf(world, String(lastJson(result.stdout).session_id));
}

/** `hooks.lifecycle.<event>` groups in settings.json form. */
export function group(commands: readonly (string | Record<string, unknown>)[], matcher?: string): Record<string, unknown> {
  return { ...(matcher !== undefined ? { matcher } : {}), hooks: commands.map((command) => (typeof command === "string" ? { command } : command)) };
}
