// Which bash commands the gate judges as writes into a protected directory (D28), in bypass mode
// where nothing else asks: the attack spellings ask, their look-alike neighbours do not.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import { decideGate, EMPTY_RULES } from "../../src/permissions/gate.ts";
import { normalizeCall } from "../../src/tools/call.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-bash-writes-")));
const project = join(root, "project");
mkdirSync(join(project, ".git", "hooks"), { recursive: true });
mkdirSync(join(project, "docs"), { recursive: true });
// A template that carries a .git of its own, and one that does not.
mkdirSync(join(project, "tpl", ".git", "hooks"), { recursive: true });
mkdirSync(join(project, "plain", "src"), { recursive: true });
// A link already in the tree: writing through it writes .git.
symlinkSync(join(project, ".git"), join(project, "gitlink"));
const place = { cwd: project, projectDir: project, home: join(root, "home"), agentHome: join(root, "home", ".agent") };
const runtime = createRuntime();

function decide(command: string): string {
  return decideGate({ mode: "bypass", rules: EMPTY_RULES, call: normalizeCall(runtime.fs, place, "bash", { command }) }).decision;
}

describe("bash visible writes and protected directories (D28)", () => {
  const asks = [
    "echo x > .git/config",
    "echo x >| .git/config",
    "echo x &> .agent/log",
    "cat <> .claude/settings.json",
    "echo x > gitlink/config",
    "tee -a .git/info/exclude",
    "cp -r tpl/. .claude",
    "cp -t .agent/hooks a b",
    "sed -i.bak -e 's/x/y/' .git/config",
    "perl -pi -e 's/x/y/' .git/config",
    "chmod -x .git/hooks/pre-commit",
    "chown me .agent/x",
    "shred -u .git/index",
    "wget -O .git/hooks/pre-push http://127.0.0.1/x",
    "find .git/hooks -type f -exec rm {} +",
    "cd docs && cd ../.git && touch config",
    "for f in a; do echo x > $f; done",
    "echo x > $(printf .git)/config",
    'echo x > "$HOME/.claude/settings.json"',
    "echo x > .[g]it/config",
    "cd $X && touch config; read X",
    "find . -name config -exec sed -i s/x/y/ {} +",
    "find . -name '*.tmp' -delete",
    "cp -r tpl/. .",
    "rm -rf ./",
    "chmod -R 777 .",
    "ln -s .git l && echo x > l/config",
    "mv .git elsewhere",
  ];
  const runs = [
    "git status",
    "git config user.name me",
    "git commit -m 'edit .git/config docs'",
    "cat .git/HEAD",
    "grep -r x .git/refs",
    "sed -i 's/.git/repo/' README.md",
    "sed -n p .git/config",
    "cp .git/config backup.txt",
    "chmod -R u+x scripts",
    "echo x > notes.txt",
    "echo x > docs/.gitkeep",
    "echo x > .gitignore",
    "echo x > *.txt",
    'echo x > "$TMPDIR/out"',
    "echo x 2>&1 >/dev/null",
    "cd docs && echo x > index.md",
    "find docs -name '*.tmp' -delete",
    "cp -r plain/. out",
    "rm -rf docs/build",
    "mv docs/a.md docs/b.md",
  ];
  for (const command of asks) test(`asks: ${command}`, () => expect(decide(command)).toBe("ask"));
  for (const command of runs) test(`runs: ${command}`, () => expect(decide(command)).toBe("allow"));
});
