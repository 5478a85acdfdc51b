// Honest turns against recording provider servers on both wires: a reply cut off at the token limit
// runs none of its tool calls and the model is told why (twice in a row ends the session as
// `truncated`, exit 4); usage summed per session with cost from configured prices; Anthropic
// prompt-cache marks; automatic compaction at 80% of a configured context window.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, type CliResult, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";
import { FakePromptCache, startFakeAnthropic } from "../support/fake-anthropic.ts";
import { lastJson, ofType, recordsOf } from "./support.ts";

type Msg = { role: string; content: unknown; tool_calls?: unknown[] };

async function run(w: World, provider: "openai" | "anthropic", server: FakeServer, extra: string[] = []): Promise<CliResult> {
  const args = [
    "run",
    "--provider",
    provider,
    "--base-url",
    server.url,
    "--model",
    "fake-model",
    "--permission-mode",
    "bypass",
    "--trust",
    "--output-format",
    "json",
    ...extra,
    "go",
  ];
  return runCliInProcess(w, args, { env: w.env({ ANTHROPIC_API_KEY: "test-key" }) });
}

async function withServer<T>(start: Promise<FakeServer>, body: (server: FakeServer) => Promise<T>): Promise<T> {
  const server = await start;
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

describe("truncated replies", () => {
  test("openai `length`: the reply's tool call does not run, the model is told why, and a complete reply after it ends completed", async () => {
    const w = makeWorld();
    const replies: FakeReply[] = [
      { text: "Writing the file", toolCalls: [{ id: "w1", name: "write", arguments: '{"file_path":"out.txt","content":"cut he' }], finishReason: "length" },
      { text: "short answer" },
    ];
    await withServer(startFakeOpenAI(replies), async (server) => {
      const r = await run(w, "openai", server);
      expect(r.code).toBe(0);
      expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "completed", result: "short answer", is_error: false });
      expect(existsSync(join(w.project, "out.txt"))).toBe(false);
      expect(r.stderr).toContain("agent: the reply was cut off at the output token limit (length); its 1 tool call was not run");
      const second = (server.requests[1] as { messages: Msg[] }).messages;
      const tail = second.slice(-2);
      expect(tail[0]).toEqual({ role: "assistant", content: "Writing the file" });
      expect(tail[1]?.role).toBe("user");
      expect(String(tail[1]?.content)).toContain("cut off because it reached the output token limit, so none of its 1 tool call ran");
      const records = recordsOf(w, r);
      expect(ofType(records, "tool_call")).toEqual([]);
      expect(ofType(records, "assistant")[0]).toMatchObject({ content: "Writing the file", tool_calls: [] });
    });
  });

  test("anthropic `max_tokens` twice in a row: no tool runs and the session ends truncated (exit 4)", async () => {
    const w = makeWorld();
    const cut: FakeReply = { text: "let me", toolCalls: [{ id: "b1", name: "bash", arguments: { command: "touch ran.txt" } }], finishReason: "max_tokens" };
    await withServer(
      startFakeAnthropic([cut, { ...cut, toolCalls: [{ id: "b2", name: "bash", arguments: { command: "touch ran.txt" } }] }]),
      async (server) => {
        const r = await run(w, "anthropic", server);
        expect(r.code).toBe(4);
        expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "truncated", is_error: true, turns: 2, tool_calls: 0, result: "let me" });
        expect(r.stderr).toContain("agent: session ended (truncated): 2 replies in a row were cut off at the output token limit (max_tokens)");
        expect(existsSync(join(w.project, "ran.txt"))).toBe(false);
        expect(server.requests).toHaveLength(2);
        // The second request carries the first reply's text without its tool_use, then the note.
        const messages = (server.requests[1] as { messages: { role: string; content: { type: string; text?: string }[] }[] }).messages;
        const assistant = messages[messages.length - 2];
        expect(assistant?.content.map((block) => block.type)).toEqual(["text"]);
        expect(messages[messages.length - 1]?.content[0]?.text).toContain("none of its 1 tool call ran");
        expect(ofType(recordsOf(w, r), "session_end")[0]).toMatchObject({ stop_reason: "truncated", is_error: true });
      },
    );
  });
});

describe("usage and cost", () => {
  test("openai usage (cached tokens included) is summed over the session, with cost from configured prices", async () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "config.toml"), ['[agent.models."fake-model"]', "input_price = 2.0", "output_price = 8.0", "cache_read_price = 0.5"].join("\n"));
    const replies: FakeReply[] = [
      { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*.md" } }], usage: { input: 1000, output: 100, cached: 400 } },
      { text: "done", usage: { input: 1500, output: 50, cached: 1000 } },
    ];
    await withServer(startFakeOpenAI(replies), async (server) => {
      const r = await run(w, "openai", server);
      expect(r.code).toBe(0);
      const out = lastJson(r.stdout);
      expect(out.usage).toEqual({ input_tokens: 1100, output_tokens: 150, cache_read_input_tokens: 1400, cache_creation_input_tokens: 0 });
      // (1100 × 2 + 150 × 8 + 1400 × 0.5) / 1e6
      expect(out.cost_usd).toBe(0.0041);
      expect(out.turns).toBe(2);
      expect(typeof out.duration_ms).toBe("number");
      expect(typeof out.duration_api_ms).toBe("number");
      expect(Number(out.duration_api_ms)).toBeLessThanOrEqual(Number(out.duration_ms));
    });
  });

  test("a subagent's usage counts in its parent's totals", async () => {
    const w = makeWorld();
    const replies: FakeReply[] = [
      { toolCalls: [{ id: "t1", name: "task", arguments: { description: "look", prompt: "look around" } }], usage: { input: 100, output: 10 } },
      { text: "child answer", usage: { input: 40, output: 4 } },
      { text: "done", usage: { input: 150, output: 5 } },
    ];
    await withServer(startFakeOpenAI(replies), async (server) => {
      const r = await run(w, "openai", server);
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(3);
      const out = lastJson(r.stdout);
      expect(out.usage).toEqual({ input_tokens: 290, output_tokens: 19, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(out.turns).toBe(2);
    });
  });

  test("without configured prices the cost is null", async () => {
    const w = makeWorld();
    await withServer(startFakeOpenAI([{ text: "hi", usage: { input: 10, output: 2 } }]), async (server) => {
      const out = lastJson((await run(w, "openai", server)).stdout);
      expect(out.cost_usd).toBeNull();
      expect(out.usage).toEqual({ input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    });
  });

  test("anthropic: cache marks on the system prompt, the last tool and the conversation prefix; cache reads and writes summed", async () => {
    const w = makeWorld();
    const cache = new FakePromptCache();
    const replies: FakeReply[] = [
      { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*.md" } }] },
      { toolCalls: [{ id: "g2", name: "glob", arguments: { pattern: "*.txt" } }] },
      { text: "done" },
    ];
    await withServer(startFakeAnthropic(replies, { promptCache: cache }), async (server) => {
      const r = await run(w, "anthropic", server);
      expect(r.code).toBe(0);
      type Block = { type: string; cache_control?: unknown };
      const bodies = server.requests as { system: Block[]; tools: Block[]; messages: { role: string; content: Block[] }[] }[];
      const mark = { type: "ephemeral" };
      for (const body of bodies) {
        expect(body.system.map((block) => block.cache_control)).toEqual([mark]);
        expect(body.tools.map((tool) => tool.cache_control ?? null)).toEqual([...body.tools.slice(1).map(() => null), mark]);
        const last = body.messages[body.messages.length - 1];
        expect(last?.content[last.content.length - 1]?.cache_control).toEqual(mark);
      }
      // The third request also marks the user message before the latest assistant reply (the previous prefix).
      const marked = bodies[2]?.messages.filter((m) => m.content.some((block) => block.cache_control !== undefined)).length;
      expect(marked).toBe(2);
      const usage = lastJson(r.stdout).usage as Record<string, number>;
      // Every request after the first reads what the one before it wrote.
      expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
      expect(usage.cache_creation_input_tokens).toBeGreaterThan(0);
      const replay = new FakePromptCache();
      const expected = bodies
        .map((body) => replay.usage(body))
        .reduce((sum, u) => ({ read: sum.read + u.cacheRead, write: sum.write + u.cacheWrite, input: sum.input + u.input }), { read: 0, write: 0, input: 0 });
      expect([usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.input_tokens]).toEqual([expected.read, expected.write, expected.input]);
    });
  });
});

describe("context window", () => {
  test("automatic compaction starts at 80% of the model's configured context window", async () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "config.toml"), ['[agent.models."fake-model"]', "context_window = 2000"].join("\n"));
    const replies: FakeReply[] = [
      { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*.md" } }], usage: { input: 1601, output: 10 } },
      { text: "the summary", usage: { input: 1700, output: 20 } },
      { text: "done", usage: { input: 100, output: 5 } },
    ];
    await withServer(startFakeOpenAI(replies), async (server) => {
      const r = await run(w, "openai", server);
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(3);
      const summarizing = (server.requests[1] as { messages: Msg[] }).messages;
      expect(String(summarizing[summarizing.length - 1]?.content)).toContain("Summarize the conversation so far");
      expect(ofType(recordsOf(w, r), "compaction")[0]).toMatchObject({ trigger: "auto", summary: "the summary" });
      // The summarizing request's tokens count too.
      expect((lastJson(r.stdout).usage as Record<string, number>).input_tokens).toBe(3401);
    });
  });

  test("below the threshold nothing is compacted", async () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "config.toml"), ['[agent.models."fake-model"]', "context_window = 2000"].join("\n"));
    const replies: FakeReply[] = [
      { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*.md" } }], usage: { input: 1600, output: 10 } },
      { text: "done", usage: { input: 1650, output: 5 } },
    ];
    await withServer(startFakeOpenAI(replies), async (server) => {
      const r = await run(w, "openai", server);
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(ofType(recordsOf(w, r), "compaction")).toEqual([]);
    });
  });
});
