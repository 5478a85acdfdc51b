/**
 * An agent file's `permissionMode:` and `skills:` front matter, and a skill's or command's
 * `disable-model-invocation`, through `agent run` against a fake OpenAI server with real plugin
 * folders: the subagent runs in the narrower of its mode and the session's (D30), never wider; its
 * named skills' bodies are in its first request's system prompt and not in the parent's.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, writeScript, type World } from "../support/cli.ts";
import { PROMPT, withPane } from "../ui/tmux.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";

setDefaultTimeout(120_000);

function writeCrew(world: World, files: Record<string, string>): string {
  const dir = join(world.root, "plugins/crew");
  world.file(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "crew" }));
  for (const [relative, text] of Object.entries(files)) world.file(join(dir, relative), text);
  return dir;
}

const agentFile = (lines: readonly string[], body: string): string => ["---", ...lines, "---", body, ""].join("\n");

async function run(world: World, replies: FakeReply[], args: string[]): Promise<{ server: FakeServer; stdout: string; stderr: string; code: number | null }> {
  const server = await startFakeOpenAI(replies);
  try {
    const result = await runCliInProcess(world, ["run", "--provider", "openai", "--base-url", server.url, "--model", "session-model", ...args], {
      env: world.env({ OPENAI_API_KEY: "sk-test-not-real" }),
    });
    return { server, stdout: result.stdout, stderr: result.stderr, code: result.code };
  } finally {
    await server.close();
  }
}

const task = (agent: string) => ({ toolCalls: [{ id: "t1", name: "task", arguments: { description: "go", prompt: "do it", subagent_type: agent } }] });

type Message = { role: string; content: string };
const messagesOf = (request: unknown): Message[] => (request as { messages: Message[] }).messages;
const systemOf = (request: unknown): string => messagesOf(request).find((message) => message.role === "system")?.content ?? "";
/** The last tool result a request carries back to the model. */
const toolMessage = (request: unknown): string => messagesOf(request).findLast((message) => message.role === "tool")?.content ?? "";

function childRecords(world: World): Record<string, unknown>[] {
  const dir = join(world.agentHome, "sessions/subagents");
  const file = readdirSync(dir).find((name) => name.endsWith(".jsonl"));
  if (file === undefined) throw new Error("no subagent session file");
  return readJsonl(readFileSync(join(dir, file), "utf8"));
}

const resultOf = (records: readonly Record<string, unknown>[], id: string) =>
  records.find((record) => record.type === "tool_result" && record.tool_call_id === id);

describe("agent front matter: permissionMode", () => {
  test("bypassPermissions under a default session stays default: a write without a rule is refused, with one warning naming the file", async () => {
    const world = makeWorld();
    const plugin = writeCrew(world, { "agents/wild.md": agentFile(["description: Writes freely", "permissionMode: bypassPermissions"], "You write.") });
    const canary = join(world.project, "canary.txt");
    const { server, stderr, code } = await run(
      world,
      [
        task("crew:wild"),
        { toolCalls: [{ id: "w1", name: "write", arguments: { file_path: canary, content: "x" } }] },
        { text: "child gave up" },
        { text: "parent done" },
      ],
      // The parent may start subagents (an allow rule), and nothing else without a question.
      ["--permission-mode", "default", "--allow", "Task", "--plugin-dir", plugin, "write it"],
    );
    expect(code).toBe(0);
    expect(existsSync(canary)).toBe(false);
    const refused = resultOf(childRecords(world), "w1");
    expect(refused).toMatchObject({ success: false });
    expect(toolMessage(server.requests[2])).toContain("write(canary.txt) needs approval, but this run is non-interactive");
    const warning = `agent: ${join(plugin, "agents/wild.md")}: permissionMode: bypassPermissions is wider than the session's default mode; the crew:wild subagent runs in default mode`;
    expect(stderr).toContain(warning);
    expect(stderr.split(warning).length - 1).toBe(1);
  });

  test("plan under a bypass session is readonly: reading works, a write is refused and nothing is written", async () => {
    const world = makeWorld();
    const plugin = writeCrew(world, { "agents/planner.md": agentFile(["description: Plans", "permissionMode: plan"], "You plan.") });
    world.file(join(world.project, "notes.txt"), "NOTES-CONTENT\n");
    const canary = join(world.project, "canary.txt");
    const { server, stderr, code } = await run(
      world,
      [
        task("planner"),
        { toolCalls: [{ id: "r1", name: "read", arguments: { file_path: join(world.project, "notes.txt") } }] },
        { toolCalls: [{ id: "w1", name: "write", arguments: { file_path: canary, content: "x" } }] },
        { text: "planned" },
        { text: "parent done" },
      ],
      ["--permission-mode", "bypass", "--plugin-dir", plugin, "plan it"],
    );
    expect(code).toBe(0);
    expect(existsSync(canary)).toBe(false);
    const records = childRecords(world);
    expect(resultOf(records, "r1")).toMatchObject({ success: true });
    expect(String(resultOf(records, "r1")?.content)).toContain("NOTES-CONTENT");
    expect(resultOf(records, "w1")).toMatchObject({ success: false });
    expect(toolMessage(server.requests[3])).toContain("not allowed in readonly permission mode");
    // Each model is told the mode it works in.
    expect(systemOf(server.requests[0])).toContain("Permission mode: bypass");
    expect(systemOf(server.requests[1])).toContain("Permission mode: readonly");
    // Narrowing is what the file asked for: no warning.
    expect(stderr).not.toContain("permissionMode");
  });

  test("a user agent may not widen either; acceptEdits under accept-edits writes; an unknown mode is a warning", async () => {
    const world = makeWorld();
    world.file(join(world.agentHome, "agents/mine.md"), agentFile(["description: Mine", "permissionMode: bypassPermissions"], "Mine."));
    world.file(join(world.agentHome, "agents/editor.md"), agentFile(["description: Edits", "permissionMode: acceptEdits"], "Edit."));
    world.file(join(world.agentHome, "agents/odd.md"), agentFile(["description: Odd", "permissionMode: yolo"], "Odd."));
    const mineCanary = join(world.project, "mine.txt");
    const edited = join(world.project, "edited.txt");
    const { stderr, code } = await run(
      world,
      [
        { toolCalls: [{ id: "t1", name: "task", arguments: { description: "a", prompt: "a", subagent_type: "mine" } }] },
        { toolCalls: [{ id: "w1", name: "write", arguments: { file_path: mineCanary, content: "x" } }] },
        { text: "mine done" },
        { toolCalls: [{ id: "t2", name: "task", arguments: { description: "b", prompt: "b", subagent_type: "editor" } }] },
        { toolCalls: [{ id: "w2", name: "write", arguments: { file_path: edited, content: "EDITED" } }] },
        { text: "editor done" },
        { toolCalls: [{ id: "t3", name: "task", arguments: { description: "c", prompt: "c", subagent_type: "odd" } }] },
        { text: "odd done" },
        { text: "parent done" },
      ],
      ["--permission-mode", "accept-edits", "--allow", "Task", "write them"],
    );
    expect(code).toBe(0);
    // accept-edits lets a write through; bypass is wider than it, so "mine" runs in accept-edits and writes too.
    expect(readFileSync(mineCanary, "utf8")).toBe("x");
    expect(stderr).toContain(`${join(world.agentHome, "agents/mine.md")}: permissionMode: bypassPermissions is wider than the session's accept-edits mode`);
    expect(readFileSync(edited, "utf8")).toBe("EDITED");
    expect(stderr).toContain(`${join(world.agentHome, "agents/odd.md")}: permissionMode: "yolo" is not a permission mode`);
  });
});

const skill = (name: string, body: string, extra: readonly string[] = []): string =>
  ["---", `name: ${name}`, `description: The ${name} skill`, ...extra, "---", "", body, ""].join("\n");

describe("agent front matter: skills", () => {
  test("the named skills' bodies are in the subagent's first request and not the parent's; an unknown name is a warning naming the file", async () => {
    const world = makeWorld();
    const plugin = writeCrew(world, {
      "skills/lint/SKILL.md": skill("lint", "LINT-SKILL-BODY: run the linter before you answer."),
      "skills/style/SKILL.md": skill("style", "STYLE-SKILL-BODY: short sentences."),
      "skills/other/SKILL.md": skill("other", "OTHER-SKILL-BODY"),
      "agents/checker.md": agentFile(["description: Checks", "skills:", "  - lint", "  - crew:style", "  - nosuch"], "You check. CHECKER-PROMPT"),
    });
    const { server, stdout, stderr, code } = await run(
      world,
      [task("crew:checker"), { text: "checked" }, { text: "parent done" }],
      ["--permission-mode", "bypass", "--plugin-dir", plugin, "check"],
    );
    expect(code).toBe(0);
    expect(stdout).toContain("parent done");
    const parent = systemOf(server.requests[0]);
    const child = systemOf(server.requests[1]);
    expect(child).toContain("CHECKER-PROMPT");
    expect(child).toContain("LINT-SKILL-BODY: run the linter before you answer.");
    expect(child).toContain("STYLE-SKILL-BODY");
    expect(child).toContain(`<skill name="lint" path="${join(plugin, "skills/lint/SKILL.md")}">`);
    // Front matter is not part of the body; a skill not named is not loaded.
    expect(child).not.toContain("description: The lint skill");
    expect(child).not.toContain("OTHER-SKILL-BODY");
    // The parent is offered the skills by name, never given their bodies.
    expect(parent).toContain("crew:lint");
    expect(parent).not.toContain("LINT-SKILL-BODY");
    expect(parent).not.toContain("STYLE-SKILL-BODY");
    expect(stderr).toContain(`agent: ${join(plugin, "agents/checker.md")}: skills: nosuch is not a loaded skill; it is left out`);
  });

  test("a skill body is bounded as an instruction file is, and the cut is named", async () => {
    const world = makeWorld();
    const line = `${"x".repeat(99)}\n`;
    const plugin = writeCrew(world, {
      "skills/huge/SKILL.md": skill("huge", `HUGE-START\n${line.repeat(400)}HUGE-END`),
      "agents/big.md": agentFile(["description: Big", "skills: huge"], "Big."),
    });
    const { server, code } = await run(world, [task("big"), { text: "ok" }, { text: "done" }], ["--permission-mode", "bypass", "--plugin-dir", plugin, "go"]);
    expect(code).toBe(0);
    const child = systemOf(server.requests[1]);
    expect(child).toContain("HUGE-START");
    expect(child).not.toContain("HUGE-END");
    expect(child).toMatch(/\[the last \d+ of \d+ bytes were cut \(the 32 KiB per skill\); read .*skills\/huge\/SKILL\.md for the rest\]/);
  });

  test("agent plugin list names a skills: entry that is no loaded skill", async () => {
    const world = makeWorld();
    const plugin = writeCrew(world, {
      "skills/lint/SKILL.md": skill("lint", "LINT"),
      "agents/checker.md": agentFile(["description: Checks", "skills: lint, ghost", "permissionMode: plan"], "Check."),
      "agents/odd.md": agentFile(["description: Odd", "permissionMode: sometimes"], "Odd."),
    });
    expect((await runCliInProcess(world, ["plugin", "install", plugin])).code).toBe(0);
    const list = await runCliInProcess(world, ["plugin", "list"]);
    expect(list.code).toBe(0);
    const warnings = list.stdout.split("\n").filter((line) => line.startsWith("warning: "));
    expect(warnings).toEqual([
      expect.stringMatching(/agents\/checker\.md: skills: ghost is not a loaded skill; it is left out$/),
      expect.stringMatching(/agents\/odd\.md: permissionMode: "sometimes" is not a permission mode .*; the session's mode is used$/),
    ]);
  });
});

describe("disable-model-invocation", () => {
  test("a skill with it is not offered to the model but runs as /name; a command with it runs and draws no warning", async () => {
    const world = makeWorld();
    const plugin = writeCrew(world, {
      "skills/deploy/SKILL.md": skill("deploy", "DEPLOY-SKILL-BODY for $ARGUMENTS", ["disable-model-invocation: true"]),
      "skills/offered/SKILL.md": skill("offered", "OFFERED-BODY"),
      "commands/ship.md": ["---", "description: Ship it", "disable-model-invocation: true", "---", "SHIP-COMMAND $ARGUMENTS", ""].join("\n"),
    });
    const first = await run(world, [{ text: "one" }, { text: "two" }, { text: "three" }], ["--permission-mode", "bypass", "--plugin-dir", plugin, "hello"]);
    expect(first.code).toBe(0);
    const system = systemOf(first.server.requests[0]);
    expect(system).toContain("crew:offered");
    expect(system).not.toContain("crew:deploy");
    expect(system).not.toContain("SHIP-COMMAND");
    // The user still runs both by name.
    const skillRun = await run(world, [{ text: "deployed" }], ["--permission-mode", "bypass", "--plugin-dir", plugin, "/deploy prod"]);
    expect(skillRun.code).toBe(0);
    expect(JSON.stringify(messagesOf(skillRun.server.requests[0]))).toContain("DEPLOY-SKILL-BODY for prod");
    const commandRun = await run(world, [{ text: "shipped" }], ["--permission-mode", "bypass", "--plugin-dir", plugin, "/ship now"]);
    expect(commandRun.code).toBe(0);
    expect(JSON.stringify(messagesOf(commandRun.server.requests[0]))).toContain("SHIP-COMMAND now");
    expect((await runCliInProcess(world, ["plugin", "install", plugin])).code).toBe(0);
    const list = await runCliInProcess(world, ["plugin", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain("warning");
    expect(list.stdout).not.toContain("disable-model-invocation");
  });
});

describe("agent front matter: permissionMode dontAsk in the interactive session (tmux)", () => {
  /** A world whose plugin agent `quiet` (in `mode`) writes canary.txt when the session's model starts it. */
  function quietWorld(mode: string): { world: World; plugin: string; canary: string } {
    const world = makeWorld();
    const plugin = writeCrew(world, { "agents/quiet.md": agentFile(["description: Quiet", `permissionMode: ${mode}`], "Quiet.") });
    const canary = join(world.project, "canary.txt");
    // The user's own rule lets the session start subagents; nothing lets anything write.
    world.file(join(world.agentHome, "settings.json"), JSON.stringify({ permissions: { allow: ["Task"] } }));
    writeScript(world, [
      { tool_calls: [{ id: "t1", name: "task", arguments: { description: "q", prompt: "write", subagent_type: "quiet" } }] },
      { text: "turn over" },
    ]);
    const script = JSON.parse(readFileSync(join(world.project, "script.json"), "utf8")) as Record<string, unknown>;
    const childTurns = [{ tool_calls: [{ id: "w1", name: "write", arguments: { file_path: canary, content: "x" } }] }, { text: "child done" }];
    world.file("script.json", JSON.stringify({ ...script, agents: { quiet: { turns: childTurns } } }));
    return { world, plugin, canary };
  }

  const args = (plugin: string): string[] => ["--script", "script.json", "--permission-mode", "default", "--plugin-dir", plugin];

  test("a default agent's write asks the user (y writes it)", async () => {
    const { world, plugin, canary } = quietWorld("default");
    await withPane(world, args(plugin), {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      await pane.waitFor("allow write:");
      pane.keys("y");
      await pane.waitFor("turn over");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(canary)).toBe(true);
  }, 90_000);

  test("a dontAsk agent's write is refused without a question", async () => {
    const { world, plugin, canary } = quietWorld("dontAsk");
    await withPane(world, args(plugin), {}, async (pane) => {
      await pane.waitFor(PROMPT);
      pane.keys("go", "Enter");
      const screen = await pane.waitFor("turn over");
      expect(screen).not.toContain("allow write:");
      expect(screen).not.toContain("is wider than the session's");
      pane.keys("C-d");
      expect(await pane.exited()).toBe(0);
    });
    expect(existsSync(canary)).toBe(false);
    const refused = resultOf(childRecords(world), "w1");
    expect(refused).toMatchObject({ success: false });
    // The refusal says why nobody was asked, not that the session is non-interactive (a person is there).
    expect(String(refused?.content)).toContain("needs approval, but nobody is asked here (the ");
    expect(String(refused?.content)).toContain("subagent runs with permissionMode dontAsk)");
    expect(String(refused?.content)).not.toContain("non-interactive");
    expect(String(refused?.content)).not.toContain("--allow");
  }, 90_000);
});
