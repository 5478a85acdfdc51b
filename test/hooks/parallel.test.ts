/**
 * Concurrent claude-dialect lifecycle batches (D13, MERGE-36) through real sleeping scripts: they
 * run together, and their replies merge in declared order whatever the finish order.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld } from "../support/cli.ts";
import { fire, hookDir, script, toml } from "./harness.ts";
import { claude } from "./dispatch-helpers.ts";

setDefaultTimeout(60_000);

const BASH = { tool: "bash" as const, input: { command: "ls" } };

/** One TOML `hooks = [...]` entry running `command` (TOML-quoted). */
const entry = (command: string): string => `{ command = ${JSON.stringify(command)} }`;

describe("claude-dialect lifecycle commands of one event run concurrently (MERGE-36)", () => {
  test("MERGE-36 ten commands that each wait for all ten markers all succeed", async () => {
    const world = makeWorld();
    const marks = Array.from({ length: 10 }, (_, i) => `'${world.root}/m${i}'`).join(" ");
    const waitAll = (i: number): string =>
      `cat > /dev/null; touch '${world.root}/m${i}'; n=0; for m in ${marks}; do while [ ! -e "$m" ]; do n=$((n+1)); [ $n -gt 200 ] && exit 1; sleep 0.05; done; done`;
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [${Array.from({ length: 10 }, (_, i) => entry(waitAll(i))).join(", ")}]`);
    const fired = await fire(world, "pre_tool", BASH);
    expect(fired.outcome.rows.map((row) => row.status)).toEqual(Array(10).fill("success"));
    expect(fired.outcome.decision).toBe("allow");
  });

  test("MERGE-36 updatedInput and context merge in declared order, not finish order", async () => {
    const world = makeWorld();
    const first = claude({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo A" }, additionalContext: "1" } });
    const second = claude({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "echo B" }, additionalContext: "2" } });
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [${entry(`sleep 0.3; ${first}`)}, ${entry(second)}]`);
    const fired = await fire(world, "pre_tool", BASH);
    expect(fired.outcome.state.toolInput).toEqual({ command: "echo B" });
    expect(fired.outcome.state.contexts).toEqual(["1", "2"]);

    // The slow one last in declared order: its input wins although it finishes last too.
    const swapped = makeWorld();
    toml(swapped, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [${entry(second)}, ${entry(`sleep 0.3; ${first}`)}]`);
    const again = await fire(swapped, "pre_tool", BASH);
    expect(again.outcome.state.toolInput).toEqual({ command: "echo A" });
    expect(again.outcome.state.contexts).toEqual(["2", "1"]);
  });

  test("MERGE-36 the first deny in declared order wins, even when a later one finishes first", async () => {
    const world = makeWorld();
    const deny = (reason: string): string => claude({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: reason } });
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [${entry(`sleep 0.3; ${deny("slow")}`)}, ${entry(deny("fast"))}]`);
    const fired = await fire(world, "pre_tool", BASH);
    expect([fired.outcome.decision, fired.outcome.reason]).toEqual(["deny", "slow"]);
    expect(fired.outcome.rows.map((row) => row.status)).toEqual(["success", "success"]);
  });

  test("MERGE-36 a hook dir's modify still chains: every command of the batch sees it", async () => {
    const world = makeWorld();
    hookDir(world, "user", "rewrite", { event: "pre_tool" }, `echo '{"action":"modify","input":{"command":"echo dir"}}'`);
    const saver = script(world, "scripts/save.sh", `sleep "$2"; cat > '${world.root}/'"$1".json`);
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [${entry(`'${saver}' a 0.2`)}, ${entry(`'${saver}' b 0`)}]`);
    const fired = await fire(world, "pre_tool", BASH);
    expect(fired.outcome.state.toolInput).toEqual({ command: "echo dir" });
    for (const name of ["a", "b"]) expect(JSON.parse(readFileSync(join(world.root, `${name}.json`), "utf8")).tool_input).toEqual({ command: "echo dir" });
  });
});
