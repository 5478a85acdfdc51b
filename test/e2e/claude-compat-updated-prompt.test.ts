// End to end: user_prompt_submit hooks rewrite the prompt. The model (a real HTTP
// server speaking the OpenAI wire) gets the rewritten prompt; the session's `user` record keeps it
// with `original_prompt`; resume replays what the model got; `agent hooks test` shows the diff.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeWorld, runCli, runCliAsync, type World } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { RUN, lastJson, ofType, sessionRecords } from "./helpers.ts";

setDefaultTimeout(60_000);

/** A claude hook (jq) that appends " (in TypeScript)", then an action hook that appends ", then test it". */
function rewritingHooks(w: World): void {
  w.file(
    "claude-rewrite.sh",
    `#!/bin/sh\np=$(jq -r .prompt)\njq -n --arg p "$p (in TypeScript)" '{hookSpecificOutput:{hookEventName:"UserPromptSubmit",updatedPrompt:$p}}'\n`,
    { executable: true },
  );
  w.file("action-rewrite.sh", `#!/bin/sh\np=$(jq -r .input.prompt)\njq -nc --arg p "$p, then test it" '{action:"modify",prompt:$p}'\n`, { executable: true });
  w.file(
    ".agent/config.toml",
    [
      `[[hooks.lifecycle.UserPromptSubmit]]`,
      `hooks = [{ command = "$CLAUDE_PROJECT_DIR/claude-rewrite.sh" }, { command = "$AGENT_PROJECT_DIR/action-rewrite.sh", protocol = "action" }]`,
    ].join("\n"),
  );
}

interface WireMessage {
  role: string;
  content: unknown;
}

function userMessages(body: unknown): unknown[] {
  if (typeof body !== "object" || body === null || !("messages" in body) || !Array.isArray(body.messages)) return [];
  const messages: WireMessage[] = body.messages;
  return messages.filter((m) => m.role === "user").map((m) => m.content);
}

describe("updatedPrompt end to end", () => {
  test("the model gets the chained rewrite; the session keeps both; resume replays the rewrite", async () => {
    const w = makeWorld();
    rewritingHooks(w);
    const server = await startFakeOpenAI([{ text: "ok" }, { text: "again" }]);
    try {
      const env = w.env({ OPENAI_API_KEY: "sk-test-not-a-secret" });
      const base = ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "--output-format", "json", "--trust"];
      const r = await runCliAsync(w, [...base, "fix the bug"], { env });
      expect(r.code).toBe(0);
      expect(userMessages(server.requests[0])).toEqual(["fix the bug (in TypeScript), then test it"]);
      const users = ofType(sessionRecords(w), "user");
      expect(users).toHaveLength(1);
      expect(users[0]).toMatchObject({ content: "fix the bug (in TypeScript), then test it", original_prompt: "fix the bug" });
      // Resume: the earlier turn replays as the model saw it; the new prompt is rewritten too.
      const id = String(lastJson(r.stdout).session_id);
      const again = await runCliAsync(w, [...base, "--resume", id, "more"], { env });
      expect(again.code).toBe(0);
      expect(userMessages(server.requests[1])).toEqual(["fix the bug (in TypeScript), then test it", "more (in TypeScript), then test it"]);
    } finally {
      await server.close();
    }
  });

  test("a prompt no hook rewrites is recorded without original_prompt", () => {
    const w = makeWorld();
    w.file(".agent/config.toml", `[[hooks.lifecycle.UserPromptSubmit]]\nhooks = [{ command = "cat >/dev/null" }]\n`);
    w.file("script.json", JSON.stringify({ turns: [{ text: "done" }] }));
    expect(runCli(w, RUN.concat(["as typed"])).code).toBe(0);
    expect(ofType(sessionRecords(w), "user")).toEqual([expect.objectContaining({ content: "as typed" })]);
    expect(ofType(sessionRecords(w), "user")[0]).not.toHaveProperty("original_prompt");
  });

  test("agent hooks test user_prompt_submit --prompt shows the diff (text) and the rewritten prompt (--json prompt)", () => {
    const w = makeWorld();
    rewritingHooks(w);
    const text = runCli(w, ["hooks", "test", "user_prompt_submit", "--prompt", "fix the bug", "--trust"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("prompt rewritten:\n- fix the bug\n+ fix the bug (in TypeScript), then test it\n");
    const json = runCli(w, ["hooks", "test", "user_prompt_submit", "--prompt", "fix the bug", "--trust", "--json"]);
    expect(json.code).toBe(0);
    expect(lastJson(json.stdout)).toMatchObject({ event: "user_prompt_submit", decision: "continue", prompt: "fix the bug (in TypeScript), then test it" });
    const other = runCli(w, ["hooks", "test", "session_start", "--trust", "--json"]);
    expect(lastJson(other.stdout).prompt).toBeNull();
  });
});
