/**
 * A plugin command's `` !`…` `` lines in the interactive session (a real child process with a piped
 * stdin, AGENT_INTERACTIVE=1): a line nothing allows asks the user like a model's bash call; yes runs
 * it, no leaves a note in the prompt and runs nothing. `/help` lists the plugin's commands.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, REPO, writeScript } from "../support/cli.ts";
import { waitUntil } from "../support/procs.ts";
import { sessionRecords } from "./support.ts";

setDefaultTimeout(120_000);

describe("command lines in the interactive session", () => {
  test("each line nothing allows is asked: yes runs it, no does not", async () => {
    const world = makeWorld();
    const plugin = join(world.root, "plugins/mk");
    world.file(join(plugin, ".claude-plugin/plugin.json"), JSON.stringify({ name: "mk" }));
    world.file(join(plugin, "commands/mk.md"), "---\ndescription: Makes two files\n---\nFirst: !`touch asked-a`\nSecond: !`touch asked-b`\n");
    writeScript(world, [{ text: "turn over" }]);
    const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), "--script", "script.json", "--plugin-dir", plugin], {
      cwd: world.project,
      env: world.env({ AGENT_INTERACTIVE: "1" }),
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdin.write("/help\n");
    expect(await waitUntil(() => stderr.includes("plugin commands:\n  /mk:mk"), 60_000)).toBe(true);
    child.stdin.write("/mk\n");
    expect(await waitUntil(() => /permission[^\n]*touch asked-a/i.test(stderr), 60_000)).toBe(true);
    child.stdin.write("y\n");
    expect(await waitUntil(() => /permission[^\n]*touch asked-b/i.test(stderr), 60_000)).toBe(true);
    child.stdin.write("n\n");
    expect(await waitUntil(() => stdout.includes("turn over"), 60_000)).toBe(true);
    child.stdin.write("/exit\n");
    child.stdin.end();
    expect(await done).toBe(0);
    expect(existsSync(join(world.project, "asked-a"))).toBe(true);
    expect(existsSync(join(world.project, "asked-b"))).toBe(false);
    const user = sessionRecords(world).find((record) => record.type === "user");
    expect(user?.content).toBe("First: \nSecond: [!`touch asked-b` was not run: the user denied bash]");
  });
});
