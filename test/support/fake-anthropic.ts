/**
 * A fake Anthropic Messages server (same API and reply scripts as fake-openai.ts): streams
 * `message_start`, thinking / text / tool_use content blocks (tool input as several
 * `input_json_delta` pieces), `ping`, `message_delta` with stop reason and usage, `message_stop`.
 */
import { argumentsText, splitParts, startFakeServer, type FakeReply, type FakeServer, type FakeStreamReply } from "./fake-openai.ts";

export type { FakeReply, FakeServer, FakeStreamReply, FakeToolCall } from "./fake-openai.ts";

const event = (name: string, value: Record<string, unknown>): string =>
  `event: ${name}\ndata: ${JSON.stringify({ type: name, ...value })}\n\n`;

export function renderAnthropic(reply: FakeStreamReply): string[] {
  const usage = reply.usage === false ? undefined : (reply.usage ?? { input: 10, output: 5 });
  const events: string[] = [
    event("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model: "fake",
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage?.input ?? 0, output_tokens: 1 },
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

export function startFakeAnthropic(replies: readonly FakeReply[]): Promise<FakeServer> {
  return startFakeServer("/v1/messages", replies, renderAnthropic);
}
