// (found by the red-team pass): after ONE SIGTERM a hanging session_end hook used to
// hold `agent run` for its whole timeout (600 s here). session_end still runs after a stop signal
// (LOOP-36), but only within the exit grace; then its group is killed and the agent exits 143 with
// the session marked. The test waits on the hook's pid file, never on a duration.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO, makeWorld, writeScript } from "../support/cli.ts";
import { killGroup, waitForText, waitGroupGone } from "../support/procs.ts";
import { lastJson, ofType, recordsOf } from "../agent/support.ts";

setDefaultTimeout(60_000);

describe("session_end after a stop signal", () => {
  test("LOOP-36 one SIGTERM: a session_end hook that ignores TERM and would run 600 s is killed within the exit grace; exit 143, session marked", async () => {
    const w = makeWorld();
    const bashPid = join(w.root, "bash-pid");
    const endPid = join(w.root, "end-pid");
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `echo $$ > '${bashPid}'; sleep 300` } }] }, { text: "never" }]);
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          lifecycle: { session_end: [{ hooks: [{ command: `cat >/dev/null; echo $$ > '${endPid}'; trap '' TERM; sleep 600`, timeout_seconds: 600 }] }] },
        },
      }),
    );
    const child = spawn(
      process.execPath,
      [
        join(REPO, "src", "main.ts"),
        "run",
        "--provider",
        "script",
        "--script",
        "script.json",
        "--permission-mode",
        "bypass",
        "--trust",
        "--output-format",
        "json",
        "go",
      ],
      {
        cwd: w.project,
        env: w.env(),
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
    child.stderr.on("data", () => undefined);
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    child.stdin.end("");
    const bashGroup = Number(await waitForText(bashPid));
    let endGroup = 0;
    try {
      child.kill("SIGTERM");
      endGroup = Number(await waitForText(endPid));
      // Only one signal: the agent must end on its own.
      expect(await done).toBe(143);
      expect(await waitGroupGone(endGroup)).toEqual([]);
      expect(await waitGroupGone(bashGroup)).toEqual([]);
      expect(lastJson(stdout)).toMatchObject({ stop_reason: "interrupted" });
      expect(ofType(recordsOf(w, { code: 143, stdout, stderr: "" }), "session_end")).toHaveLength(1);
    } finally {
      killGroup(bashGroup);
      if (endGroup) killGroup(endGroup);
    }
  });
});
