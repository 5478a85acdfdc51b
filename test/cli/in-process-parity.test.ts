// The in-process runner (test/support/in-process.ts) stands in for `bun src/main.ts` in most CLI
// tests, so it must give the same exit status, stdout and stderr as the real process: here for a
// listing, a config dump, a script-provider run with a hook, and usage errors (CLI exit codes).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, runCli, writeScript } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";

describe("runCliInProcess matches the real process", () => {
  test("exit status, stdout and stderr are the same for each command", async () => {
    const w = makeWorld();
    w.file(`${w.agentHome}/config.toml`, `[[hooks.before_tool]]\nlabel = "log"\ncommand = "cat >> '${w.root}/hook.log'"\n`);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    const commands = [
      ["hooks", "list", "--json"],
      ["config", "show"],
      ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--no-session", "go"],
      ["run", "--provider", "script"],
      ["no-such-command"],
      ["hooks", "test", "pre_tool", "--tool"],
    ];
    for (const args of commands) {
      const real = runCli(w, args);
      const inProcess = await runCliInProcess(w, args);
      expect({ args, ...inProcess }).toEqual({ args, ...real });
    }
  });

  test("stdin is the given input: `agent run -` reads its prompt from it", async () => {
    const w = makeWorld();
    w.file(
      `${w.agentHome}/config.toml`,
      `[[hooks.lifecycle.user_prompt_submit]]\nhooks = [{ command = "cat >> '${w.root}/prompts.log'; echo >> '${w.root}/prompts.log'" }]\n`,
    );
    writeScript(w, [{ text: "done" }]);
    const args = ["run", "--provider", "script", "--script", "script.json", "--no-session", "-"];
    const real = runCli(w, args, { input: "from stdin\n" });
    const inProcess = await runCliInProcess(w, args, { input: "from stdin\n" });
    expect(inProcess).toEqual(real);
    expect(inProcess.code).toBe(0);
    const prompts = readJsonl(readFileSync(join(w.root, "prompts.log"), "utf8")).map((payload) => payload.prompt);
    expect(prompts).toEqual(["from stdin", "from stdin"]);
  });
});
