/**
 * D15 / DESIGN "1,000 tool calls × 10 hooks … flat memory": dispatching an event must leave no abort
 * listener behind on the engine's signal once its hooks ended, sync or async. Measured by counting
 * live listeners on an injected AbortSignal (adds minus removes), never by time.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { makeWorld } from "../support/cli.ts";
import { loadConfig } from "../../src/config/load.ts";
import { createHookEngine } from "../../src/hooks/engine.ts";
import { dispatchEvent, settleAsyncHooks } from "../../src/hooks/dispatch.ts";
import { STANDALONE_ENVELOPE_CONTEXT } from "../../src/hooks/event-fields.ts";
import { hookDir, runtimeFor } from "./harness.ts";

setDefaultTimeout(60_000);

/** A real AbortSignal whose add/removeEventListener also keep a count of live "abort" listeners. */
function countedSignal(): { signal: AbortSignal; live: () => number } {
  const signal = new AbortController().signal;
  const listeners = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<AbortSignal["addEventListener"]>) => {
    if (args[0] === "abort") listeners.add(args[1]);
    add(...args);
  };
  signal.removeEventListener = (...args: Parameters<AbortSignal["removeEventListener"]>) => {
    if (args[0] === "abort") listeners.delete(args[1]);
    remove(...args);
  };
  return { signal, live: () => listeners.size };
}

describe("dispatch abort listeners", () => {
  test("D15 RUN-25 N post_tool dispatches with an async and a sync hook dir leave no listener on the engine signal", async () => {
    const world = makeWorld();
    hookDir(world, "user", "later", { event: "post_tool", async: true }, "cat >/dev/null; exit 0");
    hookDir(world, "user", "now", { event: "post_tool" }, "cat >/dev/null; exit 0");
    const runtime = runtimeFor(world);
    const loaded = loadConfig(runtime, { cwd: world.project });
    expect(loaded.hooks.map((spec) => spec.label).sort()).toEqual(["later", "now"]);
    const engine = createHookEngine(runtime, { hooks: loaded.hooks, readonlyMode: false, quietSuccessOutput: false, sinks: {} });
    const counted = countedSignal();
    const ctx = { ...engine.context, signal: counted.signal };
    const calls = 12;
    const asyncRows = [];
    for (let index = 0; index < calls; index += 1) {
      const outcome = await dispatchEvent(ctx, {
        event: "post_tool",
        strippedEnvValues: engine.strippedValues,
        sessionId: "sess-listeners",
        transcriptPath: null,
        cwd: world.project,
        projectDir: loaded.projectRoot,
        permissionMode: "bypass",
        tool: { name: "bash", callId: `call_${index}`, input: { command: "true" } },
        result: { success: true, content: "", metadata: {} },
        fields: {},
        context: STANDALONE_ENVELOPE_CONTEXT,
      });
      expect(outcome.rows.map((row) => [row.label, row.status])).toEqual([["now", "success"]]);
      asyncRows.push(outcome.asyncRows);
    }
    // Every async hook ends on its own (no grace kill needed); then nothing may still listen.
    await settleAsyncHooks(ctx, 30_000);
    const rows = (await Promise.all(asyncRows)).flat();
    expect(rows.map((row) => [row.label, row.status])).toEqual(Array.from({ length: calls }, () => ["later", "success"]));
    expect(ctx.asyncRuns.size).toBe(0);
    expect(counted.live()).toBe(0);
  });
});
