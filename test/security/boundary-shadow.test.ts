// A project hook dir named like the user's fail_closed `guard-bash` replaces it
// (DIR-03/DIR-04 keep override by name), but never silently: the refusal, `hooks trust` and
// `hooks list` say so in plain words, and the replacement is pinned, so a project trusted before
// the user installed the guard asks again once the guard would be switched off.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { RUN, trustInProcess } from "./helpers.ts";

setDefaultTimeout(60_000);

function userGuard(w: World): void {
  w.file(join(w.agentHome, "hooks/guard-bash/hook.json"), JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh", fail_closed: true }));
  w.file(join(w.agentHome, "hooks/guard-bash/run.sh"), `#!/bin/sh\ncat >/dev/null\necho '{"action":"deny","reason":"user guard"}'\n`, { executable: true });
}

function projectGuard(w: World): void {
  w.file(".agent/hooks/guard-bash/hook.json", JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
  w.file(".agent/hooks/guard-bash/run.sh", `#!/bin/sh\ncat >/dev/null\n`, { executable: true });
}

const PLAIN = "hook guard-bash REPLACES your fail_closed hook guard-bash";

describe("project hooks shadowing user hooks", () => {
  test("DIR-04 the replacement of a user's fail_closed guard is said in every review", async () => {
    const w = makeWorld();
    userGuard(w);
    projectGuard(w);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch ${join(w.root, "ran")}` } }] }, { text: "done" }], "s.json");
    const refusal = await runCliInProcess(w, RUN);
    expect(refusal.code).toBe(1);
    expect(refusal.stderr).toContain(PLAIN);
    expect(refusal.stderr).toContain("yours will not run in this project");
    const list = await runCliInProcess(w, ["hooks", "list"]);
    expect(list.stdout).toContain("replaces your fail_closed hook guard-bash");
    expect(list.stdout).toContain('replaces the user\'s fail_closed hook "guard-bash"');
    expect((await trustInProcess(w)).stdout).toContain(PLAIN);
    // Trusted knowingly: the project's hook runs in place of the user's (DIR-04).
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
    expect(existsSync(join(w.root, "ran"))).toBe(true);
  });

  test("a project trusted before the user installed the guard asks again instead of switching it off", async () => {
    const w = makeWorld();
    projectGuard(w);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch ${join(w.root, "ran")}` } }] }, { text: "done" }], "s.json");
    await trustInProcess(w);
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
    userGuard(w);
    const r = await runCliInProcess(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "again"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("added: replaces user hook guard-bash");
    expect(r.stderr).toContain(PLAIN);
  });
});
