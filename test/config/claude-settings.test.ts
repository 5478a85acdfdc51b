// Hooks from Claude Code's own settings files (`.claude/settings.json`,
// `.claude/settings.local.json`, `~/.claude/settings.json`), opted into with
// `compat.claude_settings = true` in user config, run through the CLI (in-process) with real scripts;
// project ones are pinned by trust (D17, SEC-32). Related: PLUS-11.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { readLog, logTo, ofType, recordsOf } from "../agent/support.ts";

const VALIDATOR = `#!/bin/sh
# An unmodified-style Claude Code PreToolUse validator, jq-free.
input=$(cat)
case "$input" in
  *'"command":"rm -rf'*) echo "Blocked: rm -rf" >&2; exit 2 ;;
esac
exit 0
`;

function setUp(w: World): void {
  w.file("scratch/keep", "");
  w.file(".claude/hooks/bash-validator.sh", VALIDATOR, { executable: true });
  w.file(
    ".claude/settings.json",
    JSON.stringify({
      permissions: { allow: ["Bash(ls:*)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/.claude/hooks/bash-validator.sh", timeout: 5 }] }] },
    }),
  );
  w.file(
    ".claude/settings.local.json",
    JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: logTo(w, "post.log") }] }] } }),
  );
  w.file(join(w.home, ".claude/settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: logTo(w, "stop.log") }] }] } }));
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
}

const RUN = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--output-format", "json"];

describe("Claude Code settings files", () => {
  test("PLUS-11 with compat.claude_settings the three files' hooks run: a Claude validator blocks rm -rf, ls runs", async () => {
    const w = makeWorld();
    setUp(w);
    w.file(join(w.agentHome, "config.toml"), "[compat]\nclaude_settings = true\n");
    const r = await runCliInProcess(w, [...RUN, "--trust", "go"]);
    expect(r.code).toBe(0);
    const results = ofType(recordsOf(w, r), "tool_result");
    expect(results.map((t) => [t.tool_call_id, t.success])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
    expect(String(results[0]?.content)).toContain("Blocked: rm -rf");
    expect(existsSync(join(w.project, "scratch", "keep"))).toBe(true);
    expect(readLog(w, "post.log").map((p) => p.tool_input)).toEqual([{ command: "ls" }]);
    expect(readLog(w, "stop.log").map((p) => p.hook_event_name)).toEqual(["Stop"]);
    const list = (await runCliInProcess(w, ["hooks", "list"])).stdout;
    expect(list).toContain(".claude/settings.json:PreToolUse[0].hooks[0]");
    expect(list).toContain(".claude/settings.local.json:PostToolUse[0].hooks[0]");
    expect(list).toContain("~/.claude/settings.json:Stop[0].hooks[0]");
  });

  test("off by default; a project cannot switch it on", async () => {
    const w = makeWorld();
    setUp(w);
    expect(readLog(w, "stop.log")).toEqual([]);
    const off = await runCliInProcess(w, [...RUN, "--trust", "go"]);
    expect(off.code).toBe(0);
    expect(ofType(recordsOf(w, off), "tool_result").map((t) => t.success)).toEqual([true, true]);
    expect(existsSync(join(w.project, "scratch"))).toBe(false);
    expect(readLog(w, "stop.log")).toEqual([]);
    w.file(".agent/config.toml", "[compat]\nclaude_settings = true\n");
    const project = await runCliInProcess(w, ["hooks", "validate"]);
    expect(project.stdout + project.stderr).toContain("compat.claude_settings: is read from user config only");
    w.file("scratch/keep", "");
    const again = await runCliInProcess(w, [...RUN, "--trust", "go"]);
    expect(ofType(recordsOf(w, again), "tool_result").map((t) => t.success)).toEqual([true, true]);
  });

  test("SEC-32 the project's Claude hooks and the scripts they run are pinned by trust", async () => {
    const w = makeWorld();
    setUp(w);
    w.file(join(w.agentHome, "config.toml"), "[compat]\nclaude_settings = true\n");
    const refused = await runCliInProcess(w, [...RUN, "go"]);
    expect(refused.code).toBe(1);
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    expect((await runCliInProcess(w, [...RUN, "go"])).code).toBe(0);
    w.file(".claude/hooks/bash-validator.sh", "#!/bin/sh\nexit 0\n", { executable: true });
    expect((await runCliInProcess(w, [...RUN, "go"])).code).toBe(1);
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    w.file(".claude/settings.local.json", JSON.stringify({ hooks: { PostToolUse: [{ hooks: [{ type: "command", command: "true" }] }] } }));
    expect((await runCliInProcess(w, [...RUN, "go"])).code).toBe(1);
  });
});
