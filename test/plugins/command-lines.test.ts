/**
 * A plugin command's front matter and body features through `agent run /cmd` against a fake OpenAI
 * server: `` !`cmd` `` lines run before the prompt is sent, through the plugin's pre_tool hook and the
 * permission gate with the command's `allowed-tools` (a line that chains a command they do not cover
 * is refused and never runs; its refusal names the command file and line), `@path` files are read
 * with `read`'s bounds and rules (outside the project or denied: a note, never read), `model:` is the
 * turn's model and `allowed-tools` holds for the model's own calls in that turn.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runSync, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";

setDefaultTimeout(120_000);

const GUARD = [
  "#!/bin/sh",
  "input=$(cat)",
  'printf "%s\\n" "$input" >> "$CMD_TEST_LOG"',
  'case "$input" in *forbidden*) echo "ops guard: no forbidden words" >&2; exit 2;; esac',
  "exit 0",
  "",
].join("\n");

const COMMAND = [
  "---",
  "description: Show the state of the work",
  "argument-hint: [focus]",
  "allowed-tools: Bash(git status:*), Bash(touch line-made), Bash(touch model-made)",
  "model: gpt-4o-mini",
  "---",
  "",
  "Focus on $ARGUMENTS.",
  "Status: !`git status --short`",
  "Chained: !`git status; rm -rf x`",
  "Made: !`touch line-made`",
  "Not allowed: !`touch not-allowed`",
  "Hooked: !`echo forbidden`",
  "Notes: @notes.md, outside: @../outside.txt, secret: @secret.txt, a package: @types/node.",
  "",
];

function writeOpsPlugin(world: World): string {
  const dir = join(world.root, "plugins/ops");
  world.file(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "ops" }));
  world.file(join(dir, "commands/status.md"), COMMAND.join("\n"));
  world.file(join(dir, "hooks/guard.sh"), GUARD, { executable: true });
  world.file(
    join(dir, "hooks/hooks.json"),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }] }] } }),
  );
  return dir;
}

async function run(world: World, replies: FakeReply[], args: string[]): Promise<{ server: FakeServer; stderr: string; code: number | null }> {
  const server = await startFakeOpenAI(replies);
  try {
    const result = await runCliInProcess(world, ["run", "--provider", "openai", "--base-url", server.url, "--model", "session-model", ...args], {
      env: world.env({ OPENAI_API_KEY: "sk-test-not-real", CMD_TEST_LOG: join(world.root, "hook.log") }),
    });
    return { server, stderr: result.stderr, code: result.code };
  } finally {
    await server.close();
  }
}

function firstUserMessage(request: unknown): string {
  const messages = (request as { messages: { role: string; content: unknown }[] }).messages;
  return String(messages.find((message) => message.role === "user")?.content ?? "");
}

const lineOf = (text: string): number => COMMAND.findIndex((line) => line.includes(text)) + 1;

describe("command lines, files and front matter", () => {
  test("!`…` lines go through hooks and the gate; @files through read; the chained rm never runs", async () => {
    const world = makeWorld({ git: false });
    runSync(["git", "init", "-q"], world.project);
    world.file("x/canary", "still here\n");
    world.file("untracked-file.txt", "new\n");
    world.file("notes.md", "NOTES-BODY line one\n");
    world.file("secret.txt", "SECRET-BODY\n");
    world.file(join(world.root, "outside.txt"), "OUTSIDE-BODY\n");
    world.file(join(world.agentHome, "settings.json"), JSON.stringify({ permissions: { deny: ["read(secret.txt)"] } }));
    const plugin = writeOpsPlugin(world);
    const file = join(plugin, "commands/status.md");
    const { server, stderr, code } = await run(
      world,
      [{ toolCalls: [{ id: "m1", name: "bash", arguments: { command: "touch model-made" } }] }, { text: "status given" }],
      ["--plugin-dir", plugin, "/ops:status the tests"],
    );
    expect(code).toBe(0);
    const prompt = firstUserMessage(server.requests[0]);
    expect(prompt).toStartWith("Focus on the tests.\nStatus: ");
    // The allowed line ran and its output reached the model.
    expect(prompt).toContain("?? untracked-file.txt");
    // The chained rm is not covered by Bash(git status:*): refused as a whole, nothing ran.
    expect(existsSync(join(world.project, "x/canary"))).toBe(true);
    expect(prompt).toContain("Chained: [!`git status; rm -rf x` was not run:");
    expect(stderr).toContain(`agent: /ops:status (${file}:${lineOf("rm -rf x")}): !\`git status; rm -rf x\` was not run:`);
    // allowed-tools allowed a line that is no read-only command; one it does not name was refused.
    expect(existsSync(join(world.project, "line-made"))).toBe(true);
    expect(existsSync(join(world.project, "not-allowed"))).toBe(false);
    expect(stderr).toContain(`(${file}:${lineOf("not-allowed")}): !\`touch not-allowed\` was not run:`);
    // The plugin's pre_tool hook saw the lines as bash calls and denied one.
    const hookLog = readFileSync(join(world.root, "hook.log"), "utf8");
    expect(hookLog).toContain('"command":"git status --short"');
    // Exactly like a model's bash call: the hook sees the chained line first (the gate's view: ask), then the gate refuses it.
    expect(hookLog).toContain('"tool_input":{"command":"git status; rm -rf x"},"tool_use_id"');
    expect(hookLog).toContain('"permission_decision":"ask"');
    expect(prompt).toContain("Hooked: [!`echo forbidden` was not run:");
    expect(prompt).toContain("ops guard: no forbidden words");
    // Files: the project's is inlined; outside the project or denied by a rule is a note, never read.
    expect(prompt).toContain('<file path="notes.md">\nNOTES-BODY line one\n</file>');
    expect(prompt).toContain("[@../outside.txt was not read:");
    expect(prompt).toContain("[@secret.txt was not read: denied by permission rule read(secret.txt)]");
    expect(prompt).not.toContain("OUTSIDE-BODY");
    expect(prompt).not.toContain("SECRET-BODY");
    expect(prompt).toContain("a package: @types/node.");
    expect(stderr).toContain(`agent: /ops:status (${file}): @secret.txt was not read:`);
    // model: is the turn's model; allowed-tools held for the model's own call in that turn.
    expect((server.requests[0] as { model: string }).model).toBe("gpt-4o-mini");
    expect(existsSync(join(world.project, "model-made"))).toBe(true);
  });

  test("without allowed-tools a changing line is refused under agent run; arguments and plain prompts never add lines to run", async () => {
    const world = makeWorld();
    const dir = join(world.root, "plugins/plain");
    world.file(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "plain" }));
    world.file(join(dir, "commands/make.md"), "Make it: !`touch made`\n");
    const first = await run(world, [{ text: "ok" }], ["--plugin-dir", dir, "/make"]);
    expect(first.code).toBe(0);
    expect(existsSync(join(world.project, "made"))).toBe(false);
    expect(first.stderr).toContain(`agent: /make (${join(dir, "commands/make.md")}:1): !\`touch made\` was not run:`);
    expect(firstUserMessage(first.server.requests[0])).toStartWith("Make it: [!`touch made` was not run: ");
    // The author's line runs with the arguments filled in; a line the arguments bring is only text.
    world.file(join(dir, "commands/args.md"), "---\nallowed-tools: Bash(touch:*)\nmodel: haiku\n---\nMade: !`touch $1`\nAsked: $ARGUMENTS\n");
    const third = await run(world, [{ text: "ok" }], ["--plugin-dir", dir, "/args via-arg !`touch from-args`"]);
    expect(third.code).toBe(0);
    expect(existsSync(join(world.project, "via-arg"))).toBe(true);
    expect(existsSync(join(world.project, "from-args"))).toBe(false);
    expect(firstUserMessage(third.server.requests[0])).toBe("Made: \nAsked: via-arg !`touch from-args`");
    // A model the provider cannot serve: the session's, with one warning naming the file.
    expect((third.server.requests[0] as { model: string }).model).toBe("session-model");
    expect(third.stderr).toContain(
      `agent: ${join(dir, "commands/args.md")}: model: the openai provider does not serve Claude's haiku; /args uses the session's model session-model`,
    );
    // Typed as a prompt (no command), the same text is only text.
    const second = await run(world, [{ text: "ok" }], ["--permission-mode", "bypass", "say !`touch typed`"]);
    expect(second.code).toBe(0);
    expect(existsSync(join(world.project, "typed"))).toBe(false);
    expect(firstUserMessage(second.server.requests[0])).toBe("say !`touch typed`");
  });

  test("agent plugin list shows each command with its argument-hint and description", async () => {
    const world = makeWorld();
    const plugin = writeOpsPlugin(world);
    expect((await runCliInProcess(world, ["plugin", "install", plugin])).code).toBe(0);
    const list = await runCliInProcess(world, ["plugin", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`    ${"/ops:status [focus]".padEnd(28)} Show the state of the work\n`);
  });
});
