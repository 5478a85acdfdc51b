// A cancel that arrives while the child is being spawned (after runInGroup's check of the signal,
// before its listener is armed: on Node the spawn waits for the `spawn` event) ends the run at
// once as `cancelled` and kills the group; before the fix it waited for the whole deadline and
// ended as a timeout. Real processes on the bun and node spawners; the spawn is the real one, the
// cancel is delivered from inside it.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../../src/hooks/handlers/runner.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import { ProcessGroups } from "../../src/runtime/process-groups.ts";
import { CappedSink, runInGroup } from "../../src/runtime/run-group.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import { killGroup, waitGroupGone } from "../support/procs.ts";

/** The real runtime, whose spawn aborts `controller` once the child exists, before returning it. */
function cancellingDuringSpawn(runtime: Runtime, controller: AbortController): Runtime {
  return {
    ...runtime,
    async spawn(request) {
      const spawned = await runtime.spawn(request);
      controller.abort();
      return spawned;
    },
  };
}

const DEADLINE_MS = 20_000;

for (const name of ["bun", "node"] as const) {
  describe(`${name} spawner: a cancel during the spawn`, () => {
    test("runInGroup stops as cancelled and kills the group", async () => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-cancel-")));
      const controller = new AbortController();
      const runtime = cancellingDuringSpawn(createRuntime(name), controller);
      const result = await runInGroup(runtime, {
        argv: ["/bin/sh", "-c", "sleep 300 & sleep 300"],
        cwd: root,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdin: null,
        timeoutMs: DEADLINE_MS,
        stdout: new CappedSink(1024, "fail"),
        stderr: new CappedSink(1024, "fail"),
        signal: controller.signal,
        groups: new ProcessGroups(),
      });
      try {
        expect(result.stop).toBe("cancelled");
        expect(result.code).toBe("cancelled");
        expect(result.pid).not.toBeNull();
        expect(await waitGroupGone(result.pid ?? 0)).toEqual([]);
      } finally {
        if (result.pid) killGroup(result.pid);
      }
    }, 60_000);

    test("a hook run says cancelled, not timed out; without a cancel the same hook runs to its end", async () => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-cancel-")));
      const request = {
        argv: ["/bin/sh", "-c", "cat >/dev/null; echo done"],
        cwd: root,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdin: new TextEncoder().encode("{}\n"),
        timeoutMs: DEADLINE_MS,
        stdoutCapBytes: 1024,
        stderrCapBytes: 1024,
        overflow: "fail" as const,
        shellForm: true,
        groups: new ProcessGroups(),
      };
      const controller = new AbortController();
      const hanging = { ...request, argv: ["/bin/sh", "-c", "sleep 300"], signal: controller.signal };
      const cancelled = await runProcess(cancellingDuringSpawn(createRuntime(name), controller), hanging);
      try {
        expect(cancelled.kind).toBe("timeout");
        expect(cancelled.detail).toBe("cancelled");
        expect(await waitGroupGone(cancelled.pid ?? 0)).toEqual([]);
      } finally {
        if (cancelled.pid) killGroup(cancelled.pid);
      }
      const ok = await runProcess(createRuntime(name), { ...request, signal: new AbortController().signal });
      expect(ok.kind).toBe("ok");
      expect(new TextDecoder().decode(ok.stdout)).toBe("done\n");
    }, 60_000);
  });
}
