/**
 * The request body text built from memoized per-message JSON (openAIBodyText) must be byte for
 * byte what serializing the whole body gives, across a growing conversation, a system prompt,
 * tools, max_tokens, awkward strings, and messages changed in place after being sent.
 */
import { describe, expect, test } from "bun:test";
import { openAIBodyText, toOpenAIBody } from "../../src/providers/openai.ts";
import type { Message, ProviderRequest } from "../../src/providers/types.ts";

const tools = [{ name: "bash", description: 'runs "sh"', parameters: { type: "object", properties: { command: { type: "string" } } } }];

function same(model: string, request: ProviderRequest, maxTokens?: number): void {
  expect(openAIBodyText(model, request, maxTokens)).toBe(JSON.stringify(toOpenAIBody(model, request, maxTokens)));
}

describe("openai request body text", () => {
  test("SEC-37 request wire format: memoized message JSON equals serializing the whole body, turn after turn", () => {
    const messages: Message[] = [{ role: "user", content: 'go "now" \u2028 \ud800 $& "messages":[]' }];
    for (let turn = 0; turn < 5; turn++) {
      same("gpt-x", { messages, tools });
      same('m"messages":[]', { system: "be brief", messages, tools: [] }, 512);
      messages.push({
        role: "assistant",
        content: turn % 2 === 0 ? "" : "text",
        toolCalls: [{ id: `c${turn}`, name: "bash", arguments: '{"command":"true"}' }],
      });
      messages.push({ role: "tool", toolCallId: `c${turn}`, name: "bash", content: `out ${turn}`, isError: turn === 3 });
      messages.push({ role: "assistant", content: "plain", toolCalls: [] });
    }
    same("gpt-x", { messages, tools }, 4096);
  });

  test("SEC-37 request wire format: a message changed in place after a request is serialized afresh", () => {
    const user: Message = { role: "user", content: "first" };
    const assistant: Message = { role: "assistant", content: "", toolCalls: [{ id: "a", name: "bash", arguments: "{}" }] };
    const tool: Message = { role: "tool", toolCallId: "a", name: "bash", content: "x" };
    const messages: Message[] = [user, assistant, tool];
    same("m", { messages, tools });
    user.content = "second";
    assistant.toolCalls[0]!.arguments = '{"command":"ls"}';
    assistant.toolCalls.push({ id: "b", name: "read", arguments: "{}" });
    tool.toolCallId = "b";
    same("m", { messages, tools });
    expect(openAIBodyText("m", { messages, tools })).toContain('"content":"second"');
  });
});
