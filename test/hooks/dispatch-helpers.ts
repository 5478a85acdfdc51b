/**
 * Small helpers shared by the dispatch tests: common fire options and one-hook setups.
 */
import { makeWorld, type World } from "../support/cli.ts";
import { fire, hookDir, toml, type FireOptions, type Fired } from "./harness.ts";

export const BASH: FireOptions = { tool: "bash", input: { command: "ls" } };
export const post = (content = "hi\n", success = true): FireOptions => ({ tool: "bash", input: { command: "echo hi" }, result: { success, content } });

/** One user hook dir `name` with `body`, fired for pre_tool bash. */
export async function preDir(body: string, manifest: Record<string, unknown> = {}, name = "guard"): Promise<Fired> {
  const world = makeWorld();
  hookDir(world, "user", name, { event: "pre_tool", ...manifest }, body);
  return fire(world, "pre_tool", BASH);
}

const LIFECYCLE_EVENT = {
  pre_tool_use: "pre_tool",
  post_tool_use: "post_tool",
  session_start: "session_start",
  user_prompt_submit: "user_prompt_submit",
} as const;

/** One user lifecycle command (TOML-quoted) under `key`, fired for that key's event. */
export async function lifecycle(
  key: keyof typeof LIFECYCLE_EVENT,
  command: string,
  options: FireOptions & { extra?: string; world?: World } = {},
): Promise<Fired> {
  const world = options.world ?? makeWorld();
  toml(world, "user", `[[hooks.lifecycle.${key}]]\nhooks = [{ command = ${JSON.stringify(command)}${options.extra ?? ""} }]`);
  return fire(world, LIFECYCLE_EVENT[key], options);
}

export const claude = (object: unknown): string => `echo '${JSON.stringify(object)}'`;
export const decided = (f: Fired): [string, string | null] => [f.outcome.decision, f.outcome.reason];
