import { describe, expect, test } from "bun:test";
import { findMatchingRule, matchPattern, parseRule, parseRules, ruleMatches, ruleSubject } from "../../src/permissions/rules.ts";

function rule(text: string) {
  const parsed = parseRule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.rule;
}

describe("permission rules (D24)", () => {
  test("D24 parses tool(pattern) and bare tool; aliases and case are canonicalised", () => {
    expect(rule("bash(rm *)")).toEqual({ tool: "bash", pattern: "rm *", text: "bash(rm *)" });
    expect(rule("Bash(git status*)")).toEqual({ tool: "bash", pattern: "git status*", text: "Bash(git status*)" });
    expect(rule("  SHELL(ls)  ").tool).toBe("bash");
    expect(rule("exec_command").tool).toBe("bash");
    expect(rule("HASH_EDIT(src/*)").tool).toBe("edit");
    expect(rule("APPLY_PATCH(*src/*)").tool).toBe("apply_patch");
    expect(rule("read")).toEqual({ tool: "read", pattern: null, text: "read" });
    expect(rule("parallel_subagents(reviewer)").tool).toBe("task");
    expect(rule("bash(echo (x))").pattern).toBe("echo (x)");
  });

  test("D24 invalid rules are error values naming the rule", () => {
    for (const text of ["mcp__fs(x)", "bash(rm *", "(ls)", "", "bash)x", "write_stdin"]) {
      const parsed = parseRule(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).toContain(JSON.stringify(text));
    }
    const { rules, errors } = parseRules(["bash(ls*)", "nope(x)", "read"]);
    expect(rules.map((r) => r.text)).toEqual(["bash(ls*)", "read"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('"nope(x)"');
  });

  test("D24 * matches any run including spaces; everything else literal; whole-field match", () => {
    expect(matchPattern("rm *", "rm -rf build")).toBe(true);
    expect(matchPattern("rm *", "rm ")).toBe(true);
    expect(matchPattern("rm *", "rm")).toBe(false);
    expect(matchPattern("rm *", "sudo rm -rf /")).toBe(false);
    expect(matchPattern("ls*", "ls")).toBe(true);
    expect(matchPattern("ls*", "ls -la /tmp")).toBe(true);
    expect(matchPattern("ls", "ls -la")).toBe(false);
    expect(matchPattern("*.ts", "src/a.ts")).toBe(true);
    expect(matchPattern("*.ts", "src/a.tsx")).toBe(false);
    expect(matchPattern("a.c", "abc")).toBe(false); // `.` is literal, not regex
    expect(matchPattern("[ab]", "a")).toBe(false);
    expect(matchPattern("[ab]", "[ab]")).toBe(true);
    expect(matchPattern("(x)+", "(x)+")).toBe(true);
    expect(matchPattern("*", "")).toBe(true);
    expect(matchPattern("", "")).toBe(true);
    expect(matchPattern("", "x")).toBe(false);
    expect(matchPattern("a*b*c", "abc")).toBe(true);
    expect(matchPattern("a*b*c", "axxbyyc")).toBe(true);
    expect(matchPattern("a*b*c", "axxcyyb")).toBe(false);
    expect(matchPattern("ab*ba", "aba")).toBe(false); // prefix and suffix may not overlap
    expect(matchPattern("*aab*", "xaaab")).toBe(true);
    expect(matchPattern("*abab*c", "ababac abababc")).toBe(true);
    expect(matchPattern("git status*", "git status -s")).toBe(true);
  });

  test("D24 subject field per tool; absent or non-string counts as empty", () => {
    expect(ruleSubject("bash", { command: "ls" })).toBe("ls");
    expect(ruleSubject("read", { file_path: "/a" })).toBe("/a");
    expect(ruleSubject("write", { file_path: "/b", content: "x" })).toBe("/b");
    expect(ruleSubject("edit", { file_path: "/c" })).toBe("/c");
    expect(ruleSubject("grep", { pattern: "x", path: "src" })).toBe("src");
    expect(ruleSubject("glob", { pattern: "*.ts" })).toBe("");
    expect(ruleSubject("task", { subagent_type: "reviewer" })).toBe("reviewer");
    expect(ruleSubject("bash", { command: 5 })).toBe("");
    expect(ruleMatches(rule("glob()"), "glob", {})).toBe(true);
    expect(ruleMatches(rule("task(rev*)"), "task", { subagent_type: "reviewer", prompt: "p" })).toBe(true);
    expect(ruleMatches(rule("bash(*)"), "read", { command: "x" })).toBe(false);
    expect(ruleMatches(rule("Bash"), "bash", { command: "anything at all" })).toBe(true);
    expect(findMatchingRule([rule("bash(ls*)"), rule("bash(rm *)")], "bash", { command: "rm -rf x" })?.text).toBe("bash(rm *)");
  });

  test("D24 matcher is linear: adversarial patterns finish", () => {
    const subject = "a".repeat(200_000);
    const pattern = `${"*a".repeat(2_000)}*b*`;
    expect(matchPattern(pattern, subject)).toBe(false);
    expect(matchPattern(`*${"a".repeat(1_000)}b*`, subject)).toBe(false);
    expect(matchPattern(`*${"a".repeat(1_000)}*`, subject)).toBe(true);
    // A backtracking matcher takes minutes here and would hit the test timeout; speed itself is
    // not asserted (the machine is shared).
  });
});
