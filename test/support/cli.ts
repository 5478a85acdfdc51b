/**
 * Runs the real CLI (`bun src/main.ts …`) as a child process in a temp world: its own HOME,
 * AGENT_HOME and project directory. Tests assert on exit code, stdout, stderr and files.
 */
import { spawnSync, spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, chmodSync, realpathSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const REPO = join(import.meta.dir, "..", "..");
const MAIN = join(REPO, "src", "main.ts");

export interface World {
  readonly root: string;
  readonly home: string;
  readonly agentHome: string;
  readonly project: string;
  /** Writes a file (parents created); `executable` sets mode 0755. Returns its absolute path. */
  file(relative: string, content: string, options?: { executable?: boolean }): string;
  env(extra?: Record<string, string>): Record<string, string>;
}

export function makeWorld(options: { git?: boolean } = {}): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-world-")));
  const home = join(root, "home");
  const agentHome = join(home, ".agent");
  const project = join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  if (options.git !== false) mkdirSync(join(project, ".git"));
  return {
    root,
    home,
    agentHome,
    project,
    file(relative, content, fileOptions = {}) {
      const path = relative.startsWith("/") ? relative : join(project, relative);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
      if (fileOptions.executable) chmodSync(path, 0o755);
      return path;
    },
    env(extra = {}) {
      const env: Record<string, string> = {};
      for (const key of ["PATH", "LANG", "TMPDIR"]) if (process.env[key]) env[key] = process.env[key] as string;
      return { ...env, HOME: home, AGENT_HOME: agentHome, NO_COLOR: "1", ...extra };
    },
  };
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI synchronously. */
export function runCli(
  world: World,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): CliResult {
  const result = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: options.cwd ?? world.project,
    env: options.env ?? world.env(),
    input: options.input ?? "",
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** Runs the CLI asynchronously (for tests that talk to an in-process HTTP server meanwhile). */
export function runCliAsync(
  world: World,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: options.cwd ?? world.project, env: options.env ?? world.env() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Writes a script provider file and returns its path. */
export function writeScript(world: World, turns: unknown[], name = "script.json"): string {
  return world.file(name, JSON.stringify({ turns }));
}

export { readJsonl } from "./events.ts";

export function runSync(argv: string[], cwd: string): string {
  const r = spawnSync(argv[0] as string, argv.slice(1), { cwd, encoding: "utf8" });
  return r.stdout ?? "";
}

/** The file of session `id` in `dir`: `<start stamp>-<id>.jsonl` (or an older `<id>.jsonl`). */
export function sessionFileOf(dir: string, id: string): string {
  const name = readdirSync(dir).find((file) => file === `${id}.jsonl` || file.endsWith(`-${id}.jsonl`));
  if (name === undefined) throw new Error(`no file for session ${id} in ${dir}`);
  return join(dir, name);
}

/** The session id a session file name holds. */
export function sessionIdOfName(name: string): string {
  return name.replace(/\.jsonl$/, "").replace(/^\d{8}T\d{6}(?:\.\d{3})?Z-/, "");
}

/** `agent run` against a model server at `baseUrl` (OpenAI wire) in bypass mode, trusted, with json output. */
export function bypassRunArgs(baseUrl: string): string[] {
  return ["run", "--provider", "openai", "--base-url", baseUrl, "--permission-mode", "bypass", "--trust", "--output-format", "json"];
}
