/**
 * A plugin agent's front-matter `hooks:` (Claude Code's subagent hooks), through `agent run
 * --plugin-dir` with the script provider: its PreToolUse hook runs only while that subagent runs
 * (with CLAUDE_PLUGIN_ROOT, as the plugin's own hooks), its Stop hook fires as that agent's
 * subagent_stop in the parent, and `agent hooks list` shows them under the plugin.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { toolResult } from "./support.ts";

setDefaultTimeout(120_000);

const GUARDED = `---
name: guarded
description: Works under its own guard
tools: Bash, Read
hooks:
  PreToolUse:
    - matcher: "Bash"
      hooks:
        - type: command
          command: "\${CLAUDE_PLUGIN_ROOT}/hooks/agent-guard.sh"
  Stop:
    - hooks:
        - type: command
          command: "\${CLAUDE_PLUGIN_ROOT}/hooks/agent-stop.sh"
---
You work carefully.
`;

const AGENT_GUARD = `#!/bin/sh
input=$(cat)
printf '%s\\n' "$CLAUDE_PLUGIN_ROOT" >> "$AGENT_HOOK_LOG"
case "$input" in *danger*) echo "guarded agent: no danger" >&2; exit 2;; esac
exit 0
`;

function records(dir: string): Record<string, unknown>[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) => readJsonl(readFileSync(join(dir, name), "utf8")));
}

describe("plugin agent front-matter hooks", () => {
  test("active only inside that subagent, with the plugin's root; Stop is its subagent_stop", async () => {
    const world = makeWorld();
    // The world's root is a real path already: CLAUDE_PLUGIN_ROOT is this very path.
    const plugin = join(world.root, "plugins/crew");
    world.file(join(plugin, ".claude-plugin/plugin.json"), JSON.stringify({ name: "crew" }));
    world.file(join(plugin, "agents/guarded.md"), GUARDED);
    world.file(join(plugin, "agents/free.md"), "---\nname: free\ndescription: No guard\n---\nYou work.\n");
    world.file(join(plugin, "hooks/agent-guard.sh"), AGENT_GUARD, { executable: true });
    const stopLog = join(world.root, "stop.log");
    world.file(join(plugin, "hooks/agent-stop.sh"), `#!/bin/sh\ncat >> "${stopLog}"\necho >> "${stopLog}"\n`, { executable: true });
    world.file(
      "script.json",
      JSON.stringify({
        turns: [
          { tool_calls: [{ id: "p1", name: "bash", arguments: { command: "echo danger-parent" } }] },
          { tool_calls: [{ id: "t1", name: "task", arguments: { description: "g", prompt: "go", subagent_type: "guarded" } }] },
          { tool_calls: [{ id: "t2", name: "task", arguments: { description: "f", prompt: "go", subagent_type: "crew:free" } }] },
          { text: "end" },
        ],
        agents: {
          guarded: { turns: [{ tool_calls: [{ id: "g1", name: "bash", arguments: { command: "echo danger-child" } }] }, { text: "guarded done" }] },
          "crew:free": { turns: [{ tool_calls: [{ id: "f1", name: "bash", arguments: { command: "echo danger-free" } }] }, { text: "free done" }] },
        },
      }),
    );
    const log = join(world.root, "agent-hook.log");
    const result = await runCliInProcess(
      world,
      ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--plugin-dir", plugin, "go"],
      { env: world.env({ AGENT_HOOK_LOG: log }) },
    );
    expect(result.stderr).not.toContain("warning");
    expect(result.code).toBe(0);
    const parent = records(join(world.agentHome, "sessions"));
    const children = records(join(world.agentHome, "sessions/subagents"));
    // The parent and the other agent are not under the guard; the guarded agent is.
    expect(toolResult(parent, "p1")).toEqual({ success: true, content: expect.stringContaining("danger-parent") });
    expect(toolResult(children, "f1")).toEqual({ success: true, content: expect.stringContaining("danger-free") });
    expect(toolResult(children, "g1").success).toBe(false);
    expect(toolResult(children, "g1").content).toContain("guarded agent: no danger");
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([plugin]);
    // Its Stop hook fired once, as the guarded agent's subagent_stop.
    const stops = readJsonl(readFileSync(stopLog, "utf8"));
    expect(stops.map((stop) => [stop.hook_event_name, stop.agent_type])).toEqual([["SubagentStop", "guarded"]]);

    const list = await runCliInProcess(world, ["hooks", "list", "--plugin-dir", plugin]);
    expect(list.stdout).toContain("plugin:crew:agents/guarded.md:PreToolUse[0].hooks[0]");
    expect(list.stdout).toContain("plugin:crew:agents/guarded.md:subagent_stop[0].hooks[0]");
  });
});
