import { describe, expect, test } from "bun:test";
import { callOf } from "../support/calls.ts";
import { decideGate, nonInteractiveDenial, permissionRequestInfo, permissionSuggestions } from "../../src/permissions/gate.ts";
import type { RuleSet } from "../../src/permissions/rules.ts";
import type { PermissionMode as Mode } from "../../src/permissions/mode.ts";
import { CLAUDE_PERMISSION_MODES } from "../../src/hooks/dialects/claude.ts";
import { parseRules } from "../../src/permissions/rules.ts";
import type { ToolName } from "../../src/tools/names.ts";

function rules(spec: { allow?: string[]; ask?: string[]; deny?: string[] } = {}): RuleSet {
  const build = (texts: string[] = []) => {
    const parsed = parseRules(texts);
    expect(parsed.errors).toEqual([]);
    return parsed.rules;
  };
  return { allow: build(spec.allow), ask: build(spec.ask), deny: build(spec.deny) };
}

const MODES: Mode[] = ["default", "accept-edits", "readonly", "bypass"];
const INPUTS: Record<ToolName, Record<string, unknown>> = {
  read: { file_path: "a.txt" },
  grep: { pattern: "x", path: "." },
  glob: { pattern: "*.ts" },
  write: { file_path: "b.txt", content: "x" },
  edit: { file_path: "b.txt", old_string: "x", new_string: "y" },
  bash: { command: "touch x" },
  task: { description: "d", prompt: "p" },
  bash_output: { bash_id: "bash_1" },
  kill_shell: { shell_id: "bash_1" },
  todo_write: { todos: [] },
  multi_edit: { file_path: "b.txt", edits: [{ old_string: "x", new_string: "y" }] },
  apply_patch: { input: "*** Begin Patch\n*** Delete File: b.txt\n*** End Patch" },
  web_fetch: { url: "https://docs.example.com/" },
};

describe("permission gate (D24)", () => {
  test("LOOP-44 mode defaults with no rules match the D24 table", () => {
    const expected: Record<Mode, Record<ToolName, string>> = {
      // Bash_output reads like read; kill_shell is judged like bash.
      default: {
        read: "allow",
        grep: "allow",
        glob: "allow",
        write: "ask",
        edit: "ask",
        bash: "ask",
        task: "ask",
        bash_output: "allow",
        kill_shell: "ask",
        todo_write: "allow",
        multi_edit: "ask",
        apply_patch: "ask",
        web_fetch: "allow",
      },
      "accept-edits": {
        read: "allow",
        grep: "allow",
        glob: "allow",
        write: "allow",
        edit: "allow",
        bash: "ask",
        task: "ask",
        bash_output: "allow",
        kill_shell: "ask",
        todo_write: "allow",
        multi_edit: "allow",
        apply_patch: "allow",
        web_fetch: "allow",
      },
      readonly: {
        read: "allow",
        grep: "allow",
        glob: "allow",
        write: "deny",
        edit: "deny",
        bash: "deny",
        task: "deny",
        bash_output: "allow",
        kill_shell: "deny",
        todo_write: "allow",
        multi_edit: "deny",
        apply_patch: "deny",
        web_fetch: "allow",
      },
      bypass: {
        read: "allow",
        grep: "allow",
        glob: "allow",
        write: "allow",
        edit: "allow",
        bash: "allow",
        task: "allow",
        bash_output: "allow",
        kill_shell: "allow",
        todo_write: "allow",
        multi_edit: "allow",
        apply_patch: "allow",
        web_fetch: "allow",
      },
    };
    for (const mode of MODES) {
      for (const [tool, input] of Object.entries(INPUTS) as [ToolName, Record<string, unknown>][]) {
        const decision = decideGate({ mode, rules: rules(), call: callOf(tool, input) });
        expect(`${mode}/${tool}/${decision.decision}`).toBe(`${mode}/${tool}/${expected[mode][tool]}`);
      }
    }
  });

  test("LOOP-44 a deny rule holds in every mode, bypass included", () => {
    for (const mode of MODES) {
      const decision = decideGate({ mode, rules: rules({ deny: ["bash(rm *)"] }), call: callOf("bash", { command: "rm x" }) });
      expect(decision).toEqual({ decision: "deny", reason: "denied by permission rule bash(rm *)", rule: "bash(rm *)" });
    }
  });

  test("LOOP-07 D8 a hook allow never overrides a deny rule; the message names the rule", () => {
    const decision = decideGate({
      mode: "default",
      rules: rules({ deny: ["bash(rm *)"], allow: ["bash(rm *)"] }),
      call: callOf("bash", { command: "rm -rf x" }),
      hookDecision: "allow",
    });
    expect(decision.decision).toBe("deny");
    expect(decision.reason).toContain("bash(rm *)");
    expect(decision.rule).toBe("bash(rm *)");
  });

  test("LOOP-08 D8 a hook allow allows without asking, but a configured ask rule still asks", () => {
    expect(decideGate({ mode: "default", rules: rules(), call: callOf("bash", { command: "ls" }), hookDecision: "allow" }).decision).toBe("allow");
    const asked = decideGate({ mode: "default", rules: rules({ ask: ["bash(ls*)"] }), call: callOf("bash", { command: "ls" }), hookDecision: "allow" });
    expect(asked).toEqual({
      decision: "ask",
      reason: "permission rule bash(ls*) asks for approval",
      rule: "bash(ls*)",
      because: "permission rule bash(ls*) asks for approval",
    });
    // No hook opinion (a hook dir's "allow" is only "no objection"): the mode default asks.
    expect(decideGate({ mode: "default", rules: rules(), call: callOf("bash", { command: "touch x" }) }).decision).toBe("ask");
  });

  test("LOOP-10 a hook ask beats an --allow rule", () => {
    const decision = decideGate({ mode: "default", rules: rules({ allow: ["bash(ls*)"] }), call: callOf("bash", { command: "ls" }), hookDecision: "ask" });
    expect(decision.decision).toBe("ask");
    expect(decideGate({ mode: "default", rules: rules({ allow: ["bash(ls*)"] }), call: callOf("bash", { command: "ls" }) }).decision).toBe("allow");
  });

  test("D24 in bypass mode an ask rule or a hook ask allows; in readonly an ask never happens for mutating tools", () => {
    expect(decideGate({ mode: "bypass", rules: rules({ ask: ["bash"] }), call: callOf("bash", { command: "ls" }) }).decision).toBe("allow");
    expect(decideGate({ mode: "bypass", rules: rules(), call: callOf("bash", { command: "ls" }), hookDecision: "ask" }).decision).toBe("allow");
    const ro = decideGate({ mode: "readonly", rules: rules({ ask: ["write"], allow: ["write"] }), call: callOf("write", INPUTS.write), hookDecision: "allow" });
    expect(ro.decision).toBe("deny");
    expect(ro.reason).toContain("readonly");
    // An ask rule still asks for a read-only tool in readonly mode.
    expect(decideGate({ mode: "readonly", rules: rules({ ask: ["read(secret*)"] }), call: callOf("read", { file_path: "secret.txt" }) }).decision).toBe("ask");
  });

  test("LIFE-54 LOOP-11 the gate asks (so permission_request fires) only when a person would be asked", () => {
    expect(decideGate({ mode: "default", rules: rules(), call: callOf("bash", { command: "rm x" }) }).decision).toBe("ask");
    expect(decideGate({ mode: "default", rules: rules({ allow: ["bash(ls*)"] }), call: callOf("bash", { command: "ls" }) }).decision).toBe("allow");
    expect(decideGate({ mode: "bypass", rules: rules(), call: callOf("bash", { command: "rm x" }) }).decision).toBe("allow");
    expect(decideGate({ mode: "default", rules: rules({ deny: ["bash(ls*)"] }), call: callOf("bash", { command: "ls" }) }).decision).toBe("deny");
    expect(decideGate({ mode: "readonly", rules: rules(), call: callOf("write", INPUTS.write) }).decision).toBe("deny");
  });

  test("D24 accept-edits allow rules and aliases in rules apply to the canonical tool", () => {
    const set = rules({ allow: ["Shell(npm test)"] });
    expect(decideGate({ mode: "accept-edits", rules: set, call: callOf("bash", { command: "npm test" }) })).toEqual({
      decision: "allow",
      reason: "allowed by permission rule Shell(npm test)",
      rule: "Shell(npm test)",
    });
    expect(decideGate({ mode: "accept-edits", rules: set, call: callOf("bash", { command: "npm test -- -x" }) }).decision).toBe("ask");
  });

  test("LIFE-22 claude permission_mode names", () => {
    expect(MODES.map((mode) => CLAUDE_PERMISSION_MODES[mode])).toEqual(["default", "acceptEdits", "plan", "bypassPermissions"]);
  });

  test("LIFE-28 LOOP-12 permission_request info and suggestions as updatedPermissions entries", () => {
    expect(permissionRequestInfo("bash", { command: "rm -rf build" })).toEqual({ tool_name: "Bash", kind: "bash", details: "rm -rf build" });
    expect(permissionRequestInfo("write", { file_path: "a.txt", content: "x" })).toEqual({ tool_name: "Write", kind: "write", details: "a.txt" });
    expect(permissionRequestInfo("edit", { file_path: "b.ts" }).kind).toBe("edit");
    expect(permissionRequestInfo("read", { file_path: "c" }).kind).toBe("read");
    expect(permissionRequestInfo("task", { subagent_type: "reviewer", description: "check" })).toEqual({
      tool_name: "Task",
      kind: "other",
      details: "reviewer: check",
    });
    expect(permissionRequestInfo("grep", { pattern: "x", path: "src" })).toEqual({ tool_name: "Grep", kind: "other", details: "x in src" });

    expect(permissionSuggestions(callOf("bash", { command: "git status -s" }))).toEqual([
      { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "git status -s" }], behavior: "allow", destination: "session" },
      { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "git status:*" }], behavior: "allow", destination: "session" },
    ]);
    expect(permissionSuggestions(callOf("bash", { command: "ls" })).map((s) => s.rules[0]?.ruleContent)).toEqual(["ls"]);
    // One rule per simple command: a rule spanning `&&` could never match.
    expect(permissionSuggestions(callOf("bash", { command: "npm run build && npm test" })).map((s) => s.rules.map((r) => r.ruleContent))).toEqual([
      ["npm run build", "npm test"],
      ["npm run:*", "npm test:*"],
    ]);
    // Nothing a rule could cover: no suggestion to save.
    expect(permissionSuggestions(callOf("bash", { command: "for f in *; do rm $f; done" }))).toEqual([]);
    expect(permissionSuggestions(callOf("write", { file_path: "out/a.txt", content: "" }))).toEqual([
      { type: "addRules", rules: [{ toolName: "Write", ruleContent: "out/a.txt" }], behavior: "allow", destination: "session" },
    ]);
  });

  test("LOOP-13 non-interactive denial names the exact --allow", () => {
    const message = nonInteractiveDenial(callOf("bash", { command: "rm -rf build" }));
    expect(message).toContain("needs approval");
    expect(message).toContain("non-interactive");
    expect(message).toContain("--allow 'bash(rm -rf build)'");
    expect(message).not.toContain("\n");
    expect(nonInteractiveDenial(callOf("bash", { command: `echo "it's"` }))).toContain(`--allow 'bash(echo it'\\''s)'`);
    // A redirection writes a file no rule can name: approve it in a session instead.
    expect(nonInteractiveDenial(callOf("bash", { command: "echo hi > f" }))).toContain("approve it in an interactive session");
    expect(nonInteractiveDenial(callOf("write", { file_path: "x.txt" }))).toContain("--allow 'write(x.txt)'");
    // A hook's question is answered with its own reason.
    expect(nonInteractiveDenial(callOf("bash", { command: "ls" }), "the deploy guard wants a person")).toContain("(the deploy guard wants a person)");
  });

  test("D27 read-only commands are allowed in default, accept-edits and readonly mode without a question; anything more asks", () => {
    const gate = (command: string, mode: Mode = "default") => decideGate({ mode, rules: rules(), call: callOf("bash", { command }) });
    for (const command of [
      "ls -la",
      "cat README.md",
      "pwd",
      "git status",
      "git diff HEAD~1",
      "git log --oneline -5",
      "grep -rn foo src",
      "ls | wc -l",
      "head -5 a.txt && tail -5 a.txt",
      "find . -name '*.ts'",
      "ls 2>/dev/null",
    ]) {
      expect(`${command}: ${gate(command).decision}`).toBe(`${command}: allow`);
      expect(gate(command, "accept-edits").decision).toBe("allow");
    }
    for (const command of [
      "ls > out.txt",
      "ls $(touch x)",
      "cat `rm x`",
      "ls; touch x",
      "find . -delete",
      "find . -exec rm {} \\;",
      "sort -o out a",
      "sort -ro out a",
      "git push",
      "git -c core.pager=x log",
      "git diff --output=x",
      "rg --pre ./x foo",
      "./ls",
      "PATH=. ls",
      "date -s 2020-01-01",
      "for f in *; do ls; done",
    ]) {
      expect(`${command}: ${gate(command).decision}`).toBe(`${command}: ask`);
    }
    // Read-only commands are what a readonly session is for; anything more is denied there.
    expect(gate("git log -3", "readonly").decision).toBe("allow");
    expect(gate("touch x", "readonly").decision).toBe("deny");
  });

  test("D28 writes into $AGENT_HOME are denied; into .git/, .agent/, .claude/ they ask in every mode unless a rule names them", () => {
    const write = (file_path: string, mode: Mode, allow: string[] = []) =>
      decideGate({ mode, rules: rules({ allow }), call: callOf("write", { file_path, content: "x" }) });
    for (const mode of ["default", "accept-edits", "bypass"] as Mode[]) {
      expect(write(".agent/hooks/x/hook.json", mode).decision).toBe("ask");
      expect(write(".git/hooks/pre-commit", mode).decision).toBe("ask");
      expect(write("sub/../.git/config", mode).decision).toBe("ask");
      expect(write(".claude/settings.json", mode).decision).toBe("ask");
      expect(write("/nonexistent-home/.agent/config.toml", mode, ["write"]).decision).toBe("deny");
    }
    expect(write(".agent/notes.md", "accept-edits", ["write(.agent/notes.md)"]).decision).toBe("allow");
    // A rule that does not name the directory does not open it.
    expect(write(".agent/notes.md", "accept-edits", ["write(*)"]).decision).toBe("ask");
    expect(write("docs/a.md", "accept-edits").decision).toBe("allow");
    expect(write(".github/workflows/ci.yml", "accept-edits").decision).toBe("allow");
  });

  test("D28 multi_edit and apply_patch are judged by the files they write; an edit rule covers them as in Claude Code", () => {
    const patch = (path: string) => `*** Begin Patch\n*** Add File: ${path}\n+x\n*** End Patch`;
    const applyPatch = (path: string, mode: Mode, spec: { allow?: string[]; deny?: string[] } = {}) =>
      decideGate({ mode, rules: rules(spec), call: callOf("apply_patch", { input: patch(path) }) }).decision;
    expect(applyPatch(".git/hooks/pre-commit", "bypass")).toBe("ask");
    expect(applyPatch("src/../.agent/x", "accept-edits")).toBe("ask");
    expect(applyPatch("src/a.ts", "accept-edits")).toBe("allow");
    expect(applyPatch("src/a.ts", "default", { allow: ["edit(src/*)"] })).toBe("allow");
    expect(applyPatch("secrets/a", "bypass", { deny: ["edit(secrets/*)"] })).toBe("deny");
    const multi = decideGate({
      mode: "bypass",
      rules: rules({ deny: ["edit(secrets/*)"] }),
      call: callOf("multi_edit", { file_path: "x/../secrets/k", edits: [] }),
    });
    expect(multi.decision).toBe("deny");
  });
});
