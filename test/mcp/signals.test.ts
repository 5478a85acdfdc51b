/**
 * A stop signal during an MCP call: SIGTERM while a server that ignores SIGTERM is stuck in
 * tools/call. The server's group is in the runtime's live-group registry, so the agent kills it,
 * ends the session (interrupted, exit 143) and leaves nothing running. Waits on the fixture's
 * "called" file, never on a duration.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO, makeWorld } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { toml } from "../hooks/harness.ts";
import { FIXTURES, markedProcesses, stdioServer } from "./support.ts";

setDefaultTimeout(120_000);

describe("MCP servers and stop signals", () => {
  test("SIGTERM during a stuck tools/call kills the server's group; exit 143; nothing left running", async () => {
    const world = makeWorld();
    const called = join(world.root, "called");
    toml(world, "user", stdioServer(world, "stuck", [join(FIXTURES, "crash-server.mjs")], { env: { MCP_FIXTURE_CALLED: called } }));
    const server = await startFakeOpenAI([{ toolCalls: [{ id: "s1", name: "mcp__stuck__stall", arguments: {} }] }, { text: "never" }]);
    try {
      const child = spawn(
        process.execPath,
        [
          join(REPO, "src", "main.ts"),
          "run",
          "--provider",
          "openai",
          "--base-url",
          server.url,
          "--model",
          "fake",
          "--allow",
          "mcp__stuck__stall",
          "--output-format",
          "json",
          "go",
        ],
        { cwd: world.project, env: world.env({ OPENAI_API_KEY: "sk-test-not-real" }) },
      );
      let stdout = "";
      child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
      child.stderr.on("data", () => undefined);
      const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      child.stdin.end("");
      while (!existsSync(called)) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(markedProcesses(world).length).toBeGreaterThan(0);
      child.kill("SIGTERM");
      expect(await done).toBe(143);
      expect(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ stop_reason: "interrupted" });
      expect(markedProcesses(world)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
