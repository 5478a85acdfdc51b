/**
 * The Anthropic request body text built from memoized per-message blocks (anthropicBodyText) must be
 * byte for byte what serializing the whole body gives: role merging (tool results with the user text
 * after them), system messages, empty texts, non-object tool arguments, and messages changed in place.
 */
import { describe, expect, test } from "bun:test";
import { anthropicBodyText, toAnthropicBody } from "../../src/providers/anthropic.ts";
import type { Message, ProviderRequest } from "../../src/providers/types.ts";

const tools = [{ name: "bash", description: 'runs "sh"', parameters: { type: "object", properties: { command: { type: "string" } } } }];

function same(model: string, request: ProviderRequest, maxTokens = 8192): void {
  expect(anthropicBodyText(model, request, maxTokens)).toBe(JSON.stringify(toAnthropicBody(model, request, maxTokens)));
}

describe("anthropic request body text", () => {
  test("memoized blocks equal serializing the whole body, turn after turn", () => {
    const messages: Message[] = [{ role: "user", content: 'go "now" \u2028 $& "messages":[]' }];
    for (let turn = 0; turn < 5; turn++) {
      same("claude-x", { messages, tools });
      same('m"messages":[]', { system: "be brief", messages, tools: [] }, 512);
      messages.push({
        role: "assistant",
        content: turn % 2 === 0 ? "" : "text",
        toolCalls: [{ id: `c${turn}`, name: "bash", arguments: turn === 2 ? "[1]" : '{"command":"true"}' }],
      });
      messages.push({ role: "tool", toolCallId: `c${turn}`, name: "bash", content: `out ${turn}`, ...(turn === 3 ? { isError: true } : {}) });
      messages.push({ role: "user", content: turn === 1 ? "" : `<hook_context>${turn}</hook_context>` });
      if (turn === 4) messages.push({ role: "system", content: "later system text" });
      messages.push({ role: "assistant", content: "plain", toolCalls: [] });
    }
    same("claude-x", { system: "sys", messages, tools }, 4096);
  });

  test("a message changed in place after a request is built afresh", () => {
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
    expect(anthropicBodyText("m", { messages, tools }, 100)).toContain('"text":"second"');
  });
});
