/**
 * A fake OpenAI Chat Completions server: a real HTTP server on 127.0.0.1 (node:http, so it runs
 * under Bun, Deno and Node) that records every request and answers each with the next scripted
 * reply in the real SSE wire format. Every SSE event is written in two pieces split mid-line, text
 * and tool arguments are spread over several deltas, parallel calls are sent one after another by
 * index, and a usage chunk and `data: [DONE]` close the stream.
 *
 *   const server = await startFakeOpenAI([{ text: "hi" }, { status: 429 }, { toolCalls: [...] }]);
 *   createProvider({ id: "openai", baseUrl: server.url, ... });   // server.url has no /v1
 *   server.requests[0]  // parsed JSON body of the first request
 *   await server.close();
 */
import { listenLocal } from "./listen.ts";
import { readBodyText } from "./events.ts";
import { createServer, type ServerResponse } from "node:http";

export interface FakeToolCall {
  id?: string;
  name: string;
  /** An object is sent as JSON text; a string is sent as is (may be invalid JSON). */
  arguments: string | Record<string, unknown>;
}

export interface FakeStreamReply {
  text?: string;
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  /**
   * Token counts reported at the end; `false` sends no usage. Default `{ input: 10, output: 5 }`.
   * `cached` (openai `prompt_tokens_details.cached_tokens`, part of `input`); `cacheRead` and
   * `cacheWrite` (anthropic, on top of `input`).
   */
  usage?: { input: number; output: number; cached?: number; cacheRead?: number; cacheWrite?: number } | false;
  /** Wire stop reason; default `tool_calls`/`stop` (openai) or `tool_use`/`end_turn` (anthropic). */
  finishReason?: string;
  /** Sends this error mid-stream after the content, and nothing after it. */
  errorAfter?: { message: string; type?: string };
  /** Ends the body without `[DONE]` / `message_stop` (and without a finish reason). */
  truncate?: boolean;
}

export type FakeReply =
  | FakeStreamReply
  /** A non-2xx answer; `body` defaults to `{"error":{"message":"fake error <status>"}}`. */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Exactly these pieces, written one by one as a 200 `text/event-stream` body; `stall` keeps it open after them. */
  | { raw: string[]; stall?: boolean }
  /** Never answers (until the server closes). */
  | { hang: true }
  /** Destroys the connection without answering. */
  | { drop: true };

export interface FakeServer {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no `/v1`). */
  url: string;
  /** Parsed JSON bodies, in arrival order. */
  requests: unknown[];
  /** Request headers (lower-case names), parallel to `requests`. */
  headers: Record<string, string>[];
  /** Request paths, parallel to `requests`. */
  paths: string[];
  close(): Promise<void>;
}

/** Turns one stream reply (and the parsed request it answers) into the SSE event strings to send. */
export type StreamRenderer = (reply: FakeStreamReply, request: unknown) => string[];

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/** Splits `text` into up to `parts` non-empty pieces. */
export function splitParts(text: string, parts = 3): string[] {
  if (text.length <= 1) return text === "" ? [] : [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function argumentsText(call: FakeToolCall): string {
  return typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
}

const readBody = readBodyText;

async function writeSse(res: ServerResponse, events: readonly string[], split: boolean, stall = false): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) {
    // Two writes per event, cut mid-line, so the client sees chunk boundaries anywhere.
    const cut = split ? Math.max(1, Math.floor(event.length / 2)) : event.length;
    for (const piece of [event.slice(0, cut), event.slice(cut)]) {
      if (piece === "") continue;
      res.write(piece);
      await tick();
    }
  }
  if (!stall) res.end();
}

/** The generic scripted server; `path` is the one POST path served (others get 404). */
export async function startFakeServer(path: string, replies: readonly FakeReply[], render: StreamRenderer): Promise<FakeServer> {
  const requests: unknown[] = [];
  const headers: Record<string, string>[] = [];
  const paths: string[] = [];
  let next = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      requests.push(body);
      paths.push(req.url ?? "");
      const flat: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(", ") : value;
      }
      headers.push(flat);
      if (req.method !== "POST" || req.url !== path) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `fake server: no route ${req.method} ${req.url}` } }));
        return;
      }
      const reply = replies[next];
      next += 1;
      if (reply === undefined) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "fake server: no scripted reply left" } }));
        return;
      }
      if ("hang" in reply) return;
      if ("drop" in reply) {
        req.socket.destroy();
        return;
      }
      if ("status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        const payload = reply.body ?? { error: { message: `fake error ${reply.status}` } };
        res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
        return;
      }
      if ("raw" in reply) {
        await writeSse(res, reply.raw, false, reply.stall === true);
        return;
      }
      await writeSse(res, render(reply, body), true);
    })().catch(() => {
      res.destroy();
    });
  });
  const listening = await listenLocal(server);
  return {
    url: listening.url,
    requests,
    headers,
    paths,
    close: listening.close,
  };
}

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;

/** The OpenAI chunk sequence for one reply. */
export function renderOpenAI(reply: FakeStreamReply): string[] {
  const id = "chatcmpl-fake";
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    data({ id, object: "chat.completion.chunk", model: "fake", choices: [{ index: 0, delta, finish_reason: finish }] });
  const events: string[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of splitParts(reply.reasoning ?? "")) events.push(chunk({ reasoning_content: piece }));
  for (const piece of splitParts(reply.text ?? "")) events.push(chunk({ content: piece }));
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, index) => {
    const args = splitParts(argumentsText(call));
    const first = { index, id: call.id ?? `call_fake_${index}`, type: "function", function: { name: call.name, arguments: "" } };
    events.push(chunk({ tool_calls: [first] }));
    for (const piece of args) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  if (reply.errorAfter) {
    events.push(data({ error: { message: reply.errorAfter.message, type: reply.errorAfter.type ?? "server_error" } }));
    return events;
  }
  if (reply.truncate) return events;
  events.push(chunk({}, reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")));
  const usage = reply.usage ?? { input: 10, output: 5 };
  if (usage !== false) {
    events.push(
      data({
        id,
        object: "chat.completion.chunk",
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
        },
      }),
    );
  }
  events.push(": keep-alive comment\n\n", "data: [DONE]\n\n");
  return events;
}

export function startFakeOpenAI(replies: readonly FakeReply[]): Promise<FakeServer> {
  return startFakeServer("/v1/chat/completions", replies, renderOpenAI);
}
