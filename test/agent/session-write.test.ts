// A session file that cannot be written is surfaced, never ignored (DESIGN.md Reliability "never
// loses a session line" → when it must, it says so): one notice per kind of failure on stderr, and
// an otherwise successful run ends as an error (stop_reason `error`, is_error true, exit 1). The
// stream-json listener still gets every line.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeWorld, writeScript, readJsonl } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { lastJson } from "./support.ts";

describe("session writes that fail", () => {
  test("LOOP-26 sessions/ is a file: one notice naming it, the run ends as an error with exit 1", async () => {
    const world = makeWorld();
    writeScript(world, [{ tool_calls: [{ id: "call_1", name: "read", arguments: { file_path: "script.json" } }] }, { text: "done" }]);
    const blocker = world.file(join(world.agentHome, "sessions"), "not a directory\n");
    const run = await runCliInProcess(world, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--permission-mode",
      "bypass",
      "--output-format",
      "json",
      "--trust",
      "go",
    ]);
    const result = lastJson(run.stdout);
    expect([run.code, result.stop_reason, result.is_error, result.result]).toEqual([1, "error", true, "done"]);
    const notices = run.stderr.split("\n").filter((line) => line.startsWith("agent: session file not written:"));
    expect(notices.length).toBe(1);
    expect(notices[0]).toContain(join(world.agentHome, "sessions"));
    expect(run.stderr).toContain("the session file could not be written");
    expect(blocker).toBe(join(world.agentHome, "sessions"));
  });

  test("LOOP-40 with stream-json every line still reaches stdout, the last one says error", async () => {
    const world = makeWorld();
    writeScript(world, [{ text: "done" }]);
    world.file(join(world.agentHome, "sessions"), "not a directory\n");
    const run = await runCliInProcess(world, ["run", "--provider", "script", "--script", "script.json", "--output-format", "stream-json", "--trust", "go"]);
    const lines = readJsonl(run.stdout);
    expect(lines.map((line) => line.type)).toEqual(["session_start", "user", "text_delta", "assistant", "session_end", "result"]);
    expect([run.code, lines[4]?.stop_reason, lines[4]?.is_error, lines[5]?.is_error]).toEqual([1, "error", true, true]);
  });

  test("LOOP-41 --no-session writes nothing, so nothing can fail: exit 0", async () => {
    const world = makeWorld();
    writeScript(world, [{ text: "done" }]);
    world.file(join(world.agentHome, "sessions"), "not a directory\n");
    const run = await runCliInProcess(world, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--output-format",
      "json",
      "--no-session",
      "--trust",
      "go",
    ]);
    expect([run.code, lastJson(run.stdout).stop_reason]).toEqual([0, "completed"]);
    expect(run.stderr).not.toContain("session file not written");
  });
});
