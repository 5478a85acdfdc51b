/**
 * A Claude Code plugin through `agent run --plugin-dir DIR`: every component end to end with the
 * script provider (its guard hook run through ${CLAUDE_PLUGIN_ROOT}, its command as `/greet`, its
 * skill read with `read`, its agent as a `task` subagent, its MCP server's tool), and the skills
 * and agents offered in the system prompt (a fake OpenAI server records the requests).
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { markedProcesses } from "../mcp/support.ts";
import { sessionRecords, toolResult, writePlugin } from "./support.ts";

setDefaultTimeout(120_000);

describe("--plugin-dir", () => {
  test("hooks, command, skill, agent and MCP server of a plugin, through agent run --provider script", async () => {
    const world = makeWorld();
    const plugin = realpathSync(writePlugin(world, join(world.root, "plugins/guardkit")));
    const log = join(world.root, "guard.log");
    const skill = join(plugin, "skills/haiku/SKILL.md");
    world.file(
      "script.json",
      JSON.stringify({
        turns: [
          {
            tool_calls: [
              { id: "c1", name: "bash", arguments: { command: "git reset --hard" } },
              { id: "c2", name: "bash", arguments: { command: "echo fine" } },
              { id: "c3", name: "read", arguments: { file_path: skill } },
              { id: "c4", name: "mcp__plugin_guardkit_fix__ok", arguments: {} },
              { id: "c5", name: "task", arguments: { description: "review", prompt: "review the change", subagent_type: "reviewer" } },
            ],
          },
          { text: "all done" },
        ],
        agents: { reviewer: { turns: [{ text: "reviewed by the plugin agent" }] } },
      }),
    );
    const result = await runCliInProcess(
      world,
      ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--plugin-dir", plugin, "/greet Ada"],
      { env: world.env({ PLUGIN_TEST_LOG: log }) },
    );
    expect(result.stderr).not.toContain("warning");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("all done");

    const records = sessionRecords(world);
    // The command became the prompt, with $ARGUMENTS filled in.
    const user = records.find((record) => record.type === "user");
    expect(user?.content).toBe("Say hello to Ada, then stop.");
    // The guard ran from the plugin's root, blocked the hard reset and let the echo through.
    const blocked = toolResult(records, "c1");
    expect(blocked.success).toBe(false);
    expect(blocked.content).toContain("blocked by guardkit: no hard resets");
    expect(toolResult(records, "c2")).toEqual({ success: true, content: expect.stringContaining("fine") });
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([plugin, plugin]);
    // The skill's SKILL.md is read where the plugin lives, outside the workspace.
    expect(toolResult(records, "c3").content).toContain("SKILL-BODY: count syllables 5-7-5.");
    // The MCP server was started from ${CLAUDE_PLUGIN_ROOT}/server.mjs.
    expect(toolResult(records, "c4")).toEqual({ success: true, content: expect.stringContaining("ok from fixture") });
    // The plugin's agent ran as the subagent.
    expect(toolResult(records, "c5")).toEqual({ success: true, content: "reviewed by the plugin agent" });
    expect(markedProcesses(world)).toEqual([]);
  });

  test("skills and agents are offered in the system prompt; a plugin agent's body is its subagent's system prompt", async () => {
    const world = makeWorld();
    const plugin = realpathSync(writePlugin(world, join(world.root, "plugins/guardkit")));
    const server = await startFakeOpenAI([
      { toolCalls: [{ id: "t1", name: "task", arguments: { description: "review", prompt: "look", subagent_type: "guardkit:reviewer" } }] },
      { text: "child answer" },
      { text: "parent done" },
    ]);
    let result;
    try {
      result = await runCliInProcess(
        world,
        ["run", "--provider", "openai", "--base-url", server.url, "--model", "fake", "--permission-mode", "bypass", "--plugin-dir", plugin, "write me a poem"],
        {
          env: world.env({ OPENAI_API_KEY: "sk-test-not-real", PLUGIN_TEST_LOG: join(world.root, "guard.log") }),
        },
      );
    } finally {
      await server.close();
    }
    expect(result.code).toBe(0);
    const system = (index: number): string => {
      const body = server.requests[index] as { messages: { role: string; content: unknown }[] };
      return String(body.messages.find((message) => message.role === "system")?.content ?? "");
    };
    expect(system(0)).toContain(`- guardkit:haiku: Write a haiku about code when asked for poetry [${join(plugin, "skills/haiku/SKILL.md")}]`);
    expect(system(0)).toContain("- guardkit:reviewer: Reviews a change for bugs");
    expect(system(0)).not.toContain("SKILL-BODY");
    // The agent's body is its base prompt; the tool guidance and environment follow it.
    expect(system(1)).toStartWith("You are the plugin reviewer. REVIEWER-PROMPT\n\nTools:");
    expect(result.stdout).toContain("parent done");
  });

  test("an unknown slash word stays a prompt; an unreadable --plugin-dir is a usage error", async () => {
    const world = makeWorld();
    const plugin = writePlugin(world, join(world.root, "plugins/guardkit"));
    world.file("script.json", JSON.stringify({ turns: [{ text: "ok" }] }));
    const run = await runCliInProcess(world, ["run", "--provider", "script", "--script", "script.json", "--plugin-dir", plugin, "/usr/bin/env is broken"], {
      env: world.env({ PLUGIN_TEST_LOG: join(world.root, "log") }),
    });
    expect(run.code).toBe(0);
    expect(sessionRecords(world).find((record) => record.type === "user")?.content).toBe("/usr/bin/env is broken");
    const missing = await runCliInProcess(world, ["run", "--provider", "script", "--script", "script.json", "--plugin-dir", join(world.root, "nope"), "hi"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--plugin-dir: ${join(world.root, "nope")} is not a directory`);
    expect(existsSync(join(world.root, "log"))).toBe(false);
  });
});
