import { afterEach, describe, expect, test } from "bun:test";
import { createProvider } from "../../src/providers/index.ts";
import type { Provider, ProviderRequest } from "../../src/providers/types.ts";
import { startFakeAnthropic, type FakeReply, type FakeServer } from "../support/fake-anthropic.ts";
import { collect, FAST_RETRY, freePort, lastEvent, runtimeWith, textOf, toolCallsOf } from "./helpers.ts";

const KEY = "sk-ant-canary-0123456789";
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setup(replies: FakeReply[], apiKey?: string): Promise<{ server: FakeServer; provider: Provider }> {
  const server = await startFakeAnthropic(replies);
  servers.push(server);
  const created = createProvider({
    id: "anthropic",
    model: "claude-test",
    baseUrl: server.url,
    runtime: runtimeWith(apiKey ? { ANTHROPIC_API_KEY: apiKey } : {}),
    retry: FAST_RETRY,
  });
  if (!created.ok) throw new Error(created.error);
  return { server, provider: created.provider };
}

const REQUEST: ProviderRequest = {
  system: "be brief",
  messages: [
    { role: "system", content: "extra rules" },
    { role: "user", content: "check" },
    {
      role: "assistant",
      content: "running",
      reasoning: "hmm",
      toolCalls: [
        { id: "toolu_1", name: "bash", arguments: '{"command":"ls"}' },
        { id: "toolu_2", name: "read", arguments: '{"file_path":' },
      ],
    },
    { role: "tool", toolCallId: "toolu_1", name: "bash", content: "a.txt" },
    { role: "tool", toolCallId: "toolu_2", name: "read", content: "invalid arguments", isError: true },
    { role: "user", content: "Relevant memory" },
  ],
  tools: [{ name: "bash", description: "run", parameters: { type: "object" } }],
};

describe("anthropic provider", () => {
  test("LOOP-22 streams thinking as reasoning, text, tool_use with input_json_delta pieces, usage and done", async () => {
    const { provider } = await setup([
      {
        reasoning: "the full thinking summary",
        text: "Looking now.",
        toolCalls: [
          { id: "toolu_a", name: "bash", arguments: { command: "ls -la" } },
          { id: "toolu_b", name: "glob", arguments: { pattern: "**/*.ts" } },
        ],
        usage: { input: 321, output: 54 },
      },
    ]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events, "reasoning_delta")).toBe("the full thinking summary");
    expect(textOf(events)).toBe("Looking now.");
    expect(toolCallsOf(events)).toEqual([
      { id: "toolu_a", name: "bash", arguments: '{"command":"ls -la"}' },
      { id: "toolu_b", name: "glob", arguments: '{"pattern":"**/*.ts"}' },
    ]);
    expect(events.slice(-2)).toEqual([
      { type: "usage", inputTokens: 321, outputTokens: 54, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { type: "done", stopReason: "tool_use" },
    ]);
  });

  test("SEC-37 request wire format: headers, system, tool_use/tool_result blocks, input_schema", async () => {
    const { server, provider } = await setup([{ text: "ok" }], KEY);
    const events = await collect(provider.stream(REQUEST));
    expect(lastEvent(events)).toEqual({ type: "done", stopReason: "end_turn" });
    expect(server.paths).toEqual(["/v1/messages"]);
    expect(server.headers[0]?.["x-api-key"]).toBe(KEY);
    expect(server.headers[0]?.["anthropic-version"]).toBe("2023-06-01");
    expect(server.requests[0]).toEqual({
      model: "claude-test",
      max_tokens: 8192,
      stream: true,
      system: [{ type: "text", text: "be brief\n\nextra rules", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "check", cache_control: { type: "ephemeral" } }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "running" },
            { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
            { type: "tool_use", id: "toolu_2", name: "read", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "a.txt" },
            { type: "tool_result", tool_use_id: "toolu_2", content: "invalid arguments", is_error: true },
            { type: "text", text: "Relevant memory", cache_control: { type: "ephemeral" } },
          ],
        },
      ],
      tools: [{ name: "bash", description: "run", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
    });
  });

  test("overloaded (529) then success is retried", async () => {
    const { server, provider } = await setup([
      { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      { text: "fine" },
    ]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events)).toBe("fine");
    expect(server.requests.length).toBe(2);
  });

  test("a mid-stream error event ends the stream with a retryable error", async () => {
    const { provider } = await setup([{ text: "partial", errorAfter: { message: "Overloaded", type: "overloaded_error" } }]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events)).toBe("partial");
    expect(lastEvent(events)).toEqual({ type: "error", message: "anthropic stream error: overloaded_error: Overloaded", retryable: true });
  });

  test("a tool_use without input deltas uses the start event's input", async () => {
    const event = (name: string, value: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...value })}\n\n`;
    const { provider } = await setup([
      {
        raw: [
          event("message_start", { message: { usage: { input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 } } }),
          event("content_block_start", { index: 0, content_block: { type: "tool_use", id: "t1", name: "glob", input: {} } }),
          event("content_block_stop", { index: 0 }),
          event("message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 7 } }),
          event("message_stop", {}),
        ],
      },
    ]);
    const events = await collect(provider.stream(REQUEST));
    expect(toolCallsOf(events)).toEqual([{ id: "t1", name: "glob", arguments: "{}" }]);
    expect(events).toContainEqual({ type: "usage", inputTokens: 105, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 0 });
  });

  test("LOOP-35 unreachable server names the messages URL", async () => {
    const port = await freePort();
    const created = createProvider({ id: "anthropic", baseUrl: `http://127.0.0.1:${port}/v1`, runtime: runtimeWith({}), retry: FAST_RETRY });
    if (!created.ok) throw new Error(created.error);
    const events = await collect(created.provider.stream(REQUEST));
    expect(events).toEqual([
      {
        type: "error",
        message: `cannot reach http://127.0.0.1:${port}/v1/messages: connection refused — is the server running? check --base-url`,
        retryable: true,
      },
    ]);
  });

  test("hosted API without a key is a creation error", () => {
    expect(createProvider({ id: "anthropic", runtime: runtimeWith({}) })).toEqual({
      ok: false,
      error: "ANTHROPIC_API_KEY is not set (export it, or use --base-url for a local server)",
    });
    expect(createProvider({ id: "anthropic", runtime: runtimeWith({ ANTHROPIC_API_KEY: KEY }) }).ok).toBe(true);
  });

  test("401 never echoes the key", async () => {
    const { provider } = await setup(
      [{ status: 401, body: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } } }],
      KEY,
    );
    const events = await collect(provider.stream(REQUEST));
    const last = lastEvent(events);
    expect(last?.type === "error" ? last.message : "").toContain("check ANTHROPIC_API_KEY");
    expect(JSON.stringify(events)).not.toContain(KEY);
  });
});
