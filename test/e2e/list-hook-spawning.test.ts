// How list hooks are spawned (login bash, cwd, preflight of the
// command string only), that hook processes never recurse into hooks, context-item order on the
// wire, the claude/action protocols on list hooks, and `affected_paths` never parsed from text.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, runCliAsync, runSync, writeScript, type World } from "../support/cli.ts";
import { startFakeOpenAI, type FakeReply, type FakeServer } from "../support/fake-openai.ts";
import { logTo, ofType, readLog, recordsOf, runScript, sessionOf } from "../agent/support.ts";

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
}

async function runOpenAI(world: World, replies: FakeReply[]): Promise<{ code: number | null; stderr: string; server: FakeServer }> {
  const server = await startFakeOpenAI(replies);
  try {
    const args = ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "--trust", "go"];
    const r = await runCliAsync(world, args, { env: world.env({ OPENAI_API_KEY: "sk-test-not-a-secret" }) });
    return { code: r.code, stderr: r.stderr, server };
  } finally {
    await server.close();
  }
}

/** Role and content of each non-system message of request `index`. */
function conversation(server: FakeServer, index: number): string[] {
  const body = server.requests[index] as { messages: WireMessage[] };
  return body.messages.filter((m) => m.role !== "system").map((m) => `${m.role}:${m.tool_call_id ?? ""}:${m.content ?? ""}`);
}

/** A hook script printing these injected user items. */
function injector(items: readonly string[]): string {
  return `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify({ context_items: items.map((content) => ({ role: "user", content })) })}'\n`;
}

function failureLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.startsWith("agent: hook "));
}

/** A login profile only bash reads (sh reads ~/.profile), so a marker from it proves `bash -l`. */
function bashProfile(world: World): void {
  world.file(join(world.home, ".bash_profile"), "export LOGIN_PROFILE_MARK=bash-login\n");
}

describe("spawning list hooks", () => {
  test("TOOL-28 a list command runs as a bash login shell in the agent cwd; --cwd sub makes it sub", () => {
    const w = makeWorld();
    bashProfile(w);
    const body = `#!/bin/sh\ncat >/dev/null\nprintf '%s %s\\n' "$LOGIN_PROFILE_MARK" "$(pwd)" >> "${w.root}/audit.log"\n`;
    w.file("scripts/agent-hooks/audit-jsonl.sh", body, { executable: true });
    w.file("sub/scripts/agent-hooks/audit-jsonl.sh", body, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "audit", command: "./scripts/agent-hooks/audit-jsonl.sh" }] } }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "true" } }] }, { text: "done" }]);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "true" } }] }, { text: "done" }], "sub/script.json");
    expect(runScript(w, "bypass").code).toBe(0);
    const sub = runCli(w, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--trust", "--cwd", "sub", "go"]);
    expect(sub.code).toBe(0);
    expect(failureLines(sub.stderr)).toEqual([]);
    expect(readFileSync(join(w.root, "audit.log"), "utf8").trim().split("\n")).toEqual([`bash-login ${w.project}`, `bash-login ${join(w.project, "sub")}`]);
  });

  test("TOOL-31 a hook that runs git status writes no tool_call record and fires no hook", () => {
    const w = makeWorld({ git: false });
    runSync(["git", "init", "-q"], w.project);
    w.file("git-hook.sh", `#!/bin/sh\ncat >/dev/null\ngit status > "${w.root}/git-status.txt" 2>&1\necho "exit $?" >> "${w.root}/git-status.txt"\n`, {
      executable: true,
    });
    w.file(".agent/hooks/d/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(
      ".agent/hooks/d/run.sh",
      `#!/bin/sh\ncat >> "${w.root}/dir.log"\necho >> "${w.root}/dir.log"\ngit status >/dev/null 2>&1\necho '{"action":"allow"}'\n`,
      { executable: true },
    );
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [{ label: "git", command: "./git-hook.sh" }],
          after_tool: [{ label: "git-after", command: "./git-hook.sh" }],
          lifecycle: {
            pre_tool_use: [{ hooks: [{ command: logTo(w, "life-pre.log") }] }],
            post_tool_use: [{ hooks: [{ command: logTo(w, "life-post.log") }] }],
          },
        },
      }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.root, "git-status.txt"), "utf8")).toContain("exit 0");
    // Every hook fired exactly once: for the model's one bash call, never for the hooks' own git.
    for (const log of ["dir.log", "life-pre.log", "life-post.log"]) {
      const lines = readLog(w, log);
      expect(lines.length).toBe(1);
      expect(lines[0]).toMatchObject(
        log === "dir.log" ? { tool: "bash", input: { command: "echo hi" } } : { tool_name: "Bash", tool_input: { command: "echo hi" } },
      );
    }
    const records = recordsOf(w, r);
    expect(ofType(records, "tool_call").map((rec) => rec.input)).toEqual([{ command: "echo hi" }]);
    expect(ofType(records, "tool_result").length).toBe(1);
    expect(JSON.stringify(records)).not.toContain("git status");
  });

  test("TOOL-38 a script whose body uses $HOME, cd and .. runs normally: preflight checks only the command string", () => {
    const w = makeWorld();
    w.file(
      "scripts/agent-hooks/x.sh",
      `#!/bin/sh\ncat >/dev/null\ncd "$HOME" && cd .. && pwd > "${w.root}/x.out"\ncd ../../.. && echo "$HOME" >> "${w.root}/x.out"\n`,
      { executable: true },
    );
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "x", command: "./scripts/agent-hooks/x.sh", failure_policy: "block" }] } }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${w.root}/ran'` } }] }, { text: "done" }]);
    const validate = runCli(w, ["hooks", "validate"]);
    expect(validate.stdout + validate.stderr).not.toContain("preflight");
    expect(validate.code).toBe(0);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    expect(failureLines(r.stderr)).toEqual([]);
    expect(readFileSync(join(w.root, "x.out"), "utf8")).toBe(`${w.root}\n${w.home}\n`);
    expect(existsSync(join(w.root, "ran"))).toBe(true);
    const terminal = ofType(recordsOf(w, r), "hook_lifecycle").filter((rec) => rec.status !== "started");
    expect(terminal).toEqual([expect.objectContaining({ label: "x", status: "success", category: null })]);
  });
});

describe("injected items on the wire", () => {
  test("TOOL-59 after_tool items arrive in hook order right after the tool result", async () => {
    const w = makeWorld();
    w.file("A.sh", injector(["a1", "a2"]), { executable: true });
    w.file("B.sh", injector(["b1"]), { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          provider_context_injection: true,
          after_tool: [
            { label: "A", command: "./A.sh" },
            { label: "B", command: "./B.sh" },
          ],
        },
      }),
    );
    const { code, server } = await runOpenAI(w, [{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    expect(code).toBe(0);
    expect(conversation(server, 1)).toEqual(["user::go", "assistant::", "tool:c1:hi\n", "user::a1", "user::a2", "user::b1"]);
  });

  test("TOOL-59 after_reasoning items follow the reasoning and after_assistant items the assistant message", async () => {
    const w = makeWorld();
    w.file("M.sh", injector(["m1"]), { executable: true });
    w.file("R.sh", injector(["r1"]), { executable: true });
    // A stop hook that sends the agent back once, so a second request shows where the items went.
    w.file("stop.sh", `#!/bin/sh\ninput=$(cat)\ncase "$input" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"again"}' ;; esac\n`, {
      executable: true,
    });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          provider_context_injection: true,
          after_assistant: [{ label: "M", command: "./M.sh" }],
          after_reasoning: [{ label: "R", command: "./R.sh" }],
          lifecycle: { stop: [{ hooks: [{ command: "./stop.sh" }] }] },
        },
      }),
    );
    const { code, server } = await runOpenAI(w, [{ reasoning: "thinking it over", text: "draft" }, { text: "final" }]);
    expect(code).toBe(0);
    // The OpenAI wire carries reasoning inside the assistant turn, so both follow that message, r1 first.
    expect(conversation(server, 1)).toEqual(["user::go", "assistant::draft", "user::r1", "user::m1", "user::again"]);
    const records = sessionOf(w);
    const kinds = records
      .filter((rec) => ["reasoning", "assistant", "provider_context_item"].includes(String(rec.type)))
      .map((rec) => `${String(rec.type)}:${String(rec.content)}`);
    expect(kinds.slice(0, 4)).toEqual(["reasoning:thinking it over", "provider_context_item:r1", "assistant:draft", "provider_context_item:m1"]);
  });
});

describe("protocols on list hooks", () => {
  const TOKEN = "ghp_Zq8rT2mN4vB6xC1kL9pW3sD5fG7hJ0aY2eR4";

  function settings(world: World, hooks: Record<string, unknown>[]): void {
    world.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: hooks } }));
  }

  test("TOOL-66 D22 a claude-protocol list hook denies with its reason, via login bash, with the full input", () => {
    const w = makeWorld();
    bashProfile(w);
    w.file("env.sh", `#!/bin/sh\ncat > "${w.root}/envelope.json"\n`, { executable: true });
    w.file(
      "c.sh",
      `#!/bin/sh\ncat > "${w.root}/claude.json"\nprintf '%s %s\\n' "$LOGIN_PROFILE_MARK" "$(pwd)" > "${w.root}/claude-env.txt"\necho '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'\n`,
      { executable: true },
    );
    settings(w, [
      { label: "env", command: "./env.sh" },
      { label: "c", command: "./c.sh", protocol: "claude" },
    ]);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `echo ${TOKEN} > '${w.root}/ran'` } }] }, { text: "done" }]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    expect(existsSync(join(w.root, "ran"))).toBe(false);
    expect(ofType(recordsOf(w, r), "tool_result_delivered")[0]?.content).toBe("no");
    // The envelope hook honours `payload` (redacted by default); the claude hook always gets the full input.
    expect(readFileSync(join(w.root, "envelope.json"), "utf8")).not.toContain(TOKEN);
    const claude = JSON.parse(readFileSync(join(w.root, "claude.json"), "utf8")) as Record<string, unknown>;
    expect(claude).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: `echo ${TOKEN} > '${w.root}/ran'` } });
    expect(readFileSync(join(w.root, "claude-env.txt"), "utf8")).toBe(`bash-login ${w.project}\n`);
  });

  test("TOOL-66 D22 a claude-protocol list hook keeps the list's preflight, caps and failure policy", () => {
    const w = makeWorld();
    w.file("c.sh", `#!/bin/sh\ncat >/dev/null\ntouch "${w.root}/spawned"\nhead -c 300 /dev/zero | tr '\\0' ' '\necho '{}'\n`, { executable: true });
    w.file("fail.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    const cases: { hook: Record<string, unknown>; line: string }[] = [
      { hook: { label: "pre", command: "./c.sh '$HOME'", failure_policy: "block" }, line: "agent: hook pre (pre_tool) failed: runner: preflight: " },
      { hook: { label: "cap", command: "./c.sh", stdout_max_bytes: 100, failure_policy: "block" }, line: "agent: hook cap (pre_tool) failed: output-limit: " },
      { hook: { label: "pol", command: "./fail.sh", failure_policy: "block" }, line: "agent: hook pol (pre_tool) failed: exit: exited 1" },
    ];
    for (const { hook, line } of cases) {
      settings(w, [{ ...hook, protocol: "claude" }]);
      writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${w.root}/ran'` } }] }, { text: "done" }]);
      const r = runScript(w, "bypass");
      expect(r.code).toBe(0);
      const lines = failureLines(r.stderr);
      expect(lines.length).toBe(1);
      expect(lines[0]).toStartWith(line);
      expect(lines[0]?.endsWith("— tool blocked")).toBe(true);
      expect(existsSync(join(w.root, "ran"))).toBe(false);
      if (hook.label === "pre") expect(existsSync(join(w.root, "spawned"))).toBe(false);
      expect(ofType(recordsOf(w, r), "tool_result_delivered")[0]?.content).toBe("Tool call blocked by local hook policy.");
    }
    // The cap case did spawn (and was killed past 100 bytes); the preflight case never did.
    expect(existsSync(join(w.root, "spawned"))).toBe(true);
  });

  test("TOOL-66 D22 with protocol action the action reply rules apply instead", () => {
    const w = makeWorld();
    w.file("a.sh", `#!/bin/sh\ncat > "${w.root}/action.json"\necho '{"action":"deny","reason":"r"}'\n`, { executable: true });
    w.file("c.sh", `#!/bin/sh\ncat >/dev/null\necho '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}'\n`, {
      executable: true,
    });
    settings(w, [{ label: "a", command: "./a.sh", protocol: "action" }]);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo one" } }] }, { text: "done" }]);
    const denied = runScript(w, "bypass");
    expect(denied.code).toBe(0);
    expect(ofType(recordsOf(w, denied), "tool_result_delivered")[0]?.content).toBe("r");
    expect(JSON.parse(readFileSync(join(w.root, "action.json"), "utf8"))).toMatchObject({
      hook_event: "pre_tool",
      tool: "bash",
      input: { command: "echo one" },
    });
    // A claude-shaped reply means nothing to an action hook: no `action` is allow.
    settings(w, [{ label: "c", command: "./c.sh", protocol: "action" }]);
    const allowed = runScript(w, "bypass");
    expect(allowed.code).toBe(0);
    expect(ofType(recordsOf(w, allowed), "tool_result_delivered")[0]?.content).toBe("one\n");
  });
});

describe("affected paths", () => {
  test("SEC-28 D20 bash commands, tool output and prose are never parsed for affected_paths", () => {
    const w = makeWorld();
    w.file("src/a.ts", "import './b.ts'; // see src/b.ts and ../etc/passwd\n");
    w.file("log.sh", `#!/bin/sh\ncat >> "${w.root}/$1.log"\necho >> "${w.root}/$1.log"\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          // Full payloads, so the hooks do see the command text, output and prose.
          payload: "full",
          before_tool: [{ label: "b", command: "./log.sh before" }],
          after_tool: [{ label: "a", command: "./log.sh after" }],
          after_assistant: [{ label: "m", command: "./log.sh assistant" }],
          after_reasoning: [{ label: "r", command: "./log.sh reasoning" }],
        },
      }),
    );
    writeScript(w, [
      {
        reasoning: "I will copy src/a.ts to out.txt",
        text: "Copying src/a.ts into out.txt.",
        tool_calls: [
          { name: "bash", arguments: { command: "cat src/a.ts > out.txt" } },
          { name: "bash", arguments: { command: "cat out.txt" } },
        ],
      },
      { text: "Wrote out.txt from src/a.ts" },
    ]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    expect(readFileSync(join(w.project, "out.txt"), "utf8")).toContain("src/b.ts");
    const counts = { before: 2, after: 2, assistant: 2, reasoning: 1 };
    for (const [name, count] of Object.entries(counts)) {
      const envelopes = readLog(w, `${name}.log`);
      expect(envelopes.length).toBe(count);
      for (const envelope of envelopes) expect(envelope.affected_paths).toEqual([]);
    }
    expect(readLog(w, "after.log")[0]).toMatchObject({ phase: "after_tool", request: { command: "cat src/a.ts > out.txt" } });
    expect(JSON.stringify(readLog(w, "after.log")[1]?.result)).toContain("see src/b.ts");
    expect(readLog(w, "reasoning.log")[0]).toMatchObject({ phase: "after_reasoning", request: { text: "I will copy src/a.ts to out.txt" } });
  });
});
