/**
 * An agent file's `tools:` and `model:` front matter, honoured as Claude Code honours them, through
 * `agent run` against fake model servers: the subagent's request offers only the listed tools and
 * names the chosen model; a call to a tool not listed is refused (the run says so, nothing runs); an
 * alias the provider cannot serve leaves the subagent on the session's model with a warning. Plugin
 * agents and the user's own agents (`$AGENT_HOME/agents/`) alike.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";
import { startFakeAnthropic } from "../support/fake-anthropic.ts";

setDefaultTimeout(120_000);

function writeAgentPlugin(world: World, agents: Record<string, string>): string {
  const dir = join(world.root, "plugins/crew");
  world.file(join(dir, ".claude-plugin/plugin.json"), JSON.stringify({ name: "crew" }));
  for (const [name, text] of Object.entries(agents)) world.file(join(dir, `agents/${name}.md`), text);
  return dir;
}

type Wire = "openai" | "anthropic";

async function runWith(world: World, wire: Wire, replies: FakeReply[], args: string[]): Promise<{ server: FakeServer; stderr: string; code: number | null }> {
  const server = wire === "openai" ? await startFakeOpenAI(replies) : await startFakeAnthropic(replies);
  try {
    const key: Record<string, string> = wire === "openai" ? { OPENAI_API_KEY: "sk-test-not-real" } : { ANTHROPIC_API_KEY: "sk-ant-test-not-real" };
    const result = await runCliInProcess(
      world,
      ["run", "--provider", wire, "--base-url", server.url, "--model", "session-model", "--permission-mode", "bypass", ...args],
      { env: world.env(key) },
    );
    return { server, stderr: result.stderr, code: result.code };
  } finally {
    await server.close();
  }
}

/** Tool names a request offered (OpenAI `tools[].function.name`, Anthropic `tools[].name`). */
function offered(request: unknown): string[] {
  const tools = (request as { tools?: { name?: string; function?: { name: string } }[] }).tools ?? [];
  return tools.map((tool) => tool.function?.name ?? tool.name ?? "").sort();
}

const modelOf = (request: unknown): string => String((request as { model?: string }).model);

function childRecords(world: World): Record<string, unknown>[] {
  const dir = join(world.agentHome, "sessions/subagents");
  const file = readdirSync(dir).find((name) => name.endsWith(".jsonl"));
  if (file === undefined) throw new Error("no subagent session file");
  return readJsonl(readFileSync(join(dir, file), "utf8"));
}

const task = (agent: string) => ({ toolCalls: [{ id: "t1", name: "task", arguments: { description: "check", prompt: "check it", subagent_type: agent } }] });

describe("agent front matter: tools and model", () => {
  test("tools: Read, Grep offers only those; a bash call is refused and never runs; model: reaches the request", async () => {
    const world = makeWorld();
    const plugin = writeAgentPlugin(world, {
      reviewer: ["---", "name: reviewer", "description: Reviews", "tools: Read, Grep", "model: gpt-4o-mini", "---", "You review.", ""].join("\n"),
    });
    const canary = join(world.project, "canary");
    const { server, stderr, code } = await runWith(
      world,
      "openai",
      [
        task("crew:reviewer"),
        { toolCalls: [{ id: "b1", name: "bash", arguments: { command: `touch ${canary}` } }] },
        { text: "child could not run bash" },
        { text: "parent done" },
      ],
      ["--plugin-dir", plugin, "review"],
    );
    expect(code).toBe(0);
    expect(modelOf(server.requests[0])).toBe("session-model");
    expect(offered(server.requests[0])).toContain("bash");
    // The subagent's requests: only its listed tools, its own model.
    expect(offered(server.requests[1])).toEqual(["grep", "read"]);
    expect(modelOf(server.requests[1])).toBe("gpt-4o-mini");
    expect(offered(server.requests[2])).toEqual(["grep", "read"]);
    expect(modelOf(server.requests[3])).toBe("session-model");
    // Refused before any hook or rule, even in bypass mode: nothing ran.
    expect(existsSync(canary)).toBe(false);
    expect(stderr).toContain("agent: refused: the crew:reviewer subagent may not use bash (its tools: Read, Grep)");
    const refused = childRecords(world).find((record) => record.type === "tool_result" && record.tool_call_id === "b1");
    expect(refused).toMatchObject({ success: false, metadata: { rejected: true } });
    const toolMessage = (server.requests[2] as { messages: { role: string; content: string }[] }).messages.find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("may not use bash");
  });

  test("a YAML tools list and model: haiku on the anthropic provider; a user agent's front matter too", async () => {
    const world = makeWorld();
    world.file(
      join(world.agentHome, "agents/scout.md"),
      ["---", "description: Looks around", "tools:", "  - Glob", "  - Bash", "  - WebSearch", "model: haiku", "---", "You scout.", ""].join("\n"),
    );
    const { server, stderr, code } = await runWith(world, "anthropic", [task("scout"), { text: "scouted" }, { text: "parent done" }], ["look"]);
    expect(code).toBe(0);
    expect(offered(server.requests[1])).toEqual(["bash", "glob"]);
    expect(modelOf(server.requests[1])).toBe("claude-haiku-4-5");
    expect(modelOf(server.requests[2])).toBe("session-model");
    // A Claude-only tool is left out with one line naming the file and the field.
    expect(stderr).toContain(
      `agent: ${join(world.agentHome, "agents/scout.md")}: tools: WebSearch is a Claude Code tool with no counterpart here; it is left out`,
    );
  });

  test("an alias the provider cannot serve, and inherit: the session's model, with a warning for the first", async () => {
    const world = makeWorld();
    const plugin = writeAgentPlugin(world, {
      big: ["---", "description: Thinks hard", "model: opus", "disallowedTools: Bash, Write", "---", "Think.", ""].join("\n"),
      same: ["---", "description: Same model", "model: inherit", "---", "Same.", ""].join("\n"),
    });
    const { server, stderr, code } = await runWith(
      world,
      "openai",
      [
        { toolCalls: [{ id: "t1", name: "task", arguments: { description: "a", prompt: "a", subagent_type: "big" } }] },
        { text: "big done" },
        { toolCalls: [{ id: "t2", name: "task", arguments: { description: "b", prompt: "b", subagent_type: "same" } }] },
        { text: "same done" },
        { text: "parent done" },
      ],
      ["--plugin-dir", plugin, "think"],
    );
    expect(code).toBe(0);
    expect(modelOf(server.requests[1])).toBe("session-model");
    expect(stderr).toContain(
      `agent: ${join(plugin, "agents/big.md")}: model: the openai provider does not serve Claude's opus; the big subagent uses the session's model session-model`,
    );
    // disallowedTools takes tools away from the parent's set.
    expect(offered(server.requests[1])).not.toContain("bash");
    expect(offered(server.requests[1])).not.toContain("write");
    expect(offered(server.requests[1])).toContain("read");
    expect(modelOf(server.requests[3])).toBe("session-model");
    expect(offered(server.requests[3])).toContain("bash");
    expect(stderr.match(/uses the session's model/g)?.length).toBe(1);
  });

  test("agent plugin list warns of front matter that can never be honoured, naming the file and field", async () => {
    const world = makeWorld();
    const plugin = writeAgentPlugin(world, {
      odd: ["---", "description: Odd", "tools: Read, WebSearch, Frobnicate", 'model: "not a model!"', "---", "Odd.", ""].join("\n"),
      fine: ["---", "description: Fine", "tools: [Read, Grep]", "model: sonnet", "---", "Fine.", ""].join("\n"),
    });
    world.file(join(plugin, "commands/go.md"), "---\nallowed-tools: Bash(git status:*), Bash(oops\n---\nGo.\n");
    expect((await runCliInProcess(world, ["plugin", "install", plugin])).code).toBe(0);
    const list = await runCliInProcess(world, ["plugin", "list"]);
    expect(list.code).toBe(0);
    const installed = join(world.agentHome, "plugins/crew");
    const warnings = list.stdout.split("\n").filter((line) => line.startsWith("warning: "));
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^warning: ${installed}/agents/odd.md: tools: WebSearch is a Claude Code tool with no counterpart here; it is left out`),
      ),
      expect.stringMatching(/agents\/odd.md: tools: unknown tool Frobnicate; it is left out/),
      expect.stringMatching(/agents\/odd.md: model: "not a model!" is not a model name; the session's model is used/),
      expect.stringMatching(/commands\/go.md: allowed-tools: .*left out/),
    ]);
  });
});
