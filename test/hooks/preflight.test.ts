import { describe, expect, test } from "bun:test";
import { preflight } from "../../src/hooks/shell/preflight.ts";
import { preflightMisses } from "../support/corpus-checks.ts";
import { preflightFixture } from "../support/fixtures.ts";

// Our own corpus (test/fixtures/preflight.jsonl, from scripts/gen-fixtures.ts).
const corpus = preflightFixture();

const rel = { absolutePaths: false };
const abs = { absolutePaths: true };

function ruleOf(command: string, options = abs): string | null {
  const result = preflight(command, options);
  return result.ok ? null : result.rule;
}

describe("preflight (D12)", () => {
  test("SEC-01 TOOL-37 every corpus line gets its expected verdict and rule; preflight is pure", () => {
    expect(corpus.length).toBeGreaterThan(80);
    expect(preflightMisses(corpus)).toEqual([]);
  });

  test("SEC-01 the corpus rejects by every rule and accepts under both absolute_paths settings", () => {
    const rules = new Set(corpus.flatMap((line) => (line.expect === "reject" && line.rule !== undefined ? [line.rule] : [])));
    expect([...rules].sort()).toEqual(["$", "..", "`", "absolute path", "cd", "control character", "{", "}", "~"].sort());
    for (const setting of [true, false]) {
      expect(corpus.filter((line) => line.absolute_paths === setting && line.expect === "accept").length).toBeGreaterThan(10);
    }
  });

  test("SEC-02 TOOL-32 expansion characters are rejected and named, even quoted or escaped", () => {
    expect(preflight("$HOME/scripts/x.sh", abs)).toEqual({ ok: false, rule: "$", detail: '"$" is not allowed' });
    expect(ruleOf("scripts/x.sh '$HOME'")).toBe("$");
    expect(ruleOf("scripts/x.sh \\$HOME")).toBe("$");
    expect(ruleOf('echo "$PWD"')).toBe("$");
    expect(ruleOf("~/scripts/x.sh")).toBe("~");
    expect(ruleOf("scripts/x.sh `id`")).toBe("`");
    expect(ruleOf("scripts/{a,b}.sh")).toBe("{");
    expect(ruleOf("./scripts/{audit,notify}.sh")).toBe("{");
    expect(ruleOf("scripts/x.sh {}")).toBe("{");
    expect(ruleOf("scripts/x.sh }")).toBe("}");
  });

  test("SEC-03 TOOL-36 C0 control characters are rejected; TAB and DEL pass", () => {
    for (const command of ["scripts/a.sh\r", "scripts/a.sh\n./b.sh", "scripts/a.sh\0", "scripts/a.sh\x1b[2K", "scripts/a.sh\x0b"]) {
      expect(preflight(command, abs)).toEqual({ ok: false, rule: "control character", detail: "control character is not allowed" });
    }
    expect(preflight("python3\tscripts/check.py", rel).ok).toBe(true);
    expect(preflight("scripts/a.sh\x7f", rel).ok).toBe(true);
  });

  test("SEC-04 TOOL-33 cd is rejected only as a whole word", () => {
    for (const command of ["cd scripts && ./hook.sh", "scripts/a.sh;cd /", "scripts/a.sh&&cd scripts", "(cd scripts)", "scripts/x.sh # cd"]) {
      expect(preflight(command, abs)).toEqual({ ok: false, rule: "cd", detail: "cd is not allowed" });
    }
    for (const command of [
      "scripts/abcd.sh",
      "./scripts/cdn.sh",
      "./cd.sh",
      "cd.sh",
      "python3 scripts/check.py --mode cdn",
      "python3 scripts/check.py --flag=cd",
    ]) {
      expect(preflight(command, rel).ok).toBe(true);
    }
  });

  test("SEC-05 quoted and escaped cd are still cd", () => {
    for (const command of ['"cd" scripts', "'cd' scripts", "c\\d scripts", "\\cd scripts"]) expect(ruleOf(command)).toBe("cd");
  });

  test("SEC-06 TOOL-34 .. only as a whole component of a word or of a suffix after =", () => {
    for (const command of [
      "../hooks/audit.sh",
      "scripts/../../etc/passwd",
      "scripts/..",
      "python3 scripts/x.py --out=../leak",
      "python3 scripts/x.py OUT=../leak",
      "..\\hooks\\x.ps1",
      "/opt/hooks/../../etc/x.sh",
    ]) {
      expect(preflight(command, abs)).toEqual({ ok: false, rule: "..", detail: '".." is not allowed' });
    }
    for (const command of ["scripts/x.sh a..b", "./scripts/..hidden/run.sh", "./a..b.sh"]) expect(preflight(command, rel).ok).toBe(true);
  });

  test("SEC-07 TOOL-35 absolute paths are rejected only when absolute_paths is false", () => {
    const rejected = [
      "/usr/bin/python3 scripts/x.py",
      "python3 /tmp/x.py",
      "scripts/x.sh > /dev/null",
      "//server/share/x.sh",
      "C:\\tools\\hook.exe",
      "C:/tools/hook.exe",
      "\\\\fileserver\\share\\hook.ps1",
    ];
    for (const command of rejected) {
      expect(preflight(command, rel)).toEqual({ ok: false, rule: "absolute path", detail: "absolute path is not allowed" });
      expect(preflight(command, abs).ok).toBe(true);
    }
    expect(preflight("/usr/local/bin/hook.sh", abs).ok).toBe(true);
    expect(preflight("python3 /opt/hooks/check.py", abs).ok).toBe(true);
    expect(ruleOf("$HOME/bin/hook.sh", abs)).toBe("$");
    expect(preflight("C:x", rel).ok).toBe(true);
    expect(preflight("python3 scripts/check.py localhost:8080 https://example.com/x %VAR%", rel).ok).toBe(true);
  });

  test("SEC-40 suffixes after = are pieces; U+2028 and > end words; quoted '.. ' is not ..", () => {
    expect(ruleOf("python3 scripts/x.py --config=/etc/x", rel)).toBe("absolute path");
    expect(ruleOf("OUT=/tmp/x scripts/a.sh", rel)).toBe("absolute path");
    expect(preflight("python3 scripts/x.py --config=/etc/x", abs).ok).toBe(true);
    expect(preflight("OUT=/tmp/x scripts/a.sh", abs).ok).toBe(true);
    expect(preflight('python3 "scripts/.. /x.py"', rel).ok).toBe(true);
    expect(preflight("scripts/x.sh --flag=cd", rel).ok).toBe(true);
    expect(ruleOf("scripts/a.sh\u2028cd x")).toBe("cd");
    expect(ruleOf("scripts/a.sh>cd")).toBe("cd");
    expect(ruleOf("scripts/a.sh\u00a0cd")).toBe("cd");
  });

  test("SEC-08 the detail names the rule, never the command text", () => {
    const result = preflight("cd secret-dir-7f3a && ./h.sh", abs);
    expect(result).toEqual({ ok: false, rule: "cd", detail: "cd is not allowed" });
    if (!result.ok) expect(result.detail).not.toContain("secret-dir-7f3a");
  });

  test("TOOL-37 shell operators are not rejected", () => {
    for (const command of [
      "scripts/a.sh | scripts/b.sh",
      "scripts/a.sh; scripts/b.sh",
      "scripts/a.sh && scripts/b.sh",
      "scripts/a.sh > hook.log",
      "node scripts/hook.mjs",
    ]) {
      expect(preflight(command, rel).ok).toBe(true);
    }
  });
});
