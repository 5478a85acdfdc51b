/**
 * The D17 gate shared by `agent run`, the interactive session, `agent hooks test` and `agent notify`.
 * With hooks off the gate still holds for the settings that decide where model requests go: the
 * material then holds only those, and each must be pinned unchanged.
 */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import type { LoadedConfig } from "../config/load.ts";
import { trustDecision } from "../trust/decision.ts";
import { instructionReviewLines } from "../agent/instructions.ts";

/** The project's instruction files from its root to `cwd`, as review lines (they are part of what a review shows). */
export function projectInstructionLines(runtime: Runtime, loaded: LoadedConfig, cwd: string = loaded.cwd): string[] {
  return instructionReviewLines({
    fs: runtime.fs,
    agentHome: loaded.home,
    projectRoot: loaded.projectRoot,
    cwd,
    ...(loaded.settings.agent.contextFiles ? { names: loaded.settings.agent.contextFiles } : {}),
  });
}

/** True when the project's hooks may run; otherwise prints the refusal (instruction files included) and returns false. */
export function requireTrust(runtime: Runtime, io: CliIO, loaded: LoadedConfig, options: { once: boolean }): boolean {
  const decision = trustDecision(runtime, loaded, { ...options, instructions: () => projectInstructionLines(runtime, loaded) });
  if (decision.ok) return true;
  io.err(`${decision.message}\n`);
  return false;
}

export function isProjectTrusted(runtime: Runtime, loaded: LoadedConfig): boolean {
  return trustDecision(runtime, loaded).ok;
}
