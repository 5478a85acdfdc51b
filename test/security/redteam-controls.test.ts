// Red team, item 2: config text is escaped in the review (boundary-escape.test.ts), but a
// trusted hook's label reached the terminal raw at run time: a hook directory named
// `ev<ESC>[2Kil<U+009B>` printed its ESC sequence in the D21 failure line (SEC-20), in the refusal
// of the call it blocked, and C1 characters raw in `--output-format stream-json`. A label that can
// erase a line can hide the failure line it sits in. Reproduced before the fix.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeWorld, runCli, writeScript } from "../support/cli.ts";

setDefaultTimeout(60_000);

/** Anything a terminal would act on: C0 except LF, DEL, C1. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const NAME = "ev\u001b[2Kil\u009b";

function world() {
  const w = makeWorld();
  w.file(`.agent/hooks/${NAME}/hook.json`, JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh", fail_closed: true }));
  w.file(`.agent/hooks/${NAME}/run.sh`, '#!/bin/sh\ncat >/dev/null\nprintf "bad\\033[2J\\302\\233thing\\n" >&2\nexit 1\n', { executable: true });
  writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }], "s.json");
  return w;
}

describe("a trusted hook's label is escaped at run time too (SEC-20)", () => {
  test("the failure line and the refusal show the label escaped, never raw", () => {
    const w = world();
    expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
    const r = runCli(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "hi"]);
    expect(r.stderr).toContain("agent: hook ev\\x1b[2Kil\\x9b (pre_tool) failed: exit: exited 1");
    expect(r.stderr).toContain("rejected: hook ev\\x1b[2Kil\\x9b failed (fail_closed)");
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
  });

  test("stream-json lines carry no raw C1 character and still parse to the same label", () => {
    const w = world();
    expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
    const r = runCli(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "--output-format", "stream-json", "hi"]);
    expect(r.stdout).not.toMatch(RAW_CONTROL);
    const labels = r.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { type: string; label?: string })
      .filter((record) => record.type === "hook_lifecycle")
      .map((record) => record.label);
    expect(labels).toContain(NAME);
  });
});
