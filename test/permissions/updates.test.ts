import { describe, expect, test } from "bun:test";
import { callOf } from "../support/calls.ts";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decideGate, EMPTY_RULES } from "../../src/permissions/gate.ts";
import { applyPermissionUpdates } from "../../src/permissions/updates.ts";
import type { PermissionRuleUpdate } from "../../src/hooks/dialects/types.ts";
import { createRuntime } from "../../src/runtime/index.ts";

const runtime = createRuntime();
const project = () => mkdtempSync(join(tmpdir(), "agent-perm-"));

function addRules(
  ruleContent: string | undefined,
  destination: PermissionRuleUpdate["destination"],
  behavior: PermissionRuleUpdate["behavior"] = "allow",
): PermissionRuleUpdate {
  return { type: "addRules", rules: [ruleContent === undefined ? { toolName: "Bash" } : { toolName: "Bash", ruleContent }], behavior, destination };
}

describe("permission updates (LIFE-57, LOOP-14)", () => {
  test("LIFE-57 session destination adds in-memory rules that later calls pass", () => {
    const dir = project();
    const result = applyPermissionUpdates({ runtime, projectDir: dir, session: EMPTY_RULES, updates: [addRules("git status*", "session")] });
    expect(result.warnings).toEqual([]);
    expect(result.projectSettingsPath).toBeNull();
    expect(result.session.allow.map((r) => r.text)).toEqual(["bash(git status*)"]);
    expect(EMPTY_RULES.allow).toHaveLength(0); // input never mutated
    expect(decideGate({ mode: "default", rules: result.session, call: callOf("bash", { command: "git status -s" }) }).decision).toBe("allow");
    expect(existsSync(join(dir, ".agent"))).toBe(false);
    // Applying the same rule again does not duplicate it.
    const again = applyPermissionUpdates({ runtime, projectDir: dir, session: result.session, updates: [addRules("git status*", "session")] });
    expect(again.session.allow).toHaveLength(1);
  });

  test("LIFE-57 LOOP-14 projectSettings creates <project>/.agent/settings.json with permissions.allow", () => {
    const dir = project();
    const result = applyPermissionUpdates({ runtime, projectDir: dir, session: EMPTY_RULES, updates: [addRules("npm test", "projectSettings")] });
    expect(result.warnings).toEqual([]);
    const path = join(dir, ".agent", "settings.json");
    expect(result.projectSettingsPath).toBe(path);
    expect(result.projectRulesAdded).toEqual(["bash(npm test)"]);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ permissions: { allow: ["bash(npm test)"] } });
    expect(result.session.allow).toHaveLength(0);
  });

  test("LIFE-57 projectSettings merges into an existing file, keeps other keys and skips duplicates; arrays of entries accepted", () => {
    const dir = project();
    mkdirSync(join(dir, ".agent"));
    const path = join(dir, ".agent", "settings.json");
    writeFileSync(path, JSON.stringify({ hooks: { enabled: true }, permissions: { allow: ["read"], deny: ["bash(rm *)"], mode: "default" } }));
    const result = applyPermissionUpdates({
      runtime,
      projectDir: dir,
      session: EMPTY_RULES,
      updates: [addRules("git status*", "projectSettings"), addRules("rm *", "projectSettings", "deny"), addRules("curl *", "projectSettings", "ask")],
    });
    expect(result.projectRulesAdded).toEqual(["bash(git status*)", "bash(curl *)"]);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      hooks: { enabled: true },
      permissions: { allow: ["read", "bash(git status*)"], deny: ["bash(rm *)"], mode: "default", ask: ["bash(curl *)"] },
    });
    // Nothing new: the file is not rewritten and no re-pin is needed.
    const again = applyPermissionUpdates({ runtime, projectDir: dir, session: EMPTY_RULES, updates: [addRules("git status*", "projectSettings")] });
    expect(again.projectSettingsPath).toBeNull();
    expect(again.projectRulesAdded).toEqual([]);
  });

  test("LIFE-57 userSettings is a warning and that entry is ignored; other entries still apply", () => {
    const dir = project();
    const result = applyPermissionUpdates({
      runtime,
      projectDir: dir,
      session: EMPTY_RULES,
      updates: [addRules("ls", "userSettings"), addRules("pwd", "session"), { type: "setMode", rules: [], behavior: "allow", destination: "session" }],
    });
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toContain("userSettings");
    expect(result.warnings[1]).toContain("setMode");
    expect(result.session.allow.map((r) => r.text)).toEqual(["bash(pwd)"]);
    expect(existsSync(join(dir, ".agent"))).toBe(false);
  });

  test("LIFE-57 unknown tools and broken settings files are warnings, never thrown, never overwritten", () => {
    const dir = project();
    mkdirSync(join(dir, ".agent"));
    const path = join(dir, ".agent", "settings.json");
    writeFileSync(path, "{ not json");
    const result = applyPermissionUpdates({
      runtime,
      projectDir: dir,
      session: EMPTY_RULES,
      updates: [
        { type: "addRules", rules: [{ toolName: "mcp__x", ruleContent: "y" }], behavior: "allow", destination: "session" },
        addRules(undefined, "projectSettings"),
      ],
    });
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toContain("mcp__x");
    expect(result.warnings[1]).toContain(path);
    expect(result.warnings[1]).toContain("invalid JSON");
    expect(result.projectSettingsPath).toBeNull();
    expect(readFileSync(path, "utf8")).toBe("{ not json");

    writeFileSync(path, JSON.stringify({ permissions: { allow: "bash" } }));
    const bad = applyPermissionUpdates({ runtime, projectDir: dir, session: EMPTY_RULES, updates: [addRules("x", "projectSettings")] });
    expect(bad.warnings[0]).toContain("permissions.allow");
  });

  test("LIFE-57 a write failure is a warning", () => {
    const dir = project();
    const failing = {
      fs: {
        ...runtime.fs,
        writeText(): void {
          throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
        },
      },
    };
    const result = applyPermissionUpdates({ runtime: failing, projectDir: dir, session: EMPTY_RULES, updates: [addRules("x", "projectSettings")] });
    expect(result.projectSettingsPath).toBeNull();
    expect(result.projectRulesAdded).toEqual([]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("settings.json");
    expect(result.warnings[0]).toContain("EACCES");
  });
});
