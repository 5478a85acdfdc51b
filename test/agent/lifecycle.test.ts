// Lifecycle events in real sessions: session_end reasons, SIGINT, continue:false, the post phase,
// message-phase hooks and stop notices, through `agent run` with the script provider or a local
// fake OpenAI server, and real hook processes. Compaction: compaction.test.ts.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bypassRunArgs, REPO, makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { killGroup, waitForText, waitGroupGone } from "../support/procs.ts";
import { group, lastJson, logTo, ofType, readLog, recordsOf, replyWith, runScriptInProcess } from "./support.ts";

function settings(world: World, value: Record<string, unknown>): void {
  world.file(".agent/settings.json", JSON.stringify(value));
}

type Body = { messages: { role: string; content: string | null; tool_calls?: unknown[] }[] };

/** Spawns `agent run …` and lets the test signal it. */
function spawnAgent(
  world: World,
  args: readonly string[],
): { child: ReturnType<typeof spawn>; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), ...args], { cwd: world.project, env: world.env() });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  child.stdin?.end("");
  return { child, done };
}

describe("session end and interrupts", () => {
  test("LOOP-20 LIFE-53 session_end fires once with completed; its output is one info line and never changes the exit code", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "done" }]);
    settings(w, { hooks: { lifecycle: { session_end: [group([`${logTo(w, "end.log")}; echo bye; exit 2`])] } } });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    expect(readLog(w, "end.log").map((p) => p.reason)).toEqual(["completed"]);
    expect(r.stderr.split("\n").filter((line) => line === "bye")).toHaveLength(1);

    // After a hook block: still `completed`; the run exits 3 for the block, not for session_end.
    settings(w, {
      hooks: { lifecycle: { user_prompt_submit: [group(["cat >/dev/null; echo no >&2; exit 2"])], session_end: [group([`${logTo(w, "end2.log")}; exit 1`])] } },
    });
    const blocked = await runScriptInProcess(w, "bypass");
    expect(blocked.code).toBe(3);
    expect(readLog(w, "end2.log").map((p) => p.reason)).toEqual(["completed"]);
  });

  test("LOOP-20 a provider error ends the session with session_end reason error", async () => {
    const w = makeWorld();
    settings(w, { hooks: { lifecycle: { session_end: [group([logTo(w, "end.log")])] } } });
    const server = await startFakeOpenAI([{ status: 400, body: { error: { message: "bad request" } } }]);
    try {
      const r = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--trust", "--output-format", "json", "go"]);
      expect(r.code).toBe(1);
      expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "error", is_error: true });
      expect(readLog(w, "end.log").map((p) => p.reason)).toEqual(["error"]);
    } finally {
      await server.close();
    }
  });

  test("LOOP-36 LOOP-20 SIGINT during a hanging pre_tool hook kills its group, runs session_end (cancelled), exits 130", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${join(w.root, "ran")}'` } }] }, { text: "never" }]);
    settings(w, {
      hooks: {
        lifecycle: {
          pre_tool_use: [group([`cat >/dev/null; echo $$ > '${join(w.root, "pid")}'; sleep 30`])],
          session_end: [group([logTo(w, "end.log")])],
        },
      },
    });
    const { child, done } = spawnAgent(w, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--permission-mode",
      "bypass",
      "--trust",
      "--output-format",
      "json",
      "go",
    ]);
    const pgid = Number(await waitForText(join(w.root, "pid")));
    try {
      child.kill("SIGINT");
      const r = await done;
      expect(r.code).toBe(130);
      expect(await waitGroupGone(pgid)).toEqual([]);
      expect(existsSync(join(w.root, "ran"))).toBe(false);
      expect(readLog(w, "end.log").map((p) => p.reason)).toEqual(["cancelled"]);
      expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "interrupted", is_error: true });
    } finally {
      killGroup(pgid);
    }
  });
});

test("LOOP-36 a second SIGINT exits 130 at once and kills the session_end hooks too", async () => {
  const w = makeWorld();
  writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "true" } }] }, { text: "never" }]);
  settings(w, {
    hooks: {
      lifecycle: {
        pre_tool_use: [group([`cat >/dev/null; echo $$ > '${join(w.root, "pid")}'; sleep 30`])],
        session_end: [group([`cat >/dev/null; echo $$ > '${join(w.root, "end-pid")}'; sleep 30; touch '${join(w.root, "end-finished")}'`])],
      },
    },
  });
  const { child, done } = spawnAgent(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--trust", "go"]);
  const pgid = Number(await waitForText(join(w.root, "pid")));
  let endPgid = 0;
  try {
    child.kill("SIGINT");
    endPgid = Number(await waitForText(join(w.root, "end-pid")));
    child.kill("SIGINT");
    const r = await done;
    expect(r.code).toBe(130);
    expect(existsSync(join(w.root, "end-finished"))).toBe(false); // killed, not waited for
    expect(await waitGroupGone(endPgid)).toEqual([]);
    expect(await waitGroupGone(pgid)).toEqual([]);
  } finally {
    killGroup(pgid);
    if (endPgid) killGroup(endPgid);
  }
});

describe("hooks that end or steer the session", () => {
  test("LOOP-34 a lifecycle pre_tool continue:false denies the call and ends the session: exit 3", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${join(w.root, "ran")}'` } }] }, { text: "never" }]);
    settings(w, { hooks: { lifecycle: { pre_tool_use: [group([replyWith(w, { continue: false, stopReason: "halt" })])] } } });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(3);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(r.stderr).toContain("halt");
    expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "hook_blocked", turns: 1 });
  });

  test("LIFE-67 continue:false from post_tool_use keeps the result and runs later hooks; from session_start no request; from session_end nothing", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo kept" } }] }, { text: "never" }]);
    settings(w, { hooks: { lifecycle: { post_tool_use: [group([replyWith(w, { continue: false, stopReason: "enough" }), logTo(w, "later.log")])] } } });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("enough");
    expect(readLog(w, "later.log")).toHaveLength(1);
    expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "hook_blocked", turns: 1 });
    expect(ofType(recordsOf(w, r), "tool_result")[0]).toMatchObject({ content: "kept\n" });

    settings(w, { hooks: { lifecycle: { session_start: [group([replyWith(w, { continue: false, stopReason: "not today" })])] } } });
    const start = await runScriptInProcess(w, "bypass");
    expect(start.code).toBe(3);
    expect(start.stderr).toContain("not today");
    expect(lastJson(start.stdout)).toMatchObject({ stop_reason: "hook_blocked", turns: 0 });

    writeScript(w, [{ text: "done" }]);
    settings(w, { hooks: { lifecycle: { session_end: [group([replyWith(w, { continue: false, stopReason: "ignored" })])] } } });
    const end = await runScriptInProcess(w, "bypass");
    expect(end.code).toBe(0);
    expect(lastJson(end.stdout)).toMatchObject({ stop_reason: "completed" });
  });

  test("LOOP-32 TOOL-20 an after_tool hook under fail: the tool ran and was recorded, no continuation, exit 3", async () => {
    const w = makeWorld();
    w.file("f.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${join(w.root, "ran")}'` } }] }, { text: "never" }]);
    settings(w, { hooks: { enabled: true, after_tool: [{ label: "f", command: "./f.sh", failure_policy: "fail" }] } });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(3);
    expect(existsSync(join(w.root, "ran"))).toBe(true);
    expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "hook_failed", is_error: true, turns: 1 });
    expect(ofType(recordsOf(w, r), "tool_result")).toHaveLength(1);
  });

  test("TOOL-21 failing message-phase hooks: ignore and warn go on, fail ends the turn before the message's tool calls", async () => {
    const w = makeWorld();
    w.file("f.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    writeScript(w, [
      { reasoning: "thinking", text: "calling", tool_calls: [{ name: "bash", arguments: { command: `touch '${join(w.root, "ran")}'` } }] },
      { text: "done" },
    ]);
    for (const phase of ["after_assistant", "after_reasoning"]) {
      for (const policy of ["ignore", "warn"]) {
        settings(w, { hooks: { enabled: true, [phase]: [{ label: "m", command: "./f.sh", failure_policy: policy }] } });
        const r = await runScriptInProcess(w, "bypass");
        expect(r.code).toBe(0);
        expect(lastJson(r.stdout)).toMatchObject({ result: "done" });
        const line = r.stderr.split("\n").find((l) => l.startsWith("agent: hook m"));
        if (policy === "warn") expect(line).toEndWith("continued");
        else expect(line).toBeUndefined();
      }
      rmSync(join(w.root, "ran"), { force: true });
      settings(w, { hooks: { enabled: true, [phase]: [{ label: "m", command: "./f.sh", failure_policy: "fail" }] } });
      const failed = await runScriptInProcess(w, "bypass");
      expect(failed.code).toBe(3);
      expect(lastJson(failed.stdout)).toMatchObject({ stop_reason: "hook_failed", turns: 1 });
      expect(existsSync(join(w.root, "ran"))).toBe(false);
    }
  });

  test("stop hook block: a visible notice says why the agent goes on", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "draft" }, { text: "final" }]);
    w.file("stop.sh", `#!/bin/sh\ncase "$(cat)" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"run the tests"}' ;; esac\n`, {
      executable: true,
    });
    settings(w, { hooks: { lifecycle: { stop: [group(["./stop.sh"])] } } });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("agent: stop hook sent the agent back: run the tests");
  });
});

describe("post phase coverage", () => {
  test("LOOP-03 D10 hook dirs and lists get successes and failures; post_tool_use only successes, post_tool_use_failure only failures", async () => {
    const w = makeWorld();
    writeScript(w, [
      {
        tool_calls: [
          { name: "bash", arguments: { command: "echo hi" } },
          { name: "bash", arguments: { command: "exit 1" } },
        ],
      },
      { text: "ok" },
    ]);
    w.file(".agent/hooks/p/hook.json", JSON.stringify({ event: "post_tool", run: "./run.sh" }));
    w.file(".agent/hooks/p/run.sh", `#!/bin/sh\ncat >> "${w.root}/dir.log"\necho >> "${w.root}/dir.log"\n`, { executable: true });
    w.file("list.sh", `#!/bin/sh\ncat >> "${w.root}/list.log"\necho >> "${w.root}/list.log"\n`, { executable: true });
    settings(w, {
      hooks: {
        enabled: true,
        payload: "full",
        after_tool: [{ label: "l", command: "./list.sh" }],
        lifecycle: { post_tool_use: [group([logTo(w, "ok.log")])], post_tool_use_failure: [group([logTo(w, "fail.log")])] },
      },
    });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const dir = readLog(w, "dir.log");
    expect(dir.map((p) => p.hook_event)).toEqual(["post_tool", "post_tool"]);
    expect(dir[0]?.error).toBe("");
    expect(String(dir[1]?.error)).not.toBe("");
    const list = readLog(w, "list.log");
    expect(list.map((p) => (p.result as { success: boolean }).success)).toEqual([true, false]);
    const ok = readLog(w, "ok.log");
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ hook_event_name: "PostToolUse", tool_input: { command: "echo hi" } });
    expect(ok[0]?.tool_response).toBeDefined();
    const fail = readLog(w, "fail.log");
    expect(fail).toHaveLength(1);
    expect(fail[0]).toMatchObject({ hook_event_name: "PostToolUseFailure", tool_input: { command: "exit 1" } });
    expect(typeof fail[0]?.error).toBe("string");
  });
});

describe("message phases", () => {
  test("LOOP-21 LOOP-22 TOOL-53 after_assistant and after_reasoning hooks over streamed reasoning_content", async () => {
    const w = makeWorld();
    w.file("log.sh", `#!/bin/sh\ncat >> "${w.root}/$1.log"\necho >> "${w.root}/$1.log"\n`, { executable: true });
    settings(w, {
      hooks: {
        enabled: true,
        payload: "full",
        after_assistant: [{ label: "a", command: "./log.sh assistant", include_tools: ["read"] }],
        after_reasoning: [{ label: "r", command: "./log.sh reasoning" }],
      },
    });
    const server = await startFakeOpenAI([
      { reasoning: "let me think about it", text: "calling a tool", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] },
      { text: "all done" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "go"]);
      expect(r.code).toBe(0);
      const assistant = readLog(w, "assistant.log");
      expect(assistant).toHaveLength(2);
      expect(assistant[0]).toMatchObject({
        phase: "after_assistant",
        tool: { name: "assistant", call_id: "assistant-turn-0" },
        request: { text: "calling a tool" },
        affected_paths: [],
      });
      expect(assistant[0]?.result ?? null).toBeNull();
      expect(assistant[1]).toMatchObject({ request: { text: "all done" } });
      const reasoning = readLog(w, "reasoning.log");
      // The second turn has no reasoning: after_reasoning fires once.
      expect(reasoning).toHaveLength(1);
      expect(reasoning[0]).toMatchObject({ phase: "after_reasoning", tool: { name: "reasoning" }, request: { text: "let me think about it" } });
    } finally {
      await server.close();
    }
  });

  test("TOOL-53 in redacted mode the message text is kept, and a text over 64 KiB becomes a truncated marker", async () => {
    const w = makeWorld();
    w.file("log.sh", `#!/bin/sh\ncat >> "${w.root}/assistant.log"\necho >> "${w.root}/assistant.log"\n`, { executable: true });
    settings(w, { hooks: { enabled: true, after_assistant: [{ label: "a", command: "./log.sh" }] } });
    const big = "y".repeat(70 * 1024);
    writeScript(w, [{ text: "short text", tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: big }]);
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const payloads = readLog(w, "assistant.log");
    expect(payloads[0]).toMatchObject({
      phase: "after_assistant",
      tool: { name: "assistant", call_id: "assistant-turn-0" },
      request: { text: "short text" },
      affected_paths: [],
    });
    expect(payloads[1]).toMatchObject({ request: { text: { redacted: true, kind: "truncated", bytes: big.length } } });
  });

  test("TOOL-67 LOOP-21 injected items of message phases: record order and their place in the next request", async () => {
    const w = makeWorld();
    w.file("inject.sh", `#!/bin/sh\ncat >/dev/null\necho '{"context_items":[{"role":"user","content":"from '$1'"}]}'\n`, { executable: true });
    settings(w, {
      hooks: {
        enabled: true,
        after_assistant: [{ label: "a", command: "./inject.sh a", provider_context_injection: true }],
        after_reasoning: [{ label: "r", command: "./inject.sh r", provider_context_injection: true }],
      },
    });
    const server = await startFakeOpenAI([
      { reasoning: "hmm", text: "calling", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] },
      { text: "done" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "go"]);
      expect(r.code).toBe(0);
      const records = recordsOf(w, r);
      const start = records.findIndex((rec) => rec.type === "reasoning");
      const seq = records.slice(start, start + 10).map((rec) => `${rec.type}${rec.status ? `:${rec.status}` : ""}${rec.phase ? `:${rec.phase}` : ""}`);
      expect(seq).toEqual([
        "reasoning",
        "hook_lifecycle:started:after_reasoning",
        "hook_lifecycle:success:after_reasoning",
        "hook_context_injection:success:after_reasoning",
        "provider_context_item",
        "assistant",
        "hook_lifecycle:started:after_assistant",
        "hook_lifecycle:success:after_assistant",
        "hook_context_injection:success:after_assistant",
        "provider_context_item",
      ]);
      const life = records.filter((rec) => rec.type === "hook_lifecycle" && rec.phase === "after_reasoning");
      expect(life[0]).toMatchObject({ target_tool: "reasoning", tool_call_id: null });
      // The message has a tool call, so its items follow its last tool result.
      const next = server.requests[1] as Body;
      const tail = next.messages.slice(-3).map((m) => [m.role, m.content]);
      expect(tail).toEqual([
        ["tool", "hi\n"],
        ["user", "from r"],
        ["user", "from a"],
      ]);
    } finally {
      await server.close();
    }
  });
});
