/**
 * `--plugin-dir` beyond `agent run`: the interactive session (a real child process with a piped
 * stdin, AGENT_INTERACTIVE=1, as test/ui/interactive.test.ts drives it) runs the plugin's guard and
 * offers its agent, and `agent hooks test` fires the plugin's hook.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, REPO, writeScript } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { sessionRecords, toolResult, writePlugin } from "./support.ts";

setDefaultTimeout(120_000);

describe("--plugin-dir in the interactive session and hooks test", () => {
  test("the interactive session runs the plugin's hook and its agent", async () => {
    const world = makeWorld();
    const plugin = realpathSync(writePlugin(world, join(world.root, "plugins/guardkit")));
    const log = join(world.root, "guard.log");
    writeScript(world, [
      {
        tool_calls: [
          { id: "c1", name: "bash", arguments: { command: "git reset --hard" } },
          { id: "c2", name: "task", arguments: { description: "r", prompt: "review", subagent_type: "reviewer" } },
        ],
      },
      { text: "turn over" },
    ]);
    const script = JSON.parse(readFileSync(join(world.project, "script.json"), "utf8")) as Record<string, unknown>;
    world.file("script.json", JSON.stringify({ ...script, agents: { reviewer: { turns: [{ text: "plugin agent says hi" }] } } }));
    const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), "--script", "script.json", "--permission-mode", "bypass", "--plugin-dir", plugin], {
      cwd: world.project,
      env: world.env({ AGENT_INTERACTIVE: "1", PLUGIN_TEST_LOG: log }),
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.write("go\n/exit\n");
    child.stdin.end();
    expect(await done).toBe(0);
    expect(stdout).toContain("turn over");
    const records = sessionRecords(world);
    expect(toolResult(records, "c1").content).toContain("blocked by guardkit: no hard resets");
    expect(toolResult(records, "c2")).toEqual({ success: true, content: "plugin agent says hi" });
    expect(readFileSync(log, "utf8").trim()).toBe(plugin);
  });

  test("a changed installed plugin asks again in the interactive session: no refuses, yes pins it and it runs", async () => {
    const world = makeWorld();
    const log = join(world.root, "guard.log");
    expect((await runCliInProcess(world, ["plugin", "install", writePlugin(world, join(world.root, "src/guardkit"))])).code).toBe(0);
    appendFileSync(join(world.agentHome, "plugins/guardkit/hooks/guard.sh"), "# edited\n");
    writeScript(world, [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: "git reset --hard" } }] }, { text: "turn over" }]);
    const session = async (answers: string): Promise<{ code: number | null; stderr: string }> => {
      const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), "--script", "script.json", "--permission-mode", "bypass"], {
        cwd: world.project,
        env: world.env({ AGENT_INTERACTIVE: "1", PLUGIN_TEST_LOG: log }),
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
      const done = new Promise<number | null>((resolve) => child.on("close", resolve));
      child.stdin.end(answers);
      return { code: await done, stderr };
    };
    const refused = await session("n\n");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("agent: plugin guardkit not trusted; nothing ran");
    expect(existsSync(log)).toBe(false);
    const accepted = await session("y\ngo\n/exit\n");
    expect(accepted.stderr).toContain("agent: plugin guardkit trusted");
    expect(accepted.code).toBe(0);
    expect(readFileSync(log, "utf8").trim()).toBe(join(world.agentHome, "plugins/guardkit"));
    expect((await runCliInProcess(world, ["hooks", "validate"])).stdout).not.toContain("changed since it was enabled");
  });

  test("agent hooks test fires a --plugin-dir plugin's hook (exit 2: blocked)", async () => {
    const world = makeWorld();
    const plugin = realpathSync(writePlugin(world, join(world.root, "plugins/guardkit")));
    const log = join(world.root, "guard.log");
    const env = world.env({ PLUGIN_TEST_LOG: log });
    const blocked = await runCliInProcess(
      world,
      ["hooks", "test", "pre_tool", "--tool", "bash", "--input", JSON.stringify({ command: "git reset --hard" }), "--plugin-dir", plugin],
      { env },
    );
    expect(blocked.code).toBe(2);
    expect(blocked.stdout + blocked.stderr).toContain("blocked by guardkit");
    const list = await runCliInProcess(world, ["hooks", "list", "--plugin-dir", plugin], { env });
    expect(list.stdout).toContain("plugin:guardkit:PreToolUse[0].hooks[0]");
    const without = await runCliInProcess(world, ["hooks", "test", "pre_tool", "--tool", "bash", "--input", JSON.stringify({ command: "git reset --hard" })], {
      env,
    });
    expect(without.code).toBe(0);
    expect(readFileSync(log, "utf8").trim()).toBe(plugin);
  });
});
