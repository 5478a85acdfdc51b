/**
 * D28 for bash: a command's visible writes (redirections and the write targets of `cp`, `mv`, `tee`,
 * `sed -i`, `ln`, `install`, `touch`, `rm`, `chmod`, `truncate`, `dd of=`, …) into `.git/`, `.agent/`
 * or `.claude/` ask in every mode, `bypass` included, and `agent run` refuses them with the reason,
 * unless an allow rule names the directory. Each attack through the real CLI (`bun src/main.ts run`,
 * script provider, the real bash tool in a real git repository) is judged by its canary; the
 * legitimate neighbours (`git status`, `cat .git/HEAD`, `echo x > notes.txt`) run as before.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { ofType, recordsOf, runScript } from "../agent/support.ts";

function gitWorld(): World {
  const w = makeWorld({ git: false });
  spawnSync("git", ["init", "-q", w.project]);
  w.file(".git/hooks/existing", "#!/bin/sh\necho not executable\n");
  w.file("evil", "#!/bin/sh\ntouch PWNED\n", { executable: true });
  return w;
}

function bashCalls(w: World, commands: readonly string[]): void {
  writeScript(w, [...commands.map((command, i) => ({ tool_calls: [{ id: `c${i}`, name: "bash", arguments: { command } }] })), { text: "done" }]);
}

function delivered(w: World, stdout: string): string[] {
  return ofType(recordsOf(w, { code: 0, stderr: "", stdout }), "tool_result_delivered").map((record) => String(record.content));
}

describe("bash writes into protected directories (D28)", () => {
  test("every attack is refused under `agent run` in bypass mode; the neighbours run", () => {
    const w = gitWorld();
    const p = (relative: string) => join(w.project, relative);
    const config = readFileSync(p(".git/config"), "utf8");
    const description = readFileSync(p(".git/description"), "utf8");
    const attacks = [
      "echo x > .git/hooks/pre-commit",
      "tee .agent/settings.json < evil",
      "cp evil .claude/settings.json",
      "sed -i 's/repositoryformatversion/pwned/' .git/config",
      "mv evil .git/hooks/post-checkout",
      "ln -s ../../evil .git/hooks/pre-push",
      "install -m 755 evil .git/hooks/pre-rebase",
      "chmod +x .git/hooks/existing",
      "touch .agent/hooks.toml",
      "rm .git/description",
      "truncate -s 0 .git/config",
      "dd if=evil of=.git/hooks/commit-msg",
      "echo x >> .g?t/config",
      "cd .git/hooks && cp ../../evil post-merge",
      "D=.git; cp evil $D/hooks/pre-applypatch",
      "mkdir -p .claude/commands",
      "true && sh -c 'cat evil > .git/hooks/prepare-commit-msg'",
      "ln -s .git/hooks l && cp evil l/post-rewrite",
      "mv .git moved",
    ];
    const neighbours = ["git status --short", "cat .git/HEAD", "echo x > notes.txt", "cp notes.txt copy.txt"];
    bashCalls(w, [...attacks, ...neighbours]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    const hooks = ["pre-commit", "post-checkout", "pre-push", "pre-rebase", "commit-msg", "post-merge", "pre-applypatch", "prepare-commit-msg", "post-rewrite"];
    expect(existsSync(p("moved"))).toBe(false);
    for (const hook of hooks) expect(`${hook} ${existsSync(p(`.git/hooks/${hook}`)) || lstatExists(p(`.git/hooks/${hook}`))}`).toBe(`${hook} false`);
    expect(existsSync(p(".agent/settings.json"))).toBe(false);
    expect(existsSync(p(".claude/settings.json"))).toBe(false);
    expect(existsSync(p(".claude/commands"))).toBe(false);
    expect(existsSync(p(".agent/hooks.toml"))).toBe(false);
    expect(readFileSync(p(".git/config"), "utf8")).toBe(config);
    expect(readFileSync(p(".git/description"), "utf8")).toBe(description);
    expect(statSync(p(".git/hooks/existing")).mode & 0o111).toBe(0);
    expect(existsSync(p("evil"))).toBe(true);
    const texts = delivered(w, r.stdout);
    attacks.forEach((attack, i) => {
      expect(`${attack}: ${texts[i]}`).toContain("needs approval in every permission mode");
    });
    // The neighbours ran: a status, a read inside .git, writes outside it.
    const [status, head] = texts.slice(attacks.length);
    expect(status).not.toContain("needs approval");
    expect(head).toContain("ref: refs/heads/");
    expect(readFileSync(p("notes.txt"), "utf8")).toBe("x\n");
    expect(existsSync(p("copy.txt"))).toBe(true);
  });

  test("an allow rule that names the directory lets that write through; a bare bash rule does not", () => {
    const w = gitWorld();
    w.file(".agent/notes/.keep", "");
    bashCalls(w, ["tee .agent/notes/today.md", "tee .git/hooks/pre-commit"]);
    const r = runScript(w, "bypass", ["--allow", "bash(tee .agent/notes/*)", "--allow", "bash"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, ".agent/notes/today.md"))).toBe(true);
    expect(existsSync(join(w.project, ".git/hooks/pre-commit"))).toBe(false);
    expect(delivered(w, r.stdout)[1]).toContain("into .git/");
  });

  test("in accept-edits mode the refusal names the protected path; a write through a variable from the environment is not guessed at", () => {
    const w = gitWorld();
    bashCalls(w, ["echo x > sub/../.git/hooks/pre-commit", 'echo ok > "$HOME/out.txt"']);
    const r = runScript(w, "accept-edits", ["--allow", "bash(echo *)"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, ".git/hooks/pre-commit"))).toBe(false);
    const texts = delivered(w, r.stdout);
    expect(texts[0]).toContain(`${join(w.project, ".git/hooks/pre-commit")}`);
    // A redirection is never covered by an allow rule (D27): this one asks for the usual reason, not D28's.
    expect(texts[1]).not.toContain("every permission mode");
  });
});

describe("bash writes into $AGENT_HOME (D28)", () => {
  test("are denied in every mode, whatever a rule says; a write beside it in $HOME runs", () => {
    const w = gitWorld();
    bashCalls(w, ["echo '[hooks]' >> ~/.agent/config.toml", "cp evil ~/.agent/trust.json", 'echo ok > "$HOME/out.txt"']);
    const r = runScript(w, "bypass", ["--allow", "bash"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.agentHome, "config.toml"))).toBe(false);
    expect(existsSync(join(w.agentHome, "trust.json"))).toBe(false);
    const texts = delivered(w, r.stdout);
    expect(texts[0]).toContain("never writes inside $AGENT_HOME");
    expect(texts[1]).toContain("never writes inside $AGENT_HOME");
    expect(readFileSync(join(w.home, "out.txt"), "utf8")).toBe("ok\n");
  });
});

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
