// End to end: session ids are v4 UUIDs (hooks key files on `session_id[0:8]`, as
// scripts written for Claude Code do), session files are named `<UTC start>-<uuid>.jsonl` so the
// directory sorts by time, `sessions list` stays newest first, and `--resume` / `sessions show`
// take the uuid or a unique prefix (CLI-28, D25, LIFE-22).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli } from "../support/cli.ts";
import { RUN, lastJson } from "./helpers.ts";

setDefaultTimeout(60_000);

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("session ids", () => {
  test("D25 LIFE-22 CLI-28 uuid ids, time-stamped file names, newest first, resume and show by prefix", () => {
    const w = makeWorld();
    const keyed = join(w.root, "keyed");
    // Claude Code style: a per-session state file keyed on the first 8 characters of the id.
    w.file("key.sh", `#!/bin/sh\nid=$(jq -r '.session_id[0:8]')\nmkdir -p '${keyed}'\ntouch "${keyed}/$id"\n`, { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.SessionStart]]\nhooks = [{ command = "$CLAUDE_PROJECT_DIR/key.sh" }]\n`);
    w.file("script.json", JSON.stringify({ turns: [{ text: "done" }] }));

    const first = runCli(w, RUN.concat(["first prompt"]));
    const second = runCli(w, RUN.concat(["second prompt"]));
    expect([first.code, second.code]).toEqual([0, 0]);
    const firstId = String(lastJson(first.stdout).session_id);
    const secondId = String(lastJson(second.stdout).session_id);
    expect(firstId).toMatch(UUID_V4);
    expect(secondId).toMatch(UUID_V4);
    expect(existsSync(join(keyed, firstId.slice(0, 8)))).toBe(true);
    expect(existsSync(join(keyed, secondId.slice(0, 8)))).toBe(true);

    const names = readdirSync(join(w.agentHome, "sessions")).filter((name) => name.endsWith(".jsonl"));
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^\d{8}T\d{6}\.\d{3}Z-[0-9a-f-]{36}\.jsonl$/);
    // Sorting the names sorts the sessions by start time.
    expect([...names].sort().map((name) => name.slice(-42, -6))).toEqual([firstId, secondId]);

    const list = runCli(w, ["sessions", "list"]);
    expect(list.code).toBe(0);
    expect(
      list.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.split("  ")[0]),
    ).toEqual([secondId, firstId]);

    const shown = runCli(w, ["sessions", "show", firstId.slice(0, 8)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`session ${firstId}`);
    expect(shown.stdout).toContain("first prompt");

    const resumed = runCli(w, RUN.concat(["--resume", firstId.slice(0, 13), "again"]));
    expect(resumed.code).toBe(0);
    expect(lastJson(resumed.stdout).session_id).toBe(firstId);
    expect(readdirSync(join(w.agentHome, "sessions")).filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);

    const missing = runCli(w, RUN.concat(["--resume", "ffffffff-0000", "x"]));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no session "ffffffff-0000"');
  });
});
