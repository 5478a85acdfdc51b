/**
 * Hooks declared in an agent definition's front matter (`.agent/agents/NAME.md`)
 * carry `agent: NAME` and are active only inside that subagent, except their subagent_start and
 * subagent_stop hooks (Claude Code's frontmatter `Stop` becomes SubagentStop), which fire in the
 * parent, where those events fire, and only for that agent (their matcher is the agent's name).
 */
import type { HookSpec } from "./types.ts";

const PARENT_SIDE_EVENTS: ReadonlySet<string> = new Set(["subagent_start", "subagent_stop"]);

/** The hooks a session runs: `agentName` is the subagent's name, undefined for a top-level session. */
export function activeHooks(hooks: readonly HookSpec[], agentName: string | undefined): HookSpec[] {
  return hooks.filter((spec) => {
    if (spec.agent === undefined) return true;
    if (PARENT_SIDE_EVENTS.has(spec.event)) return agentName === undefined;
    return spec.agent === agentName;
  });
}
