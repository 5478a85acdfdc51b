// Shared worlds for the security tests: the SEC-29 project (one hook of each form, each touching a
// canary file, plus a user hook), canary checks and session-file readers.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, runCli, writeScript, type CliResult, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";

export const RUN = ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "hi"];

export const LIFECYCLE_COMMAND = 'touch "$AGENT_PROJECT_DIR/canary-ss"';
export const LIST_COMMAND = "./scripts/h.sh";

export interface Sec29Options {
  /** Extra TOML appended to `.agent/config.toml` (e.g. a lifecycle command naming a script). */
  readonly extraToml?: string;
  /** Replaces the project `.agent/settings.json` object. */
  readonly settings?: Record<string, unknown>;
  readonly lifecycleTimeout?: number;
}

export function sec29Settings(extra: Record<string, unknown>[] = []): Record<string, unknown> {
  return { hooks: { enabled: true, before_tool: [{ label: "h", command: LIST_COMMAND }, ...extra] } };
}

export function lifecycleToml(timeout = 5): string {
  return `[[hooks.lifecycle.session_start]]\nhooks = [{ command = '${LIFECYCLE_COMMAND}', timeout_seconds = ${timeout} }]\n`;
}

/**
 * The SEC-29 project: a lifecycle session_start command, a hook dir `x`, a before_tool list hook and
 * a user session_start hook, each touching its own canary. The script asks for one bash call.
 */
export function sec29World(options: Sec29Options = {}): World {
  const w = makeWorld();
  w.file(".agent/config.toml", lifecycleToml(options.lifecycleTimeout) + (options.extraToml ?? ""));
  w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
  w.file(".agent/hooks/x/run.sh", `#!/bin/sh\ncat >/dev/null\ntouch "$AGENT_PROJECT_DIR/canary-dir"\n`, { executable: true });
  w.file(".agent/settings.json", JSON.stringify(options.settings ?? sec29Settings()));
  w.file("scripts/h.sh", `#!/bin/sh\ncat >/dev/null\ntouch "$AGENT_PROJECT_DIR/canary-list"\n`, { executable: true });
  w.file(join(w.agentHome, "config.toml"), `[[hooks.lifecycle.session_start]]\nhooks = [{ command = 'touch "$AGENT_HOME/canary-user"' }]\n`);
  w.file("README.md", "# project\n");
  writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }], "s.json");
  return w;
}

export const CANARIES = ["canary-ss", "canary-dir", "canary-list", "canary-user"] as const;

/** The canaries that exist (project ones in $P, the user one in $H). */
export function canaries(w: World): string[] {
  return CANARIES.filter((name) => existsSync(join(name === "canary-user" ? w.agentHome : w.project, name)));
}

export function trust(w: World, options: { cwd?: string } = {}): CliResult {
  const r = runCli(w, ["hooks", "trust"], options);
  if (r.code !== 0) throw new Error(`agent hooks trust failed: ${r.stderr}`);
  return r;
}

/** `trust` without a process (support/in-process.ts). */
export async function trustInProcess(w: World, options: { cwd?: string } = {}): Promise<CliResult> {
  const r = await runCliInProcess(w, ["hooks", "trust"], options);
  if (r.code !== 0) throw new Error(`agent hooks trust failed: ${r.stderr}`);
  return r;
}

export function readTrust(w: World): { version: number; projects: Record<string, { digest: string; items: Record<string, string> }> } {
  return JSON.parse(readFileSync(join(w.agentHome, "trust.json"), "utf8"));
}

/** Every record of every session file under $H/sessions (children included). */
export function allRecords(w: World): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".jsonl")) out.push(...readJsonl(readFileSync(path, "utf8")));
    }
  };
  walk(join(w.agentHome, "sessions"));
  return out;
}

/** Raw text of every session file (for substring checks). */
export function allSessionText(w: World): string {
  return allRecords(w)
    .map((record) => JSON.stringify(record))
    .join("\n");
}
