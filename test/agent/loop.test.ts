// The agent loop end to end: the CLI (`agent run`, in-process: test/support/in-process.ts) in a temp
// world, the script provider or a real local HTTP server speaking the OpenAI wire format, real hook
// processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, readJsonl, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { startFakeAnthropic } from "../support/fake-anthropic.ts";

function sessionRecords(world: World): Record<string, unknown>[] {
  const dir = join(world.agentHome, "sessions");
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  expect(files.length).toBe(1);
  return readJsonl(readFileSync(join(dir, files[0] as string), "utf8"));
}

function json(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1] as string) as Record<string, unknown>;
}

const bypass = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--output-format", "json", "--trust"];

describe("agent run", () => {
  test("LOOP-01 each form's pre_tool hook fires once with its dialect's stdin", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/d/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/d/run.sh", `#!/bin/sh\ncat > "${w.root}/dir.json"\n`, { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "cat > '${w.root}/life.json'" }]\n`);
    w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, payload: "full", before_tool: [{ label: "l", command: "./save.sh" }] } }));
    w.file("save.sh", `#!/bin/sh\ncat > "${w.root}/list.json"\n`, { executable: true });
    writeScript(w, [{ tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "ls" } }] }, { text: "done" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    const dir = JSON.parse(readFileSync(join(w.root, "dir.json"), "utf8"));
    expect(dir).toMatchObject({ hook_event: "pre_tool", tool: "bash", tool_use_id: "call_1", input: { command: "ls" }, cwd: w.project });
    expect(typeof dir.session_id).toBe("string");
    const life = JSON.parse(readFileSync(join(w.root, "life.json"), "utf8"));
    expect(life).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "call_1", cwd: w.project });
    expect(typeof life.transcript_path).toBe("string");
    const list = JSON.parse(readFileSync(join(w.root, "list.json"), "utf8"));
    expect(list).toMatchObject({ schema: "agent.tool_hook", schema_version: 1, phase: "before_tool", tool: { name: "bash", call_id: "call_1" } });
    expect(json(r.stdout)).toMatchObject({ result: "done", stop_reason: "completed", is_error: false, tool_calls: 1 });
  });

  test("DIR-12 LOOP-04 a guard hook denies a dangerous command and the model sees the reason", async () => {
    const w = makeWorld();
    w.file(
      ".agent/hooks/guard-bash/hook.json",
      JSON.stringify({ name: "guard-bash", event: "pre_tool", match: "bash", run: "./run.sh", timeout: "5s", fail_closed: true }),
    );
    w.file(
      ".agent/hooks/guard-bash/run.sh",
      `#!/usr/bin/env bash\ninput=$(cat)\ncase "$input" in\n  *agent-deny*) echo '{"action":"deny","reason":"blocked by guard-bash (matched agent-deny)"}'; exit 2 ;;\nesac\necho '{"action":"allow"}'\n`,
      { executable: true },
    );
    w.file("build/keep.txt", "x");
    writeScript(w, [
      {
        tool_calls: [
          { name: "bash", arguments: { command: "echo agent-deny && rm -rf build" } },
          { name: "bash", arguments: { command: "echo hi" } },
        ],
      },
      { text: "ok" },
    ]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, "build/keep.txt"))).toBe(true);
    const records = sessionRecords(w);
    const delivered = records.filter((rec) => rec.type === "tool_result_delivered");
    expect(delivered[0]?.content).toBe("blocked by guard-bash (matched agent-deny)");
    expect(delivered[1]?.content).toBe("hi\n");
  });

  test("LOOP-06 D19 post_tool context reaches only the model; an output rewrite reaches both", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/post/hook.json", JSON.stringify({ event: "post_tool", run: "./run.sh" }));
    w.file(".agent/hooks/post/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"context":"note","output":"REWRITTEN"}'\n`, { executable: true });
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo raw" } }] }, { text: "done" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    const result = records.find((rec) => rec.type === "tool_result");
    expect(result?.content).toBe("raw\n");
    const delivered = records.find((rec) => rec.type === "tool_result_delivered");
    expect(delivered?.content).toBe("REWRITTEN\n\n<hook_context>\nnote\n</hook_context>");
    expect(delivered?.output).toBe("REWRITTEN");
  });

  test("LOOP-15 D11 a stop hook that blocks once sends the agent back with its reason", async () => {
    const w = makeWorld();
    w.file(
      "stop.sh",
      `#!/bin/sh\ninput=$(cat)\necho "$input" >> "${w.root}/stops.log"\ncase "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"run the tests"}' ;; esac\n`,
      { executable: true },
    );
    w.file(".agent/config.toml", `[[hooks.lifecycle.stop]]\nhooks = [{ command = "./stop.sh" }]\n`);
    writeScript(w, [{ text: "draft" }, { text: "final" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ result: "final", stop_reason: "completed", turns: 2 });
    const stops = readFileSync(join(w.root, "stops.log"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(stops[0]).toMatchObject({ stop_hook_active: false, last_assistant_message: "draft" });
    expect(stops[1]).toMatchObject({ stop_hook_active: true, last_assistant_message: "final" });
  });

  test("LOOP-16 a stop hook that always blocks is overridden after hooks.stop_block_cap", async () => {
    const w = makeWorld();
    w.file(
      ".agent/config.toml",
      `[hooks]\nstop_block_cap = 2\n[[hooks.lifecycle.stop]]\nhooks = [{ command = "cat >/dev/null; echo x >> '${w.root}/n'; echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"again\\"}'" }]\n`,
    );
    writeScript(w, [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ stop_reason: "stop_block_cap", is_error: false, turns: 3 });
    expect(readFileSync(join(w.root, "n"), "utf8").trim().split("\n").length).toBe(3);
    expect(r.stderr).toContain("stop hook blocked 2 times in a row; stopping (hooks.stop_block_cap = 2)");
  });

  test("LOOP-17 a user_prompt_submit hook blocks the prompt: no provider request, exit 3", async () => {
    const w = makeWorld();
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.user_prompt_submit]]\nmatcher = ".*password.*"\nhooks = [{ command = "cat > '${w.root}/p.json'; echo 'no secrets in prompts' >&2; exit 2" }]\n`,
    );
    const server = await startFakeOpenAI([{ text: "never" }]);
    try {
      const r = await runCliInProcess(w, [
        "run",
        "--provider",
        "openai",
        "--base-url",
        server.url,
        "--trust",
        "--output-format",
        "json",
        "line one\nmy password is x",
      ]);
      expect(r.code).toBe(3);
      expect(server.requests.length).toBe(0);
      expect(r.stderr).toContain("no secrets in prompts");
      expect(json(r.stdout)).toMatchObject({ stop_reason: "hook_blocked", is_error: true });
      expect(JSON.parse(readFileSync(join(w.root, "p.json"), "utf8")).prompt).toBe("line one\nmy password is x");
      const hello = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--trust", "hello"]);
      expect(hello.code).toBe(0);
      expect(server.requests.length).toBe(1);
    } finally {
      await server.close();
    }
  });

  test("LOOP-18 LOOP-19 hidden context from session_start and user_prompt_submit reaches the model, not the transcript", async () => {
    const w = makeWorld();
    w.file(
      ".agent/config.toml",
      [
        `[[hooks.lifecycle.session_start]]`,
        `hooks = [{ command = "cat >/dev/null; echo 'repo: acme'" }, { command = "cat >/dev/null; echo '{\\"systemMessage\\":\\"hooks active\\"}'" }]`,
        `[[hooks.lifecycle.user_prompt_submit]]`,
        `hooks = [{ command = "cat >/dev/null; echo 'branch: main'" }]`,
      ].join("\n"),
    );
    const server = await startFakeOpenAI([{ text: "fine" }]);
    try {
      const r = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--trust", "fix it"]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("hooks active");
      const body = server.requests[0] as { messages: { role: string; content: string }[] };
      const users = body.messages.filter((m) => m.role === "user").map((m) => m.content);
      expect(users).toEqual(["<hook_context>\nrepo: acme\n</hook_context>", "<hook_context>\nbranch: main\n</hook_context>", "fix it"]);
      expect(JSON.stringify(body)).not.toContain("hooks active");
      const records = sessionRecords(w);
      const types = records.map((rec) => rec.type);
      expect(types.indexOf("provider_context_item")).toBeLessThan(types.indexOf("user"));
      expect(records.find((rec) => rec.type === "user")?.content).toBe("fix it");
    } finally {
      await server.close();
    }
  });

  test("LOOP-26 D25 session records are whole lines in the seed's order", async () => {
    const w = makeWorld();
    w.file("b.sh", "#!/bin/sh\ncat >/dev/null\n", { executable: true });
    w.file("a.sh", `#!/bin/sh\ncat >/dev/null\necho '{"context_items":[{"role":"user","content":"memory"}]}'\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [{ label: "b", command: "./b.sh" }],
          after_tool: [{ label: "a", command: "./a.sh", provider_context_injection: true }],
        },
      }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    const slice = records.slice(records.findIndex((rec) => rec.type === "tool_call"));
    expect(slice.slice(0, 11).map((rec) => `${rec.type}${rec.status ? `:${rec.status}` : ""}`)).toEqual([
      "tool_call",
      "hook_lifecycle:started",
      "hook_lifecycle:success",
      "hook_decision",
      "tool_result",
      "hook_lifecycle:started",
      "hook_lifecycle:success",
      "hook_decision",
      "tool_result_delivered",
      "hook_context_injection:success",
      "provider_context_item",
    ]);
  });

  test("LOOP-31 TOOL-19 a before_tool hook under fail stops the turn: exit 3, session_end still fires", async () => {
    const w = makeWorld();
    w.file("f.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    w.file("end.sh", `#!/bin/sh\ncat > "${w.root}/end.json"\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [{ label: "f", command: "./f.sh", failure_policy: "fail" }],
          lifecycle: { session_end: [{ hooks: [{ command: "./end.sh" }] }] },
        },
      }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch ${w.root}/ran` } }] }, { text: "never" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(3);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(json(r.stdout)).toMatchObject({ stop_reason: "hook_failed", is_error: true, turns: 1 });
    expect(r.stderr).toContain("agent: hook f (pre_tool) failed: exit: exited 1 — tool blocked");
    expect(JSON.parse(readFileSync(join(w.root, "end.json"), "utf8")).reason).toBe("completed");
  });

  test("LOOP-33 a hook dir post_tool stop ends the session after the result is recorded", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/s/hook.json", JSON.stringify({ event: "post_tool", run: "./run.sh" }));
    w.file(".agent/hooks/s/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"stop":true,"reason":"stop here"}'\n`, { executable: true });
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "never" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("stop here");
    expect(json(r.stdout)).toMatchObject({ stop_reason: "hook_blocked", turns: 1 });
    expect(sessionRecords(w).some((rec) => rec.type === "tool_result")).toBe(true);
  });

  test("LOOP-35 exit codes: bad flags exit 2 before any hook; unreachable server exits 1 naming the URL", async () => {
    const w = makeWorld();
    w.file(".agent/config.toml", `[[hooks.lifecycle.session_start]]\nhooks = [{ command = "touch '${w.root}/ran'" }]\n`);
    for (const flags of [["--permission-mode", "yolo"], ["--max-turns", "x"], ["--bogus"], ["--max-turns", "0"]]) {
      const r = await runCliInProcess(w, ["run", "--trust", ...flags, "hi"]);
      expect(r.code).toBe(2);
    }
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    const r = await runCliInProcess(w, ["run", "--trust", "--provider", "openai", "--base-url", "http://127.0.0.1:9", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("http://127.0.0.1:9");
  });

  test("LOOP-39 --max-turns stops after N provider requests with exit 1", async () => {
    const w = makeWorld();
    writeScript(
      w,
      [1, 2, 3, 4].map(() => ({ tool_calls: [{ name: "bash", arguments: { command: "true" } }] })),
    );
    const r = await runCliInProcess(w, bypass.concat(["--max-turns", "3", "go"]));
    expect(r.code).toBe(1);
    expect(json(r.stdout)).toMatchObject({ stop_reason: "max_turns", is_error: true, turns: 3, tool_calls: 3 });
  });

  test("LOOP-40 stream-json prints the session file's lines, text deltas where they happened, and one result line", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    const r = await runCliInProcess(w, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--permission-mode",
      "bypass",
      "--output-format",
      "stream-json",
      "go",
    ]);
    expect(r.code).toBe(0);
    const dir = join(w.agentHome, "sessions");
    const file = readdirSync(dir).find((f) => f.endsWith(".jsonl")) as string;
    const extra = new Set(["text_delta", "hook_decision", "result"]);
    const lines = r.stdout.split("\n").filter((line) => line !== "");
    const sessionLines = lines.filter((line) => !extra.has(String(JSON.parse(line).type)));
    expect(`${sessionLines.join("\n")}\n`).toBe(readFileSync(join(dir, file), "utf8"));
    const types = readJsonl(r.stdout).map((line) => line.type);
    // The reply's text streams before its assistant record; the result line comes last, once.
    expect(types.indexOf("text_delta")).toBeLessThan(types.lastIndexOf("assistant"));
    expect(types.filter((type) => type === "result")).toHaveLength(1);
    expect(types.slice(-2)).toEqual(["session_end", "result"]);
    expect(readJsonl(r.stdout).pop()).toMatchObject({ type: "result", stop_reason: "completed", is_error: false, result: "done" });
  });

  test("LOOP-41 --no-session writes nothing and hooks see no transcript", async () => {
    const w = makeWorld();
    w.file(".agent/config.toml", `[[hooks.lifecycle.session_start]]\nhooks = [{ command = "cat > '${w.root}/ss.json'; env > '${w.root}/env.txt'" }]\n`);
    writeScript(w, [{ text: "done" }]);
    const r = await runCliInProcess(w, bypass.concat(["--no-session", "go"]));
    expect(r.code).toBe(0);
    expect(existsSync(join(w.agentHome, "sessions"))).toBe(false);
    expect(JSON.parse(readFileSync(join(w.root, "ss.json"), "utf8")).transcript_path).toBeNull();
    const env = readFileSync(join(w.root, "env.txt"), "utf8");
    expect(env).not.toContain("TRANSCRIPT_PATH=");
    expect(typeof json(r.stdout).session_id).toBe("string");
  });

  test("LOOP-42 script call ids and validation errors", async () => {
    const w = makeWorld();
    writeScript(w, [
      {
        tool_calls: [
          { name: "bash", arguments: { command: "ls" } },
          { name: "read", arguments: '{"file_path":' },
        ],
      },
    ]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ result: "", stop_reason: "completed" });
    const calls = sessionRecords(w)
      .filter((rec) => rec.type === "tool_call")
      .map((rec) => rec.tool_call_id);
    expect(calls).toEqual(["call_1", "call_2"]);
    w.file("bad.json", JSON.stringify({ turns: [{ tool_calls: [{}] }] }));
    const bad = await runCliInProcess(w, ["run", "--provider", "script", "--script", "bad.json", "go"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("turns[0].tool_calls[0].name");
  });

  test("LOOP-13 LOOP-44 default mode asks for bash and, with nobody to ask, denies with a how-to", async () => {
    const w = makeWorld();
    writeScript(w, [
      {
        tool_calls: [
          { name: "bash", arguments: { command: "rm -rf build" } },
          { name: "glob", arguments: { pattern: "*" } },
        ],
      },
      { text: "ok" },
    ]);
    w.file("build/x", "x");
    const r = await runCliInProcess(w, ["run", "--provider", "script", "--script", "script.json", "--output-format", "json", "go"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, "build/x"))).toBe(true);
    const delivered = sessionRecords(w).filter((rec) => rec.type === "tool_result_delivered");
    expect(String(delivered[0]?.content)).toContain("needs approval");
    expect(String(delivered[0]?.content)).toContain("non-interactive");
    expect(String(delivered[0]?.content)).toContain("--allow 'bash(rm -rf build)'");
    expect(String(delivered[1]?.content)).toContain("script.json");
  });

  test("LOOP-07 a configured deny rule beats a hook allow, even in bypass mode", async () => {
    const w = makeWorld();
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        permissions: { deny: ["bash(rm *)"] },
        hooks: { lifecycle: { pre_tool_use: [{ hooks: [{ command: `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'` }] }] } },
      }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `rm -rf ${w.project}/x` } }] }, { text: "ok" }]);
    w.file("x/y", "y");
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, "x/y"))).toBe(true);
    expect(String(sessionRecords(w).find((rec) => rec.type === "tool_result_delivered")?.content)).toContain("bash(rm *)");
  });

  test("openai wire: streamed parallel tool calls run and results go back in call order", async () => {
    const w = makeWorld();
    const server = await startFakeOpenAI([
      {
        toolCalls: [
          { id: "c1", name: "bash", arguments: { command: "echo one" } },
          { id: "c2", name: "bash", arguments: { command: "echo two" } },
        ],
      },
      { text: "both ran" },
    ]);
    try {
      const r = await runCliInProcess(w, [
        "run",
        "--provider",
        "openai",
        "--base-url",
        server.url,
        "--permission-mode",
        "bypass",
        "--output-format",
        "json",
        "go",
      ]);
      expect(r.code).toBe(0);
      expect(json(r.stdout)).toMatchObject({ result: "both ran", tool_calls: 2, turns: 2 });
      const second = server.requests[1] as { messages: { role: string; content: string; tool_call_id?: string }[] };
      const tools = second.messages.filter((m) => m.role === "tool");
      expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
        ["c1", "one\n"],
        ["c2", "two\n"],
      ]);
    } finally {
      await server.close();
    }
  });

  test("anthropic wire: streamed tool_use and thinking drive the loop; the key reaches the server, never a hook", async () => {
    const w = makeWorld();
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "env > '${w.root}/env.txt'; cat >/dev/null" }]\n`);
    const server = await startFakeAnthropic([
      { reasoning: "I should list files", toolCalls: [{ id: "toolu_1", name: "bash", arguments: { command: "echo listed" } }] },
      { text: "listed them" },
    ]);
    try {
      const env = w.env({ ANTHROPIC_API_KEY: "sk-ant-canary-0123456789" });
      const r = await runCliInProcess(
        w,
        ["run", "--provider", "anthropic", "--base-url", server.url, "--trust", "--permission-mode", "bypass", "--output-format", "json", "go"],
        { env },
      );
      expect(r.code).toBe(0);
      expect(json(r.stdout)).toMatchObject({ result: "listed them", tool_calls: 1, turns: 2 });
      expect(server.headers[0]?.["x-api-key"]).toBe("sk-ant-canary-0123456789");
      expect(readFileSync(join(w.root, "env.txt"), "utf8")).not.toContain("sk-ant-canary");
      const second = server.requests[1] as { messages: { role: string; content: unknown }[] };
      expect(JSON.stringify(second.messages)).toContain("listed\\n");
      const records = sessionRecords(w);
      expect(records.find((rec) => rec.type === "reasoning")?.content).toBe("I should list files");
    } finally {
      await server.close();
    }
  });

  test("RUN-26 D15 agent run exits within the 2 s async grace and kills a long async hook, recorded failed/timeout", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/slow/hook.json", JSON.stringify({ event: "post_tool", run: "./run.sh", async: true, timeout: 60 }));
    w.file(".agent/hooks/slow/run.sh", `#!/bin/sh\ncat >/dev/null\necho $$ > "${w.root}/pid"\nsleep 60\n`, { executable: true });
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "true" } }] }, { text: "done" }]);
    const r = await runCliInProcess(w, bypass.concat(["go"]));
    expect(r.code).toBe(0);
    const pid = Number(readFileSync(join(w.root, "pid"), "utf8").trim());
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    expect(alive).toBe(false);
    const records = sessionRecords(w);
    const terminal = records.filter((rec) => rec.type === "hook_lifecycle" && rec.label === "slow" && rec.status !== "started");
    expect(terminal).toHaveLength(1);
    expect(terminal[0]).toMatchObject({ status: "failed", category: "timeout" });
    const types = records.map((rec) => rec.type);
    expect(types.lastIndexOf("hook_lifecycle")).toBeLessThan(types.indexOf("session_end"));
    expect(r.stderr).toContain("ignored (async)");
  });
});
