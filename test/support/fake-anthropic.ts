/**
 * A fake Anthropic Messages server (same API and reply scripts as fake-openai.ts): streams
 * `message_start`, thinking / text / tool_use content blocks (tool input as several
 * `input_json_delta` pieces), `ping`, `message_delta` with stop reason and usage, `message_stop`.
 */
import { argumentsText, splitParts, startFakeServer, type FakeReply, type FakeServer, type FakeStreamReply } from "./fake-openai.ts";

export type { FakeReply, FakeServer, FakeStreamReply, FakeToolCall } from "./fake-openai.ts";

const event = (name: string, value: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...value })}\n\n`;

export function renderAnthropic(reply: FakeStreamReply): string[] {
  return renderWithUsage(reply, reply.usage === false ? undefined : (reply.usage ?? { input: 10, output: 5 }));
}

type Usage = Exclude<FakeStreamReply["usage"], false | undefined>;

function renderWithUsage(reply: FakeStreamReply, usage: Usage | undefined): string[] {
  const events: string[] = [
    event("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: "fake",
        content: [],
        stop_reason: null,
        usage: {
          input_tokens: usage?.input ?? 0,
          output_tokens: 1,
          ...(usage?.cacheRead !== undefined ? { cache_read_input_tokens: usage.cacheRead } : {}),
          ...(usage?.cacheWrite !== undefined ? { cache_creation_input_tokens: usage.cacheWrite } : {}),
        },
      },
    }),
  ];
  let index = 0;
  if (reply.reasoning) {
    events.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }));
    for (const piece of splitParts(reply.reasoning)) {
      events.push(event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
    }
    events.push(event("content_block_delta", { index, delta: { type: "signature_delta", signature: "c2ln" } }));
    events.push(event("content_block_stop", { index }));
    index += 1;
  }
  if (reply.text) {
    events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    events.push(event("ping", {}));
    for (const piece of splitParts(reply.text)) {
      events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    }
    events.push(event("content_block_stop", { index }));
    index += 1;
  }
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, n) => {
    const id = call.id ?? `toolu_fake_${n}`;
    events.push(event("content_block_start", { index, content_block: { type: "tool_use", id, name: call.name, input: {} } }));
    for (const piece of splitParts(argumentsText(call))) {
      events.push(event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    events.push(event("content_block_stop", { index }));
    index += 1;
  });
  if (reply.errorAfter) {
    events.push(event("error", { error: { type: reply.errorAfter.type ?? "overloaded_error", message: reply.errorAfter.message } }));
    return events;
  }
  if (reply.truncate) return events;
  const stopReason = reply.finishReason ?? (calls.length > 0 ? "tool_use" : "end_turn");
  events.push(
    event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      ...(usage ? { usage: { output_tokens: usage.output } } : {}),
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}

/**
 * The API's prompt cache, simulated from what each request carries: the request is its blocks in
 * cache order (each tool, each system block, each message's content blocks), a block with
 * `cache_control` is a breakpoint, and a breakpoint writes the prefix up to it. A later request
 * reads the longest written prefix it shares, found at a breakpoint or up to 20 blocks before one
 * (the API's lookback); from there to its last breakpoint is written, the rest is plain input.
 * Tokens are estimated as the block's JSON length ÷ 4 (cache marks left out).
 */
export class FakePromptCache {
  readonly #written = new Set<string>();

  usage(request: unknown): { input: number; cacheRead: number; cacheWrite: number } {
    const blocks = requestBlocks(request);
    const keys: string[] = [];
    const tokens: number[] = [];
    let prefix = "";
    for (const block of blocks) {
      const { cache_control: _mark, ...plain } = block;
      const json = JSON.stringify(plain);
      prefix += `${json}\n`;
      keys.push(prefix);
      tokens.push(Math.ceil(json.length / 4));
    }
    const breakpoints = blocks.flatMap((block, index) => (block.cache_control !== undefined ? [index] : []));
    let hit = -1;
    for (const point of breakpoints) {
      for (let at = point; at >= Math.max(0, point - 20); at--) {
        if (this.#written.has(keys[at] as string)) {
          hit = Math.max(hit, at);
          break;
        }
      }
    }
    const last = breakpoints.length > 0 ? (breakpoints[breakpoints.length - 1] as number) : -1;
    for (const point of breakpoints) this.#written.add(keys[point] as string);
    const sum = (from: number, to: number): number => tokens.slice(from, to + 1).reduce((a, b) => a + b, 0);
    return { cacheRead: sum(0, hit), cacheWrite: last > hit ? sum(hit + 1, last) : 0, input: sum(Math.max(hit, last) + 1, tokens.length - 1) };
  }
}

type Block = Record<string, unknown>;

function requestBlocks(request: unknown): Block[] {
  const body = (typeof request === "object" && request !== null ? request : {}) as {
    tools?: Block[];
    system?: string | Block[];
    messages?: { content: string | Block[] }[];
  };
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
  const messages = (body.messages ?? []).flatMap((message) =>
    typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
  );
  return [...(body.tools ?? []), ...system, ...messages];
}

/** `promptCache`: usage comes from a FakePromptCache over the requests (output tokens still from the reply). */
export function startFakeAnthropic(replies: readonly FakeReply[], options: { promptCache?: FakePromptCache } = {}): Promise<FakeServer> {
  const cache = options.promptCache;
  if (cache === undefined) return startFakeServer("/v1/messages", replies, renderAnthropic);
  return startFakeServer("/v1/messages", replies, (reply, request) => {
    const output = reply.usage === false || reply.usage === undefined ? 5 : reply.usage.output;
    return renderWithUsage(reply, { ...cache.usage(request), output });
  });
}
