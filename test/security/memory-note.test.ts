/**
 * `agent hooks validate` says, as one note and never as an error, where the agent cannot make
 * itself undumpable (PR_SET_DUMPABLE needs Linux and Bun's FFI): there, secrets in its memory are
 * readable by other processes of the user. The real CLI under Deno (where it is impossible) and
 * under Bun on Linux (where it is not, and nothing is said).
 */
import { describe, expect, test } from "bun:test";
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { makeWorld, REPO, type World } from "../support/cli.ts";

const NOTE = "note: secrets in the agent's memory (provider keys, handed-over credentials) are readable by other processes of your user";

function validateUnderDeno(w: World): { code: number | null; out: string } {
  const deno = join(REPO, "node_modules", ".bin", "deno");
  const r = spawnSync(deno, ["run", "-A", join(REPO, "src", "main.ts"), "hooks", "validate"], {
    cwd: w.project,
    env: { ...w.env(), DENO_NO_UPDATE_CHECK: "1" },
    encoding: "utf8",
  });
  return { code: r.status, out: r.stdout };
}

describe("hooks validate and memory protection", () => {
  test("under Deno: one note naming the reason, and the config still validates ok", () => {
    const w = makeWorld();
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { session_start: [{ hooks: [{ command: "true" }] }] } } }));
    const r = validateUnderDeno(w);
    expect(r.code).toBe(0);
    const notes = r.out.split("\n").filter((line) => line.includes("undumpable"));
    expect(notes).toEqual([
      `${NOTE}, hooks and bash commands included: the agent cannot make itself undumpable here (needs Bun's FFI (running on Deno or Node); docs/security.md)`,
    ]);
    expect(r.out).toContain("ok: 1 hook in 1 file");
    expect(r.out).not.toContain("error:");
  }, 60_000);

  test("under Deno an invalid config still exits 1 for its own error, the note counted nowhere", () => {
    const w = makeWorld();
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { session_start: [{ hooks: [{ command: "" }] }] } } }));
    const r = validateUnderDeno(w);
    expect(r.code).toBe(1);
    expect(r.out).toContain(NOTE);
    expect(r.out).toMatch(/^1 error, /m);
  }, 60_000);

  test("under Bun on Linux nothing is said", () => {
    const w = makeWorld();
    const out = execFileSync(process.execPath, [join(REPO, "src", "main.ts"), "hooks", "validate"], { cwd: w.project, env: w.env(), encoding: "utf8" });
    expect(out).not.toContain("undumpable");
    expect(out).toContain("ok: ");
  });
});
