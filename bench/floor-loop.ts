/**
 * The floor of bench/heavy-loop.ts: the smallest agent loop that does the same work — POST the whole
 * history to the model server, read the SSE reply, run each `bash` call with `/bin/bash -c`, append
 * the whole output to the history, repeat until a reply has no call. No hooks, no session file, no
 * caps. Either wire: `bun bench/floor-loop.ts openai|anthropic URL`.
 */
import { spawnSync } from "node:child_process";

const [wire = "openai", url = ""] = process.argv.slice(2);
type Call = { id: string; name: string; arguments: string };
const messages: unknown[] = [{ role: "user", content: "go" }];

function parseOpenAI(text: string): Call[] {
  const calls: Call[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta;
    for (const part of delta?.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: "", name: "", arguments: "" });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = part.function.name;
      call.arguments += part.function?.arguments ?? "";
    }
  }
  return calls;
}

function parseAnthropic(text: string): Call[] {
  const calls: Call[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const event = JSON.parse(line.slice(6));
    if (event.type === "content_block_start" && event.content_block.type === "tool_use")
      calls.push({ id: event.content_block.id, name: event.content_block.name, arguments: "" });
    if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
      const last = calls[calls.length - 1];
      if (last) last.arguments += event.delta.partial_json;
    }
  }
  return calls;
}

for (;;) {
  const body = wire === "openai" ? { model: "m", stream: true, messages } : { model: "m", max_tokens: 8192, stream: true, messages };
  const response = await fetch(wire === "openai" ? `${url}/v1/chat/completions` : `${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const calls = wire === "openai" ? parseOpenAI(text) : parseAnthropic(text);
  if (calls.length === 0) break;
  if (wire === "openai")
    messages.push({
      role: "assistant",
      content: "",
      tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
    });
  else messages.push({ role: "assistant", content: calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: JSON.parse(c.arguments || "{}") })) });
  const results: unknown[] = [];
  for (const call of calls) {
    const run = spawnSync("/bin/bash", ["-c", String(JSON.parse(call.arguments).command)], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const output = `${run.stdout}${run.stderr}`;
    if (wire === "openai") messages.push({ role: "tool", tool_call_id: call.id, content: output });
    else results.push({ type: "tool_result", tool_use_id: call.id, content: output });
  }
  if (wire === "anthropic") messages.push({ role: "user", content: results });
}
