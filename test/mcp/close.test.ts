/**
 * Ending MCP servers at exit (RUN-52): a stdio server that ignores its closed stdin is sent SIGTERM,
 * and one that ignores SIGTERM as well is killed; `agent run` exits 0 either way and leaves nothing
 * running.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { toml } from "../hooks/harness.ts";
import { FIXTURES, markedProcesses, stdioServer } from "./support.ts";

setDefaultTimeout(120_000);

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("MCP servers at exit", () => {
  for (const ignoreTerm of ["0", "1"]) {
    test(`RUN-52 a server that ignores its closed stdin${ignoreTerm === "1" ? " and SIGTERM" : ""} is ended; the run exits 0`, async () => {
      const world = makeWorld();
      const pidFile = join(world.root, "server.pid");
      toml(world, "user", stdioServer(world, "deaf", [join(FIXTURES, "deaf-server.mjs")], { env: { PID_FILE: pidFile, IGNORE_TERM: ignoreTerm } }));
      const server = await startFakeOpenAI([{ text: "done" }]);
      try {
        const r = await runCliInProcess(world, ["run", "--provider", "openai", "--base-url", server.url, "--model", "fake", "--output-format", "json", "go"], {
          env: world.env({ OPENAI_API_KEY: "sk-test-not-real" }),
        });
        expect(r.code).toBe(0);
        const pid = Number(readFileSync(pidFile, "utf8"));
        expect(pid).toBeGreaterThan(0);
        expect(alive(pid)).toBe(false);
        expect(markedProcesses(world)).toEqual([]);
      } finally {
        await server.close();
      }
    });
  }
});
