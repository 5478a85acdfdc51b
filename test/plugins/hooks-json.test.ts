/**
 * hooks/hooks.json in the shapes published plugins use: with the {"hooks": …} wrapper and without it
 * (events at the top level, matcher "*"), loaded through `agent hooks list|validate --plugin-dir`.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { realpathSync } from "node:fs";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";

const entry = (script: string) => [{ matcher: "*", hooks: [{ type: "command", command: `python3 \${CLAUDE_PLUGIN_ROOT}/hooks/${script}`, timeout: 10 }] }];

describe("plugin hooks.json shapes", () => {
  test("events at the top level load like the wrapped form; validate checks each script under the plugin root", async () => {
    const world = makeWorld();
    const dir = join(world.root, "rules");
    world.file(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "rules" }));
    world.file(join(dir, "hooks/hooks.json"), JSON.stringify({ PreToolUse: entry("pre.py"), Stop: entry("stop.py"), UserPromptSubmit: entry("prompt.py") }));
    for (const script of ["pre.py", "prompt.py"]) world.file(join(dir, "hooks", script), "import sys\nsys.exit(0)\n");
    const root = realpathSync(dir);
    const list = await runCliInProcess(world, ["hooks", "list", "--json", "--plugin-dir", dir]);
    const parsed = JSON.parse(list.stdout) as { hooks: { label: string; event: string; timeout_ms: number }[]; warnings: unknown[] };
    expect(parsed.warnings).toEqual([]);
    expect(parsed.hooks.map((hook) => [hook.label, hook.event, hook.timeout_ms])).toEqual([
      ["plugin:rules:PreToolUse[0].hooks[0]", "pre_tool", 10_000],
      ["plugin:rules:Stop[0].hooks[0]", "stop", 10_000],
      ["plugin:rules:UserPromptSubmit[0].hooks[0]", "user_prompt_submit", 10_000],
    ]);
    const validate = await runCliInProcess(world, ["hooks", "validate", "--plugin-dir", dir]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`not found: ${root}/hooks/stop.py`);
    expect(validate.stdout).not.toContain("pre.py");
  });
});
