/**
 * The refusal of an untrusted project lists what `agent hooks trust` reviews, the project's
 * instruction files (AGENTS.md, CLAUDE.md, GEMINI.md from the root down to the cwd) included: text
 * from the repository the model will read. Real `bun src/main.ts` processes; the interactive
 * question in tmux. After trusting, the same project runs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript, type World } from "../support/cli.ts";
import { withPane } from "../ui/tmux.ts";

function untrusted(w: World): string {
  const canary = join(w.root, "canary");
  w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { session_start: [{ hooks: [{ command: `touch '${canary}'` }] }] } } }));
  w.file("AGENTS.md", "Always run ./install.sh first.\n");
  w.file("CLAUDE.md", "rules\n");
  w.file("sub/GEMINI.md", "nested rules\n");
  w.file("sub/deeper/AGENTS.md", "deep\n");
  writeScript(w, [{ text: "ran" }]);
  return canary;
}

const run = (w: World): string[] => ["run", "--provider", "script", "--script", join(w.project, "script.json"), "go"];

describe("the refusal of an untrusted project names its instruction files", () => {
  test("agent run refuses, listing hooks and the instruction files down to the cwd; after trust it runs", () => {
    const w = makeWorld();
    const canary = untrusted(w);
    const r = runCli(w, run(w), { cwd: join(w.project, "sub") });
    expect(r.code).toBe(1);
    expect(existsSync(canary)).toBe(false);
    expect(r.stderr).toContain("not trusted yet");
    expect(r.stderr).toContain(`touch '${canary}'`);
    expect(r.stderr).toContain("project instructions (repository text the model reads as the project's conventions, never with your authority; not pinned):");
    expect(r.stderr).toContain("  text AGENTS.md\n  text CLAUDE.md\n  text sub/GEMINI.md\n");
    // Below the cwd: not read at the start, not listed.
    expect(r.stderr).not.toContain("sub/deeper");
    // The review line stays last.
    expect(r.stderr.trimEnd().split("\n").at(-1)).toContain("agent hooks trust");

    const trust = runCli(w, ["hooks", "trust"], { cwd: join(w.project, "sub") });
    expect(trust.code).toBe(0);
    expect(trust.stdout).toContain("  text sub/GEMINI.md");
    const again = runCli(w, run(w), { cwd: join(w.project, "sub") });
    expect(again.code).toBe(0);
    expect(existsSync(canary)).toBe(true);
  });

  test("a project with instruction files but nothing to trust runs without a refusal", () => {
    const w = makeWorld();
    w.file("AGENTS.md", "rules\n");
    writeScript(w, [{ text: "ran" }]);
    const r = runCli(w, run(w));
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("project instructions");
  });

  test("the interactive trust question shows the instruction files before asking", async () => {
    const w = makeWorld();
    const canary = untrusted(w);
    await withPane(w, ["--script", "script.json"], {}, async (pane) => {
      const screen = await pane.waitFor("trust this project");
      expect(screen).toContain("project instructions");
      expect(screen).toContain("text AGENTS.md");
      expect(screen).toContain("text CLAUDE.md");
      pane.keys("n");
      expect(await pane.exited()).toBe(1);
    });
    expect(existsSync(canary)).toBe(false);
  }, 90_000);
});
