import { describe, expect, test } from "bun:test";
import {
  findCoveringRule,
  findHoldingRule,
  matchPattern,
  parseRule,
  parseRules,
  ruleHolds,
  ruleNeverMatches,
  ruleSubject,
} from "../../src/permissions/rules.ts";
import { callOf, PLACE } from "../support/calls.ts";

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
    expect(ruleHolds(rule("task(rev*)"), callOf("task", { subagent_type: "reviewer", prompt: "p" }))).toBe(true);
    expect(ruleHolds(rule("bash(*)"), callOf("read", { command: "x" }))).toBe(false);
    expect(ruleHolds(rule("Bash"), callOf("bash", { command: "anything at all" }))).toBe(true);
    expect(findHoldingRule([rule("bash(ls*)"), rule("bash(rm *)")], callOf("bash", { command: "rm -rf x" }))?.text).toBe("bash(rm *)");
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

  const allows = (rules: string[], command: string): boolean => findCoveringRule(rules.map(rule), callOf("bash", { command })) !== undefined;
  const denies = (rules: string[], command: string): boolean => findHoldingRule(rules.map(rule), callOf("bash", { command })) !== undefined;

  test("D27 an allow rule covers a bash call only when it covers every simple command", () => {
    for (const walk of [
      "ls; touch X",
      "ls && touch X",
      "ls || touch X",
      "ls $(touch X)",
      "ls `touch X`",
      "ls\ntouch X",
      "ls | sh -c 'touch X'",
      "ls & touch X",
      'ls "$(touch X)"',
      "ls <(touch X)",
      "ls > out.txt",
      "LD_PRELOAD=x.so ls",
      "for f in *; do ls; done",
      "ls <<EOF\nx\nEOF",
    ]) {
      expect(`${JSON.stringify(walk)} ${allows(["bash(ls*)"], walk)}`).toBe(`${JSON.stringify(walk)} false`);
    }
    for (const fine of ["ls", "ls -la", "ls -la src", "ls 2>/dev/null", "ls 2>&1", "ls | ls"])
      expect(`${fine} ${allows(["bash(ls*)"], fine)}`).toBe(`${fine} true`);
    // Two rules together cover a pipeline; a bare `bash` covers anything.
    expect(allows(["bash(ls*)", "bash(grep *)"], "ls -la | grep ts")).toBe(true);
    expect(allows(["bash"], "for f in *; do rm $f; done")).toBe(true);
  });

  test("D27 a deny rule holds for any simple command, however the command word is spelled", () => {
    for (const walk of [
      "true; rm -f x",
      " rm -f x",
      "\\rm -f x",
      '"rm" -f x',
      "'rm' -f x",
      "command rm -f x",
      "builtin rm -f x",
      "exec rm -f x",
      "env rm -f x",
      "env -i FOO=1 rm -f x",
      "/bin/rm -f x",
      "./rm -f x",
      "ls $(rm -f x)",
      "echo `rm -f x`",
      "sh -c 'rm -f x'",
      'bash -lc "rm -f x"',
      "eval rm -f x",
      "find . -exec rm -f {} \\;",
      "ls | xargs rm -f",
      "nohup rm -f x",
      "timeout 5 rm -f x",
      "(cd a && rm -f x)",
    ]) {
      expect(`${JSON.stringify(walk)} ${denies(["bash(rm *)"], walk)}`).toBe(`${JSON.stringify(walk)} true`);
    }
    // The legitimate neighbours stay allowed.
    expect(denies(["bash(rm *)"], "ls -la")).toBe(false);
    expect(denies(["bash(rm *)"], "echo rm -f x")).toBe(false);
    expect(denies(["bash(rm *)"], "grep -r 'rm -f' .")).toBe(false);
  });

  test("D27 Claude Code's prefix spelling `Bash(git status:*)` matches the prefix as whole words", () => {
    expect(rule("Bash(git status:*)")).toEqual({ tool: "bash", pattern: "git status", prefix: true, text: "Bash(git status:*)" });
    expect(allows(["Bash(git status:*)"], "git status")).toBe(true);
    expect(allows(["Bash(git status:*)"], "git status -s")).toBe(true);
    expect(allows(["Bash(git status:*)"], "git statusx")).toBe(false);
    expect(allows(["Bash(git status:*)"], "git status; rm x")).toBe(false);
    expect(denies(["Bash(rm:*)"], "ls && /bin/rm -rf y")).toBe(true);
  });

  test("D27 path rules match the resolved path: `..` and `./` never walk out of or around a rule", () => {
    const p = (tool: "read" | "write", file_path: string) => callOf(tool, { file_path, content: "" });
    const cover = (text: string, tool: "read" | "write", path: string) => findCoveringRule([rule(text)], p(tool, path)) !== undefined;
    const hold = (text: string, tool: "read" | "write", path: string) => ruleHolds(rule(text), p(tool, path));
    expect(cover("write(docs/*)", "write", "docs/a.md")).toBe(true);
    expect(cover("write(docs/*)", "write", `${PLACE.projectDir}/docs/a.md`)).toBe(true);
    expect(cover("write(docs/*)", "write", "docs/../.agent/notes.md")).toBe(false);
    expect(cover("write(./docs/*)", "write", "./docs/a.md")).toBe(true);
    expect(hold("read(.git/*)", "read", "./.git/config")).toBe(true);
    expect(hold("read(.git/*)", "read", "src/../.git/config")).toBe(true);
    expect(hold("read(~/.ssh/*)", "read", `${PLACE.home}/.ssh/id_rsa`)).toBe(true);
    expect(hold("read(//etc/*)", "read", "/etc/passwd")).toBe(true);
    expect(hold("read(*)", "read", "/anything")).toBe(true);
  });

  test("D27 a rule that can never match is named, with the reason", () => {
    expect(ruleNeverMatches(rule("bash(ls; rm*)"))).toContain("one rule per command");
    expect(ruleNeverMatches(rule("bash(npm test && npm run lint)"))).toContain("one rule per command");
    expect(ruleNeverMatches(rule("bash(echo $(date))"))).toContain("substitution");
    expect(ruleNeverMatches(rule("bash(git:* status)"))).toContain("`:*`");
    expect(ruleNeverMatches(rule("write(docs/)"))).toContain("dir/*");
    for (const fine of ["bash(ls*)", "Bash(git status:*)", "bash(echo 'a;b')", "write(docs/*)", "read", "mcp__s"])
      expect(ruleNeverMatches(rule(fine))).toBeNull();
  });
});
