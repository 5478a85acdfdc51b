/**
 * MCP end to end through `agent run` (in-process CLI: test/support/in-process.ts) with a fake OpenAI server (real HTTP on
 * 127.0.0.1, real SSE wire) calling tools of the reference MCP servers `everything` and
 * `filesystem` (npm dev dependencies, nobody here wrote them) and of fixture servers of our own.
 * Every call goes through the same hook forms, gate, redaction and session file as a built-in.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { hookDir, toml } from "../hooks/harness.ts";
import { EVERYTHING, FILESYSTEM, FIXTURES, markedProcesses, stdioServer, toolMessage, type RequestBody } from "./support.ts";

// Real servers on 2 shared cores: generous per-test bounds (no assertion depends on timing).
setDefaultTimeout(120_000);

function run(world: World, url: string, extra: readonly string[]) {
  return runCliInProcess(world, ["run", "--provider", "openai", "--base-url", url, "--model", "fake", ...extra, "go"], {
    env: world.env({ OPENAI_API_KEY: "sk-test-not-real" }),
  });
}

function sessionRecords(world: World): Record<string, unknown>[] {
  const dir = join(world.agentHome, "sessions");
  const file = readdirSync(dir).find((name) => name.endsWith(".jsonl"));
  if (file === undefined) throw new Error("no session file");
  return readJsonl(readFileSync(join(dir, file), "utf8"));
}

describe("MCP tools in agent run", () => {
  test("hooks deny, rewrite and add context; the gate asks; redaction; session records; nothing left running", async () => {
    const world = makeWorld();
    const logs = join(world.root, "logs");
    toml(world, "user", stdioServer(world, "every", [EVERYTHING(), "stdio"]));
    toml(world, "user", stdioServer(world, "fs", [FILESYSTEM(), world.project]));
    // Form 1: a hook dir whose exact `match` is the full MCP name denies the write.
    hookDir(
      world,
      "user",
      "deny-mcp-write",
      { event: "pre_tool", match: "mcp__fs__write_file" },
      `mkdir -p ${logs}; cat > ${logs}/dir.json; echo '{"action":"deny","reason":"no MCP writes"}'`,
    );
    // Form 2: lifecycle regex matchers (claude protocol): one rewrites echo's input, one adds context after fs calls.
    toml(
      world,
      "user",
      [
        "[[hooks.lifecycle.pre_tool]]",
        'matcher = "mcp__every__ech.*"',
        `hooks = [{ command = "mkdir -p ${logs}; cat > ${logs}/claude.json; echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",\\"permissionDecision\\":\\"allow\\",\\"updatedInput\\":{\\"message\\":\\"rewritten by hook\\"}}}'" }]`,
        "[[hooks.lifecycle.post_tool]]",
        'matcher = "mcp__fs__.*"',
        `hooks = [{ command = "echo '{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PostToolUse\\",\\"additionalContext\\":\\"post hook saw the fs call\\"}}'" }]`,
      ].join("\n"),
    );
    // Form 3: a list hook (envelope, redacted payload) selected by an include_tools glob.
    toml(
      world,
      "user",
      [
        "[hooks]",
        "enabled = true",
        "[[hooks.before_tool]]",
        'label = "log-fs"',
        `command = "mkdir -p ${logs}; cat >> ${logs}/list.jsonl; echo >> ${logs}/list.jsonl"`,
        'include_tools = ["mcp__fs__*"]',
      ].join("\n"),
    );

    const server = await startFakeOpenAI([
      {
        toolCalls: [
          { id: "c1", name: "mcp__fs__write_file", arguments: { path: join(world.project, "x.txt"), content: "hello" } },
          { id: "c2", name: "mcp__every__echo", arguments: { message: "original" } },
          { id: "c3", name: "mcp__fs__list_allowed_directories", arguments: {} },
          { id: "c4", name: "mcp__fs__list_directory", arguments: { path: "AKIAABCDEFGHIJKLMNOP" } },
        ],
      },
      { text: "done" },
    ]);
    let result;
    try {
      result = await run(world, server.url, ["--allow", "mcp__fs__list_allowed_directories"]);
    } finally {
      await server.close();
    }
    expect(result.stderr).not.toContain("failed to start");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("done");

    const first = server.requests[0] as RequestBody;
    const tools = new Map((first.tools ?? []).map((tool) => [tool.function.name, tool.function]));
    expect(tools.has("bash")).toBe(true);
    expect(tools.get("mcp__every__echo")?.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    expect(tools.has("mcp__fs__read_text_file")).toBe(true);

    const second = server.requests[1] as RequestBody;
    expect(toolMessage(second, "c1")).toContain("no MCP writes");
    expect(existsSync(join(world.project, "x.txt"))).toBe(false);
    expect(toolMessage(second, "c2")).toContain("Echo: rewritten by hook");
    const c3 = toolMessage(second, "c3");
    expect(c3).toContain(world.project);
    expect(c3).toContain("post hook saw the fs call");
    const c4 = toolMessage(second, "c4");
    expect(c4).toContain("needs approval");
    expect(c4).toContain("--allow 'mcp__fs__list_directory'");

    // The hooks saw the full names; claude hooks get the MCP name as is (as in Claude Code).
    const claude = JSON.parse(readFileSync(join(logs, "claude.json"), "utf8"));
    expect(claude).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "mcp__every__echo", tool_input: { message: "original" } });
    expect(readFileSync(join(logs, "dir.json"), "utf8")).toContain("mcp__fs__write_file");
    const listed = readFileSync(join(logs, "list.jsonl"), "utf8");
    expect(listed).toContain("mcp__fs__list_directory");
    expect(listed).toContain("mcp__fs__list_allowed_directories");
    expect(listed).not.toContain("mcp__every__echo");
    // Redaction: the credential-shaped input never reaches the redacted envelope payload.
    expect(listed).not.toContain("AKIAABCDEFGHIJKLMNOP");

    const records = sessionRecords(world);
    const echo = records.find((record) => record.type === "tool_result" && record.tool_call_id === "c2");
    expect(echo).toMatchObject({
      tool_name: "mcp__every__echo",
      input: { message: "rewritten by hook" },
      success: true,
      metadata: { mcp_server: "every", mcp_tool: "echo" },
    });
    expect(records.some((record) => record.type === "hook_lifecycle" && record.target_tool === "mcp__fs__write_file")).toBe(true);

    expect(markedProcesses(world)).toEqual([]);
  });

  test("a crash mid-call is reported, a dead or hanging server costs only its tools, and nothing is left running", async () => {
    const world = makeWorld();
    toml(world, "user", stdioServer(world, "crashy", [join(FIXTURES, "crash-server.mjs")]));
    toml(
      world,
      "user",
      stdioServer(world, "hangs", [join(FIXTURES, "crash-server.mjs")], { env: { MCP_FIXTURE_MODE: "hang" }, more: "startup_timeout_ms = 500" }),
    );
    toml(world, "user", '[mcp_servers.missing]\ncommand = "agent-no-such-mcp-server"');
    toml(world, "user", stdioServer(world, "every", [EVERYTHING(), "stdio"]));
    const server = await startFakeOpenAI([
      {
        toolCalls: [
          { id: "k1", name: "mcp__crashy__ok", arguments: {} },
          { id: "k2", name: "mcp__crashy__boom", arguments: {} },
        ],
      },
      {
        toolCalls: [
          { id: "k3", name: "mcp__crashy__ok", arguments: {} },
          { id: "k4", name: "mcp__every__echo", arguments: { message: "still here" } },
        ],
      },
      { text: "survived" },
    ]);
    let result;
    try {
      result = await run(world, server.url, ["--permission-mode", "bypass"]);
    } finally {
      await server.close();
    }
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("survived");
    const lines = result.stderr.split("\n");
    expect(
      lines.filter((line) => line.includes('MCP server "hangs" failed to start: did not finish start-up within 500 ms (startup_timeout_ms)')),
    ).toHaveLength(1);
    expect(lines.filter((line) => line.includes('MCP server "missing" failed to start') && line.includes("agent-no-such-mcp-server"))).toHaveLength(1);
    expect(
      lines.filter((line) => line.includes('MCP server "crashy" exited with code 3') && line.includes("boom: exiting in the middle of a call")),
    ).toHaveLength(1);

    const first = server.requests[0] as RequestBody;
    const names = (first.tools ?? []).map((tool) => tool.function.name);
    expect(names).toContain("mcp__crashy__boom");
    expect(names).toContain("mcp__every__echo");
    expect(names.some((name) => name.startsWith("mcp__hangs__") || name.startsWith("mcp__missing__"))).toBe(false);

    const second = server.requests[1] as RequestBody;
    expect(toolMessage(second, "k1")).toBe("ok from fixture");
    expect(toolMessage(second, "k2")).toBe('MCP server "crashy" exited with code 3 during the call; its tools are gone for the rest of the session');
    // After the crash its tools are gone from the list and a call to one is an unknown tool.
    expect((second.tools ?? []).map((tool) => tool.function.name).some((name) => name.startsWith("mcp__crashy__"))).toBe(false);
    const third = server.requests[2] as RequestBody;
    expect(toolMessage(third, "k3")).toContain('unknown tool "mcp__crashy__ok"');
    expect(toolMessage(third, "k4")).toContain("Echo: still here");

    expect(markedProcesses(world)).toEqual([]);
  });

  test("tools/list pagination and list_changed: a tool added mid-session is offered to the next request", async () => {
    const world = makeWorld();
    toml(world, "user", stdioServer(world, "paged", [join(FIXTURES, "paged-server.mjs")]));
    const server = await startFakeOpenAI([
      { toolCalls: [{ id: "p1", name: "mcp__paged__add", arguments: {} }] },
      { toolCalls: [{ id: "p2", name: "mcp__paged__four", arguments: {} }] },
      { text: "end" },
    ]);
    let result;
    try {
      result = await run(world, server.url, ["--allow", "mcp__paged"]);
    } finally {
      await server.close();
    }
    expect(result.code).toBe(0);
    const names = (index: number): string[] =>
      ((server.requests[index] as RequestBody).tools ?? []).map((tool) => tool.function.name).filter((name) => name.startsWith("mcp__"));
    expect(names(0)).toEqual(["mcp__paged__one", "mcp__paged__two", "mcp__paged__three", "mcp__paged__add"]);
    expect(names(1)).toEqual(["mcp__paged__one", "mcp__paged__two", "mcp__paged__three", "mcp__paged__add", "mcp__paged__four"]);
    expect(toolMessage(server.requests[2] as RequestBody, "p2")).toBe("ran four");
    expect(markedProcesses(world)).toEqual([]);
  });
});

describe("agent mcp", () => {
  test("list shows every server's state, tools and errors; test SERVER starts, lists and stops one", async () => {
    const world = makeWorld();
    toml(world, "user", stdioServer(world, "every", [EVERYTHING(), "stdio"]));
    toml(
      world,
      "user",
      stdioServer(world, "hangs", [join(FIXTURES, "crash-server.mjs")], { env: { MCP_FIXTURE_MODE: "hang" }, more: "startup_timeout_ms = 300" }),
    );
    toml(world, "user", '[mcp_servers.broken]\nurl = "ftp://nope"');
    const list = await runCliInProcess(world, ["mcp", "list", "--json"]);
    expect(list.code).toBe(0);
    const parsed = JSON.parse(list.stdout);
    const byName = Object.fromEntries(parsed.servers.map((server: { name: string }) => [server.name, server]));
    expect(byName.every).toMatchObject({ state: "ready", transport: "stdio", scope: "user", error: null });
    expect(byName.every.tools).toContain("mcp__every__echo");
    expect(byName.hangs).toMatchObject({ state: "failed", error: "did not finish start-up within 300 ms (startup_timeout_ms)", tools: [] });
    expect(parsed.config_errors).toEqual([
      { file: join(world.agentHome, "config.toml"), field: "mcp_servers.broken.url", message: "must start with http:// or https://" },
    ]);
    const text = await runCliInProcess(world, ["mcp", "list"]);
    expect(text.stdout).toContain("hangs  user  stdio  failed  0 tools");
    expect(text.stdout).toContain("config error: ~/.agent/config.toml: mcp_servers.broken.url: must start with http:// or https://");

    const ok = await runCliInProcess(world, ["mcp", "test", "every"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^every: started, \d+ tools, stopped\n/);
    expect(ok.stdout).toContain("  mcp__every__echo");
    const bad = await runCliInProcess(world, ["mcp", "test", "hangs"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('agent: MCP server "hangs" did not start: did not finish start-up within 300 ms (startup_timeout_ms)\n');
    const unknown = await runCliInProcess(world, ["mcp", "test", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no MCP server "nope" is configured');
    expect(markedProcesses(world)).toEqual([]);
  });
});
