/**
 * Ctrl-C in the interactive session (tmux, the real binary, real hook scripts): a cancel ends a
 * hook at once whatever it is doing, including waiting for the session's login-environment
 * capture (a slow profile), and a tool call the Ctrl-C cancelled fires no post hooks (D29), while
 * the calls of the next turn get theirs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { isAlive, killGroup, waitForFile, waitForText } from "../support/procs.ts";
import { PROMPT, withPane } from "./tmux.ts";

const SCRIPT = ["--script", "script.json", "--permission-mode", "bypass"];

function userSettings(w: World, hooks: Record<string, unknown>): void {
  w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks }));
}

function lines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
    : [];
}

describe("Ctrl-C and hooks in the terminal", () => {
  test("Ctrl-C while a list hook waits for a slow login profile cancels the turn before the profile ends", async () => {
    const w = makeWorld();
    const ran = join(w.root, "ran");
    const ranNext = join(w.root, "ran-next");
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: `touch '${ran}'` } }] },
      { tool_calls: [{ name: "bash", arguments: { command: `touch '${ranNext}'` } }] },
      { text: "still here" },
    ]);
    const capturePid = join(w.root, "capture-pid");
    const once = join(w.root, "profile-slept");
    // Only the first capture is slow: it records its pid and sleeps far past any wait here.
    w.file(
      join(w.home, ".bash_profile"),
      `case "$BASH_EXECUTION_STRING" in *agent-login-env*) [ -e '${once}' ] || { : > '${once}'; echo $$ > '${capturePid}'; sleep 300; };; esac\n`,
    );
    userSettings(w, { enabled: true, show_in_tui: true, before_tool: [{ label: "audit", command: "cat >/dev/null" }] });
    let pid = 0;
    try {
      await withPane(w, SCRIPT, {}, async (pane) => {
        await pane.waitFor(PROMPT);
        pane.keys("go", "Enter");
        pid = Number(await waitForText(capturePid));
        pane.keys("C-c");
        const screen = await pane.waitFor("agent: turn cancelled");
        // The capture (30 s deadline, a 300 s sleep) is still running: the hook did not wait for it.
        expect(isAlive(pid)).toBe(true);
        expect(screen).toContain("hook before_tool · audit · bash · cancelled");
        expect(screen).not.toContain("timeout");
        expect(screen).not.toContain("failed");
        expect(existsSync(ran)).toBe(false);
        // The legitimate use: once the slow profile is gone, the next turn's hook and call run.
        killGroup(pid);
        await pane.waitFor(PROMPT);
        pane.keys("again", "Enter");
        const next = await pane.waitFor("still here");
        expect(next).toContain("hook before_tool · audit · bash · success");
        expect(existsSync(ranNext)).toBe(true);
        pane.keys("C-d");
        expect(await pane.exited()).toBe(0);
      });
    } finally {
      if (pid) killGroup(pid);
    }
  }, 120_000);

  test("D29 Ctrl-C during a bash call: no post hook fires for it; the next turn's call gets its post hooks", async () => {
    const w = makeWorld();
    const started = join(w.root, "bash-started");
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: `touch '${started}'; sleep 30` } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "echo second" } }] },
      { text: "still here" },
    ]);
    const afterLog = join(w.root, "after.log");
    const postLog = join(w.root, "post.log");
    w.file("after.sh", `#!/bin/sh\ncat >/dev/null\necho after >> '${afterLog}'\n`, { executable: true });
    userSettings(w, {
      enabled: true,
      show_in_tui: true,
      after_tool: [{ label: "log", command: join(w.project, "after.sh") }],
      lifecycle: {
        post_tool_use: [{ hooks: [{ command: `cat >/dev/null; echo post >> '${postLog}'` }] }],
        post_tool_use_failure: [{ hooks: [{ command: `cat >/dev/null; echo failure >> '${postLog}'` }] }],
      },
    });
    await withPane(w, SCRIPT, {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      await waitForFile(started);
      pane.keys("C-c");
      const screen = await pane.waitFor("agent: turn cancelled");
      expect(screen).not.toContain("after_tool");
      expect(screen).not.toContain("failed");
      await pane.waitFor(PROMPT);
      expect(lines(afterLog)).toEqual([]);
      expect(lines(postLog)).toEqual([]);
      pane.keys("again", "Enter");
      const next = await pane.waitFor("still here");
      expect(next).toContain("hook after_tool · log · bash · success");
      expect(lines(afterLog)).toEqual(["after"]);
      expect(lines(postLog)).toEqual(["post"]);
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
  }, 120_000);
});
