/**
 * MCP tools in the interactive session (`agent` with no command): the same background start-up as
 * `agent run`, a real reference server, a real fake OpenAI server, and a lifecycle hook that sees the
 * full MCP tool name. Nothing the session started is left running after /exit.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO, makeWorld } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { toml } from "../hooks/harness.ts";
import { EVERYTHING, markedProcesses, stdioServer, toolMessage, type RequestBody } from "./support.ts";

setDefaultTimeout(120_000);

describe("MCP tools in the interactive session", () => {
  test("a prompt's MCP call runs through a pre_tool hook and the server; /exit leaves nothing running", async () => {
    const world = makeWorld();
    toml(world, "user", stdioServer(world, "every", [EVERYTHING(), "stdio"]));
    toml(
      world,
      "user",
      [
        "[[hooks.lifecycle.pre_tool]]",
        'matcher = "mcp__every__echo"',
        `hooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"allow\\",\\"updatedInput\\":{\\"message\\":\\"from the interactive hook\\"}}}'" }]`,
      ].join("\n"),
    );
    const server = await startFakeOpenAI([{ toolCalls: [{ id: "c1", name: "mcp__every__echo", arguments: { message: "original" } }] }, { text: "echoed" }]);
    try {
      const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), "--provider", "openai", "--base-url", server.url, "--model", "fake"], {
        cwd: world.project,
        env: world.env({ AGENT_INTERACTIVE: "1", OPENAI_API_KEY: "sk-test-not-real" }),
      });
      let output = "";
      child.stderr.on("data", (chunk) => (output += chunk.toString()));
      child.stdout.on("data", (chunk) => (output += chunk.toString()));
      const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      child.stdin.write("please echo\n");
      // The turn is over once the model's final text was requested and drawn.
      for (let i = 0; i < 1200 && !output.includes("echoed"); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
      child.stdin.write("/exit\n");
      child.stdin.end();
      expect(await done).toBe(0);
      expect(output).toContain("echoed");

      const first = server.requests[0] as RequestBody;
      expect((first.tools ?? []).map((tool) => tool.function.name)).toContain("mcp__every__echo");
      const second = server.requests[1] as RequestBody;
      expect(toolMessage(second, "c1")).toContain("from the interactive hook");
      expect(markedProcesses(world)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
