/**
 * D13 order and merge through real hook processes: declared order across forms and scopes, the
 * pre-phase chain (first deny wins, modify chains), post-phase concurrency of hook dirs with
 * sequential lifecycle/list hooks, and merge in declared order whatever the finish order.
 */
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, type World } from "../support/cli.ts";
import { appendHookContext } from "../../src/hooks/merge/context.ts";
import { expectNoOverlap, fire, span, hookDir, hooksTestInProcess, intervals, listHooks, logLines, script, toml } from "./harness.ts";

// Real processes on 2 shared cores: generous per-test bounds (no timed assertions rely on them).
setDefaultTimeout(60_000);

/** A stamping script: logs `<token> start|end <ms>` around an optional sleep (seconds) and reads stdin. */
function stamper(world: World): { log: string; path: string } {
  const log = join(world.root, "stamps.log");
  const path = script(
    world,
    "scripts/stamp.sh",
    [
      "cat > /dev/null",
      `echo "$1 start $(date +%s%3N)" >> '${log}'`,
      `if [ -n "$2" ]; then sleep "$2"; fi`,
      `echo "$1 end $(date +%s%3N)" >> '${log}'`,
      `if [ -n "$3" ]; then printf '%s\\n' "$3"; fi`,
    ].join("\n"),
  );
  return { log, path };
}

const tokens = (log: string): string[] =>
  logLines(log)
    .filter((l) => l.includes(" start "))
    .map((l) => l.split(" ")[0] ?? "");

describe("D13 order across forms and scopes", () => {
  test("MERGE-01 user dir, lifecycle, list, then project the same; in order, never overlapping", async () => {
    const world = makeWorld();
    const { log, path } = stamper(world);
    hookDir(world, "user", "u-dir", { event: "pre_tool" }, `exec '${path}' u-dir 0.05`);
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "'${path}' u-lc0 0.05" }, { command = "'${path}' u-lc1 0.05" }]`);
    listHooks(world, "user", { before_tool: [{ label: "u-list", command: "./scripts/stamp.sh u-list 0.05" }] });
    hookDir(world, "project", "p-dir", { event: "pre_tool" }, `exec '${path}' p-dir 0.05`);
    toml(world, "project", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "'${path}' p-lc0 0.05" }]`);
    listHooks(world, "project", { before_tool: [{ label: "p-list", command: "./scripts/stamp.sh p-list 0.05" }] });
    const r = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect(r.code).toBe(0);
    expect(r.hooks.map((h) => `${h.scope}:${h.label}`)).toEqual([
      "user:u-dir",
      "user:pre_tool_use[0].hooks[0]",
      "user:pre_tool_use[0].hooks[1]",
      "user:u-list",
      "project:p-dir",
      "project:pre_tool_use[0].hooks[0]",
      "project:p-list",
    ]);
    const started = tokens(log);
    expect([...started.slice(0, 1), ...started.slice(1, 3).sort(), ...started.slice(3)]).toEqual([
      "u-dir",
      "u-lc0",
      "u-lc1",
      "u-list",
      "p-dir",
      "p-lc0",
      "p-list",
    ]);
    // The user's two lifecycle commands are one concurrent batch; batches never overlap each other.
    const spans = intervals(log);
    const lc0 = span(spans, "u-lc0");
    const lc1 = span(spans, "u-lc1");
    const batch: [number, number] = [Math.min(lc0[0], lc1[0]), Math.max(lc0[1], lc1[1])];
    expectNoOverlap([...[...spans.entries()].filter(([token]) => token !== "u-lc0" && token !== "u-lc1").map(([, s]) => s), batch]);
  });

  test("MERGE-02 MERGE-03 hook dirs run in code-point order; a project dir replaces the user dir of its name", async () => {
    const world = makeWorld();
    const log = join(world.root, "log");
    for (const name of ["b", "a", "Z"]) hookDir(world, "user", name, { event: "pre_tool" }, `echo ${name} >> '${log}'`);
    hookDir(world, "user", "guard", { event: "pre_tool", fail_closed: false }, `echo user-guard >> '${log}'`);
    hookDir(world, "project", "guard", { event: "pre_tool", fail_closed: true }, `echo project-guard >> '${log}'`);
    const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(logLines(log)).toEqual(["Z", "a", "b", "project-guard"]);
    expect(fired.outcome.rows.map((row) => `${row.scope}:${row.label}`)).toEqual(["user:Z", "user:a", "user:b", "project:guard"]);
  });

  test("MERGE-04 MERGE-05 lifecycle groups in order by matcher; list hooks carry their own file index", async () => {
    const world = makeWorld();
    const log = join(world.root, "log");
    toml(
      world,
      "user",
      [
        `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "echo c1 >> '${log}'" }, { command = "echo c2 >> '${log}'" }]`,
        `[[hooks.lifecycle.pre_tool_use]]\nmatcher = ".*"\nhooks = [{ command = "echo c3 >> '${log}'" }]`,
      ].join("\n"),
    );
    script(world, "scripts/index.sh", `cat > '${world.root}/'"$1".json`);
    listHooks(world, "user", {
      before_tool: [{ command: "./scripts/index.sh h0", include_tools: ["read"] }, { command: "./scripts/index.sh h1" }, { command: "./scripts/index.sh h2" }],
    });
    const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "ls" } });
    // The three commands run as one concurrent batch; rows and the merge keep the declared order.
    expect(logLines(log).sort()).toEqual(["c1", "c2", "c3"]);
    expect(fired.outcome.rows.slice(0, 3).map((row) => row.label)).toEqual([
      "pre_tool_use[0].hooks[0]",
      "pre_tool_use[0].hooks[1]",
      "pre_tool_use[1].hooks[0]",
    ]);
    expect(existsSync(join(world.root, "h0.json"))).toBe(false);
    const index = (name: string): unknown => JSON.parse(readFileSync(join(world.root, `${name}.json`), "utf8")).hook.index;
    expect([index("h1"), index("h2")]).toEqual([1, 2]);
    await fire(world, "pre_tool", { tool: "read", input: { file_path: "x" } });
    expect(logLines(log).slice(3)).toEqual(["c3"]);
  });
});

describe("pre phase: first deny wins, modify chains, decisions merge", () => {
  test("MERGE-06 a deny stops the chain across forms: later hooks skipped with category null, exit 2", async () => {
    const world = makeWorld();
    const canary = join(world.root, "canary");
    hookDir(world, "user", "a", { event: "pre_tool" }, `echo '{"action":"allow"}'`);
    hookDir(world, "user", "b", { event: "pre_tool" }, `echo '{"action":"deny","reason":"d1"}'`);
    toml(
      world,
      "user",
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "touch '${canary}'; echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"d2\\"}'" }]`,
    );
    script(world, "scripts/d.sh", `touch '${canary}'`);
    listHooks(world, "user", { before_tool: [{ label: "d", command: "./scripts/d.sh" }] });
    const r = await hooksTestInProcess(world, ["pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect([r.code, r.json.decision, r.json.reason]).toEqual([2, "deny", "d1"]);
    expect(r.hooks.map((h) => [h.label, h.status, h.category])).toEqual([
      ["a", "success", null],
      ["b", "success", null],
      ["pre_tool_use[0].hooks[0]", "skipped", null],
      ["d", "skipped", null],
    ]);
    expect(r.hooks.slice(2).map((h) => h.elapsed_ms)).toEqual([0, 0]);
    expect(existsSync(canary)).toBe(false);
  });

  test("MERGE-08 modify chains across forms: each later hook sees the previous input; the final input wins", async () => {
    const world = makeWorld();
    const seen = join(world.root, "list.json");
    hookDir(world, "user", "m1", { event: "pre_tool" }, `echo '{"action":"modify","input":{"command":"echo one"}}'`);
    script(
      world,
      "scripts/check.sh",
      [
        `if grep -q '"tool_input":{"command":"echo one"}'; then`,
        `  echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo two"}}}'`,
        'else echo \'{"decision":"block","reason":"wrong input"}\'; fi',
      ].join("\n"),
    );
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "'${world.project}/scripts/check.sh'" }]`);
    script(world, "scripts/save.sh", `cat > '${seen}'`);
    listHooks(world, "user", { before_tool: [{ command: "./scripts/save.sh", payload: "full" }] });
    const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "rm x" } });
    expect(fired.outcome.decision).toBe("allow");
    expect(fired.outcome.state.toolInput).toEqual({ command: "echo two" });
    expect(JSON.parse(readFileSync(seen, "utf8")).request.command).toBe("echo two");
  });

  test("MERGE-12 lifecycle decisions: deny beats ask beats allow; the batch runs whole", async () => {
    const sets: [string[], string, number][] = [
      [["ask", "allow"], "ask", 2],
      [["allow", "ask"], "ask", 2],
      [["ask", "deny"], "deny", 2],
      [["allow", "deny"], "deny", 2],
      [["allow"], "allow", 1],
      [[], "allow", 0],
    ];
    for (const [decisions, expected, ran] of sets) {
      const world = makeWorld();
      const log = join(world.root, "log");
      const hooks = [...decisions, "allow"].map(
        (d) => `{ command = "echo ${d} >> '${log}'; echo '{\\"hookSpecificOutput\\":{\\"permissionDecision\\":\\"${d}\\"}}'" }`,
      );
      // A trailing allow after each set shows that ask/allow never stop the chain while a deny does.
      toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [${(decisions.length > 0 ? hooks : []).join(", ")}]`);
      const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "ls" } });
      expect([decisions.join(","), fired.outcome.decision]).toEqual([decisions.join(","), expected]);
      // One group is one concurrent batch: every command of it runs, the deny still wins.
      expect(logLines(log).length).toBe(decisions.length === 0 ? 0 : ran + 1);
    }
  });

  test("MERGE-13 an allow never short-circuits: a later project hook dir still denies", async () => {
    const world = makeWorld();
    toml(world, "user", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"permissionDecision\\":\\"allow\\"}}'" }]`);
    hookDir(world, "project", "deny", { event: "pre_tool" }, `echo '{"action":"deny","reason":"project says no"}'`);
    const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect([fired.outcome.decision, fired.outcome.reason]).toEqual(["deny", "project says no"]);
    expect(fired.outcome.rows.map((r) => [r.scope, r.status])).toEqual([
      ["user", "success"],
      ["project", "success"],
    ]);
  });

  test("MERGE-14 DIR-45 contexts of allow, modify and deny all reach the model with the deny reason", async () => {
    const world = makeWorld();
    hookDir(world, "user", "a", { event: "pre_tool" }, `echo '{"action":"allow","context":"A"}'`);
    hookDir(world, "user", "b", { event: "pre_tool" }, `cat > stdin.json; echo '{"action":"modify","input":{"command":"echo b"},"context":"B"}'`);
    const c = hookDir(world, "user", "c", { event: "pre_tool" }, `cat > stdin.json; echo '{"action":"deny","reason":"no","context":"C"}'`);
    const fired = await fire(world, "pre_tool", { tool: "bash", input: { command: "rm x" } });
    expect([fired.outcome.decision, fired.outcome.reason]).toEqual(["deny", "no"]);
    expect(JSON.parse(readFileSync(join(c, "stdin.json"), "utf8")).input).toEqual({ command: "echo b" });
    expect(appendHookContext(fired.outcome.state.denied?.modelReason ?? "", fired.context)).toBe("no\n\n<hook_context>\nA\n\nB\n\nC\n</hook_context>");
  });
});

describe("post phase: hook dirs concurrent, the rest sequential, merge in declared order", () => {
  test("MERGE-15 hook dirs overlap, list hooks never do, ten 100 ms dirs finish together", async () => {
    const world = makeWorld();
    const { log, path } = stamper(world);
    for (const name of ["d1", "d2", "d3"]) hookDir(world, "user", name, { event: "post_tool" }, `exec '${path}' ${name} 0.3`);
    listHooks(world, "user", { after_tool: [{ command: "./scripts/stamp.sh l1 0.3" }, { command: "./scripts/stamp.sh l2 0.3" }] });
    await fire(world, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "" } });
    const spans = intervals(log);
    const dirs = ["d1", "d2", "d3"].map((d) => span(spans, d));
    expect(Math.max(...dirs.map((d) => d[0]))).toBeLessThan(Math.min(...dirs.map((d) => d[1])));
    const lists = ["l1", "l2"].map((l) => span(spans, l));
    expectNoOverlap(lists);
    expect(lists[0]?.[0] ?? 0).toBeGreaterThanOrEqual(Math.max(...dirs.map((d) => d[1])));

    // Ten dirs that each mark themselves, then wait for all ten marks: only dirs that run together
    // can all succeed (run one at a time, the first would wait in vain and exit 1).
    const ten = makeWorld();
    const marks = Array.from({ length: 10 }, (_, i) => `'${ten.root}/h${i}.mark'`).join(" ");
    for (let i = 0; i < 10; i += 1) {
      hookDir(
        ten,
        "user",
        `h${i}`,
        { event: "post_tool" },
        `touch '${ten.root}/h${i}.mark'; n=0; for m in ${marks}; do while [ ! -e "$m" ]; do n=$((n+1)); [ $n -gt 80 ] && exit 1; sleep 0.05; done; done`,
      );
    }
    const fired = await fire(ten, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "" } });
    expect(fired.outcome.rows.map((r) => r.status)).toEqual(Array(10).fill("success"));
  });

  test("MERGE-16 MERGE-17 DIR-54 context and output merge in declared order, not finish order", async () => {
    for (const slow of ["a", "b"]) {
      const world = makeWorld();
      hookDir(world, "user", "a", { event: "post_tool" }, `${slow === "a" ? "sleep 0.3; " : ""}echo '{"context":"A","output":"X"}'`);
      hookDir(world, "user", "b", { event: "post_tool" }, `${slow === "b" ? "sleep 0.3; " : ""}echo '{"context":"B","output":"Y"}'`);
      const fired = await fire(world, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "orig" } });
      expect([slow, fired.context, fired.outcome.state.output]).toEqual([slow, "A\n\nB", "Y"]);
    }
    const empty = makeWorld();
    hookDir(empty, "user", "a", { event: "post_tool" }, `echo '{"output":"X"}'`);
    hookDir(empty, "user", "b", { event: "post_tool" }, `echo '{"output":""}'`);
    expect((await fire(empty, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "o" } })).outcome.state.output).toBe(
      "X",
    );
    const big = makeWorld();
    hookDir(big, "user", "a", { event: "post_tool" }, `printf '{"output":"%s"}\\n' "$(head -c 102400 /dev/zero | tr '\\000' z)"`);
    const fired = await fire(big, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "o" } });
    expect(fired.outcome.state.output?.length).toBe(102400);
  });

  test("DIR-55 post_tool hook dirs that wait for each other's marker both succeed", async () => {
    const world = makeWorld();
    const wait = (mine: string, theirs: string): string =>
      `touch '${world.root}/${mine}'; i=0; while [ ! -e '${world.root}/${theirs}' ]; do i=$((i+1)); [ $i -gt 100 ] && exit 1; sleep 0.05; done; echo '{"context":"${mine}"}'`;
    hookDir(world, "user", "a", { event: "post_tool" }, wait("a.mark", "b.mark"));
    hookDir(world, "user", "b", { event: "post_tool" }, wait("b.mark", "a.mark"));
    const fired = await fire(world, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "" } });
    expect(fired.outcome.rows.map((r) => r.status)).toEqual(["success", "success"]);
    expect(fired.context).toBe("a.mark\n\nb.mark");
  });

  test("MERGE-34 dirs of both scopes start together; lifecycle then list after them; a stop cancels nothing", async () => {
    const world = makeWorld();
    const { log, path } = stamper(world);
    hookDir(world, "user", "ud", { event: "post_tool" }, `exec '${path}' ud 0.3 '{"stop":true,"reason":"s","context":"UD"}'`);
    hookDir(world, "project", "pd", { event: "post_tool" }, `exec '${path}' pd 0.3 '{"context":"PD"}'`);
    toml(
      world,
      "user",
      `[[hooks.lifecycle.post_tool_use]]\nhooks = [{ command = "'${path}' ul 0 '{\\"hookSpecificOutput\\":{\\"additionalContext\\":\\"UL\\"}}'" }]`,
    );
    listHooks(world, "project", { after_tool: [{ label: "pl", command: "./scripts/stamp.sh pl" }] });
    const fired = await fire(world, "post_tool", { tool: "bash", input: { command: "ls" }, result: { success: true, content: "" } });
    const spans = intervals(log);
    const [ud, pd, ul, pl] = ["ud", "pd", "ul", "pl"].map((t) => span(spans, t));
    expect(Math.max(ud?.[0] ?? 0, pd?.[0] ?? 0)).toBeLessThan(Math.min(ud?.[1] ?? 0, pd?.[1] ?? 0));
    expect(ul?.[0] ?? 0).toBeGreaterThanOrEqual(Math.max(ud?.[1] ?? 0, pd?.[1] ?? 0));
    expect(pl?.[0] ?? 0).toBeGreaterThanOrEqual(ul?.[1] ?? 0);
    // Rows are in run order (DESIGN.md): the concurrent hook dirs of both scopes first, then the rest.
    expect(fired.outcome.rows.map((r) => r.label)).toEqual(["ud", "pd", "post_tool_use[0].hooks[0]", "pl"]);
    expect([fired.outcome.decision, fired.outcome.reason, fired.context]).toEqual(["block", "s", "UD\n\nUL\n\nPD"]);
  });
});
