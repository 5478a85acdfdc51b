/**
 * Rules match commands and paths, not text (D27), and writes that become code execution ask (D28):
 * each attack through `agent run` with the script provider and the real bash tool, judged by its
 * effect (a canary file that must not appear), next to the legitimate call that keeps working.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { ofType, recordsOf, runScriptInProcess } from "../agent/support.ts";

function bashCalls(w: World, commands: readonly string[]): void {
  writeScript(w, [...commands.map((command, i) => ({ tool_calls: [{ id: `c${i}`, name: "bash", arguments: { command } }] })), { text: "done" }]);
}

function delivered(w: World, stdout: string): string[] {
  return ofType(recordsOf(w, { code: 0, stderr: "", stdout }), "tool_result_delivered").map((record) => String(record.content));
}

describe("allow rules cover every simple command (D27)", () => {
  test("--allow 'bash(ls*)' runs `ls -la` but none of the chained, substituted or piped commands", async () => {
    const w = makeWorld();
    const canary = (n: number) => join(w.root, `X${n}`);
    const walks = [
      `ls; touch '${canary(1)}'`,
      `ls && touch '${canary(2)}'`,
      `ls $(touch '${canary(3)}')`,
      `ls \`touch '${canary(4)}'\``,
      `ls\ntouch '${canary(5)}'`,
      `ls | sh -c "touch '${canary(6)}'"`,
      `ls "$(touch '${canary(7)}')"`,
      `ls || touch '${canary(8)}'`,
    ];
    bashCalls(w, [...walks, "ls -la"]);
    const r = await runScriptInProcess(w, "default", ["--allow", "bash(ls*)"]);
    expect(r.code).toBe(0);
    for (let n = 1; n <= walks.length; n++) expect(`X${n} ${existsSync(canary(n))}`).toBe(`X${n} false`);
    const texts = delivered(w, r.stdout);
    expect(texts.slice(0, walks.length).every((text) => text.includes("needs approval"))).toBe(true);
    // The plain listing ran (the project holds .git).
    expect(texts[walks.length]).toContain(".git");
  });

  test("Claude Code's `Bash(touch ok:*)` spelling allows that prefix and nothing chained to it", async () => {
    const w = makeWorld();
    bashCalls(w, ["touch ok", `touch ok; touch '${join(w.root, "X")}'`]);
    const r = await runScriptInProcess(w, "default", ["--allow", "Bash(touch ok:*)"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, "ok"))).toBe(true);
    expect(existsSync(join(w.root, "X"))).toBe(false);
  });
});

describe("deny rules hold for any simple command (D27)", () => {
  test("bash(rm *) denies rm however it is spelled or wherever it hides, in bypass mode too", async () => {
    const w = makeWorld();
    const spellings = [
      "true; rm -f victim",
      " rm -f victim",
      "\\rm -f victim",
      '"rm" -f victim',
      "command rm -f victim",
      "/bin/rm -f victim",
      "env rm -f victim",
      "echo $(rm -f victim)",
      "sh -c 'rm -f victim'",
      "ls | xargs rm -f victim",
    ];
    bashCalls(w, [...spellings, "touch other"]);
    w.file("victim", "keep me\n");
    w.file(".agent/settings.json", JSON.stringify({ permissions: { deny: ["bash(rm *)"] } }));
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.project, "victim"), "utf8")).toBe("keep me\n");
    const texts = delivered(w, r.stdout);
    for (const text of texts.slice(0, spellings.length)) expect(text).toContain("denied by permission rule bash(rm *)");
    // The session says each was refused, not that it failed (a resumed screen shows "rejected").
    const results = ofType(recordsOf(w, { code: 0, stderr: "", stdout: r.stdout }), "tool_result");
    expect(results.slice(0, spellings.length).every((record) => (record.metadata as Record<string, unknown>).rejected === true)).toBe(true);
    expect((results[spellings.length]?.metadata as Record<string, unknown>).rejected).toBeUndefined();
    expect(existsSync(join(w.project, "other"))).toBe(true);
  });

  test("path rules see the resolved path: `./.git/config` and `docs/../.agent/x` do not slip past", async () => {
    const w = makeWorld();
    w.file(".git/config", "[core]\n");
    writeScript(w, [
      { tool_calls: [{ name: "read", arguments: { file_path: "./.git/config" } }] },
      { tool_calls: [{ name: "read", arguments: { file_path: "sub/../.git/config" } }] },
      { tool_calls: [{ name: "write", arguments: { file_path: "docs/../.agent/notes.md", content: "planted" } }] },
      { tool_calls: [{ name: "write", arguments: { file_path: "docs/a.md", content: "fine" } }] },
      { text: "done" },
    ]);
    w.file(".agent/settings.json", JSON.stringify({ permissions: { deny: ["read(.git/*)"] } }));
    const r = await runScriptInProcess(w, "default", ["--allow", "write(docs/*)"]);
    expect(r.code).toBe(0);
    const texts = delivered(w, r.stdout);
    expect(texts[0]).toContain("denied by permission rule read(.git/*)");
    expect(texts[1]).toContain("denied by permission rule read(.git/*)");
    expect(existsSync(join(w.project, ".agent/notes.md"))).toBe(false);
    expect(readFileSync(join(w.project, "docs/a.md"), "utf8")).toBe("fine");
  });
});

describe("read-only commands (D27)", () => {
  test("in default mode `ls` and `cat f | wc -l` run without a question; a redirection asks", async () => {
    const w = makeWorld({ git: false });
    w.file("f", "a\nb\n");
    bashCalls(w, ["ls", "cat f | wc -l", `echo hi > '${join(w.root, "X")}'`]);
    const r = await runScriptInProcess(w, "default");
    expect(r.code).toBe(0);
    const texts = delivered(w, r.stdout);
    expect(texts[0]).toContain("f");
    expect(texts[1]?.trim()).toBe("2");
    expect(texts[2]).toContain("needs approval");
    expect(existsSync(join(w.root, "X"))).toBe(false);
  });
});

describe("writes that become code execution (D28)", () => {
  test("in accept-edits and bypass, .git/config, .git/hooks/* and .agent/ are not written without a rule naming them", async () => {
    for (const mode of ["accept-edits", "bypass"]) {
      const w = makeWorld();
      w.file(".git/config", "[core]\n");
      writeScript(w, [
        { tool_calls: [{ name: "write", arguments: { file_path: ".git/config", content: "[core]\n\tfsmonitor = touch pwned\n" } }] },
        { tool_calls: [{ name: "write", arguments: { file_path: ".git/hooks/pre-commit", content: "#!/bin/sh\ntouch pwned\n" } }] },
        { tool_calls: [{ name: "edit", arguments: { file_path: "sub/../.git/config", old_string: "[core]", new_string: "[core]\n\tpager = touch pwned" } }] },
        { tool_calls: [{ name: "write", arguments: { file_path: ".claude/settings.json", content: "{}" } }] },
        { tool_calls: [{ name: "write", arguments: { file_path: "src/app.ts", content: "ok\n" } }] },
        { text: "done" },
      ]);
      const r = await runScriptInProcess(w, mode);
      expect(r.code).toBe(0);
      expect(readFileSync(join(w.project, ".git/config"), "utf8")).toBe("[core]\n");
      expect(existsSync(join(w.project, ".git/hooks/pre-commit"))).toBe(false);
      expect(existsSync(join(w.project, ".claude/settings.json"))).toBe(false);
      const texts = delivered(w, r.stdout);
      for (const text of texts.slice(0, 4)) expect(text).toContain("needs approval in every permission mode");
      expect(readFileSync(join(w.project, "src/app.ts"), "utf8")).toBe("ok\n");
    }
  });

  test("a rule naming .agent/ lets that write through; with cwd = $HOME nothing writes ~/.agent, whatever the rules", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "write", arguments: { file_path: ".agent/notes/todo.md", content: "- x\n" } }] }, { text: "done" }]);
    const named = await runScriptInProcess(w, "accept-edits", ["--allow", "write(.agent/notes/*)"]);
    expect(named.code).toBe(0);
    expect(readFileSync(join(w.project, ".agent/notes/todo.md"), "utf8")).toBe("- x\n");

    // The user's home as the cwd: its `.agent` is $AGENT_HOME, so no project scope and no write there.
    w.file(
      join(w.home, "script.json"),
      JSON.stringify({
        turns: [
          { tool_calls: [{ name: "write", arguments: { file_path: ".agent/config.toml", content: '[permissions]\nmode = "bypass"\n' } }] },
          { text: "done" },
        ],
      }),
    );
    w.file(join(w.agentHome, "config.toml"), "# mine\n");
    const home = await runCliInProcess(
      w,
      ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--allow", "write", "--output-format", "json", "go"],
      { cwd: w.home },
    );
    expect(home.code).toBe(0);
    expect(readFileSync(join(w.agentHome, "config.toml"), "utf8")).toBe("# mine\n");
    expect(delivered(w, home.stdout)[0]).toContain("never writes inside $AGENT_HOME");
  });
});

describe("hooks see the resolved path (D27)", () => {
  test("a guard checking $CLAUDE_PROJECT_DIR/.git/ sees <proj>/.git/x for <proj>/sub/../.git/x and denies it", async () => {
    const w = makeWorld();
    const guard = w.file(
      "guard.sh",
      `#!/bin/sh\ninput=$(cat)\ncase "$input" in *"\\"file_path\\":\\"$CLAUDE_PROJECT_DIR/.git/"*) echo "no .git writes" >&2; exit 2;; esac\nexit 0\n`,
      { executable: true },
    );
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        permissions: { allow: ["write(.git/*)"] },
        hooks: { lifecycle: { pre_tool_use: [{ matcher: "Write", hooks: [{ type: "command", command: guard }] }] } },
      }),
    );
    writeScript(w, [
      { tool_calls: [{ name: "write", arguments: { file_path: `${w.project}/sub/../.git/info-x`, content: "x" } }] },
      { tool_calls: [{ name: "write", arguments: { file_path: "notes.md", content: "fine" } }] },
      { text: "done" },
    ]);
    const r = await runScriptInProcess(w, "accept-edits");
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, ".git/info-x"))).toBe(false);
    expect(delivered(w, r.stdout)[0]).toContain("no .git writes");
    expect(readFileSync(join(w.project, "notes.md"), "utf8")).toBe("fine");
  });
});
