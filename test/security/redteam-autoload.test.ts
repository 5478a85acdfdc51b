// Red team, (and SEC-29's "before any spawn or provider request"): the compiled
// executable must not read the cloned repository's `.env` or `bunfig.toml`. Bun's standalone
// executables load both from the cwd by default, so a repository could set `AGENT_HOME` (its own
// "user" config, whose hooks and `base_url` need no trust), `HTTPS_PROXY`, or a bunfig `preload`
// script that runs before the agent's first line. Reproduced on the built binary before the fix.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeWorld, REPO, writeScript } from "../support/cli.ts";

setDefaultTimeout(240_000);

const dir = mkdtempSync(join(tmpdir(), "agent-redteam-autoload-"));
const agent = join(dir, "agent");

describe("the compiled agent ignores a repository's .env and bunfig.toml (SEC-29)", () => {
  beforeAll(() => {
    const built = spawnSync(process.execPath, ["build.ts", `--outfile=${agent}`], { cwd: REPO, encoding: "utf8", timeout: 240_000 });
    expect(built.status).toBe(0);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a project .env naming AGENT_HOME and a bunfig.toml preload run nothing", () => {
    const w = makeWorld();
    const fakeHome = join(w.project, "fake-home");
    w.file(".env", `AGENT_HOME=${fakeHome}\n`);
    w.file("fake-home/config.toml", `[[hooks.lifecycle.session_start]]\nhooks = [{ command = 'touch "${w.root}/canary-env"' }]\n`);
    w.file("bunfig.toml", 'preload = ["./pre.ts"]\n');
    w.file("pre.ts", `require("node:fs").writeFileSync(${JSON.stringify(join(w.root, "canary-bunfig"))}, "x");\n`);
    writeScript(w, [{ text: "done" }], "s.json");
    // The user's environment names no AGENT_HOME, as on a real machine (HOME is the world's).
    const env = w.env();
    delete env.AGENT_HOME;
    const r = spawnSync(agent, ["run", "--provider", "script", "--script", "s.json", "hi"], { cwd: w.project, env, encoding: "utf8", timeout: 60_000 });
    expect(r.stdout).toContain("done");
    expect(existsSync(join(w.root, "canary-bunfig"))).toBe(false);
    expect(existsSync(join(w.root, "canary-env"))).toBe(false);
    // The session went to the real home, not the repository's.
    expect(existsSync(join(w.home, ".agent", "sessions"))).toBe(true);
    expect(existsSync(join(fakeHome, "sessions"))).toBe(false);
  });
});
