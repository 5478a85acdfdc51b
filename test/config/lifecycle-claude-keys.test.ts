// Claude Code's command-hook keys on lifecycle commands (`timeout`, `async`, `once`,
// `statusMessage`, `type = "command"`) and unknown keys that name the closest key (LIFE-06, LIFE-72, D23).
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { closestKey, editDistance, unknownKeyMessage } from "../../src/config/closest-key.ts";
import { loadConfig } from "../../src/config/load.ts";
import type { HookSpec, LifecycleHookSpec } from "../../src/hooks/types.ts";
import { sandbox } from "./fixture.ts";

function lifecycle(hooks: readonly HookSpec[]): LifecycleHookSpec[] {
  return hooks.filter((h): h is LifecycleHookSpec => h.form === "lifecycle");
}

function loadJson(value: unknown) {
  const s = sandbox();
  s.write(join(s.project, ".agent", "settings.json"), JSON.stringify(value));
  const loaded = loadConfig(s.runtime, { cwd: s.project });
  return { loaded, specs: lifecycle(loaded.hooks) };
}

const group = (command: Record<string, unknown>) => ({ hooks: { lifecycle: { PostToolUse: [{ matcher: "Write|Edit", hooks: [command] }] } } });

describe("Claude Code command-hook keys on lifecycle commands", () => {
  test("LIFE-06 a Claude Code settings block loads as written: type command, timeout in seconds, async, once, statusMessage", () => {
    const { specs, loaded } = loadJson(group({ type: "command", command: "./fmt.sh", timeout: 30, async: true, once: true, statusMessage: "Formatting…" }));
    expect(loaded.warnings).toEqual([]);
    expect(specs).toHaveLength(1);
    expect(specs[0]).toMatchObject({ event: "post_tool", command: "./fmt.sh", timeoutMs: 30_000, async: true, once: true, statusMessage: "Formatting…" });
  });

  test("LIFE-06 timeout has timeout_seconds' bound 1..600; timeout_seconds wins over a different timeout, with an error naming both", () => {
    const bad = loadJson(group({ command: "x", timeout: 601 }));
    expect(bad.specs).toEqual([]);
    expect(bad.loaded.warnings.map((w) => [w.field, w.message])).toEqual([
      ["hooks.lifecycle.PostToolUse[0].hooks[0].timeout", "601 is out of range 1..600; skipped"],
    ]);
    const both = loadJson(group({ command: "x", timeout: 5, timeout_seconds: 7 }));
    expect(both.specs[0]?.timeoutMs).toBe(7000);
    expect(both.loaded.warnings.map((w) => [w.severity, w.field])).toEqual([["error", "hooks.lifecycle.PostToolUse[0].hooks[0].timeout"]]);
    expect(both.loaded.warnings[0]?.message).toContain("timeout_seconds applies");
    const same = loadJson(group({ command: "x", timeout: 7, timeout_seconds: 7 }));
    expect(same.loaded.warnings).toEqual([]);
  });

  test("LIFE-06 wrong types of async, once and statusMessage skip the command; async with a blocking policy warns", () => {
    for (const [key, value] of [
      ["async", "yes"],
      ["once", 1],
      ["statusMessage", 3],
    ] as const) {
      const { specs, loaded } = loadJson(group({ command: "x", [key]: value }));
      expect(specs).toEqual([]);
      expect(loaded.warnings.map((w) => w.field)).toEqual([`hooks.lifecycle.PostToolUse[0].hooks[0].${key}`]);
    }
    const s = sandbox();
    s.write(
      join(s.project, ".agent", "config.toml"),
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "x", async = true, failure_policy = "block" }]\n`,
    );
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(lifecycle(loaded.hooks)).toHaveLength(1);
    expect(loaded.warnings.map((w) => [w.severity, w.field])).toEqual([["warning", "hooks.lifecycle.pre_tool_use[0].hooks[0].failure_policy"]]);
    expect(loaded.warnings[0]?.message).toContain("no effect on an async hook");
  });

  test("LIFE-72 unknown keys still load the command and name the closest key", () => {
    const { specs, loaded } = loadJson({
      hooks: { lifecycle: { Stop: [{ matchers: "x", hooks: [{ command: "a", timout_seconds: 5, statusmessage: "s", Async: true, bogus: 1 }] }] } },
    });
    expect(specs.map((spec) => spec.command)).toEqual(["a"]);
    const messages = Object.fromEntries(loaded.warnings.map((w) => [w.field.split(".").at(-1), w.message]));
    expect(messages.matchers).toStartWith("unknown key (did you mean matcher?");
    expect(messages.timout_seconds).toStartWith("unknown key (did you mean timeout_seconds?");
    expect(messages.statusmessage).toStartWith("unknown key (did you mean statusMessage?");
    expect(messages.Async).toStartWith("unknown key (did you mean async?");
    expect(messages.bogus).toStartWith("unknown key (valid: command, timeout_seconds, timeout,");
    expect(loaded.warnings.every((w) => w.severity === "warning")).toBe(true);
  });
});

describe("closest key", () => {
  test("optimal string alignment distance counts a swap as one edit", () => {
    expect(editDistance("timeout", "timeout")).toBe(0);
    expect(editDistance("tiemout", "timeout")).toBe(1);
    expect(editDistance("timout", "timeout")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
  });

  test("case, _ and - do not count; far keys are not suggested", () => {
    expect(closestKey("timeoutSeconds", ["command", "timeout_seconds", "timeout"])).toBe("timeout_seconds");
    expect(closestKey("status_message", ["statusMessage", "once"])).toBe("statusMessage");
    expect(closestKey("failure-policy", ["failure_policy"])).toBe("failure_policy");
    expect(closestKey("zzz", ["command", "once"])).toBeUndefined();
    expect(unknownKeyMessage("hook", ["matcher", "hooks"])).toBe("unknown key (did you mean hooks? valid: matcher, hooks)");
  });
});
