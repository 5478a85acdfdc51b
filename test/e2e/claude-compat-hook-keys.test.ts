// Claude Code's command-hook keys in `.agent/settings.json`, run by
// `agent run --provider script` with real hook scripts (LIFE-06, LIFE-45, LIFE-72, D15, D23).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, type World } from "../support/cli.ts";
import { RUN, bashTurns, delivered, hookRuns, lines, sessionRecords } from "./helpers.ts";

setDefaultTimeout(60_000);

function settings(w: World, lifecycle: Record<string, unknown>): void {
  w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle } }));
}

describe("Claude Code hook keys end to end", () => {
  test("LIFE-45 timeout is seconds: a hook sleeping past timeout 1 is killed, fails open, and the tool runs", () => {
    const w = makeWorld();
    settings(w, { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sleep 30", timeout: 1 }] }] });
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo ran"]) }));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("timed out after 1s");
    const records = sessionRecords(w);
    expect(hookRuns(records).map((h) => [h.status, h.category])).toEqual([["failed", "timeout"]]);
    expect(delivered(records)[0]).toContain("ran");
  });

  test("D15 async: the turn never waits for it and its deny is ignored; it sees a file the next tool call makes", () => {
    const w = makeWorld();
    const go = join(w.root, "go");
    const marker = join(w.root, "marker");
    // Waits for a file that only the second bash call creates: had the turn waited for this hook,
    // the second call could never happen and the hook would die at its timeout without a marker.
    w.file(
      "slow.sh",
      `#!/bin/sh\ncat >/dev/null\nwhile [ ! -e '${go}' ]; do sleep 0.05; done\necho saw-go > '${marker}'\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"async says no"}}'\n`,
      { executable: true },
    );
    settings(w, {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/slow.sh", async: true, once: true, timeout: 20 }] }],
    });
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo first"], [`touch '${go}'; echo second`]) }));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    const results = delivered(records);
    expect(results[0]).toContain("first");
    expect(results[0]).not.toContain("async says no");
    expect(results[1]).toContain("second");
    expect(readFileSync(marker, "utf8").trim()).toBe("saw-go");
    expect(hookRuns(records).map((h) => h.status)).toEqual(["success"]);
  });

  test("once: a hook runs for the first matching event of the session only", () => {
    const w = makeWorld();
    const log = join(w.root, "once.log");
    w.file("note.sh", `#!/bin/sh\njq -r '.tool_input.command' >> '${log}'\n`, { executable: true });
    settings(w, {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/note.sh", once: true }] }],
      PostToolUse: [{ hooks: [{ type: "command", command: `echo post >> '${log}'` }] }],
    });
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo 1"], ["echo 2"], ["echo 3"]) }));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(lines(log)).toEqual(["echo 1", "post", "post", "post"]);
  });

  test("statusMessage is shown while the hook runs and in hooks list", () => {
    const w = makeWorld();
    settings(w, { PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null", statusMessage: "Checking the output" }] }] });
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo hi"]) }));
    const r = runCli(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--trust", "go"]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain("Checking the output");
    const list = runCli(w, ["hooks", "list", "--json"]);
    const parsed: unknown = JSON.parse(list.stdout);
    expect(parsed).toMatchObject({ hooks: [{ event: "post_tool", status_message: "Checking the output", once: false, async: false }] });
    expect(runCli(w, ["hooks", "list"]).stdout).toContain("statusMessage: Checking the output");
  });

  test("LIFE-72 an unknown key names the closest key in hooks validate, and the command still runs", () => {
    const w = makeWorld();
    const log = join(w.root, "ran.log");
    settings(w, { PostToolUse: [{ hooks: [{ type: "command", command: `cat > '${log}'`, timout: 5 }] }] });
    const validate = runCli(w, ["hooks", "validate"]);
    // A warning: a Claude Code file with a key we do not know still validates.
    expect(validate.code).toBe(0);
    expect(validate.stdout + validate.stderr).toContain("hooks.lifecycle.PostToolUse[0].hooks[0].timout: unknown key (did you mean timeout?");
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo hi"]) }));
    expect(runCli(w, RUN.concat(["go"])).code).toBe(0);
    expect(existsSync(log)).toBe(true);
  });
});
