import { afterEach, describe, expect, test } from "bun:test";
import { createProvider } from "../../src/providers/index.ts";
import type { Provider, ProviderRequest } from "../../src/providers/types.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";
import { collect, FAST_RETRY, freePort, lastEvent, runtimeWith, textOf, toolCallsOf } from "./helpers.ts";

const KEY = "sk-canary-0123456789abcdef";
const servers: FakeServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function setup(
  replies: FakeReply[],
  options: { apiKey?: string; baseSuffix?: string; requestTimeoutMs?: number } = {},
): Promise<{ server: FakeServer; provider: Provider }> {
  const server = await startFakeOpenAI(replies);
  servers.push(server);
  const created = createProvider({
    id: "openai",
    model: "test-model",
    baseUrl: server.url + (options.baseSuffix ?? ""),
    runtime: runtimeWith(options.apiKey ? { OPENAI_API_KEY: options.apiKey } : {}),
    retry: FAST_RETRY,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  });
  if (!created.ok) throw new Error(created.error);
  return { server, provider: created.provider };
}

const REQUEST: ProviderRequest = {
  system: "be brief",
  messages: [
    { role: "user", content: "list files" },
    { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }] },
    { role: "tool", toolCallId: "call_1", name: "bash", content: "a.txt", isError: false },
    { role: "user", content: "<hook_context>\nnote\n</hook_context>" },
  ],
  tools: [{ name: "bash", description: "run a command", parameters: { type: "object", properties: { command: { type: "string" } } } }],
};

describe("openai provider", () => {
  test("streams text, reasoning, parallel tool calls with chunked arguments, usage and done", async () => {
    const { provider } = await setup([
      {
        reasoning: "thinking about files",
        text: "Let me look.",
        toolCalls: [
          { id: "call_a", name: "bash", arguments: { command: "ls -la" } },
          { id: "call_b", name: "read", arguments: { file_path: "a.txt" } },
        ],
        usage: { input: 123, output: 45 },
      },
    ]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events, "reasoning_delta")).toBe("thinking about files");
    expect(textOf(events)).toBe("Let me look.");
    expect(events.filter((event) => event.type === "text_delta").length).toBeGreaterThan(1);
    expect(toolCallsOf(events)).toEqual([
      { id: "call_a", name: "bash", arguments: '{"command":"ls -la"}' },
      { id: "call_b", name: "read", arguments: '{"file_path":"a.txt"}' },
    ]);
    expect(events).toContainEqual({ type: "usage", inputTokens: 123, outputTokens: 45, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(lastEvent(events)).toEqual({ type: "done", stopReason: "tool_calls" });
    expect(events.filter((event) => event.type === "done").length).toBe(1);
  });

  test("SEC-37 request wire format: stream options, messages, tools, bearer key", async () => {
    const { server, provider } = await setup([{ text: "ok" }], { apiKey: KEY });
    const events = await collect(provider.stream(REQUEST));
    expect(lastEvent(events)).toEqual({ type: "done", stopReason: "stop" });
    expect(server.paths).toEqual(["/v1/chat/completions"]);
    expect(server.headers[0]?.authorization).toBe(`Bearer ${KEY}`);
    expect(server.requests[0]).toEqual({
      model: "test-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "list files" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "a.txt" },
        { role: "user", content: "<hook_context>\nnote\n</hook_context>" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "bash", description: "run a command", parameters: { type: "object", properties: { command: { type: "string" } } } },
        },
      ],
    });
  });

  test("a base URL ending in /v1 is not doubled; no key and no tools are omitted from the request", async () => {
    const { server, provider } = await setup([{ text: "hi" }], { baseSuffix: "/v1/" });
    await collect(provider.stream({ messages: [{ role: "user", content: "x" }], tools: [] }));
    expect(server.paths).toEqual(["/v1/chat/completions"]);
    expect(server.headers[0]?.authorization).toBeUndefined();
    expect(server.requests[0]).not.toHaveProperty("tools");
  });

  test("429 then success is retried, honouring retry-after", async () => {
    const { server, provider } = await setup([{ status: 429, headers: { "retry-after": "0" } }, { text: "after retry" }]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events)).toBe("after retry");
    expect(server.requests.length).toBe(2);
  });

  test("5xx on every attempt ends with a retryable error carrying the status; 400 is not retried", async () => {
    const failing = await setup([{ status: 503 }, { status: 502 }, { status: 500, body: { error: { message: "boom" } } }]);
    const events = await collect(failing.provider.stream(REQUEST));
    expect(events).toEqual([{ type: "error", message: "openai API error 500: boom", retryable: true, status: 500 }]);
    expect(failing.server.requests.length).toBe(3);

    const bad = await setup([{ status: 400, body: { error: { message: "bad tools" } } }, { text: "never" }]);
    const badEvents = await collect(bad.provider.stream(REQUEST));
    expect(badEvents).toEqual([{ type: "error", message: "openai API error 400: bad tools", retryable: false, status: 400 }]);
    expect(bad.server.requests.length).toBe(1);
  });

  test("401 names the key variable and never the key", async () => {
    const { provider } = await setup([{ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } }], { apiKey: KEY });
    const events = await collect(provider.stream(REQUEST));
    const last = lastEvent(events);
    expect(last?.type).toBe("error");
    const message = last?.type === "error" ? last.message : "";
    expect(message).toContain("401");
    expect(message).toContain("check OPENAI_API_KEY");
    expect(message).not.toContain(KEY);
  });

  test("a connection reset before any response byte is retried", async () => {
    const { server, provider } = await setup([{ drop: true }, { text: "second try" }]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events)).toBe("second try");
    expect(server.requests.length).toBe(2);
  });

  test("a mid-stream error object ends the stream with an error after the partial text", async () => {
    const { server, provider } = await setup([{ text: "partial", errorAfter: { message: "model overloaded", type: "server_error" } }, { text: "x" }]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events)).toBe("partial");
    expect(lastEvent(events)).toEqual({ type: "error", message: "openai stream error: model overloaded", retryable: true });
    expect(server.requests.length).toBe(1);
  });

  test("a stream cut before the finish is an error, not a silent success", async () => {
    const { provider } = await setup([{ text: "half", truncate: true }]);
    const events = await collect(provider.stream(REQUEST));
    expect(lastEvent(events)?.type).toBe("error");
    expect(events.some((event) => event.type === "done")).toBe(false);
  });

  test("raw wire quirks: CRLF, comments, interleaved indices, ids missing, both reasoning fields, usage in-chunk, no [DONE]", async () => {
    const chunk = (value: unknown): string => `data: ${JSON.stringify(value)}\r\n\r\n`;
    const { provider } = await setup([
      {
        raw: [
          ": OPENROUTER PROCESSING\r\n\r\n",
          chunk({ choices: [{ index: 0, delta: { role: "assistant", content: null, reasoning: "r1" } }] }),
          chunk({ choices: [{ index: 0, delta: { reasoning_content: "r2", reasoning: "r2" } }] }),
          chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: "bash", arguments: '{"comm' } }] } }] }),
          chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "b", function: { name: "read", arguments: "{" } }] } }] }),
          chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }] } }] }),
          'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]}}]}\r\n',
          "\r\n",
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }], usage: { prompt_tokens: 9, completion_tokens: 3 } }),
        ],
      },
    ]);
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events, "reasoning_delta")).toBe("r1r2");
    expect(toolCallsOf(events)).toEqual([
      { id: "call_1", name: "bash", arguments: '{"command":"ls"}' },
      { id: "b", name: "read", arguments: "{}" },
    ]);
    expect(events).toContainEqual({ type: "usage", inputTokens: 9, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(lastEvent(events)).toEqual({ type: "done", stopReason: "tool_calls" });
  });

  test("several whole calls under index 0 with distinct ids (Ollama) stay separate", async () => {
    const chunk = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
    const call = (id: string, command: string): unknown => ({
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id, function: { name: "bash", arguments: JSON.stringify({ command }) } }] } }],
    });
    const { provider } = await setup([
      { raw: [chunk(call("c1", "ls")), chunk(call("c2", "pwd")), chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }), "data: [DONE]\n\n"] },
    ]);
    const events = await collect(provider.stream(REQUEST));
    expect(toolCallsOf(events).map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(lastEvent(events)).toEqual({ type: "done", stopReason: "stop" });
  });

  test("LOOP-35 unreachable server: one line naming the URL and the fix", async () => {
    const port = await freePort();
    const created = createProvider({ id: "openai", baseUrl: `http://127.0.0.1:${port}`, runtime: runtimeWith({}), retry: FAST_RETRY });
    if (!created.ok) throw new Error(created.error);
    const events = await collect(created.provider.stream(REQUEST));
    expect(events).toEqual([
      {
        type: "error",
        message: `cannot reach http://127.0.0.1:${port}/v1/chat/completions: connection refused — is the server running? check --base-url`,
        retryable: true,
      },
    ]);
  });

  test("request timeout when the server never answers", async () => {
    const { provider } = await setup([{ hang: true }, { hang: true }, { hang: true }], { requestTimeoutMs: 150 });
    const events = await collect(provider.stream(REQUEST));
    const last = lastEvent(events);
    expect(last?.type).toBe("error");
    expect(last?.type === "error" ? last.message : "").toContain("timeout");
  });

  test("a stream that stalls mid-way times out with an error after the partial text", async () => {
    // Long enough that a loaded machine delivers the first chunk before it: the stall is what times out.
    const { provider } = await setup([{ raw: ['data: {"choices":[{"index":0,"delta":{"content":"so far"}}]}\n\n'], stall: true }], {
      requestTimeoutMs: 2000,
    });
    const events = await collect(provider.stream(REQUEST));
    expect(textOf(events)).toBe("so far");
    const last = lastEvent(events);
    expect(last?.type === "error" ? last.message : "").toContain("stalled mid-stream");
  });

  test("an aborted signal cancels the request with a non-retryable error", async () => {
    const { provider } = await setup([{ hang: true }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const events = await collect(provider.stream({ ...REQUEST, signal: controller.signal }));
    expect(events).toEqual([{ type: "error", message: "request cancelled", retryable: false }]);
  });

  test("hosted API without a key is a creation error; an explicit key or a local base URL is fine", () => {
    const missing = createProvider({ id: "openai", runtime: runtimeWith({}) });
    expect(missing).toEqual({ ok: false, error: "OPENAI_API_KEY is not set (export it, or use --base-url for a local server)" });
    expect(createProvider({ id: "openai", runtime: runtimeWith({ OPENAI_API_KEY: KEY }) }).ok).toBe(true);
    expect(createProvider({ id: "openai", baseUrl: "http://localhost:11434/v1", runtime: runtimeWith({}) }).ok).toBe(true);
    const badUrl = createProvider({ id: "openai", baseUrl: "localhost:11434", runtime: runtimeWith({}) });
    expect(badUrl.ok).toBe(false);
  });
});
