// The command readers quote exactly as bash does. The lexer is checked against
// real bash (each word printed by `printf`), and preflight (D12) against a table of adversarial
// commands whose real effect under bash was worked out by running them (see the e2e test in
// test/security/preflight-quoting.test.ts).
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { lexShell, wordRaw, wordValue } from "../../src/util/shell-words.ts";
import { preflight, type PreflightRule } from "../../src/hooks/shell/preflight.ts";
import { tokenizeCommand } from "../../src/hooks/shell/command-words.ts";

/** The words bash builds from `words` (no expansion happens in these cases). */
function bashWords(words: string): string[] {
  const run = spawnSync("/bin/bash", ["--norc", "--noprofile", "-c", `printf '%s\\0' ${words}`], {
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C.UTF-8" },
  });
  if (run.status !== 0) throw new Error(`bash failed on ${words}: ${run.stderr}`);
  return run.stdout.split("\0").slice(0, -1);
}

function lexWords(words: string): string[] {
  return lexShell(words).flatMap((token) => (token.kind === "word" ? [wordValue(token.parts)] : []));
}

describe("lexShell follows bash quoting", () => {
  const cases = [
    String.raw`x\' y`,
    String.raw`x\" y`,
    String.raw`a\ b c`,
    String.raw`\\' quoted ; run '`,
    String.raw`'a\' b`,
    String.raw`"a\" b" c`,
    String.raw`"a\\" b`,
    String.raw`"a\b\$\`\"\\" z`,
    String.raw`'it''s' "x"'y'z`,
    String.raw`"" '' x`,
    String.raw`c\d "c\d" 'c\d'`,
    String.raw`$'a\x41\101\u00e9\n\t\'q\z' b`,
    String.raw`$'\cA\e' $'\x' $'\u'`,
    String.raw`$"dq\"x" y`,
    String.raw`a\;b c\|d e\&f g\>h`,
    "x\\",
    "a\u00a0b",
  ];
  for (const words of cases) {
    test(`words of ${JSON.stringify(words)} match bash`, () => {
      // NBSP: D12 splits on every \s, bash does not (a stricter split only adds words to check).
      if (words.includes("\u00a0")) expect(lexWords(words)).toEqual(["a", "b"]);
      else expect(lexWords(words)).toEqual(bashWords(words));
    });
  }

  test("operators are tokens of their own outside quotes, never inside or escaped", () => {
    const tokens = lexShell(String.raw`a;b|c "d;e" 'f|g' h\&i`);
    expect(tokens.map((t) => (t.kind === "op" ? `op:${t.text}` : wordValue(t.parts)))).toEqual(["a", "op:;", "b", "op:|", "c", "d;e", "f|g", "h&i"]);
  });

  test("D12's W keeps escapes as written, without the quotes", () => {
    const [word] = lexShell(String.raw`"c\d"x\'y'z\q'`);
    expect(word?.kind).toBe("word");
    if (word?.kind === "word") {
      expect(wordRaw(word.parts)).toBe(String.raw`c\dx\'yz\q`);
      expect(wordValue(word.parts)).toBe(String.raw`c\dx'yz\q`);
    }
  });

  test("a backslash-newline is a line continuation, in and out of double quotes", () => {
    expect(lexWords('a\\\nb "c\\\nd"')).toEqual(["ab", "cd"]);
  });

  test("SEC-32 tokenizeCommand: an escaped quote does not start a quoted run; ANSI-C strings are decoded and static", () => {
    expect(tokenizeCommand(String.raw`bash x\' ; ./run.sh ; x\'`, "/p").map((t) => t.text)).toEqual(["bash", "x'", ";", "./run.sh", ";", "x'"]);
    expect(tokenizeCommand(String.raw`bash $'.agent/hooks/\x72un.sh'`, "/p")).toEqual([
      { kind: "word", text: "bash", dynamic: false },
      { kind: "word", text: ".agent/hooks/run.sh", dynamic: false },
    ]);
    expect(tokenizeCommand(String.raw`sh "\$AGENT_PROJECT_DIR/x" "$AGENT_PROJECT_DIR/y"`, "/p").map((t) => [t.text, t.dynamic])).toEqual([
      ["sh", false],
      ["$AGENT_PROJECT_DIR/x", false],
      ["/p/y", false],
    ]);
  });
});

describe("preflight (D12) on adversarial quoting", () => {
  const abs = { absolutePaths: true };
  const rel = { absolutePaths: false };
  // [command, expected rule or null (accepted), why]
  const table: [string, PreflightRule | null, string][] = [
    [String.raw`true x\' ; cd .. ; pwd > out.txt ; true x\'`, "cd", "\\' is a literal quote: cd runs"],
    [String.raw`true x\" ; cd .. ; true x\"`, "cd", '\\" is a literal quote: cd runs'],
    [String.raw`echo "x\" "; cd ..; echo ""`, "cd", '\\" inside double quotes does not close them, the next " does'],
    [String.raw`true "a\\" ; cd .. ; true "b"`, "cd", '"a\\\\" ends at the third quote'],
    [String.raw`true 'a\' ; cd .. ; true 'b'`, "cd", "no escape inside single quotes"],
    [String.raw`true x\ ;cd ..`, "cd", "an escaped space joins, the ; still separates"],
    [String.raw`scripts/a.sh \;cd ..`, "..", "an escaped ; is literal; .. is its own word"],
    [String.raw`c''d scripts`, "cd", "empty quotes vanish"],
    [String.raw`c"d" scripts`, "cd", "quotes inside a word vanish"],
    [String.raw`"c\d" x`, "cd", "D12's W′ removes every backslash"],
    [String.raw`\c\d x`, "cd", "escaped letters are the letters"],
    [String.raw`scripts/x.sh x\'..\'`, null, "one word x'..' whose components are not .."],
    [String.raw`scripts/x.sh '..'/x`, "..", "a quoted .. is still a component"],
    [String.raw`scripts/x.sh \.\./x`, "..", "escaped dots are dots"],
    [String.raw`scripts/x.sh "it's"`, null, "a single quote inside double quotes is literal"],
    [String.raw`scripts/x.sh 'a"b' "c'd"`, null, "each quote kind is literal inside the other"],
    [String.raw`scripts/x.sh \'cd\'`, null, "the word is 'cd' with its quotes"],
    [String.raw`true \\' ; cd .. ; '`, null, "\\\\ is a backslash, then ' quotes ; cd .. ; (bash prints it)"],
    [String.raw`true "x\"; cd ..; \""`, null, "one double-quoted word: bash never runs cd"],
    [String.raw`scripts/x.sh \/etc/passwd`, "absolute path", "an escaped / still starts the path (relative mode)"],
    [String.raw`scripts/x.sh '/etc/passwd'`, "absolute path", "a quoted absolute path (relative mode)"],
  ];
  for (const [command, rule, why] of table) {
    test(`${rule ?? "accept"}: ${command} (${why})`, () => {
      const result = preflight(command, rule === "absolute path" ? rel : abs);
      expect(result.ok ? null : result.rule).toBe(rule);
    });
  }

  test("the accepted rows really are harmless under bash: cd never runs", () => {
    for (const [command, rule] of table) {
      if (rule !== null || !command.includes("cd ..")) continue;
      const run = spawnSync("/bin/bash", ["--norc", "--noprofile", "-c", `${command.replace("scripts/x.sh", "true")} ; pwd`], {
        cwd: "/tmp",
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin" },
      });
      expect(run.stdout.trim().split("\n").pop()).toBe("/tmp");
    }
  });

  test("the rejected rows really run cd under bash", () => {
    for (const [command, rule] of table) {
      if (rule !== "cd" || !command.includes("cd ..")) continue;
      const run = spawnSync("/bin/bash", ["--norc", "--noprofile", "-c", `${command.replace("> out.txt", "")} ; pwd`], {
        cwd: "/tmp",
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin" },
      });
      expect(run.stdout.trim().split("\n").pop()).toBe("/");
    }
  });
});
