// A trusted script changed during the session never runs. Right before each spawn
// a project hook checks the pinned files; a changed one (or a new file under .agent/) fails the hook
// closed whatever its policy, with a line naming the file and how to re-trust.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript, type World } from "../support/cli.ts";
import { trust } from "./helpers.ts";

setDefaultTimeout(60_000);

// The rule names .agent/ so the model's write goes through the gate (D28) and the spawn-time check is what stops it.
const EDITS = [
  "run",
  "--provider",
  "script",
  "--script",
  "s.json",
  "--permission-mode",
  "accept-edits",
  "--allow",
  "bash(echo*)",
  "--allow",
  "write(.agent/*)",
  "hi",
];

/** A trusted project whose warn-policy before_tool hook appends `v1` to a log; the model then writes `path`. */
function world(path: string, content: string): World {
  const w = makeWorld();
  w.file(
    ".agent/settings.json",
    JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "h", command: "./scripts/h.sh", failure_policy: "warn" }] } }),
  );
  w.file("scripts/h.sh", `#!/bin/sh\ncat >/dev/null\necho v1 >> "$AGENT_PROJECT_DIR/log"\n`, { executable: true });
  w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
  w.file(".agent/hooks/x/run.sh", `#!/bin/sh\ncat >/dev/null\n. "$(dirname "$0")/lib.sh"\n`, { executable: true });
  w.file(".agent/hooks/x/lib.sh", `echo dir-v1 >> "$AGENT_PROJECT_DIR/log"\n`);
  trust(w);
  writeScript(
    w,
    [
      { tool_calls: [{ name: "bash", arguments: { command: "echo one" } }] },
      { tool_calls: [{ name: "write", arguments: { file_path: path, content } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "echo two" } }] },
      { text: "done" },
    ],
    "s.json",
  );
  return w;
}

const PWN = `#!/bin/sh\ntouch "$AGENT_PROJECT_DIR/pwned"\n`;

describe("spawn-time trust check", () => {
  for (const [name, path] of [
    ["a list hook's script", "scripts/h.sh"],
    ["a file a hook dir script sources", ".agent/hooks/x/lib.sh"],
  ] as const) {
    test(`${name} overwritten by the model in accept-edits mode does not run; the session stops naming it`, () => {
      const w = world(path, PWN);
      const r = runCli(w, EDITS);
      expect(existsSync(join(w.project, "pwned"))).toBe(false);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`changed: ${join(w.project, path)}`);
      expect(r.stderr).toContain("agent hooks trust");
      // The bash and write calls ran both hooks with the trusted bytes; nothing ran after the write.
      expect(readFileSync(join(w.project, "log"), "utf8").trim().split("\n").sort()).toEqual(["dir-v1", "dir-v1", "v1", "v1"]);
      // The next start refuses as usual (D17).
      writeScript(w, [{ text: "done" }], "s.json");
      expect(runCli(w, EDITS).code).toBe(1);
    });
  }

  test("a new file under .agent/ is a change too; an output file (.agent/state/, *.jsonl) is not", () => {
    const out = world(".agent/state/notes.txt", "notes\n");
    expect(runCli(out, EDITS).code).toBe(0);
    // Three tool calls, two hooks each.
    expect(readFileSync(join(out.project, "log"), "utf8").trim().split("\n").length).toBe(6);

    const w = world(".agent/hooks/x/extra.sh", PWN);
    const r = runCli(w, EDITS);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`added: ${join(w.project, ".agent/hooks/x/extra.sh")}`);
  });
});
