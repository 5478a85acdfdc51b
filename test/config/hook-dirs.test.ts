import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import type { DirHookSpec, HookSpec } from "../../src/hooks/types.ts";
import { sandbox, SCRIPT, type Sandbox } from "./fixture.ts";

function userHook(s: Sandbox, dir: string, manifest: unknown): string {
  s.write(join(s.agentHome, "hooks", dir, "run.sh"), SCRIPT, 0o755);
  return s.write(join(s.agentHome, "hooks", dir, "hook.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
}

function projectHook(s: Sandbox, dir: string, manifest: unknown): string {
  s.write(join(s.project, ".agent/hooks", dir, "run.sh"), SCRIPT, 0o755);
  return s.write(join(s.project, ".agent/hooks", dir, "hook.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
}

function dirs(hooks: readonly HookSpec[]): DirHookSpec[] {
  return hooks.filter((h): h is DirHookSpec => h.form === "dir");
}

/** Loads one user hook and returns it (or undefined) with the warnings. */
function loadOne(manifest: unknown, dir = "h") {
  const s = sandbox();
  const file = userHook(s, dir, manifest);
  const loaded = loadConfig(s.runtime, { cwd: s.project });
  return { spec: dirs(loaded.hooks)[0], warnings: loaded.warnings, file, s };
}

describe("hook directories (seed 000, D4)", () => {
  test("DIR-01 user and project hooks, dialect action, absolute run paths", () => {
    const s = sandbox();
    const auditFile = userHook(s, "audit", { event: "pre_tool", run: "./run.sh" });
    const guardFile = projectHook(s, "guard", { event: "pre_tool", match: "bash", run: "./run.sh" });
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(loaded.warnings).toEqual([]);
    const [audit, guard] = dirs(loaded.hooks);
    expect([audit?.label, audit?.scope, audit?.dialect, audit?.event, audit?.match, audit?.source]).toEqual([
      "audit",
      "user",
      "action",
      "pre_tool",
      "*",
      auditFile,
    ]);
    expect([guard?.label, guard?.scope, guard?.dialect, guard?.match, guard?.source]).toEqual(["guard", "project", "action", "bash", guardFile]);
    expect(guard?.run).toBe(join(s.project, ".agent/hooks/guard/run.sh"));
    expect(Object.isFrozen(loaded.hooks)).toBe(true);
  });

  test("DIR-03 DIR-04 MERGE-03 project replaces user by manifest name, nothing inherited", () => {
    const s = sandbox();
    userHook(s, "a", { name: "guard", event: "pre_tool", match: "bash", run: "./run.sh", fail_closed: true });
    userHook(s, "notify", { event: "post_tool", run: "./run.sh", async: true });
    projectHook(s, "b", { name: "guard", event: "pre_tool", run: "./run.sh" });
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    const specs = dirs(loaded.hooks);
    expect(specs.map((h) => [h.name, h.scope])).toEqual([
      ["notify", "user"],
      ["guard", "project"],
    ]);
    const guard = specs[1];
    expect(guard?.match).toBe("*");
    expect(guard?.failClosed).toBe(false);
    expect(guard?.run).toBe(join(s.project, ".agent/hooks/b/run.sh"));
    expect(specs[0]?.async).toBe(true);
  });

  test("DIR-07 PLUS-09 disabled hooks stay listed as disabled, give no warning and replace nothing", () => {
    const s = sandbox();
    userHook(s, "guard", { event: "pre_tool", run: "./run.sh" });
    projectHook(s, "guard", { event: "pre_tool", run: "./run.sh", disabled: true });
    projectHook(s, "old", { event: "pre_tool", run: "./run.sh", disabled: true });
    projectHook(s, "new", { event: "pre_tool", run: "./run.sh" });
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(loaded.warnings).toEqual([]);
    expect(dirs(loaded.hooks).map((h) => [h.name, h.scope, h.disabled])).toEqual([
      ["guard", "user", false],
      ["guard", "project", true],
      ["new", "project", false],
      ["old", "project", true],
    ]);
  });

  test("DIR-08 CLI-03 a malformed hook.json is one parse warning; the valid hook loads", () => {
    const s = sandbox();
    const broken = projectHook(s, "broken", `{"event":`);
    projectHook(s, "ok", { event: "pre_tool", run: "./run.sh" });
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(dirs(loaded.hooks).map((h) => h.name)).toEqual(["ok"]);
    expect(loaded.warnings.length).toBe(1);
    expect(loaded.warnings[0]?.file).toBe(broken);
    expect(loaded.warnings[0]?.severity).toBe("error");
    expect(loaded.warnings[0]?.message).toContain("parse");
    expect(loaded.warnings[0]?.message).toMatch(/^1:10: /);
  });

  test("DIR-16 name defaults to the directory and is trimmed; event, match, run trimmed", () => {
    expect(loadOne({ event: " post_tool ", run: " ./run.sh " }, "lint-post").spec?.name).toBe("lint-post");
    const { spec } = loadOne({ name: "  guard  ", event: "pre_tool", match: " bash ", run: "./run.sh" });
    expect([spec?.name, spec?.label, spec?.match, spec?.event]).toEqual(["guard", "guard", "bash", "pre_tool"]);
  });

  test("DIR-17 missing event or run", () => {
    const noEvent = loadOne({ run: "./run.sh" });
    expect(noEvent.spec).toBeUndefined();
    expect(noEvent.warnings.map((w) => w.message).join("\n")).toContain('missing required field "event"');
    const noRun = loadOne({ event: "pre_tool" });
    expect(noRun.spec).toBeUndefined();
    expect(noRun.warnings.map((w) => w.message).join("\n")).toContain('missing required field "run"');
  });

  test("DIR-18 invalid events are rejected listing valid values; aliases load canonically", () => {
    for (const event of ["tool.call", "session_start", "PRE_TOOL", "register_tool"]) {
      const { spec, warnings } = loadOne({ event, run: "./run.sh" });
      expect(spec).toBeUndefined();
      expect(warnings[0]?.message).toContain("invalid event");
      expect(warnings[0]?.message).toContain("pre_tool, pre_tool_use");
    }
    for (const [event, canonical] of [
      ["PreToolUse", "pre_tool"],
      ["pre_tool_use", "pre_tool"],
      ["before_tool", "pre_tool"],
      ["PostToolUse", "post_tool"],
      ["post_tool_use", "post_tool"],
      ["after_tool", "post_tool"],
    ]) {
      expect(loadOne({ event, run: "./run.sh" }).spec?.event).toBe(canonical as "pre_tool" | "post_tool");
    }
  });

  test("DIR-19 DIR-20 run is one normalised absolute path, never parsed as shell", () => {
    const relative = loadOne({ event: "pre_tool", run: "./run.sh" });
    expect(relative.spec?.run).toBe(join(relative.s.agentHome, "hooks/h/run.sh"));
    expect(loadOne({ event: "pre_tool", run: "/opt/hooks/../hooks/g.sh" }).spec?.run).toBe("/opt/hooks/g.sh");
    const spaced = loadOne({ event: "pre_tool", run: "./run.sh --strict" });
    expect(spaced.spec?.run).toBe(join(spaced.s.agentHome, "hooks/h/run.sh --strict"));
    const chained = loadOne({ event: "pre_tool", run: "./run.sh; touch pwned" });
    expect(chained.spec?.run).toBe(join(chained.s.agentHome, "hooks/h/run.sh; touch pwned"));
  });

  test("DIR-22 timeout forms", () => {
    for (const timeout of [undefined, 0, "0s", "", null]) {
      expect(loadOne({ event: "pre_tool", run: "./run.sh", timeout }).spec?.timeoutMs).toBe(5000);
    }
    const cases: [unknown, number][] = [
      [10, 10000],
      [2.5, 2500],
      ["500ms", 500],
      ["1.5s", 1500],
      ["1m", 60000],
    ];
    for (const [timeout, ms] of cases) expect(loadOne({ event: "pre_tool", run: "./run.sh", timeout }).spec?.timeoutMs).toBe(ms);
  });

  test("DIR-23 PLUS-10 timeouts over 60 s, negative or malformed are load errors (never clamped)", () => {
    for (const timeout of [61, "61s", "2m", 120]) {
      const { spec, warnings } = loadOne({ event: "pre_tool", run: "./run.sh", timeout });
      expect(spec).toBeUndefined();
      expect(warnings[0]?.field).toBe("timeout");
      expect(warnings[0]?.message).toContain("max 60s");
    }
    for (const timeout of [-1, "-5s"]) expect(loadOne({ event: "pre_tool", run: "./run.sh", timeout }).spec).toBeUndefined();
    for (const timeout of ["nope", true, [5]]) {
      const { spec, warnings } = loadOne({ event: "pre_tool", run: "./run.sh", timeout });
      expect(spec).toBeUndefined();
      expect(warnings[0]?.message).toContain("invalid timeout");
    }
  });

  test("DIR-24 booleans must be booleans; absent means false", () => {
    for (const [key, value] of [
      ["fail_closed", "yes"],
      ["async", 1],
      ["disabled", "no"],
    ] as const) {
      const { spec, warnings } = loadOne({ event: "post_tool", run: "./run.sh", [key]: value });
      expect(spec).toBeUndefined();
      expect(warnings[0]?.field).toBe(key);
      expect(warnings[0]?.message).toContain("boolean");
    }
    const { spec } = loadOne({ event: "post_tool", run: "./run.sh" });
    expect([spec?.failClosed, spec?.async, spec?.disabled]).toEqual([false, false, false]);
  });

  test("DIR-25 async only on post_tool; fail_closed on async warns", () => {
    const pre = loadOne({ event: "pre_tool", run: "./run.sh", async: true });
    expect(pre.spec).toBeUndefined();
    expect(pre.warnings[0]?.message).toContain("async is only valid for post_tool");
    const post = loadOne({ event: "post_tool", run: "./run.sh", async: true, fail_closed: true });
    expect(post.spec?.async).toBe(true);
    expect(post.warnings.map((w) => [w.severity, w.field])).toEqual([["warning", "fail_closed"]]);
    expect(post.warnings[0]?.message).toContain("fail_closed has no effect on async hooks");
  });

  test("DIR-26 an unknown key is an error but the hook loads", () => {
    const { spec, warnings, file } = loadOne({ event: "pre_tool", run: "./run.sh", fail_close: true });
    expect(spec?.failClosed).toBe(false);
    expect(warnings.map((w) => [w.severity, w.file, w.field])).toEqual([["error", file, "fail_close"]]);
  });

  test("DIR-27 protocol claude switches the dialect; yaml and envelope do not load", () => {
    expect(loadOne({ event: "pre_tool", run: "./run.sh", protocol: "claude" }).spec?.dialect).toBe("claude");
    for (const protocol of ["yaml", "envelope"]) {
      const { spec, warnings } = loadOne({ event: "pre_tool", run: "./run.sh", protocol });
      expect(spec).toBeUndefined();
      expect(warnings[0]?.field).toBe("protocol");
    }
  });

  test("DIR-28 duplicate names in one scope: warning naming both paths, the later dir wins", () => {
    const s = sandbox();
    const a = userHook(s, "a", { name: "dup", event: "pre_tool", run: "./run.sh" });
    const b = userHook(s, "b", { name: "dup", event: "pre_tool", run: "./run.sh" });
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(dirs(loaded.hooks).map((h) => h.dir)).toEqual([join(s.agentHome, "hooks/b")]);
    expect(loaded.warnings.length).toBe(1);
    expect(loaded.warnings[0]?.severity).toBe("warning");
    expect(loaded.warnings[0]?.message).toContain(a);
    expect(loaded.warnings[0]?.message).toContain(`${b} wins`);
  });

  test("DIR-30 a match that looks like a regex warns", () => {
    for (const match of ["Edit|Write", "ba.*"]) {
      const { spec, warnings } = loadOne({ event: "pre_tool", run: "./run.sh", match });
      expect(spec?.match).toBe(match);
      expect(warnings.map((w) => w.severity)).toEqual(["warning"]);
      expect(warnings[0]?.message).toContain("match is not a regex in hook.json");
    }
    expect(loadOne({ event: "pre_tool", run: "./run.sh", match: "" }).spec?.match).toBe("*");
    expect(loadOne({ event: "pre_tool", run: "./run.sh", match: "*" }).warnings).toEqual([]);
  });

  test("MERGE-02 hook dirs order by name in code-point order", () => {
    const s = sandbox();
    for (const name of ["b", "a", "Z"]) userHook(s, `dir-${name}`, { name, event: "pre_tool", run: "./run.sh" });
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(dirs(loaded.hooks).map((h) => h.name)).toEqual(["Z", "a", "b"]);
  });
});
