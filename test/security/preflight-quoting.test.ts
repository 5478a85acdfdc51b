// item 9, end to end through `agent run` and `agent hooks validate` (D12, SEC-05, SEC-08):
// a list command that hides `cd ..` behind `\'` (a literal quote to bash, not a quoted run) is
// rejected before any spawn, so bash never runs it; a command whose `cd ..` really is quoted runs.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript, type World } from "../support/cli.ts";
import { ofType, recordsOf, runScript } from "../agent/support.ts";

function settings(world: World, hooks: Record<string, unknown>[]): void {
  world.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: hooks } }));
}

const failureLines = (stderr: string): string[] => stderr.split("\n").filter((line) => line.startsWith("agent: hook "));

describe("item 9: preflight splits words as bash quotes them", () => {
  test("D12 SEC-08 `true x\\' ; cd .. ; pwd > out.txt ; true x\\'` is rejected (cd) and never spawned; validate says so", () => {
    const w = makeWorld();
    const command = String.raw`true x\' ; cd .. ; pwd > out.txt ; true x\'`;
    settings(w, [{ label: "q", command, failure_policy: "block" }]);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${w.root}/ran'` } }] }, { text: "done" }]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    expect(failureLines(r.stderr)).toEqual(["agent: hook q (pre_tool) failed: runner: preflight: cd is not allowed — tool blocked"]);
    // Under bash the command would have written the parent directory's path to ../out.txt.
    expect(existsSync(join(w.root, "out.txt"))).toBe(false);
    expect(existsSync(join(w.project, "out.txt"))).toBe(false);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(ofType(recordsOf(w, r), "tool_result_delivered")[0]?.content).toBe("Tool call blocked by local hook policy.");

    const validate = runCli(w, ["hooks", "validate"]);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain("hooks.before_tool[0].command: rejected by preflight (cd)");
  });

  test("D12 a `cd ..` that bash sees inside one double-quoted word passes preflight and runs harmlessly", () => {
    const w = makeWorld();
    w.file("ok.sh", `#!/bin/sh\ncat >/dev/null\nprintf '%s|%s' "$1" "$(pwd)" > "${w.root}/arg.txt"\n`, { executable: true });
    settings(w, [{ label: "ok", command: String.raw`./ok.sh "x\"; cd ..; \""`, failure_policy: "block" }]);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${w.root}/ran'` } }] }, { text: "done" }]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    expect(failureLines(r.stderr)).toEqual([]);
    expect(readFileSync(join(w.root, "arg.txt"), "utf8")).toBe(`x"; cd ..; "|${w.project}`);
    expect(existsSync(join(w.root, "ran"))).toBe(true);
  });
});
