/**
 * Never failing open in silence: a hook that names a variable we leave empty (a pasted plugin
 * hooks.json's ${CLAUDE_PLUGIN_ROOT}, $CLAUDE_PROJECT_DIR with no project) is a warning in
 * `hooks validate`, `hooks list`, `hooks import` and every run; a fail-closed plugin hook whose
 * script is missing denies; a user plugin never runs a project's file; a project plugin is pinned
 * by project trust, and a change to it asks again.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { sessionRecords, toolResult, writePlugin } from "./support.ts";

setDefaultTimeout(120_000);

const PASTED = "names ${CLAUDE_PLUGIN_ROOT}, which is set only for a plugin's own hooks";

describe("unset variables and missing scripts", () => {
  test("a pasted plugin hooks.json: warned by hooks validate, hooks list, hooks import and agent run", async () => {
    const world = makeWorld();
    const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/bash_guard.py" }] }] };
    world.file(".claude/settings.json", JSON.stringify({ hooks }));
    const imported = await runCliInProcess(world, ["hooks", "import", "--from", "claude"]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`.claude/settings.json: hooks.PreToolUse[0].hooks[0].command: imported, but ${PASTED}`);

    const validate = await runCliInProcess(world, ["hooks", "validate"]);
    expect(validate.stdout).toContain(`warning: .agent/settings.json: hooks.lifecycle.PreToolUse[0].hooks[0].command: ${PASTED}`);
    const list = await runCliInProcess(world, ["hooks", "list"]);
    expect(list.stdout).toContain(PASTED);
    world.file("script.json", JSON.stringify({ turns: [{ text: "ok" }] }));
    const run = await runCliInProcess(world, ["run", "--provider", "script", "--script", "script.json", "--trust", "go"]);
    expect(run.stderr).toContain("1 hook load warning");
    const debug = await runCliInProcess(world, ["run", "--provider", "script", "--script", "script.json", "--trust", "go"], {
      env: world.env({ AGENT_DEBUG: "1" }),
    });
    expect(debug.stderr).toContain(PASTED);
  });

  test("hooks import flags a Codex apply_patch matcher", async () => {
    const world = makeWorld();
    world.file(
      ".codex/hooks.json",
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "apply_patch", hooks: [{ type: "command", command: "./check.sh" }] }] } }),
    );
    const imported = await runCliInProcess(world, ["hooks", "import", "--from", "codex"]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`hooks.PreToolUse[0].matcher: kept as written, but apply_patch is not one tool here: it selects Edit only`);
  });

  test("$CLAUDE_PROJECT_DIR outside a project is a warning; inside one it is not", async () => {
    const world = makeWorld({ git: false });
    world.file(
      join(world.agentHome, "settings.json"),
      JSON.stringify({ hooks: { lifecycle: { PreToolUse: [{ matcher: "Bash", hooks: [{ command: "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh" }] }] } } }),
    );
    const outside = await runCliInProcess(world, ["hooks", "validate"]);
    expect(outside.stdout).toContain("names $CLAUDE_PROJECT_DIR, but there is no project here");
    world.file(".git/HEAD", "ref: refs/heads/main\n");
    const inside = await runCliInProcess(world, ["hooks", "validate"]);
    expect(inside.stdout).not.toContain("there is no project here");
  });

  test("a fail-closed plugin hook whose script is missing denies, and hooks validate names the script", async () => {
    const world = makeWorld();
    const plugin = realpathSync(
      writePlugin(world, join(world.root, "plugins/strict"), {
        name: "strict",
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/missing.sh", failure_policy: "block" }] }] },
      }),
    );
    const validate = await runCliInProcess(world, ["hooks", "validate", "--plugin-dir", plugin]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`not found: ${plugin}/hooks/missing.sh`);
    const marker = join(world.root, "ran");
    world.file(
      "script.json",
      JSON.stringify({ turns: [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: `touch ${marker}` } }] }, { text: "end" }] }),
    );
    const run = await runCliInProcess(
      world,
      ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--plugin-dir", plugin, "go"],
      { env: world.env({ PLUGIN_TEST_LOG: join(world.root, "log") }) },
    );
    expect(run.code).toBe(0);
    expect(toolResult(sessionRecords(world), "c1").success).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  test("a user plugin's hook that names a project file fails closed and runs nothing", async () => {
    const world = makeWorld();
    const touched = join(world.root, "project-script-ran");
    world.file("tools/lint.sh", `#!/bin/sh\ntouch ${touched}\nexit 0\n`, { executable: true });
    const plugin = writePlugin(world, join(world.root, "plugins/lint"), {
      name: "lint",
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/tools/lint.sh" }] }] },
    });
    world.file("script.json", JSON.stringify({ turns: [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "end" }] }));
    const run = await runCliInProcess(
      world,
      ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--plugin-dir", plugin, "go"],
      { env: world.env({ PLUGIN_TEST_LOG: join(world.root, "log") }) },
    );
    expect(run.stderr).toContain("user plugin lint would run or read a project file");
    expect(toolResult(sessionRecords(world), "c1").success).toBe(false);
    expect(existsSync(touched)).toBe(false);
  });

  test("a project plugin (.agent/plugins/NAME) needs project trust, and a change to it asks again", async () => {
    const world = makeWorld();
    const plugin = writePlugin(world, join(world.project, ".agent/plugins/guardkit"));
    const log = join(world.root, "guard.log");
    world.file(
      "script.json",
      JSON.stringify({ turns: [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: "git reset --hard" } }] }, { text: "end" }] }),
    );
    const args = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--no-session", "go"];
    const env = world.env({ PLUGIN_TEST_LOG: log });
    const untrusted = await runCliInProcess(world, args, { env });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain("agent hooks trust");
    expect(existsSync(log)).toBe(false);
    expect((await runCliInProcess(world, ["hooks", "trust"], { env })).code).toBe(0);
    expect((await runCliInProcess(world, args, { env })).code).toBe(0);
    expect(readFileSync(log, "utf8").trim()).toBe(realpathSync(plugin));
    writeFileSync(join(plugin, "hooks/guard.sh"), "#!/bin/sh\nexit 0\n");
    const changed = await runCliInProcess(world, args, { env });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain(".agent/plugins/guardkit/hooks/guard.sh");
  });
});
