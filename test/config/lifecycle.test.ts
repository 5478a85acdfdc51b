import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import type { HookSpec, LifecycleHookSpec } from "../../src/hooks/types.ts";
import { sandbox } from "./fixture.ts";

function lifecycle(hooks: readonly HookSpec[]): LifecycleHookSpec[] {
  return hooks.filter((h): h is LifecycleHookSpec => h.form === "lifecycle");
}

/** Loads `text` as the project's config.toml (or settings.json when `json`). */
function load(text: string, options: { json?: boolean } = {}) {
  const s = sandbox();
  const file = s.write(join(s.project, ".agent", options.json ? "settings.json" : "config.toml"), text);
  const loaded = loadConfig(s.runtime, { cwd: s.project });
  return { loaded, specs: lifecycle(loaded.hooks), file, s };
}

const SEED_KEYS = [
  "pre_tool_use",
  "post_tool_use",
  "post_tool_use_failure",
  "user_prompt_submit",
  "session_start",
  "session_end",
  "permission_request",
  "stop",
  "pre_compact",
  "notification",
  "subagent_start",
  "subagent_stop",
];
const CANONICAL = [
  "pre_tool",
  "post_tool",
  "post_tool_failure",
  "user_prompt_submit",
  "session_start",
  "session_end",
  "permission_request",
  "stop",
  "pre_compact",
  "notification",
  "subagent_start",
  "subagent_stop",
];
const CLAUDE_KEYS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "SessionStart",
  "SessionEnd",
  "PermissionRequest",
  "Stop",
  "PreCompact",
  "Notification",
  "SubagentStart",
  "SubagentStop",
];

describe("lifecycle groups (seed 002, D5, D23)", () => {
  test("LIFE-01 a TOML group loads as a claude pre_tool hook with its matcher and file", () => {
    const { specs, file, loaded } = load(
      `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "$AGENT_PROJECT_DIR/.agent/hooks/bash-validator.sh", timeout_seconds = 30 }]\n`,
    );
    expect(loaded.warnings).toEqual([]);
    expect(specs.length).toBe(1);
    const spec = specs[0];
    expect([spec?.event, spec?.matcher, spec?.dialect, spec?.scope, spec?.source, spec?.timeoutMs, spec?.label]).toEqual([
      "pre_tool",
      "Bash",
      "claude",
      "project",
      file,
      30000,
      "pre_tool_use[0].hooks[0]",
    ]);
    expect(spec?.command).toBe("$AGENT_PROJECT_DIR/.agent/hooks/bash-validator.sh");
    expect(spec?.field).toBe("hooks.lifecycle.pre_tool_use[0].hooks[0]");
  });

  test("LIFE-02 the same group in settings.json loads identically, labelled settings.json:", () => {
    const json = { hooks: { lifecycle: { pre_tool_use: [{ matcher: "Bash", hooks: [{ command: "$CLAUDE_PROJECT_DIR/x.sh", timeout_seconds: 30 }] }] } } };
    const { specs, file, loaded } = load(JSON.stringify(json), { json: true });
    expect(loaded.warnings).toEqual([]);
    expect([specs[0]?.event, specs[0]?.matcher, specs[0]?.timeoutMs, specs[0]?.source]).toEqual(["pre_tool", "Bash", 30000, file]);
    expect(specs[0]?.label).toBe("settings.json:pre_tool_use[0].hooks[0]");
  });

  test("LIFE-03 seed keys, canonical keys and Claude-style keys all load without warning", () => {
    for (const keys of [SEED_KEYS, CANONICAL, CLAUDE_KEYS]) {
      const text = keys.map((key) => `[[hooks.lifecycle.${key}]]\nhooks = [{ command = "true" }]\n`).join("");
      const { specs, loaded } = load(text);
      expect(loaded.warnings).toEqual([]);
      expect(specs.map((s) => s.event)).toEqual(CANONICAL as LifecycleHookSpec["event"][]);
      expect(specs.map((s) => s.eventKey)).toEqual(keys);
    }
  });

  test("LIFE-04 an unknown event key is an error listing the valid events; others load", () => {
    const { specs, loaded, file } = load(`[[hooks.lifecycle.on_save]]\nhooks = [{ command = "a" }]\n[[hooks.lifecycle.stop]]\nhooks = [{ command = "b" }]\n`);
    expect(specs.map((s) => s.command)).toEqual(["b"]);
    expect(loaded.warnings.length).toBe(1);
    expect([loaded.warnings[0]?.severity, loaded.warnings[0]?.file, loaded.warnings[0]?.field]).toEqual(["error", file, "hooks.lifecycle.on_save"]);
    expect(loaded.warnings[0]?.message).toContain("pre_tool_use");
  });

  test("LIFE-05 stop, task_completion and task_completed load as stop in order", () => {
    const { specs } = load(["stop", "task_completion", "task_completed"].map((k, i) => `[[hooks.lifecycle.${k}]]\nhooks = [{ command = "c${i}" }]\n`).join(""));
    expect(specs.map((s) => [s.event, s.command])).toEqual([
      ["stop", "c0"],
      ["stop", "c1"],
      ["stop", "c2"],
    ]);
  });

  test("LIFE-06 bad groups and commands are skipped with a warning naming the bound", () => {
    const bad: [string, string, string][] = [
      [`hooks = []`, "hooks.lifecycle.stop[0].hooks", "non-empty"],
      [`hooks = [{ command = "  " }]`, "hooks.lifecycle.stop[0].hooks[0].command", "blank"],
      [`hooks = [{ command = "x", type = "agent" }]`, "hooks.lifecycle.stop[0].hooks[0].type", "command, http, prompt"],
      ...["0", "601", "-1", "1.5", `"30"`].map((t): [string, string, string] => [
        `hooks = [{ command = "x", timeout_seconds = ${t} }]`,
        "hooks.lifecycle.stop[0].hooks[0].timeout_seconds",
        "1..600",
      ]),
    ];
    for (const [body, field, words] of bad) {
      const { specs, loaded } = load(`[[hooks.lifecycle.stop]]\n${body}\n[[hooks.lifecycle.stop]]\nhooks = [{ command = "ok" }]\n`);
      expect(specs.map((s) => s.command)).toEqual(["ok"]);
      expect(loaded.warnings.map((w) => w.field)).toEqual([field]);
      expect(loaded.warnings[0]?.message).toContain(words);
    }
    for (const body of [`type = "command", timeout_seconds = 1`, `timeout_seconds = 600`, ``]) {
      const { specs, loaded } = load(`[[hooks.lifecycle.stop]]\nhooks = [{ command = "x"${body ? `, ${body}` : ""} }]\n`);
      expect(loaded.warnings).toEqual([]);
      expect(specs.length).toBe(1);
    }
    expect(load(`[[hooks.lifecycle.stop]]\nhooks = [{ command = "x" }]\n`).specs[0]?.timeoutMs).toBe(60000);
  });

  test("LIFE-07 the Claude Code layout warns that groups belong under hooks.lifecycle", () => {
    const { specs, loaded } = load(JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "x" }] }] } }), {
      json: true,
    });
    expect(specs).toEqual([]);
    expect(loaded.hooks).toEqual([]);
    expect(loaded.warnings.length).toBe(1);
    expect(loaded.warnings[0]?.message).toContain("belong under hooks.lifecycle");
  });

  test("LIFE-08 user config.toml, project config.toml, project settings.json in order with labels", () => {
    const s = sandbox();
    s.write(join(s.agentHome, "config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "u1" }, { command = "u2" }]\n`);
    s.write(join(s.project, ".agent/config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "p1" }]\n`);
    s.write(join(s.project, ".agent/settings.json"), JSON.stringify({ hooks: { lifecycle: { pre_tool_use: [{ hooks: [{ command: "p2" }] }] } } }));
    const specs = lifecycle(loadConfig(s.runtime, { cwd: s.project }).hooks);
    expect(specs.map((h) => [h.command, h.scope, h.label])).toEqual([
      ["u1", "user", "pre_tool_use[0].hooks[0]"],
      ["u2", "user", "pre_tool_use[0].hooks[1]"],
      ["p1", "project", "pre_tool_use[0].hooks[0]"],
      ["p2", "project", "settings.json:pre_tool_use[0].hooks[0]"],
    ]);
  });

  test("LIFE-14 CLI-15 a matcher that does not compile skips its group with the regex error", () => {
    const { specs, loaded, file } = load(
      `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "("\nhooks = [{ command = "a" }]\n[[hooks.lifecycle.pre_tool_use]]\nmatcher = "["\nhooks = [{ command = "b" }]\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "c" }]\n`,
    );
    expect(specs.map((s) => s.command)).toEqual(["c"]);
    expect(loaded.warnings.map((w) => [w.file, w.field])).toEqual([
      [file, "hooks.lifecycle.pre_tool_use[0].matcher"],
      [file, "hooks.lifecycle.pre_tool_use[1].matcher"],
    ]);
    expect(loaded.warnings[0]?.message).toContain("invalid regex");
  });

  test("LIFE-15 user_prompt_submit matchers compile with dotAll", () => {
    const { specs } = load(
      `[[hooks.lifecycle.user_prompt_submit]]\nmatcher = ".*security.*"\nhooks = [{ command = "x" }]\n[[hooks.lifecycle.pre_tool_use]]\nmatcher = "B.*"\nhooks = [{ command = "y" }]\n`,
    );
    expect(specs[0]?.matcherRegex?.flags).toBe("s");
    expect(specs[0]?.matcherRegex?.source).toBe("^(?:.*security.*)$");
    expect(specs[1]?.matcherRegex?.flags).toBe("");
  });

  test("LIFE-46 failure_policy block only on pre_tool_use, user_prompt_submit and permission_request", () => {
    for (const key of ["pre_tool_use", "user_prompt_submit", "permission_request", "PreToolUse"]) {
      const { specs, loaded } = load(`[[hooks.lifecycle.${key}]]\nhooks = [{ command = "x", failure_policy = "block" }]\n`);
      expect(loaded.warnings).toEqual([]);
      expect(specs[0]?.failurePolicy).toBe("block");
    }
    for (const key of ["post_tool_use", "stop", "session_start"]) {
      const { specs, loaded } = load(`[[hooks.lifecycle.${key}]]\nhooks = [{ command = "x", failure_policy = "block" }]\n`);
      expect(specs).toEqual([]);
      expect(loaded.warnings[0]?.field).toBe(`hooks.lifecycle.${key}[0].hooks[0].failure_policy`);
    }
    expect(load(`[[hooks.lifecycle.stop]]\nhooks = [{ command = "x" }]\n`).specs[0]?.failurePolicy).toBe("warn");
    expect(load(`[[hooks.lifecycle.stop]]\nhooks = [{ command = "x", failure_policy = "fail" }]\n`).specs[0]?.failurePolicy).toBe("fail");
  });

  test("LIFE-66 protocol action switches the dialect; envelope is rejected", () => {
    expect(load(`[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "x", protocol = "action" }]\n`).specs[0]?.dialect).toBe("action");
    const { specs, loaded } = load(`[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "x", protocol = "envelope" }]\n`);
    expect(specs).toEqual([]);
    expect(loaded.warnings[0]?.field).toBe("hooks.lifecycle.pre_tool_use[0].hooks[0].protocol");
  });

  test("LIFE-72 unknown command key loads with the default; list key and bad protocol are skipped", () => {
    const { specs, loaded } = load(
      `[hooks.lifecycle]\nquiet_success_output = true\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "a", timout_seconds = 5 }, { command = "c", protocol = "yaml" }]\n[[hooks.lifecycle.before_tool]]\nhooks = [{ command = "b" }]\n`,
    );
    expect(specs.map((s) => [s.command, s.timeoutMs])).toEqual([["a", 60000]]);
    // makes an unknown command key a warning (D23 said error); the other two stay errors.
    expect(loaded.warnings.map((w) => [w.severity, w.field])).toEqual([
      ["warning", "hooks.lifecycle.pre_tool_use[0].hooks[0].timout_seconds"],
      ["error", "hooks.lifecycle.pre_tool_use[0].hooks[1].protocol"],
      ["error", "hooks.lifecycle.before_tool"],
    ]);
    expect(loaded.warnings[2]?.message).toContain("hooks.before_tool");
    expect(loaded.settings.hooks.quietSuccessOutput).toBe(true);
  });

  test("PLUS-09 a disabled lifecycle command stays listed as disabled without warning", () => {
    const { specs, loaded } = load(`[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "./x.sh", disabled = true }, { command = "./y.sh" }]\n`);
    expect(loaded.warnings).toEqual([]);
    expect(specs.map((s) => [s.command, s.disabled])).toEqual([
      ["./x.sh", true],
      ["./y.sh", false],
    ]);
  });

  test("PLUS-10 lifecycle timeout_seconds = 601 names the file, field and bound", () => {
    const { specs, loaded, file } = load(`[[hooks.lifecycle.stop]]\nhooks = [{ command = "x", timeout_seconds = 601 }]\n`);
    expect(specs).toEqual([]);
    expect(loaded.warnings.map((w) => [w.file, w.field])).toEqual([[file, "hooks.lifecycle.stop[0].hooks[0].timeout_seconds"]]);
    expect(loaded.warnings[0]?.message).toBe("601 is out of range 1..600; skipped");
  });

  test("LIFE-60 stop_block_cap: default 8, valid values apply, 0 warns and 8 applies", () => {
    expect(load("").loaded.settings.hooks.stopBlockCap).toBe(8);
    expect(load(`[hooks]\nstop_block_cap = 2\n`).loaded.settings.hooks.stopBlockCap).toBe(2);
    const zero = load(`[hooks]\nstop_block_cap = 0\n`);
    expect(zero.loaded.settings.hooks.stopBlockCap).toBe(8);
    expect(zero.loaded.warnings.map((w) => w.field)).toEqual(["hooks.stop_block_cap"]);
  });

  test("LIFE-10 LIFE-11 empty lifecycle tables define nothing and need no trust", () => {
    const { loaded } = load(`[hooks.lifecycle]\n`);
    expect(loaded.hooks).toEqual([]);
    expect(loaded.projectTrustMaterial).toBeNull();
  });

  test("CLI-15 a TOML syntax error is reported as file:line:col", () => {
    const { loaded, file } = load(`[hooks]\nenabled = true\nbroken = [\n`);
    expect(loaded.warnings.length).toBe(1);
    expect(loaded.warnings[0]?.file).toBe(file);
    expect(loaded.warnings[0]?.message).toMatch(/^\d+:\d+: could not parse TOML/);
  });
});
