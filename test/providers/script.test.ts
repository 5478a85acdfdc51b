import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChildScriptProvider, createProvider, providerForChild, ScriptProvider } from "../../src/providers/index.ts";
import type { Provider, ProviderRequest } from "../../src/providers/types.ts";
import { collect, lastEvent, runtimeWith, textOf, toolCallsOf } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "script-provider-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeScript(name: string, content: unknown): string {
  writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  return name;
}

function load(name: string): ReturnType<typeof createProvider> {
  return createProvider({ id: "script", scriptPath: name, runtime: runtimeWith({}, dir) });
}

function loadOk(name: string): Provider {
  const created = load(name);
  if (!created.ok) throw new Error(created.error);
  return created.provider;
}

const TURN: ProviderRequest = { messages: [{ role: "user", content: "go" }], tools: [] };

describe("script provider", () => {
  test("LOOP-42 missing ids become call_1, call_2; object args are JSON, string args raw; then an empty final text", async () => {
    const provider = loadOk(
      writeScript("loop42.json", {
        turns: [
          {
            tool_calls: [
              { name: "bash", arguments: { command: "ls" } },
              { name: "read", arguments: '{"file_path":' },
            ],
          },
        ],
      }),
    );
    const first = await collect(provider.stream(TURN));
    expect(first).toEqual([
      { type: "tool_call", id: "call_1", name: "bash", arguments: '{"command":"ls"}' },
      { type: "tool_call", id: "call_2", name: "read", arguments: '{"file_path":' },
      { type: "done", stopReason: "tool_use" },
    ]);
    const second = await collect(provider.stream(TURN));
    expect(textOf(second)).toBe("");
    expect(second).toEqual([{ type: "done", stopReason: "end_turn" }]);
  });

  test("LOOP-42 an invalid script fails at creation naming the file and the field path", () => {
    writeScript("s.json", { turns: [{ tool_calls: [{}] }] });
    expect(load("s.json")).toEqual({ ok: false, error: "s.json: turns[0].tool_calls[0].name: missing" });
    writeScript("bad-args.json", { turns: [{ text: "x" }, { tool_calls: [{ name: "bash", arguments: 5 }] }] });
    const badArgs = load("bad-args.json");
    expect(badArgs.ok).toBe(false);
    expect(badArgs.ok ? "" : badArgs.error).toStartWith("bad-args.json: turns[1].tool_calls[0].arguments: expected");
    writeScript("array-args.json", { turns: [{ tool_calls: [{ name: "bash", arguments: ["ls"] }] }] });
    expect(load("array-args.json")).toEqual({
      ok: false,
      error: "array-args.json: turns[0].tool_calls[0].arguments: expected a string or an object, got Array",
    });
    writeScript("bad-agent.json", { turns: [], agents: { reviewer: { turns: [{ text: 3 }] } } });
    const badAgent = load("bad-agent.json");
    expect(badAgent.ok ? "" : badAgent.error).toStartWith("bad-agent.json: agents.reviewer.turns[0].text: expected string");
    writeScript("no-turns.json", {});
    expect(load("no-turns.json")).toEqual({ ok: false, error: "no-turns.json: turns: missing" });
  });

  test("unreadable or malformed script files are creation errors", () => {
    expect(load("absent.json")).toEqual({ ok: false, error: "absent.json: script file not found" });
    writeScript("broken.json", "{ not json");
    const broken = load("broken.json");
    expect(broken.ok ? "" : broken.error).toStartWith("broken.json: invalid JSON");
    expect(createProvider({ id: "script", runtime: runtimeWith({}, dir) }).ok).toBe(false);
  });

  test("each request takes the next turn: reasoning, text, then calls; explicit ids kept", async () => {
    const provider = loadOk(
      writeScript("turns.json", {
        turns: [{ reasoning: "plan", text: "I will read.", tool_calls: [{ id: "mine", name: "read", arguments: { file_path: "a" } }] }, { text: "all done" }],
      }),
    );
    expect(provider.id).toBe("script");
    expect(await collect(provider.stream(TURN))).toEqual([
      { type: "reasoning_delta", text: "plan" },
      { type: "text_delta", text: "I will read." },
      { type: "tool_call", id: "mine", name: "read", arguments: '{"file_path":"a"}' },
      { type: "done", stopReason: "tool_use" },
    ]);
    expect(await collect(provider.stream(TURN))).toEqual([
      { type: "text_delta", text: "all done" },
      { type: "done", stopReason: "end_turn" },
    ]);
  });

  test("a compact request answers `compacted conversation` without using a turn", async () => {
    const provider = loadOk(writeScript("compact.json", { turns: [{ text: "first" }] }));
    const compact = await collect(provider.stream({ ...TURN, purpose: "compact" }));
    expect(textOf(compact)).toBe("compacted conversation");
    expect(lastEvent(compact)).toEqual({ type: "done", stopReason: "end_turn" });
    expect(textOf(await collect(provider.stream(TURN)))).toBe("first");
  });

  test("a child replays agents.<name> from its first turn and shares the session's call counter", async () => {
    const provider = loadOk(
      writeScript("agents.json", {
        turns: [
          { tool_calls: [{ name: "task", arguments: { description: "d", prompt: "p", subagent_type: "reviewer" } }] },
          { tool_calls: [{ name: "bash", arguments: { command: "ls" } }] },
        ],
        agents: { reviewer: { turns: [{ tool_calls: [{ name: "read", arguments: { file_path: "x" } }] }, { text: "done" }] } },
      }),
    );
    expect(toolCallsOf(await collect(provider.stream(TURN))).map((c) => c.id)).toEqual(["call_1"]);
    if (!(provider instanceof ScriptProvider)) throw new Error("expected a ScriptProvider");
    const child = createChildScriptProvider(provider, "reviewer");
    expect(child.agentName).toBe("reviewer");
    expect(toolCallsOf(await collect(child.stream(TURN)))).toEqual([{ id: "call_2", name: "read", arguments: '{"file_path":"x"}' }]);
    expect(textOf(await collect(child.stream(TURN)))).toBe("done");
    expect(toolCallsOf(await collect(provider.stream(TURN))).map((c) => c.id)).toEqual(["call_3"]);
    // A second child of the same name starts again from its first turn.
    const again = providerForChild(provider, "reviewer");
    expect(toolCallsOf(await collect(again.stream(TURN))).map((c) => c.id)).toEqual(["call_4"]);
    // An agent without an entry has no turns: an empty final reply.
    expect(await collect(providerForChild(provider, "unknown").stream(TURN))).toEqual([{ type: "done", stopReason: "end_turn" }]);
  });

  test("a request with an aborted signal ends with an error and uses no turn", async () => {
    const provider = loadOk(writeScript("abort.json", { turns: [{ text: "kept" }] }));
    const controller = new AbortController();
    controller.abort();
    expect(await collect(provider.stream({ ...TURN, signal: controller.signal }))).toEqual([{ type: "error", message: "request cancelled", retryable: false }]);
    expect(textOf(await collect(provider.stream(TURN)))).toBe("kept");
  });
});
