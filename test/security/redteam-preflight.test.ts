// Red team, (D12, SEC-05, SEC-08): bash re-reads the operand of `eval` and of
// `sh -c`/`bash -c` as a new command, so `eval c\\d sub` (bash builds `c\d`, eval runs `cd sub`) and
// `sh -c "cd .. && pwd > out.txt"` changed directory although every word passed D12. Both passed
// preflight and ran before the fix: `out.txt` appeared in `sub/` or the parent directory.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript } from "../support/cli.ts";
import { runScript } from "../agent/support.ts";
import { preflight } from "../../src/hooks/shell/preflight.ts";

const failureLines = (stderr: string): string[] => stderr.split("\n").filter((line) => line.startsWith("agent: hook "));

describe("item 9: code bash reads again is preflighted too", () => {
  for (const command of [String.raw`eval c\\d sub \&\& pwd \> out.txt`, 'sh -c "cd .. && pwd > out.txt"', String.raw`bash -ec 'c\d ..; pwd > out.txt'`]) {
    test(`${command} is rejected (cd) and never spawned; validate says so`, () => {
      const w = makeWorld();
      w.file("sub/keep", "");
      w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "q", command, failure_policy: "block" }] } }));
      writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${w.root}/ran'` } }] }, { text: "done" }]);
      const r = runScript(w, "bypass");
      expect(failureLines(r.stderr)).toEqual(["agent: hook q (pre_tool) failed: runner: preflight: cd is not allowed — tool blocked"]);
      expect(existsSync(join(w.root, "out.txt"))).toBe(false);
      expect(existsSync(join(w.project, "sub", "out.txt"))).toBe(false);
      expect(existsSync(join(w.root, "ran"))).toBe(false);
      const validate = runCli(w, ["hooks", "validate"]);
      expect(validate.stdout + validate.stderr).toContain("hooks.before_tool[0].command: rejected by preflight (cd)");
    });
  }

  test("the operand keeps D12's other rules and quoted text that is only data still passes", () => {
    expect(preflight(String.raw`eval .\\./x`, { absolutePaths: true })).toMatchObject({ ok: false, rule: ".." });
    expect(preflight(`sh -c 'scripts/a.sh /etc/x'`, { absolutePaths: false })).toMatchObject({ ok: false, rule: "absolute path" });
    expect(preflight(`python3 scripts/x.py --msg "cd .. is fine"`, { absolutePaths: true })).toEqual({ ok: true });
    expect(preflight(`sh -c 'scripts/a.sh --mode cdn'`, { absolutePaths: true })).toEqual({ ok: true });
  });
});
