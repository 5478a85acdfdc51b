/**
 * `agent completion SHELL` through the real CLI. The bash script is sourced by a real bash
 * (`source <(agent completion bash)`) and driven the way readline drives it: COMP_WORDS and
 * COMP_CWORD set, `_agent` called, COMPREPLY read.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { makeWorld, REPO, runCli } from "../support/cli.ts";
import { completionScript } from "../../src/cli/commands/completion.ts";

const AGENT = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO, "src", "main.ts"))}`;

/** Each case is the words typed so far (the last one being completed); returns COMPREPLY per case. */
function bashComplete(cwd: string, cases: string[][]): string[] {
  const calls = cases.map(
    (words) => `COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _agent; echo "\${COMPREPLY[*]}"`,
  );
  const run = spawnSync("bash", ["-c", `source <(${AGENT} completion bash) && ${calls.join("; ")}`], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  expect(run.stderr).toBe("");
  return run.stdout.split("\n").slice(0, cases.length);
}

describe("agent completion", () => {
  test("bash: `complete -p agent` after sourcing the script", () => {
    const run = spawnSync("bash", ["-c", `source <(${AGENT} completion bash); complete -p agent`], { encoding: "utf8" });
    expect(run.stdout).toBe("complete -o filenames -F _agent agent\n");
  });

  test("bash: commands, actions, options, listed values, directories", () => {
    const w = makeWorld();
    w.file("src/a.ts", "");
    w.file("script.json", "[]");
    const replies = bashComplete(w.project, [
      ["agent", ""],
      ["agent", "ho"],
      ["agent", "hooks", ""],
      ["agent", "hooks", "list", "--j"],
      ["agent", "run", "--permission-mode", "a"],
      ["agent", "run", "--provider", ""],
      ["agent", "run", "--cwd", "s"],
      ["agent", "run", "--script", "scr"],
      ["agent", "config", "s"],
      ["agent", "completion", ""],
      ["agent", "hooks", "import", "--from", "c"],
    ]);
    expect(replies).toEqual([
      "run hooks plugin config sessions mcp notify completion --help --version",
      "hooks",
      "list validate test replay trust init import",
      "--json",
      "accept-edits",
      "openai anthropic script",
      "src",
      "script.json",
      "show schema",
      "bash zsh fish powershell",
      "claude codex",
    ]);
  });

  test("zsh, fish and PowerShell scripts carry the same table", () => {
    const w = makeWorld();
    for (const shell of ["zsh", "fish", "powershell"]) {
      const r = runCli(w, ["completion", shell]);
      expect(r.code).toBe(0);
      for (const word of ["hooks", "validate", "permission-mode", "accept-edits", "completion"]) expect(r.stdout).toContain(word);
    }
    expect(runCli(w, ["completion", "zsh"]).stdout).toStartWith("#compdef agent\n");
    expect(runCli(w, ["completion", "fish"]).stdout).toContain(
      `complete -c agent -n "__fish_seen_subcommand_from hooks" -a 'list validate test replay trust init import'`,
    );
    expect(runCli(w, ["completion", "powershell"]).stdout).toContain("Register-ArgumentCompleter -Native -CommandName agent, agent.exe");
  });

  test("an unknown shell is a usage error naming the shells", () => {
    const r = runCli(makeWorld(), ["completion", "tcsh"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`agent completion: unknown shell "tcsh"`);
    expect(r.stderr).toContain("bash, zsh, fish, powershell");
  });

  test("the script follows the command table it is given", () => {
    const script = completionScript("bash", [
      { rawName: "deploy <action>", description: "Deploy: up | down", options: [{ rawName: "--stage <name>", description: "dev | prod" }] },
    ]);
    expect(script).toContain(`compgen -W "deploy --help --version"`);
    expect(script).toContain(`actions="up down"`);
    expect(script).toContain(`--stage) COMPREPLY=( $(compgen -W "dev prod" -- "$cur") )`);
  });
});
