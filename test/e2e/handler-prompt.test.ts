// End to end: `type: "prompt"` hooks decided by the session's provider — the
// script provider's `hooks` table under `agent run` and `agent hooks test`, and a real OpenAI-wire
// server on 127.0.0.1 for the request itself ($ARGUMENTS, model, no tools).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, runCliAsync, type World } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { RUN, bashTurns, delivered, hookRuns, sessionRecords } from "./helpers.ts";

setDefaultTimeout(60_000);

const LABEL = "settings.json:PreToolUse[0].hooks[0]";

function promptHook(w: World, event = "PreToolUse", extra: Record<string, unknown> = {}): void {
  const group = event === "PreToolUse" ? { matcher: "Bash" } : {};
  w.file(
    ".agent/settings.json",
    JSON.stringify({
      hooks: { lifecycle: { [event]: [{ ...group, hooks: [{ type: "prompt", prompt: "Refuse anything that writes files. Event: $ARGUMENTS", ...extra }] }] } },
    }),
  );
}

function script(w: World, turns: unknown[], hooks: Record<string, unknown>): void {
  w.file("script.json", JSON.stringify({ turns, hooks }));
}

describe("prompt hooks under agent run --provider script", () => {
  test("ok: false denies the tool call with the model's reason; the call never runs", () => {
    const w = makeWorld();
    promptHook(w);
    script(w, bashTurns(["echo hi > out.txt"]), { [LABEL]: { ok: false, reason: "writes a file" } });
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, "out.txt"))).toBe(false);
    const records = sessionRecords(w);
    expect(delivered(records)[0]).toContain("writes a file");
    expect(hookRuns(records).map((h) => h.status)).toEqual(["success"]);
  });

  test("ok: true is no opinion: the call runs", () => {
    const w = makeWorld();
    promptHook(w);
    script(w, bashTurns(["echo hi > out.txt"]), { "*": '{"ok": true}' });
    expect(runCli(w, RUN.concat(["go"])).code).toBe(0);
    expect(existsSync(join(w.project, "out.txt"))).toBe(true);
  });

  test('a reply that is not {"ok": …} is a failure of category exit; failure_policy block then denies', () => {
    const w = makeWorld();
    promptHook(w, "PreToolUse", { failure_policy: "block" });
    script(w, bashTurns(["echo hi > out.txt"]), { [LABEL]: "Sure, looks fine to me!" });
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.stderr).toContain("not JSON");
    expect(existsSync(join(w.project, "out.txt"))).toBe(false);
    expect(hookRuns(sessionRecords(w)).map((h) => [h.status, h.category])).toEqual([["failed", "exit"]]);
  });
});

describe("prompt hooks under agent hooks test", () => {
  test("--provider script --script FILE: deny, exit 2, reason shown", () => {
    const w = makeWorld();
    promptHook(w);
    script(w, [], { [LABEL]: { ok: false, reason: "no rm" } });
    const r = runCli(w, [
      "hooks",
      "test",
      "pre_tool",
      "--tool",
      "bash",
      "--input",
      '{"command":"rm -rf x"}',
      "--trust",
      "--json",
      "--provider",
      "script",
      "--script",
      "script.json",
    ]);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout);
    expect(out.decision).toBe("deny");
    expect(out.reason).toContain("no rm");
  });

  test("user_prompt_submit: ok false blocks the prompt", () => {
    const w = makeWorld();
    promptHook(w, "UserPromptSubmit");
    script(w, [], { "settings.json:UserPromptSubmit[0].hooks[0]": { ok: false, reason: "off topic" } });
    const r = runCli(w, ["hooks", "test", "user_prompt_submit", "--prompt", "tell me a joke", "--trust", "--json", "--script", "script.json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).decision).toBe("block");
  });

  test("no provider: a matching prompt hook fails (runner) and says how to give one; a non-matching event needs none", () => {
    const w = makeWorld();
    promptHook(w);
    const r = runCli(w, ["hooks", "test", "pre_tool", "--tool", "bash", "--input", '{"command":"ls"}', "--trust", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hooks.map((h: { category: string }) => h.category)).toEqual(["runner"]);
    expect(r.stderr).toContain("--provider script --script FILE");
    const other = runCli(w, ["hooks", "test", "pre_tool", "--tool", "read", "--input", '{"file_path":"a"}', "--trust", "--json"]);
    expect(other.code).toBe(0);
    expect(JSON.parse(other.stdout).hooks).toEqual([]);
  });

  test("a real provider gets one tool-less request: $ARGUMENTS replaced by the claude payload, the hook's model", async () => {
    const server = await startFakeOpenAI([{ text: '{"ok": false, "reason": "remote model says no"}' }]);
    try {
      const w = makeWorld();
      promptHook(w, "PreToolUse", { model: "judge-1" });
      const r = await runCliAsync(w, [
        "hooks",
        "test",
        "pre_tool",
        "--tool",
        "bash",
        "--input",
        '{"command":"rm -rf build"}',
        "--trust",
        "--json",
        "--provider",
        "openai",
        "--base-url",
        server.url,
      ]);
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).reason).toContain("remote model says no");
      expect(server.requests.length).toBe(1);
      const body = server.requests[0] as { model: string; tools?: unknown; messages: { role: string; content: string }[] };
      expect(body.model).toBe("judge-1");
      expect(body.tools).toBeUndefined();
      const user = body.messages.find((m) => m.role === "user")?.content ?? "";
      expect(user.startsWith("Refuse anything that writes files. Event: {")).toBe(true);
      expect(user).not.toContain("$ARGUMENTS");
      const payload = JSON.parse(user.slice(user.indexOf("{")));
      expect(payload.hook_event_name).toBe("PreToolUse");
      expect(payload.tool_input.command).toBe("rm -rf build");
    } finally {
      await server.close();
    }
  });
});
