import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { checkCommandTargets, referencedFiles, tokenizeCommand } from "../../src/hooks/shell/command-words.ts";
import { sandbox, SCRIPT } from "./fixture.ts";

describe("command words", () => {
  test("SEC-32 project-dir variables expand, quotes are removed, only existing files inside the project count", () => {
    const s = sandbox();
    const p = s.project;
    for (const f of [".agent/hooks/check.sh", ".agent/hooks/c2.sh", "scripts/audit.py", "scripts/v.sh"]) s.write(join(p, f), SCRIPT, 0o755);
    s.write(join(s.root, "outside.sh"), SCRIPT, 0o755);
    const fs = s.runtime.fs;
    expect(referencedFiles(`"$AGENT_PROJECT_DIR"/.agent/hooks/check.sh`, p, p, fs)).toEqual([join(p, ".agent/hooks/check.sh")]);
    expect(referencedFiles(`$CLAUDE_PROJECT_DIR/.agent/hooks/c2.sh --flag`, p, p, fs)).toEqual([join(p, ".agent/hooks/c2.sh")]);
    expect(referencedFiles(`\${VT_PROJECT_DIR}/scripts/v.sh`, p, p, fs)).toEqual([join(p, "scripts/v.sh")]);
    expect(referencedFiles(`python3 scripts/audit.py`, p, p, fs)).toEqual([join(p, "scripts/audit.py")]);
    expect(referencedFiles(`python3 'scripts/audit.py' | ../outside.sh; scripts/missing.sh`, p, p, fs)).toEqual([join(p, "scripts/audit.py")]);
    expect(referencedFiles(`run --config=scripts/v.sh`, p, join(p, "sub"), fs)).toEqual([join(p, "scripts/v.sh")]);
  });

  test("tokenizer keeps single-quoted text literal and marks other variables dynamic", () => {
    const tokens = tokenizeCommand(`echo '$AGENT_PROJECT_DIR' "$HOME/x" a\\ b>out`, "/p");
    expect(tokens.map((t) => [t.kind, t.text, t.dynamic])).toEqual([
      ["word", "echo", false],
      ["word", "$AGENT_PROJECT_DIR", false],
      ["word", "$HOME/x", true],
      ["word", "a b", false],
      ["op", ">", false],
      ["word", "out", false],
    ]);
  });

  test("CLI-14 TOOL-39 targets: missing, not executable, interpreter not on PATH, missing script", () => {
    const s = sandbox();
    const p = s.project;
    s.write(join(p, "scripts/a.py"), "print(1)\n");
    s.write(join(p, "scripts/plain.sh"), SCRIPT, 0o644);
    s.write(join(p, "scripts/ok.sh"), SCRIPT, 0o755);
    const pathValue = s.runtime.env().PATH ?? "/usr/bin:/bin";
    const check = (command: string) => checkCommandTargets(s.runtime, command, { projectDir: p, cwd: p, pathValue });
    expect(check("python9 scripts/a.py")).toEqual(["interpreter python9 not found on PATH"]);
    expect(check("sh scripts/missing.py")).toEqual([`not found: ${join(p, "scripts/missing.py")}`]);
    expect(check("$AGENT_PROJECT_DIR/.agent/hooks/missing.sh")).toEqual([`not found: ${join(p, ".agent/hooks/missing.sh")}`]);
    expect(check("./scripts/plain.sh")).toEqual([`not executable: ${join(p, "scripts/plain.sh")} (chmod +x)`]);
    expect(check("./scripts")).toEqual([`not a file: ${join(p, "scripts")}`]);
    expect(check("./scripts/ok.sh > /dev/null 2>&1 && echo done | sh")).toEqual([]);
    expect(check("FOO=1 $HOME/x.sh; echo hi >&2")).toEqual([]);
  });
});
