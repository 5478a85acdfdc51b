/**
 * A real Claude Code plugin written into a test world: a PreToolUse guard run through
 * `${CLAUDE_PLUGIN_ROOT}`, a command, a skill, an agent and a stdio MCP server (our fixture server,
 * copied into the plugin and started as `node ${CLAUDE_PLUGIN_ROOT}/server.mjs`).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { World } from "../support/cli.ts";
import { readJsonl } from "../support/cli.ts";
import { FIXTURES, MARKER } from "../mcp/support.ts";

export const GUARD = [
  "#!/bin/sh",
  "input=$(cat)",
  // What the hook saw: its root (env), and the payload, for the test to read.
  'printf "%s\\n" "$CLAUDE_PLUGIN_ROOT" >> "$PLUGIN_TEST_LOG"',
  'case "$input" in *"reset --hard"*) echo "blocked by guardkit: no hard resets" >&2; exit 2;; esac',
  "exit 0",
  "",
].join("\n");

export function writePlugin(world: World, dir: string, options: { name?: string; hooks?: Record<string, unknown> } = {}): string {
  const name = options.name ?? "guardkit";
  const at = (relative: string): string => join(dir, relative);
  world.file(
    at(".claude-plugin/plugin.json"),
    JSON.stringify({ name, version: "1.2.0", description: "Guards and helpers", author: { name: "Test" } }, null, 2),
  );
  const hooks = options.hooks ?? {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", timeout: 10 }] }],
  };
  world.file(at("hooks/hooks.json"), JSON.stringify({ description: "guard", hooks }, null, 2));
  world.file(at("hooks/guard.sh"), GUARD, { executable: true });
  world.file(
    at("commands/greet.md"),
    ["---", "description: Greet someone", "argument-hint: NAME", "---", "", "Say hello to $ARGUMENTS, then stop.", ""].join("\n"),
  );
  world.file(
    at("skills/haiku/SKILL.md"),
    ["---", "name: haiku", "description: Write a haiku about code when asked for poetry", "---", "", "SKILL-BODY: count syllables 5-7-5.", ""].join("\n"),
  );
  world.file(
    at("agents/reviewer.md"),
    [
      "---",
      "name: reviewer",
      "description: Reviews a change for bugs",
      "tools: Read, Grep",
      "---",
      "",
      "You are the plugin reviewer. REVIEWER-PROMPT",
      "",
    ].join("\n"),
  );
  world.file(
    at(".mcp.json"),
    JSON.stringify({ mcpServers: { fix: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"], env: { [MARKER]: world.root } } } }, null, 2),
  );
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(FIXTURES, "crash-server.mjs"), at("server.mjs"));
  return dir;
}

/** Every record of the world's one top-level session file. */
export function sessionRecords(world: World): Record<string, unknown>[] {
  const dir = join(world.agentHome, "sessions");
  const file = readdirSync(dir).find((name) => name.endsWith(".jsonl"));
  if (file === undefined) throw new Error("no session file");
  return readJsonl(readFileSync(join(dir, file), "utf8"));
}

export function toolResult(records: readonly Record<string, unknown>[], id: string): { success: boolean; content: string } {
  const found = records.find((record) => record.type === "tool_result" && record.tool_call_id === id);
  if (found === undefined) throw new Error(`no tool_result ${id}`);
  return { success: found.success === true, content: String(found.content) };
}
