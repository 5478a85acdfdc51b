// (one process wrapper): hooks and `bash` tool calls both run through `runInGroup`, and
// every live group of either is in the one `liveGroups` registry, so `killAll` (SIGTERM/SIGHUP,
// first Ctrl-C) and `killNow` (a second Ctrl-C) reach bash tool groups too (D15, RUN-26).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitForText } from "../support/procs.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import { liveGroups, ProcessGroups } from "../../src/runtime/process-groups.ts";
import { CappedSink, runInGroup } from "../../src/runtime/run-group.ts";
import { bashTool } from "../../src/tools/bash.ts";
import { runProcess } from "../../src/hooks/handlers/runner.ts";
import { killGroup, liveGroupPids, waitGroupGone } from "../support/procs.ts";
import { makeContext } from "../tools/helpers.ts";

const runtime = createRuntime();

async function waitForPid(path: string): Promise<number> {
  return Number(await waitForText(path));
}

function workDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "agent-groups-")));
}

describe("one registry for hook and bash groups", () => {
  test("RUN-26 a running bash tool call is in liveGroups; killAll cancels it and leaves no process of its group", async () => {
    const root = workDir();
    const pidFile = join(root, "pid");
    const pending = bashTool.execute({ command: `echo $$ > ${pidFile}; sleep 300 & sleep 300` }, makeContext(root));
    const pgid = await waitForPid(pidFile);
    try {
      expect(liveGroups.pids()).toContain(pgid);
      await liveGroups.killAll("terminated");
      const result = await pending;
      expect(result.success).toBe(false);
      expect(result.content).toContain("[command cancelled]");
      expect(await waitGroupGone(pgid)).toEqual([]);
      expect(liveGroups.pids()).not.toContain(pgid);
    } finally {
      killGroup(pgid);
    }
  });

  test("RUN-26 killNow SIGKILLs a bash group and a hook group at once, even ones that ignore SIGTERM", async () => {
    const root = workDir();
    const bashPid = join(root, "bash-pid");
    const hookPid = join(root, "hook-pid");
    const bash = bashTool.execute({ command: `trap '' TERM; echo $$ > ${bashPid}; sleep 300` }, makeContext(root));
    const hook = runProcess(runtime, {
      argv: ["/bin/sh", "-c", `trap '' TERM; echo $$ > ${hookPid}; sleep 300`],
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: new Uint8Array(0),
      timeoutMs: 600_000,
      stdoutCapBytes: 1024,
      stderrCapBytes: 1024,
      overflow: "fail",
      shellForm: true,
    });
    const pgids = [await waitForPid(bashPid), await waitForPid(hookPid)];
    try {
      for (const pgid of pgids) expect(liveGroups.pids()).toContain(pgid);
      liveGroups.killNow();
      for (const pgid of pgids) expect(await waitGroupGone(pgid)).toEqual([]);
      const [b, h] = await Promise.all([bash, hook]);
      expect(b.metadata).toMatchObject({ signal: "SIGKILL" });
      expect(h.kind).toBe("ok");
      expect(h.exit?.signal).toBe("SIGKILL");
    } finally {
      for (const pgid of pgids) killGroup(pgid);
    }
  });

  test("runInGroup: a sink that refuses a chunk stops the run as output-limit and names the stream", async () => {
    const root = workDir();
    const out = new CappedSink(10, "fail");
    const result = await runInGroup(runtime, {
      argv: ["/bin/sh", "-c", "head -c 100000 /dev/zero; sleep 300"],
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: null,
      timeoutMs: 600_000,
      stdout: out,
      stderr: new CappedSink(10, "fail"),
    });
    expect(result.stop).toBe("output-limit");
    expect(result.overflow).toBe("stdout");
    expect(out.bytes().byteLength).toBe(10);
    if (result.pid !== null) expect(await waitGroupGone(result.pid)).toEqual([]);
  });

  test("RUN-26 runInGroup: after an in-time exit the group's leftovers stay tracked through the kill grace; killAll SIGKILLs them at once", async () => {
    const root = workDir();
    const pidFile = join(root, "leftover-pid");
    const groups = new ProcessGroups();
    // The direct child exits in time; its background child ignores TERM and holds none of the pipes.
    const result = await runInGroup(runtime, {
      // It exits once the background child ignores TERM (the signal file), so the SIGTERM cannot race the trap.
      argv: [
        "/bin/sh",
        "-c",
        `/bin/sh -c 'trap "" TERM; echo $$ > ${pidFile}.tmp; mv ${pidFile}.tmp ${pidFile}; exec sleep 300' </dev/null >/dev/null 2>&1 & while [ ! -s ${pidFile} ]; do sleep 0.01; done; exit 0`,
      ],
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: null,
      timeoutMs: 600_000,
      stdout: new CappedSink(1024, "fail"),
      stderr: new CappedSink(1024, "fail"),
      // Far beyond any wait below: only killAll can end the leftovers in time.
      killGraceMs: 600_000,
      groups,
    });
    const pgid = result.pid ?? -1;
    try {
      expect(result.stop).toBe("exit");
      const leftover = await waitForPid(pidFile);
      expect(liveGroupPids(pgid)).toContain(leftover);
      expect(groups.pids()).toEqual([pgid]);
      await groups.killAll("terminated");
      expect(await waitGroupGone(pgid)).toEqual([]);
      expect(groups.size).toBe(0);
    } finally {
      killGroup(pgid);
    }
  });
});
