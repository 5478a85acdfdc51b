// `agent hooks import --from claude|gemini|codex` through the CLI (in-process): it writes
// our settings.json, prints what it could not translate, and the imported hook then really runs
// (after `agent hooks trust`) with a real Claude-style validator script.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { ofType, recordsOf } from "../agent/support.ts";

const VALIDATOR = `#!/bin/sh
input=$(cat)
case "$input" in
  *'"command":"rm -rf'*) echo "Blocked: rm -rf" >&2; exit 2 ;;
esac
exit 0
`;

const settingsOf = (w: World): Record<string, unknown> => JSON.parse(readFileSync(join(w.project, ".agent/settings.json"), "utf8"));
const lifecycleOf = (w: World): Record<string, unknown> => (settingsOf(w).hooks as { lifecycle: Record<string, unknown> }).lifecycle;

async function runRmAndLs(w: World, extra: string[] = []) {
  w.file("scratch/keep", "");
  w.file(
    "script.json",
    JSON.stringify({
      turns: [
        {
          tool_calls: [
            { id: "c1", name: "bash", arguments: { command: "rm -rf scratch" } },
            { id: "c2", name: "bash", arguments: { command: "ls" } },
          ],
        },
        { text: "done" },
      ],
    }),
  );
  return await runCliInProcess(w, [
    "run",
    "--provider",
    "script",
    "--script",
    "script.json",
    "--permission-mode",
    "bypass",
    "--output-format",
    "json",
    ...extra,
    "go",
  ]);
}

describe("agent hooks import", () => {
  test("--from claude writes .agent/settings.json, lists what it could not translate, and the hook runs once trusted", async () => {
    const w = makeWorld();
    w.file(".claude/hooks/validate.sh", VALIDATOR, { executable: true });
    w.file(".agent/settings.json", JSON.stringify({ permissions: { deny: ["bash(curl *)"] } }));
    w.file(
      ".claude/settings.json",
      JSON.stringify({
        permissions: { allow: ["Bash(ls:*)"] },
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "command", command: "$CLAUDE_PROJECT_DIR/.claude/hooks/validate.sh", timeout: 5 },
                { type: "agent", prompt: "is $ARGUMENTS safe?" },
              ],
            },
          ],
          TeammateIdle: [{ hooks: [{ type: "command", command: "true" }] }],
        },
      }),
    );
    const r = await runCliInProcess(w, ["hooks", "import", "--from", "claude"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("imported 1 hook command from .claude/settings.json into .agent/settings.json");
    expect(r.stdout).toContain('.claude/settings.json: hooks.PreToolUse[0].hooks[1]: not translated: handler type "agent"');
    expect(r.stdout).toContain(".claude/settings.json: hooks.TeammateIdle: not translated: no TeammateIdle event here");
    expect(r.stdout).toContain("agent hooks trust");
    // Existing settings are kept; the group lands under hooks.lifecycle with our key names.
    expect(settingsOf(w).permissions).toEqual({ deny: ["bash(curl *)"] });
    expect(lifecycleOf(w)).toEqual({
      PreToolUse: [{ matcher: "Bash", hooks: [{ command: "$CLAUDE_PROJECT_DIR/.claude/hooks/validate.sh", timeout_seconds: 5 }] }],
    });
    expect((await runCliInProcess(w, ["hooks", "validate"])).code).toBe(0);

    // Untrusted until reviewed; then the imported validator blocks rm -rf and lets ls run.
    expect((await runRmAndLs(w)).code).toBe(1);
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    const run = await runRmAndLs(w);
    expect(run.code).toBe(0);
    expect(ofType(recordsOf(w, run), "tool_result").map((t) => [t.tool_call_id, t.success])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
    expect(existsSync(join(w.project, "scratch", "keep"))).toBe(true);

    // Importing again adds nothing.
    const before = readFileSync(join(w.project, ".agent/settings.json"), "utf8");
    const again = await runCliInProcess(w, ["hooks", "import", "--from", "claude"]);
    expect(again.stdout).toContain("imported 0 hook commands from .claude/settings.json into .agent/settings.json (1 group already there)");
    expect(readFileSync(join(w.project, ".agent/settings.json"), "utf8")).toBe(before);
  });

  test("item 9: --from claude keeps http and prompt handlers and says what the http one needs", async () => {
    const w = makeWorld();
    w.file(
      ".claude/settings.json",
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "http", url: "https://hooks.example.com/pre", headers: { Authorization: "Bearer $TOKEN" }, allowedEnvVars: ["TOKEN"], timeout: 10 },
              ],
            },
          ],
          Stop: [{ hooks: [{ type: "prompt", prompt: "Done? $ARGUMENTS", model: "small" }] }],
        },
      }),
    );
    const r = await runCliInProcess(w, ["hooks", "import", "--from", "claude"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("imported 2 hook commands");
    expect(r.stdout).toContain("hooks.PreToolUse[0].hooks[0].url: runs only if the URL matches hooks.http_allow");
    expect(r.stdout).toContain("hooks.PreToolUse[0].hooks[0].allowedEnvVars: dropped");
    expect(lifecycleOf(w)).toEqual({
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [{ type: "http", url: "https://hooks.example.com/pre", headers: { Authorization: "Bearer ${TOKEN}" }, timeout_seconds: 10 }],
        },
      ],
      Stop: [{ hooks: [{ type: "prompt", prompt: "Done? $ARGUMENTS", model: "small" }] }],
    });
  });

  test("--from gemini maps events, tool names and millisecond timeouts; --dry-run writes nothing", async () => {
    const w = makeWorld();
    w.file(
      ".gemini/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          BeforeTool: [
            { matcher: "run_shell_command|web_fetch", sequential: true, hooks: [{ name: "guard", type: "command", command: "./guard.sh", timeout: 5000 }] },
          ],
          AfterAgent: [{ hooks: [{ type: "command", command: "./done.sh" }] }],
          BeforeModel: [{ hooks: [{ type: "command", command: "./model.sh" }] }],
        },
      }),
    );
    const r = await runCliInProcess(w, ["hooks", "import", "--from", "gemini", "--dry-run"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      hooks: {
        lifecycle: {
          PreToolUse: [{ matcher: "Bash|web_fetch", hooks: [{ command: "./guard.sh", timeout_seconds: 5 }] }],
          Stop: [{ hooks: [{ command: "./done.sh" }] }],
        },
      },
    });
    expect(r.stderr).toContain("would import 2 hook commands from .gemini/settings.json into .agent/settings.json");
    expect(r.stderr).toContain(".gemini/settings.json: hooks.BeforeTool[0].matcher: matches no tool here: web_fetch");
    expect(r.stderr).toContain(".gemini/settings.json: hooks.BeforeModel: not translated");
    expect(r.stderr).toContain("hooks.BeforeTool[0].hooks[0].name: dropped");
    expect(existsSync(join(w.project, ".agent/settings.json"))).toBe(false);
  });

  test("--from codex reads [[hooks.Event]] tables from .codex/config.toml and says notify has no equivalent", async () => {
    const w = makeWorld();
    w.file(
      ".codex/config.toml",
      [
        'model = "o4"',
        'notify = ["python3", "notify.py"]',
        "",
        "[[hooks.PreToolUse]]",
        'matcher = "^Bash$"',
        "",
        "[[hooks.PreToolUse.hooks]]",
        'type = "command"',
        'command = "./check.sh"',
        "timeout = 30",
        "",
        "[hooks.Stop]",
        'command = "flat"',
        "",
      ].join("\n"),
    );
    const r = await runCliInProcess(w, ["hooks", "import", "--from", "codex"]);
    expect(r.code).toBe(0);
    expect(lifecycleOf(w)).toEqual({ PreToolUse: [{ matcher: "^Bash$", hooks: [{ command: "./check.sh", timeout_seconds: 30 }] }] });
    expect(r.stdout).toContain(".codex/config.toml: notify: not translated");
    expect(r.stdout).toContain(".codex/config.toml: hooks.Stop: not translated: a flat table");
  });

  test("bad usage and missing files are one clear error", async () => {
    const w = makeWorld();
    const bad = await runCliInProcess(w, ["hooks", "import", "--from", "cursor"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown --from "cursor"');
    const missing = await runCliInProcess(w, ["hooks", "import"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing --from");
    const none = await runCliInProcess(w, ["hooks", "import", "--from", "claude"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no claude config found (looked for .claude/settings.json, .claude/settings.local.json)");
  });
});
