// Runner, matching, merging and security cases: the real CLI in a temp
// world with the script provider and real hook processes.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, runCliAsync, writeScript, type World } from "../support/cli.ts";
import { isAlive, liveGroupPids } from "../support/procs.ts";
import { RUN, bashTurns, delivered, hookRuns, lastJson, lines, sessionRecords, type Rec } from "./helpers.ts";

setDefaultTimeout(90_000);

function dirHook(w: World, name: string, manifest: Rec, body: string): string {
  const dir = join(w.project, ".agent/hooks", name);
  w.file(join(dir, "hook.json"), JSON.stringify({ run: "./run.sh", ...manifest }));
  w.file(join(dir, "run.sh"), `#!/bin/sh\n${body}\n`, { executable: true });
  return dir;
}

function listJson(w: World): Rec[] {
  const r = runCli(w, ["hooks", "list", "--json", "--trust"]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).hooks as Rec[];
}

describe("timeouts", () => {
  test("RUN-24 effective timeouts per form; out-of-range values are load errors, never clamped; 500ms kills sleep 30", () => {
    const w = makeWorld();
    const dirTimeouts: [string, unknown][] = [
      ["d-absent", undefined],
      ["d-zero", 0],
      ["d-500ms", "500ms"],
      ["d-2_5", 2.5],
      ["d-neg", -1],
      ["d-61s", "61s"],
    ];
    for (const [name, timeout] of dirTimeouts)
      dirHook(w, name, timeout === undefined ? { event: "pre_tool" } : { event: "pre_tool", timeout }, "cat >/dev/null; sleep 30");
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "true # absent" }, { command = "true # zero", timeout_seconds = 0 }, { command = "true # 601", timeout_seconds = 601 }, { command = "true # 1.5", timeout_seconds = 1.5 }]\n`,
    );
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [
            { label: "l-absent", command: "true" },
            { label: "l-zero", command: "true", timeout_seconds: 0 },
            { label: "l-61", command: "true", timeout_seconds: 61 },
          ],
        },
      }),
    );
    const r = runCli(w, ["hooks", "list", "--json", "--trust"]);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as { hooks: Rec[]; warnings: Rec[] };
    const timeouts = Object.fromEntries(listed.hooks.map((h) => [String(h.form === "lifecycle" ? h.field : h.label), h.timeout_ms]));
    expect(timeouts).toEqual({
      "d-absent": 5000,
      "d-zero": 5000,
      "d-500ms": 500,
      "d-2_5": 2500,
      "hooks.lifecycle.pre_tool_use[0].hooks[0]": 60_000,
      "l-absent": 5000,
    });
    const warned = listed.warnings.map((x) => `${String(x.file).split("/").slice(-2).join("/")} ${String(x.field)}`);
    expect(warned.sort()).toEqual(
      [
        "d-neg/hook.json timeout",
        "d-61s/hook.json timeout",
        ".agent/config.toml hooks.lifecycle.pre_tool_use[0].hooks[1].timeout_seconds",
        ".agent/config.toml hooks.lifecycle.pre_tool_use[0].hooks[2].timeout_seconds",
        ".agent/config.toml hooks.lifecycle.pre_tool_use[0].hooks[3].timeout_seconds",
        ".agent/settings.json hooks.before_tool[1].timeout_seconds",
        ".agent/settings.json hooks.before_tool[2].timeout_seconds",
      ].sort(),
    );
    const sixty = listed.warnings.find((x) => String(x.file).endsWith("d-61s/hook.json"));
    expect(String(sixty?.message)).toContain("60");

    // The list default follows hooks.timeout_seconds.
    const w2 = makeWorld();
    w2.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, timeout_seconds: 7, before_tool: [{ label: "l-absent", command: "true" }] } }));
    expect(listJson(w2).map((h) => h.timeout_ms)).toEqual([7000]);

    // A "500ms" hook dir running sleep 30 is killed at its own timeout, not a default one.
    const w3 = makeWorld();
    dirHook(w3, "slow", { event: "pre_tool", timeout: "500ms" }, "cat >/dev/null; sleep 30");
    const t = runCli(w3, ["hooks", "test", "pre_tool", "--tool", "bash", "--json", "--trust"]);
    const row = (JSON.parse(t.stdout).hooks as Rec[])[0];
    expect(row).toMatchObject({ label: "slow", status: "failed", category: "timeout" });
    expect(t.stderr).toContain("timed out after 500ms");
  });

  test("RUN-25 an async post_tool hook is killed at its 1 s timeout and reaped; the session goes on without it", () => {
    const w = makeWorld();
    dirHook(
      w,
      "late",
      { event: "post_tool", async: true, timeout: 1 },
      `cat >/dev/null\necho $$ > '${w.root}/pid'\necho '{"context":"LEAKED","output":"LEAKED"}'\nsleep 30`,
    );
    writeScript(w, [{ tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "echo raw" } }] }, { text: "final" }]);
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ result: "final", turns: 2 });
    const records = sessionRecords(w);
    // The next provider request went out (its reply recorded) before the hook's outcome.
    const finalAt = records.findIndex((x) => x.type === "assistant" && x.content === "final");
    const hookAt = records.findIndex((x) => x.type === "hook_lifecycle" && x.label === "late" && x.status !== "started");
    expect(finalAt).toBeGreaterThan(-1);
    expect(hookAt).toBeGreaterThan(finalAt);
    const run = records[hookAt] as Rec;
    expect(run).toMatchObject({ status: "failed", category: "timeout" });
    expect(r.stderr).toContain("timed out after 1s");
    expect(delivered(records)).toEqual(["raw\n"]);
    expect(JSON.stringify(records)).not.toContain("LEAKED");
    expect(r.stderr).not.toContain("LEAKED");
    const pid = Number(readFileSync(join(w.root, "pid"), "utf8").trim());
    expect(isAlive(pid)).toBe(false);
    expect(liveGroupPids(pid)).toEqual([]);
  });
});

describe("matching", () => {
  test("RUN-47 a hook dir match 'Edit|Write' is literal and never fires; the lifecycle regex fires for both; 'Bas' is anchored", () => {
    const w = makeWorld();
    const log = join(w.root, "fired.log");
    dirHook(w, "alt", { event: "pre_tool", match: "Edit|Write" }, `cat >/dev/null; echo dir >> '${log}'`);
    w.file(
      ".agent/config.toml",
      [
        `[[hooks.lifecycle.pre_tool_use]]`,
        `matcher = "Edit|Write"`,
        `hooks = [{ command = "jq -r '\\"life \\" + .tool_name' >> '${log}'" }]`,
        `[[hooks.lifecycle.pre_tool_use]]`,
        `matcher = "Bas"`,
        `hooks = [{ command = "cat >/dev/null; echo bas >> '${log}'" }]`,
      ].join("\n"),
    );
    const validate = runCli(w, ["hooks", "validate", "--trust"]);
    expect(validate.stdout + validate.stderr).toContain("match is not a regex in hook.json");
    writeScript(w, [
      { tool_calls: [{ id: "c1", name: "write", arguments: { file_path: "a.txt", content: "one\n" } }] },
      { tool_calls: [{ id: "c2", name: "edit", arguments: { file_path: "a.txt", old_string: "one", new_string: "two" } }] },
      { tool_calls: [{ id: "c3", name: "bash", arguments: { command: "true" } }] },
      { text: "done" },
    ]);
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.project, "a.txt"), "utf8")).toBe("two\n");
    expect(lines(log)).toEqual(["life Write", "life Edit"]);
  });

  test("RUN-48 match is exact and case-sensitive, but a tool's aliases match: every hook fires for bash except match BASH", () => {
    const w = makeWorld();
    const log = join(w.root, "fired.log");
    for (const match of ["bash", "Bash", "shell", "BASH"])
      dirHook(w, `m-${match}`, { event: "pre_tool", match }, `cat >/dev/null; echo dir-${match} >> '${log}'`);
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "bash"\nhooks = [{ command = "cat >/dev/null; echo life >> '${log}'" }]\n`);
    w.file("list.sh", `#!/bin/sh\ncat >/dev/null\necho list >> '${log}'\n`, { executable: true });
    w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "l", command: "./list.sh", include_tools: ["shell"] }] } }));
    writeScript(w, bashTurns(["true"]));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(lines(log).sort()).toEqual(["dir-Bash", "dir-bash", "dir-shell", "life", "list"].sort());
  });
});

describe("post_tool merging", () => {
  test("RUN-49 a sync output rewrite wins over a late async one over 20 runs with varied delays; no context added", async () => {
    // Fixed delays, not random ones: every pairing (sync first, async first, both at once) runs.
    const DELAYS = ["0", "0.05", "0.1", "0.2", "0.3"];
    let run = 0;
    const runOnce = async (): Promise<void> => {
      const i = run++;
      const w = makeWorld();
      dirHook(w, "rewrite", { event: "post_tool" }, `cat >/dev/null; sleep ${DELAYS[i % 5]}; echo '{"output":"Y"}'`);
      dirHook(w, "late", { event: "post_tool", async: true }, `cat >/dev/null; sleep ${DELAYS[Math.floor(i / 5) % 5]}; echo '{"output":"Z","context":"C"}'`);
      writeScript(w, bashTurns(["echo raw"]));
      // Text output, so the UI lines are on stderr.
      const r = await runCliAsync(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--trust", "go"]);
      expect(r.code).toBe(0);
      const records = sessionRecords(w);
      expect(delivered(records)).toEqual(["Y"]);
      expect(JSON.stringify(records)).not.toContain("hook_context");
      expect(r.stderr).toBe("● bash: echo raw\n  ⎿ ok: Y\n");
    };
    for (let batch = 0; batch < 5; batch += 1) await Promise.all([runOnce(), runOnce(), runOnce(), runOnce()]);
  });

  test("RUN-50 a context holding </hook_context> is escaped: exactly one closing tag reaches the model", () => {
    const w = makeWorld();
    dirHook(w, "ctx", { event: "post_tool" }, `cat >/dev/null; echo '{"context":"a</hook_context>b"}'`);
    writeScript(w, bashTurns(["echo raw"]));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    const [content] = delivered(sessionRecords(w));
    expect(content?.split("</hook_context>").length).toBe(2);
    expect(content?.endsWith("</hook_context>")).toBe(true);
    expect(content).toContain("a<\u200B/hook_context>b");
  });
});

describe("stop hooks", () => {
  test("PLUS-05 a stop hook that blocks forever ends after at most 9 requests; a crash never counts as a block", () => {
    const w = makeWorld();
    const log = join(w.root, "stops");
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.stop]]\nhooks = [{ command = "cat >/dev/null; echo x >> '${log}'; echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"again\\"}'" }]\n`,
    );
    writeScript(
      w,
      Array.from({ length: 20 }, (_, i) => ({ text: `reply ${i}` })),
    );
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    const out = lastJson(r.stdout);
    expect(Number(out.turns)).toBeLessThanOrEqual(9);
    expect(out).toMatchObject({ stop_reason: "stop_block_cap", turns: 9 });
    expect(lines(log).length).toBe(9);

    const w2 = makeWorld();
    w2.file(".agent/config.toml", `[[hooks.lifecycle.stop]]\nhooks = [{ command = "cat >/dev/null; echo crashed >&2; exit 1" }]\n`);
    writeScript(
      w2,
      Array.from({ length: 20 }, (_, i) => ({ text: `reply ${i}` })),
    );
    const crash = runCli(w2, RUN.concat(["go"]));
    expect(crash.code).toBe(0);
    expect(lastJson(crash.stdout)).toMatchObject({ stop_reason: "completed", turns: 1, result: "reply 0" });
    const runs = hookRuns(sessionRecords(w2));
    expect(runs.map((h) => [h.phase, h.status, h.category])).toEqual([["stop", "failed", "exit"]]);
    expect(crash.stderr).toContain("failed: exit");
  });
});
