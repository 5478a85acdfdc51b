// The loop and failure policies end to end. The real CLI
// (`bun src/main.ts run`) in a temp world, real hook processes, and a real local HTTP server
// speaking the OpenAI wire format, so assertions cover what the provider actually received.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCliAsync, type CliResult, type World } from "../support/cli.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";
import { lastJson, ofType, readLog, recordsOf, sessionOf } from "../agent/support.ts";

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

/** Runs `agent run` against a fresh fake OpenAI server; the server is closed before returning. */
async function runOpenAI(world: World, replies: FakeReply[], extra: readonly string[] = []): Promise<{ r: CliResult; server: FakeServer }> {
  const server = await startFakeOpenAI(replies);
  try {
    const args = ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "--output-format", "json", "--trust", ...extra, "go"];
    const r = await runCliAsync(world, args, { env: world.env({ OPENAI_API_KEY: "sk-test-not-a-secret" }) });
    return { r, server };
  } finally {
    await server.close();
  }
}

function messagesOf(server: FakeServer, index: number): WireMessage[] {
  const body = server.requests[index] as { messages: WireMessage[] };
  return body.messages;
}

/** Lines of stderr that are D21 failure lines. */
function failureLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("agent: hook "));
}

/** A list-hook script that appends `<label> start|end` to `<root>/order.log` around a short sleep. */
function orderedHook(world: World, name: string): void {
  const log = join(world.root, "order.log");
  world.file(
    `${name}.sh`,
    `#!/bin/sh\ncat > "${world.root}/stdin-${name}.json"\necho "${name} start" >> "${log}"\nsleep 0.2\necho "${name} end" >> "${log}"\n`,
    { executable: true },
  );
}

describe("loop", () => {
  test("LOOP-27 D25 tool_result holds the raw output, tool_result_delivered what the provider got; a blocked call is recorded too", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/post/hook.json", JSON.stringify({ event: "post_tool", run: "./run.sh" }));
    w.file(".agent/hooks/post/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"context":"note","output":"REWRITTEN"}'\n`, { executable: true });
    w.file("blk.sh", `#!/bin/sh\ninput=$(cat)\ncase "$input" in *rm\\ -rf*) exit 1 ;; esac\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { enabled: true, payload: "full", before_tool: [{ label: "blk", command: "./blk.sh", failure_policy: "block" }] } }),
    );
    const { r, server } = await runOpenAI(w, [
      {
        toolCalls: [
          { id: "c1", name: "bash", arguments: { command: "echo raw" } },
          { id: "c2", name: "bash", arguments: { command: "rm -rf gone" } },
        ],
      },
      { text: "done" },
    ]);
    expect(r.code).toBe(0);
    const records = recordsOf(w, r);
    const results = ofType(records, "tool_result");
    const delivered = ofType(records, "tool_result_delivered");
    expect(results[0]).toMatchObject({ tool_call_id: "c1", content: "raw\n" });
    expect(delivered[0]).toMatchObject({ tool_call_id: "c1", content: "REWRITTEN\n\n<hook_context>\nnote\n</hook_context>", output: "REWRITTEN" });
    expect(results[1]).toMatchObject({ tool_call_id: "c2", content: "Tool call blocked by local hook policy." });
    expect(delivered[1]).toMatchObject({ tool_call_id: "c2", content: "Tool call blocked by local hook policy." });
    const blockedLife = ofType(records, "hook_lifecycle").filter((rec) => rec.tool_call_id === "c2" && rec.status !== "started");
    expect(blockedLife).toEqual([expect.objectContaining({ label: "blk", status: "failed", target_ran: false })]);
    // What the provider received is exactly each call's `tool_result_delivered` content.
    const tools = messagesOf(server, 1).filter((m) => m.role === "tool");
    expect(tools.map((m): unknown[] => [m.tool_call_id, m.content])).toEqual([
      ["c1", delivered[0]?.content],
      ["c2", delivered[1]?.content],
    ]);
  });

  test("LOOP-29 a warn-policy hook failure is recorded and printed but never reaches the provider", async () => {
    const w = makeWorld();
    w.file("fail.sh", `#!/bin/sh\ncat >/dev/null\necho 'warn-out-5f2a'\necho 'warn-err-5f2a' >&2\nexit 1\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "lbl-warn-5f2a", command: "./fail.sh", failure_policy: "warn" }] } }),
    );
    const { r, server } = await runOpenAI(w, [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo ran" } }] }, { text: "done" }]);
    expect(r.code).toBe(0);
    expect(failureLines(r.stderr)).toEqual(["agent: hook lbl-warn-5f2a (pre_tool) failed: exit: exited 1 — tool ran anyway"]);
    const diagnostics = ofType(recordsOf(w, r), "hook_diagnostic");
    expect(diagnostics).toEqual([expect.objectContaining({ label: "lbl-warn-5f2a", category: "exit", policy: "warn", tool_call_id: "c1" })]);
    expect(server.requests.length).toBe(2);
    const wire = JSON.stringify(server.requests);
    for (const text of ["lbl-warn-5f2a", "5f2a", "exited 1", "tool ran anyway", "hook_context"]) expect(wire).not.toContain(text);
    expect(messagesOf(server, 1).find((m) => m.role === "tool")?.content).toBe("ran\n");
  });

  test("LOOP-30 D13 one message with a denied call and an allowed one: hooks per call, both results in call order", async () => {
    const w = makeWorld();
    w.file("x", "keep");
    w.file(".agent/hooks/guard/hook.json", JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
    w.file(
      ".agent/hooks/guard/run.sh",
      `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> "${w.root}/pre.log"\ncase "$input" in *'"rm x"'*) echo '{"action":"deny","reason":"no rm here"}' ;; *) echo '{"action":"allow"}' ;; esac\n`,
      { executable: true },
    );
    const { r, server } = await runOpenAI(w, [
      {
        toolCalls: [
          { id: "c1", name: "bash", arguments: { command: "rm x" } },
          { id: "c2", name: "bash", arguments: { command: "ls" } },
        ],
      },
      { text: "done" },
    ]);
    expect(r.code).toBe(0);
    expect(readLog(w, "pre.log").map((line) => [line.tool_use_id, (line.input as { command: string }).command])).toEqual([
      ["c1", "rm x"],
      ["c2", "ls"],
    ]);
    expect(existsSync(join(w.project, "x"))).toBe(true);
    const records = recordsOf(w, r);
    expect(ofType(records, "tool_result").map((rec) => [rec.tool_call_id, rec.success])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
    const tools = messagesOf(server, 1).filter((m) => m.role === "tool");
    expect(tools.map((m) => m.tool_call_id)).toEqual(["c1", "c2"]);
    expect(tools[0]?.content).toBe("no rm here");
    expect(tools[1]?.content).toContain("x");
  });

  test("LOOP-45 D25 every form writes started and terminal hook_lifecycle records; overflow and failures write hook_diagnostic", async () => {
    const w = makeWorld();
    w.file(".agent/hooks/d/hook.json", JSON.stringify({ name: "d", event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/d/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"allow"}'\n`, { executable: true });
    // A hook dir whose stdout passes 1 MiB (D3: truncated, not a failure) and one that fails loudly.
    w.file(".agent/hooks/e-big/hook.json", JSON.stringify({ name: "e-big", event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/e-big/run.sh", `#!/bin/sh\ncat >/dev/null\necho '{"action":"allow"}'\nhead -c 1200000 /dev/zero | tr '\\0' 'y'\n`, {
      executable: true,
    });
    w.file(".agent/hooks/f-bad/hook.json", JSON.stringify({ name: "f-bad", event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/f-bad/run.sh", `#!/bin/sh\ncat >/dev/null\necho 'out-9d3e'\necho 'err-9d3e' >&2\nexit 1\n`, { executable: true });
    w.file("stop.sh", "#!/bin/sh\ncat >/dev/null\n", { executable: true });
    w.file("l.sh", "#!/bin/sh\ncat >/dev/null\n", { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: { enabled: true, after_tool: [{ label: "l", command: "./l.sh" }], lifecycle: { stop: [{ hooks: [{ command: "./stop.sh" }] }] } },
      }),
    );
    const { r } = await runOpenAI(w, [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    expect(r.code).toBe(0);
    const records = recordsOf(w, r);
    const life = ofType(records, "hook_lifecycle");
    const of = (phase: string, label?: string) => life.filter((rec) => rec.phase === phase && (label === undefined || rec.label === label));
    const dRecs = of("pre_tool", "d");
    expect(dRecs.map((rec) => rec.status)).toEqual(["started", "success"]);
    for (const rec of dRecs) expect(rec).toMatchObject({ policy: "fail_open", target_tool: "bash", tool_call_id: "c1" });
    const stopRecs = of("stop");
    expect(stopRecs.map((rec) => rec.status)).toEqual(["started", "success"]);
    for (const rec of stopRecs) expect(rec).toMatchObject({ policy: "warn", target_tool: null, tool_call_id: null });
    const lRecs = of("after_tool", "l");
    expect(lRecs.map((rec) => rec.status)).toEqual(["started", "success"]);
    for (const rec of lRecs) expect(rec).toMatchObject({ target_tool: "bash", tool_call_id: "c1" });

    const diagnostics = ofType(records, "hook_diagnostic");
    expect(diagnostics.filter((rec) => rec.label === "e-big")).toEqual([
      expect.objectContaining({ phase: "pre_tool", policy: "fail_open", tool_call_id: "c1", message: "stdout exceeded 1 MiB; extra bytes discarded" }),
    ]);
    expect(of("pre_tool", "e-big").map((rec) => rec.status)).toEqual(["started", "success"]);
    const bad = diagnostics.filter((rec) => rec.label === "f-bad");
    expect(bad).toEqual([expect.objectContaining({ phase: "pre_tool", category: "exit", policy: "fail_open" })]);
    expect(String(bad[0]?.message)).not.toContain("9d3e");
    // No hook output in any record at all (the hook dir's failure line may quote stderr; records never do).
    expect(JSON.stringify(records)).not.toContain("9d3e");
    expect(JSON.stringify(records)).not.toContain("yyyy");
  });
});

describe("tool-call lists, order and failure policies", () => {
  test("TOOL-12 D13 before_tool hooks run one at a time in array order; after_tool hooks likewise, after the tool", async () => {
    const w = makeWorld();
    for (const name of ["a", "b", "c", "x", "y"]) orderedHook(w, name);
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: ["a", "b", "c"].map((label) => ({ label, command: `./${label}.sh` })),
          after_tool: ["x", "y"].map((label) => ({ label, command: `./${label}.sh` })),
        },
      }),
    );
    const log = join(w.root, "order.log");
    const { r } = await runOpenAI(w, [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: `echo tool >> '${log}'` } }] }, { text: "done" }]);
    expect(r.code).toBe(0);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([
      "a start",
      "a end",
      "b start",
      "b end",
      "c start",
      "c end",
      "tool",
      "x start",
      "x end",
      "y start",
      "y end",
    ]);
    const index = (name: string) => (JSON.parse(readFileSync(join(w.root, `stdin-${name}.json`), "utf8")) as { hook: { index: number; label: string } }).hook;
    expect(["a", "b", "c", "x", "y"].map(index)).toEqual(
      [
        { label: "a", index: 0 },
        { label: "b", index: 1 },
        { label: "c", index: 2 },
        { label: "x", index: 0 },
        { label: "y", index: 1 },
      ].map((h) => expect.objectContaining(h)),
    );
  });

  test("TOOL-15 a failing hook's stdout and stderr reach no provider request, failure line, record or UI row", async () => {
    const w = makeWorld();
    w.file("m.sh", `#!/bin/sh\ncat >/dev/null\necho MARKER-123\necho MARKER-123 >&2\nexit 1\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: { enabled: true, show_in_tui: true, before_tool: [{ label: "mb", command: "./m.sh" }], after_tool: [{ label: "ma", command: "./m.sh" }] },
      }),
    );
    const server = await startFakeOpenAI([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo plain" } }] }, { text: "done" }]);
    let r: CliResult;
    try {
      // Text output: stdout is the UI rendering of the run.
      r = await runCliAsync(w, ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "--trust", "go"], {
        env: w.env({ OPENAI_API_KEY: "sk-test-not-a-secret" }),
      });
    } finally {
      await server.close();
    }
    expect(r.code).toBe(0);
    expect(JSON.stringify(server.requests)).not.toContain("MARKER");
    expect(r.stdout).not.toContain("MARKER");
    expect(r.stderr).not.toContain("MARKER");
    expect(failureLines(r.stderr)).toEqual([
      "agent: hook mb (pre_tool) failed: exit: exited 1 — tool ran anyway",
      "agent: hook ma (post_tool) failed: exit: exited 1 — result kept",
    ]);
    const records = sessionOf(w);
    expect(JSON.stringify(records)).not.toContain("MARKER");
    expect(ofType(records, "tool_call")[0]).toMatchObject({ input: { command: "echo plain" } });
    expect(ofType(records, "tool_result")[0]).toMatchObject({ content: "plain\n" });
    expect(ofType(records, "tool_result_delivered")[0]).toMatchObject({ content: "plain\n", output: "plain\n" });
    expect(messagesOf(server, 1).find((m) => m.role === "tool")?.content).toBe("plain\n");
    for (const diagnostic of ofType(records, "hook_diagnostic")) expect(diagnostic).toMatchObject({ category: "exit", message: "exited 1" });
  });

  test("TOOL-16 a before_tool hook under ignore that exits 1: tool runs, no line, no diagnostic, lifecycle says failed", async () => {
    const w = makeWorld();
    w.file("f.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "quiet", command: "./f.sh", failure_policy: "ignore" }] } }),
    );
    const { r, server } = await runOpenAI(w, [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: `touch '${w.root}/ran'` } }] }, { text: "done" }]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.root, "ran"))).toBe(true);
    expect(failureLines(r.stderr)).toEqual([]);
    const records = recordsOf(w, r);
    expect(ofType(records, "hook_diagnostic")).toEqual([]);
    const terminal = ofType(records, "hook_lifecycle").filter((rec) => rec.status !== "started");
    expect(terminal).toEqual([expect.objectContaining({ label: "quiet", phase: "before_tool", status: "failed", policy: "ignore", category: "exit" })]);
    expect(server.requests.length).toBe(2);
  });

  test("TOOL-17 the same hook under warn (the default): tool runs, one failure line, a diagnostic, the model sees nothing", async () => {
    const w = makeWorld();
    w.file("f.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "noisy-7b", command: "./f.sh" }] } }));
    const { r, server } = await runOpenAI(w, [
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: `touch '${w.root}/ran'; echo ok` } }] },
      { text: "done" },
    ]);
    expect(r.code).toBe(0);
    expect(existsSync(join(w.root, "ran"))).toBe(true);
    const lines = failureLines(r.stderr);
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("noisy-7b");
    expect(lines[0]).toContain("exit");
    expect(lines[0]?.endsWith("tool ran anyway")).toBe(true);
    const records = recordsOf(w, r);
    expect(ofType(records, "hook_diagnostic")).toEqual([expect.objectContaining({ label: "noisy-7b", policy: "warn", category: "exit" })]);
    const wire = JSON.stringify(server.requests);
    expect(wire).not.toContain("noisy-7b");
    expect(wire).not.toContain("tool ran anyway");
    expect(messagesOf(server, 1).find((m) => m.role === "tool")?.content).toBe("ok\n");
  });

  test("TOOL-18 block-dangerous-bash exits 42: the tool and later hooks don't run, the model sees the sanitized text, the session goes on", async () => {
    const w = makeWorld();
    w.file("build/keep.txt", "x");
    w.file(
      "scripts/block-dangerous-bash.sh",
      [
        "#!/bin/sh",
        // No jq: match the raw envelope, whose full-mode request.command holds the command text.
        "input=$(cat)",
        `case "$input" in *'"command":"'*'rm -rf'*|*'"command":"'*'git push --force'*|*'"command":"'*'curl '*'| sh'*) echo 'blocked dangerous command pattern' >&2; exit 42 ;; esac`,
        "",
      ].join("\n"),
      { executable: true },
    );
    w.file("log.sh", `#!/bin/sh\ncat >> "${w.root}/$1.log"\necho >> "${w.root}/$1.log"\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [
            { label: "block-dangerous-bash", command: "./scripts/block-dangerous-bash.sh", payload: "full", failure_policy: "block", include_tools: ["bash"] },
            { label: "later", command: "./log.sh later" },
          ],
          after_tool: [{ label: "after", command: "./log.sh after" }],
        },
      }),
    );
    const { r, server } = await runOpenAI(w, [
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "rm -rf build" } }] },
      { toolCalls: [{ id: "c2", name: "bash", arguments: { command: "echo safe" } }] },
      { text: "carried on" },
    ]);
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ result: "carried on", stop_reason: "completed", is_error: false });
    expect(existsSync(join(w.project, "build/keep.txt"))).toBe(true);
    // Only the safe call reached the later before hook and the after hook.
    expect(readLog(w, "later.log").map((rec) => (rec.tool as { call_id: string }).call_id)).toEqual(["c2"]);
    expect(readLog(w, "after.log").map((rec) => (rec.tool as { call_id: string }).call_id)).toEqual(["c2"]);
    const tool = messagesOf(server, 1).find((m) => m.role === "tool");
    expect(tool).toMatchObject({ tool_call_id: "c1", content: "Tool call blocked by local hook policy." });
    expect(JSON.stringify(server.requests)).not.toContain("block-dangerous-bash");
    expect(JSON.stringify(server.requests)).not.toContain("blocked dangerous command pattern");
    const lines = failureLines(r.stderr);
    expect(lines).toEqual(["agent: hook block-dangerous-bash (pre_tool) failed: exit: exited 42 — tool blocked"]);
    expect(server.requests.length).toBe(3);
  });
});
