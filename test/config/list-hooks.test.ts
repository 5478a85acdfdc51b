import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import type { HookSpec, ListHookSpec } from "../../src/hooks/types.ts";
import { sandbox, SCRIPT } from "./fixture.ts";

function lists(hooks: readonly HookSpec[]): ListHookSpec[] {
  return hooks.filter((h): h is ListHookSpec => h.form === "list");
}

/** Loads `hooks` (the `hooks` object) from the user's settings.json. */
function load(hooks: Record<string, unknown>) {
  const s = sandbox();
  const file = s.write(join(s.agentHome, "settings.json"), JSON.stringify({ hooks }));
  const loaded = loadConfig(s.runtime, { cwd: s.project });
  return { loaded, specs: lists(loaded.hooks), file };
}

describe("tool-call lists (seed 003)", () => {
  test("TOOL-01 defaults: a hook without enabled is listed disabled with the seed defaults", () => {
    const { specs, loaded } = load({ after_tool: [{ command: "./scripts/h.sh" }] });
    expect(loaded.warnings).toEqual([]);
    const h = specs[0];
    expect([h?.disabled, h?.event, h?.phase, h?.dialect, h?.label, h?.timeoutMs, h?.payload, h?.failurePolicy]).toEqual([
      true,
      "post_tool",
      "after_tool",
      "envelope",
      "hook",
      5000,
      "redacted",
      "warn",
    ]);
    expect([h?.stdoutMaxBytes, h?.stderrMaxBytes, h?.providerContextInjection, h?.providerContextMaxBytes, h?.absolutePaths]).toEqual([
      8192,
      8192,
      false,
      4096,
      true,
    ]);
    const settings = loaded.settings.hooks;
    expect([settings.enabled, settings.showInTui, settings.payload, settings.timeoutSeconds, settings.failurePolicy]).toEqual([
      false,
      false,
      "redacted",
      5,
      "warn",
    ]);
    expect(settings.injectedContent).toEqual({ showInTranscript: false, showInActivityTree: false, style: "content" });
  });

  test("TOOL-02 enabled gates lists only; display settings enable nothing", () => {
    expect(load({ enabled: true, before_tool: [{ command: "a" }] }).specs[0]?.disabled).toBe(false);
    expect(load({ show_in_tui: true, before_tool: [{ command: "a" }] }).specs[0]?.disabled).toBe(true);
    const s = sandbox();
    s.write(join(s.agentHome, "config.toml"), `[hooks]\nenabled = false\n[[hooks.lifecycle.stop]]\nhooks = [{ command = "x" }]\n`);
    s.write(join(s.agentHome, "hooks/d/hook.json"), JSON.stringify({ event: "pre_tool", run: "./r" }));
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(loaded.hooks.map((h) => [h.form, h.disabled])).toEqual([
      ["dir", false],
      ["lifecycle", false],
    ]);
  });

  test("TOOL-03 bounds: out-of-range values, globally or per hook, cost the hook; edge values load", () => {
    const perHook: [string, unknown, string][] = [
      ["timeout_seconds", 0, "1..60"],
      ["timeout_seconds", 61, "1..60"],
      ["stdout_max_bytes", 0, "1..65536"],
      ["stderr_max_bytes", 65537, "1..65536"],
      ["provider_context_max_bytes", 0, "1..16384"],
      ["provider_context_max_bytes", 16385, "1..16384"],
      ["payload", "raw", "redacted, full"],
      ["failure_policy", "stop", "ignore, warn, block, fail"],
    ];
    for (const [key, value, bound] of perHook) {
      const one = load({ enabled: true, after_tool: [{ command: "a", [key]: value }, { command: "b" }] });
      expect(one.specs.map((h) => h.command)).toEqual(["b"]);
      expect(one.loaded.warnings.map((w) => [w.file, w.field])).toEqual([[one.file, `hooks.after_tool[0].${key}`]]);
      expect(one.loaded.warnings[0]?.message).toContain(bound);
      const global = load({
        enabled: true,
        [key]: value,
        after_tool: [{ command: "a" }, { command: "b", [key]: key === "payload" ? "full" : key === "failure_policy" ? "warn" : 10 }],
      });
      expect(global.specs.map((h) => h.command)).toEqual(["b"]);
      expect(global.loaded.warnings[0]?.field).toBe(`hooks.${key}`);
      expect(global.loaded.warnings[0]?.message).toContain(bound);
      expect(global.loaded.warnings.every((w) => w.severity === "error")).toBe(true);
    }
    const edges = load({
      enabled: true,
      before_tool: [
        { command: "a", timeout_seconds: 1 },
        { command: "b", timeout_seconds: 60, stdout_max_bytes: 65536, provider_context_max_bytes: 16384 },
      ],
    });
    expect(edges.loaded.warnings).toEqual([]);
    expect(edges.specs.map((h) => h.timeoutMs)).toEqual([1000, 60000]);
    const style = load({ enabled: true, injected_content: { style: "full" }, show_in_tui: "yes", before_tool: [{ command: "a" }] });
    expect(style.specs.length).toBe(1);
    expect(style.loaded.settings.hooks.injectedContent.style).toBe("content");
    expect(style.loaded.settings.hooks.showInTui).toBe(false);
    expect(style.loaded.warnings.map((w) => [w.severity, w.field])).toEqual([
      ["error", "hooks.injected_content.style"],
      ["error", "hooks.show_in_tui"],
    ]);
  });

  test("TOOL-04 MERGE-31 block is rejected on after phases, inherited or own; before_tool keeps it", () => {
    for (const phase of ["after_tool", "after_assistant", "after_reasoning"]) {
      const own = load({ enabled: true, [phase]: [{ command: "a", failure_policy: "block" }] });
      expect(own.specs).toEqual([]);
      expect(own.loaded.warnings[0]?.field).toBe(`hooks.${phase}[0].failure_policy`);
      expect(own.loaded.warnings[0]?.message).toContain("ignore, warn or fail");
    }
    const global = load({
      enabled: true,
      failure_policy: "block",
      before_tool: [{ command: "b" }],
      after_tool: [{ command: "inherits" }, { command: "own", failure_policy: "warn" }],
      after_assistant: [{ command: "a2", failure_policy: "block" }],
    });
    expect(global.specs.map((h) => [h.command, h.failurePolicy])).toEqual([
      ["b", "block"],
      ["own", "warn"],
    ]);
    expect(global.loaded.warnings.map((w) => w.field)).toEqual(["hooks.after_tool[0].failure_policy", "hooks.after_assistant[0].failure_policy"]);
    expect(global.loaded.warnings[0]?.message).toContain("inherited");
    expect(global.loaded.warnings[1]?.message).not.toContain("inherited");
  });

  test("TOOL-05 empty or missing label is hook; missing command is an error", () => {
    const { specs, loaded } = load({ enabled: true, before_tool: [{ command: "a" }, { label: "", command: "b" }, { label: "x" }] });
    expect(specs.map((h) => h.label)).toEqual(["hook", "hook"]);
    expect(loaded.warnings.map((w) => w.field)).toEqual(["hooks.before_tool[2].command"]);
    expect(loaded.warnings[0]?.message).toContain("missing required field");
  });

  test("TOOL-06 per-hook overrides beat the globals", () => {
    const { specs } = load({
      enabled: true,
      payload: "redacted",
      timeout_seconds: 5,
      failure_policy: "warn",
      before_tool: [{ command: "a", payload: "full", timeout_seconds: 30, failure_policy: "block", stdout_max_bytes: 100 }, { command: "b" }],
    });
    expect(specs.map((h) => [h.payload, h.timeoutMs, h.failurePolicy, h.stdoutMaxBytes])).toEqual([
      ["full", 30000, "block", 100],
      ["redacted", 5000, "warn", 8192],
    ]);
  });

  test("TOOL-07 D26 project list settings reach project list hooks only; TOML and JSON concatenate", () => {
    const s = sandbox();
    s.write(join(s.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, timeout_seconds: 10, before_tool: [{ label: "u", command: "u" }] } }));
    s.write(
      join(s.project, ".agent/config.toml"),
      `[hooks]\ntimeout_seconds = 30\n[[hooks.before_tool]]\nlabel = "t"\ncommand = "t"\n[tools.bash]\nabsolute_paths = false\n`,
    );
    s.write(join(s.project, ".agent/settings.json"), JSON.stringify({ hooks: { timeout_seconds: 20, before_tool: [{ label: "p", command: "p" }] } }));
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(loaded.warnings).toEqual([]);
    expect(lists(loaded.hooks).map((h) => [h.label, h.scope, h.timeoutMs, h.index, h.disabled, h.absolutePaths])).toEqual([
      ["u", "user", 10000, 0, false, true],
      ["t", "project", 20000, 0, false, false],
      ["p", "project", 20000, 0, false, false],
    ]);
    expect(loaded.settings.listSettingsByScope.user.timeoutSeconds).toBe(10);
    expect(loaded.settings.listSettingsByScope.project.timeoutSeconds).toBe(20);
  });

  test("TOOL-09 TOOL-11 filter warnings: unknown tool names; filters on message phases", () => {
    const { specs, loaded } = load({
      enabled: true,
      before_tool: [{ command: "a", include_tools: ["bash", "web_search"] }],
      after_assistant: [{ command: "b", include_tools: ["bash"] }],
      after_reasoning: [{ command: "c", exclude_tools: ["assistant"] }],
    });
    expect(specs.length).toBe(3);
    expect(loaded.warnings.map((w) => [w.severity, w.field])).toEqual([
      ["warning", "hooks.before_tool[0].include_tools[1]"],
      ["warning", "hooks.after_assistant[0].include_tools"],
      ["warning", "hooks.after_reasoning[0].exclude_tools"],
    ]);
    expect(loaded.warnings[1]?.message).toContain("no effect");
  });

  test("PLUS-09 PLUS-10 disabled list hook stays listed; stderr_max_bytes 0 is one warning", () => {
    const { specs, loaded, file } = load({
      enabled: true,
      before_tool: [
        { label: "a", command: "./a.sh", disabled: true },
        { label: "b", command: "./b.sh" },
        { label: "c", command: "c", stderr_max_bytes: 0 },
      ],
    });
    expect(specs.map((h) => [h.label, h.disabled])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    expect(loaded.warnings.map((w) => [w.file, w.field, w.message])).toEqual([
      [file, "hooks.before_tool[2].stderr_max_bytes", "0 is out of range 1..65536; not loaded"],
    ]);
  });

  test("unknown keys under hooks and in list entries are errors; the entry still loads", () => {
    const { specs, loaded } = load({ enabled: true, bogus: 1, before_tool: [{ command: "a", lable: "x" }] });
    expect(specs.length).toBe(1);
    expect(loaded.warnings.map((w) => [w.severity, w.field])).toEqual([
      ["error", "hooks.bogus"],
      ["error", "hooks.before_tool[0].lable"],
    ]);
  });
});

describe("registry order and trust material", () => {
  test("MERGE-01 TOOL-13 D13 order: user dirs, lifecycle, lists, then project the same", () => {
    const s = sandbox();
    s.write(join(s.agentHome, "hooks/u-dir/hook.json"), JSON.stringify({ event: "pre_tool", run: "./r" }));
    s.write(join(s.agentHome, "config.toml"), `[hooks]\nenabled = true\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "c1" }, { command = "c2" }]\n`);
    s.write(join(s.agentHome, "settings.json"), JSON.stringify({ hooks: { before_tool: [{ label: "u-list", command: "x" }] } }));
    s.write(join(s.project, ".agent/hooks/p-dir/hook.json"), JSON.stringify({ event: "pre_tool", run: "./r" }));
    s.write(join(s.project, ".agent/config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "c3" }]\n`);
    s.write(join(s.project, ".agent/settings.json"), JSON.stringify({ hooks: { before_tool: [{ label: "p-list", command: "y" }] } }));
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.hooks.map((h) => `${h.scope}:${h.label}`)).toEqual([
      "user:u-dir",
      "user:pre_tool_use[0].hooks[0]",
      "user:pre_tool_use[0].hooks[1]",
      "user:u-list",
      "project:p-dir",
      "project:pre_tool_use[0].hooks[0]",
      "project:p-list",
    ]);
    expect(loaded.hooks.every((h) => !h.disabled)).toBe(true);
  });

  test("MERGE-05 hook.index is the position in the file's own array", () => {
    const { specs } = load({ enabled: true, before_tool: [{ command: "h0", include_tools: ["read"] }, { command: "h1" }, { command: "h2" }] });
    expect(specs.map((h) => [h.command, h.index])).toEqual([
      ["h0", 0],
      ["h1", 1],
      ["h2", 2],
    ]);
  });

  test("SEC-32 PLUS-09 trust material: project hooks, settings and referenced scripts", () => {
    const s = sandbox();
    const p = s.project;
    for (const f of [".agent/hooks/check.sh", ".agent/hooks/c2.sh", "scripts/audit.py", ".agent/hooks/x/run.sh"]) s.write(join(p, f), SCRIPT, 0o755);
    s.write(join(p, ".agent/hooks/x/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    s.write(
      join(p, ".agent/config.toml"),
      `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = '"$AGENT_PROJECT_DIR"/.agent/hooks/check.sh' }, { command = "$CLAUDE_PROJECT_DIR/.agent/hooks/c2.sh" }]\n`,
    );
    s.write(
      join(p, ".agent/settings.json"),
      JSON.stringify({
        model: "ignored",
        hooks: { timeout_seconds: 6, before_tool: [{ command: "python3 scripts/audit.py", disabled: true }] },
        permissions: { allow: ["bash(ls*)"], deny: [] },
        tools: { bash: { absolute_paths: false } },
      }),
    );
    s.write(join(s.agentHome, "config.toml"), `[[hooks.lifecycle.stop]]\nhooks = [{ command = "user-only" }]\n`);
    const material = loadConfig(s.runtime, { cwd: p }).projectTrustMaterial;
    expect(material).not.toBeNull();
    expect([...(material?.scripts ?? [])].sort()).toEqual(
      [join(p, ".agent/hooks/c2.sh"), join(p, ".agent/hooks/check.sh"), join(p, ".agent/hooks/x/run.sh"), join(p, "scripts/audit.py")].sort(),
    );
    expect(material?.settings).toEqual({ "hooks.timeout_seconds": 6, "permissions.allow": ["bash(ls*)"], "tools.bash.absolute_paths": false });
    expect(material?.hooks.length).toBe(4);
    expect(JSON.stringify(material?.hooks)).toContain('"disabled":true');
    expect(JSON.stringify(material?.hooks)).not.toContain("user-only");
  });

  test("D17 a project without hooks or trust-relevant settings needs no trust material", () => {
    const s = sandbox();
    s.write(join(s.project, ".agent/settings.json"), JSON.stringify({ model: "m", hooks: { before_tool: [] }, permissions: { allow: [] } }));
    expect(loadConfig(s.runtime, { cwd: s.project }).projectTrustMaterial).toBeNull();
  });
});
