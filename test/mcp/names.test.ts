/**
 * MCP tool names in permission rules, the gate's mode defaults, and hook matching, without any
 * server running (`agent hooks test pre_tool --tool mcp__s__t` needs none either).
 */
import { describe, expect, test } from "bun:test";
import { callOf } from "../support/calls.ts";
import { decideGate, EMPTY_RULES } from "../../src/permissions/gate.ts";
import { parseRule, parseRules } from "../../src/permissions/rules.ts";
import { makeWorld } from "../support/cli.ts";
import { hookDir, hooksTestInProcess, toml } from "../hooks/harness.ts";

describe("MCP names in rules and the gate", () => {
  test("rule forms: server, exact tool, glob; a (pattern) is an error naming the fix", async () => {
    const { rules, errors } = parseRules(["mcp__github", "mcp__fs__read_file", "mcp__git*__*"]);
    expect(errors).toEqual([]);
    const allows = (tool: `mcp__${string}`): string | undefined => {
      const gate = decideGate({ mode: "default", rules: { ...EMPTY_RULES, allow: rules }, call: callOf(tool, {}) });
      return gate.decision === "allow" ? gate.rule : undefined;
    };
    expect(allows("mcp__github__create_issue")).toBe("mcp__github");
    expect(allows("mcp__fs__read_file")).toBe("mcp__fs__read_file");
    expect(allows("mcp__fs__write_file")).toBeUndefined();
    expect(allows("mcp__gitlab__merge")).toBe("mcp__git*__*");
    expect(allows("mcp__githubx__a")).toBe("mcp__git*__*");
    const bad = parseRule("mcp__fs__read_file(/etc/*)");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("MCP rules name tools only");
  });

  test("mode defaults treat MCP tools like bash; a deny rule wins in bypass", async () => {
    const tool = "mcp__s__t" as const;
    expect(decideGate({ mode: "default", rules: EMPTY_RULES, call: callOf(tool, {}) }).decision).toBe("ask");
    expect(decideGate({ mode: "accept-edits", rules: EMPTY_RULES, call: callOf(tool, {}) }).decision).toBe("ask");
    expect(decideGate({ mode: "readonly", rules: EMPTY_RULES, call: callOf(tool, {}) }).decision).toBe("deny");
    expect(decideGate({ mode: "bypass", rules: EMPTY_RULES, call: callOf(tool, {}) }).decision).toBe("allow");
    const deny = parseRules(["mcp__s__*"]).rules;
    expect(decideGate({ mode: "bypass", rules: { ...EMPTY_RULES, deny }, call: callOf(tool, {}) })).toMatchObject({ decision: "deny", rule: "mcp__s__*" });
  });

  test("agent hooks test pre_tool --tool mcp__s__t: every hook form selects the MCP name, no server needed", async () => {
    const world = makeWorld();
    hookDir(world, "user", "dir-glob", { event: "pre_tool", match: "mcp__s__*" }, `echo '{}'`);
    toml(
      world,
      "user",
      [
        "[[hooks.lifecycle.pre_tool]]",
        'matcher = "mcp__s__.*"',
        `hooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"deny\\",\\"permissionDecisionReason\\":\\"no s tools\\"}}'" }]`,
      ].join("\n"),
    );
    toml(
      world,
      "user",
      ["[hooks]", "enabled = true", "[[hooks.before_tool]]", 'label = "only-s"', 'command = "cat > /dev/null"', 'include_tools = ["mcp__s__t"]'].join("\n"),
    );
    const hit = await hooksTestInProcess(world, ["pre_tool", "--tool", "mcp__s__t", "--input", '{"q":"x"}']);
    expect(hit.code).toBe(2);
    expect(hit.json).toMatchObject({ tool: "mcp__s__t", decision: "deny", reason: "no s tools" });
    expect(hit.hooks.map((row) => row.form).sort()).toEqual(["dir", "lifecycle", "list"]);
    const miss = await hooksTestInProcess(world, ["pre_tool", "--tool", "mcp__other__t"]);
    expect(miss.code).toBe(0);
    expect(miss.hooks).toEqual([]);
  });
});
