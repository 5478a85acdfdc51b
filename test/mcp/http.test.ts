/**
 * MCP over streamable HTTP: the reference `everything` server started in its streamableHttp mode on a
 * free 127.0.0.1 port, configured by `url` with a header taken from an env variable, called end to end
 * through `agent run` and a pre_tool hook that rewrites the call's input.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../providers/helpers.ts";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { toml } from "../hooks/harness.ts";
import { EVERYTHING, toolMessage, type RequestBody } from "./support.ts";

setDefaultTimeout(120_000);

/** Starts the server and resolves once it says it listens (its own stderr line). */
function startHttpServer(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", [EVERYTHING(), "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk.toString();
      if (stderr.includes("listening on port")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`everything server exited ${code}: ${stderr}`)));
  });
}

describe("MCP over streamable HTTP", () => {
  test("tools of an HTTP server (configured with an env-valued header) are listed and called through a rewriting hook", async () => {
    const world = makeWorld();
    const port = await freePort();
    const mcp = await startHttpServer(port);
    const model = await startFakeOpenAI([{ toolCalls: [{ id: "h1", name: "mcp__web__echo", arguments: { message: "original" } }] }, { text: "done" }]);
    try {
      toml(world, "user", [`[mcp_servers.web]`, `url = "http://127.0.0.1:${port}/mcp"`, 'headers = { "X-Agent-Test" = "${MCP_TEST_HEADER}" }'].join("\n"));
      toml(
        world,
        "user",
        [
          "[[hooks.lifecycle.pre_tool]]",
          'matcher = "mcp__web__.*"',
          `hooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"allow\\",\\"updatedInput\\":{\\"message\\":\\"over http\\"}}}'" }]`,
        ].join("\n"),
      );
      const result = await runCliInProcess(world, ["run", "--provider", "openai", "--base-url", model.url, "--model", "fake", "go"], {
        env: world.env({ OPENAI_API_KEY: "sk-test-not-real", MCP_TEST_HEADER: "yes" }),
      });
      expect(result.stderr).not.toContain("failed to start");
      expect(result.code).toBe(0);
      const first = model.requests[0] as RequestBody;
      expect((first.tools ?? []).map((tool) => tool.function.name)).toContain("mcp__web__echo");
      expect(toolMessage(model.requests[1] as RequestBody, "h1")).toContain("over http");
    } finally {
      await model.close();
      mcp.kill("SIGKILL");
    }
  });

  test("a header naming a variable that is not set: one clear line, the session goes on without the server", async () => {
    const world = makeWorld();
    const model = await startFakeOpenAI([{ text: "fine without it" }]);
    try {
      toml(world, "user", ["[mcp_servers.web]", 'url = "http://127.0.0.1:9/mcp"', 'headers = { Authorization = "Bearer ${MCP_TEST_UNSET_TOKEN}" }'].join("\n"));
      const result = await runCliInProcess(world, ["run", "--provider", "openai", "--base-url", model.url, "--model", "fake", "go"], {
        env: world.env({ OPENAI_API_KEY: "sk-test-not-real" }),
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("fine without it");
      expect(result.stderr.split("\n").filter((line) => line.includes('MCP server "web"') && line.includes("MCP_TEST_UNSET_TOKEN"))).toHaveLength(1);
    } finally {
      await model.close();
    }
  });
});
