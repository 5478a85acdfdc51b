// item 8, end to end through the CLI (in-process) with real hook scripts: subagent identity
// (`agent_id`/`agent_type` in every dialect inside a child), the task prompt in subagent_start and
// its rewrite by `updatedPrompt`, and hooks declared in an agent file's front matter, active only
// in that subagent and pinned by project trust. Related: LOOP-23, LOOP-25, LIFE-26, LIFE-64, TOOL-42.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { makeWorld, readJsonl, sessionFileOf, sessionIdOfName, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { runScriptInProcess, lastJson, logTo, readLog, group, ofType } from "./support.ts";

type Rec = Record<string, unknown>;

function childId(w: World, name: string): string {
  const dir = join(w.agentHome, "sessions", "subagents");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".jsonl"))) {
    const start = readJsonl(readFileSync(join(dir, file), "utf8"))[0];
    if (start?.agent_name === name) return sessionIdOfName(file);
  }
  throw new Error(`no child ${name}`);
}

const childRecords = (w: World, id: string): Rec[] => readJsonl(readFileSync(sessionFileOf(join(w.agentHome, "sessions", "subagents"), id), "utf8"));

function script(w: World, turns: unknown[], agents: Record<string, unknown[]>): void {
  w.file("script.json", JSON.stringify({ turns, agents: Object.fromEntries(Object.entries(agents).map(([n, t]) => [n, { turns: t }])) }));
}

describe("subagent identity", () => {
  test("LOOP-23 TOOL-42 agent_id/agent_type in claude, action and envelope payloads inside a child; subagent_start gets the prompt and updatedPrompt rewrites it", async () => {
    const w = makeWorld();
    w.file(".agent/agents/reviewer.md", "---\nname: reviewer\n---\nREVIEWER\n");
    const reply = JSON.stringify({ hookSpecificOutput: { hookEventName: "SubagentStart", updatedPrompt: "REWRITTEN PROMPT" } });
    w.file("start.sh", `#!/bin/sh\ncat >> '${join(w.root, "start.log")}'\necho >> '${join(w.root, "start.log")}'\nprintf '%s\\n' '${reply}'\n`, {
      executable: true,
    });
    w.file("list-log.sh", `#!/bin/sh\ncat >> '${join(w.root, "list.log")}'\necho >> '${join(w.root, "list.log")}'\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [{ label: "list-log", command: "./list-log.sh" }],
          lifecycle: {
            pre_tool_use: [group([logTo(w, "claude.log"), { command: logTo(w, "action.log"), protocol: "action" }])],
            subagent_start: [group([join(w.project, "start.sh")])],
            subagent_stop: [group([logTo(w, "stop.log")])],
          },
        },
      }),
    );
    script(
      w,
      [{ tool_calls: [{ id: "t1", name: "task", arguments: { description: "d", prompt: "ORIGINAL PROMPT", subagent_type: "reviewer" } }] }, { text: "end" }],
      {
        reviewer: [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: "echo child" } }] }, { text: "rev done" }],
      },
    );
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const parentId = String(lastJson(r.stdout).session_id);
    const kid = childId(w, "reviewer");
    // The child's transcript has its session file's name (`<start>-<id>.jsonl`).
    const kidTranscript = join(w.agentHome, "sessions", "subagents", "claude", basename(sessionFileOf(join(w.agentHome, "sessions", "subagents"), kid)));

    const [start] = readLog(w, "start.log");
    expect(start).toMatchObject({
      hook_event_name: "SubagentStart",
      agent_id: kid,
      agent_type: "reviewer",
      prompt: "ORIGINAL PROMPT",
      agent_transcript_path: kidTranscript,
      transcript_path: kidTranscript,
    });
    const [stop] = readLog(w, "stop.log");
    expect(stop).toMatchObject({
      hook_event_name: "SubagentStop",
      agent_id: kid,
      agent_type: "reviewer",
      agent_transcript_path: kidTranscript,
      last_assistant_message: "rev done",
    });

    // The child got the rewritten prompt; the task input kept its other keys.
    expect(ofType(childRecords(w, kid), "user").map((u) => u.content)).toEqual(["REWRITTEN PROMPT"]);

    const claude = readLog(w, "claude.log");
    expect(claude.map((p) => [p.tool_name, p.agent_id ?? null, p.agent_type ?? null])).toEqual([
      ["Task", null, null],
      ["Bash", kid, "reviewer"],
    ]);
    expect(claude[0]).not.toHaveProperty("agent_id");
    const action = readLog(w, "action.log");
    expect(action.map((p) => [p.tool, p.agent_id ?? null, p.agent_type ?? null])).toEqual([
      ["task", null, null],
      ["bash", kid, "reviewer"],
    ]);
    const list = readLog(w, "list.log").map((p) => p.context as Rec);
    // The envelope keeps seed 003's context keys: the child's session id, agent_id = its agent name.
    expect(list.map((c) => [c.session_id, c.agent_id, c.subagent])).toEqual([
      [parentId, null, false],
      [kid, "reviewer", true],
    ]);

    // The child's Claude-shaped transcript is a sidechain of the parent's session.
    const entries = readJsonl(readFileSync(kidTranscript, "utf8"));
    expect(entries[0]).toMatchObject({
      type: "user",
      isSidechain: true,
      sessionId: parentId,
      agentId: kid,
      message: { role: "user", content: "REWRITTEN PROMPT" },
    });
    expect(entries.at(-1)).toMatchObject({ type: "assistant", message: { content: [{ type: "text", text: "rev done" }] } });
  });

  test("LIFE-64 a non-string updatedPrompt is a schema failure and the prompt stays", async () => {
    const w = makeWorld();
    const reply = JSON.stringify({ hookSpecificOutput: { updatedPrompt: 7 } });
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { subagent_start: [group([`cat >/dev/null; printf '%s\\n' '${reply}'`])] } } }));
    script(w, [{ tool_calls: [{ id: "t1", name: "task", arguments: { description: "d", prompt: "KEEP ME" } }] }, { text: "end" }], {
      general: [{ text: "ok" }],
    });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("schema: hookSpecificOutput.updatedPrompt");
    expect(ofType(childRecords(w, childId(w, "general")), "user").map((u) => u.content)).toEqual(["KEEP ME"]);
  });
});

const FRONT = (script: string, log: string) => `---
name: reviewer
description: reviews code
hooks:
  PreToolUse:
    - matcher: "Bash"   # only the shell
      hooks:
        - type: command
          command: "${script}"
          timeout: 10
  Stop:
    - hooks:
        - command: 'cat >> ${log}; echo >> ${log}'
---
You review.
`;

describe("agent front-matter hooks", () => {
  function setUp(w: World): void {
    const deny = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "reviewer may not run bash" },
    });
    w.file("scripts/deny.sh", `#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '${deny}'\n`, { executable: true });
    w.file(".agent/agents/reviewer.md", FRONT("$CLAUDE_PROJECT_DIR/scripts/deny.sh", join(w.root, "agent-stop.log")));
    w.file(".agent/agents/tester.md", "---\nname: tester\n---\nYou test.\n");
    script(
      w,
      [
        { tool_calls: [{ id: "p1", name: "bash", arguments: { command: "echo parent" } }] },
        { tool_calls: [{ id: "t1", name: "task", arguments: { description: "d", prompt: "p", subagent_type: "reviewer" } }] },
        { tool_calls: [{ id: "t2", name: "task", arguments: { description: "d", prompt: "p", subagent_type: "tester" } }] },
        { text: "end" },
      ],
      {
        reviewer: [{ tool_calls: [{ id: "r1", name: "bash", arguments: { command: "echo reviewer" } }] }, { text: "rev done" }],
        tester: [{ tool_calls: [{ id: "s1", name: "bash", arguments: { command: "echo tester" } }] }, { text: "test done" }],
      },
    );
  }

  const resultOf = (records: Rec[], id: string): Rec | undefined => ofType(records, "tool_result").find((t) => t.tool_call_id === id);

  test("the hooks run only inside their subagent; Stop becomes that agent's subagent_stop; agent hooks list shows them", async () => {
    const w = makeWorld();
    setUp(w);
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const parent = readJsonl(readFileSync(sessionFileOf(join(w.agentHome, "sessions"), String(lastJson(r.stdout).session_id)), "utf8"));
    expect(resultOf(parent, "p1")).toMatchObject({ success: true });
    const reviewer = childRecords(w, childId(w, "reviewer"));
    expect(resultOf(reviewer, "r1")).toMatchObject({ success: false });
    expect(String(resultOf(reviewer, "r1")?.content)).toContain("reviewer may not run bash");
    expect(resultOf(childRecords(w, childId(w, "tester")), "s1")).toMatchObject({ success: true });
    const stops = readLog(w, "agent-stop.log");
    expect(stops.map((s) => [s.hook_event_name, s.agent_type])).toEqual([["SubagentStop", "reviewer"]]);

    const list = await runCliInProcess(w, ["hooks", "list"]);
    expect(list.stdout).toContain("agents/reviewer.md:PreToolUse[0].hooks[0]");
    expect(list.stdout).toContain("agents/reviewer.md:subagent_stop[0].hooks[0]");
    // Claude's `timeout` (seconds) is accepted; nothing else warns.
    expect((await runCliInProcess(w, ["hooks", "validate"])).code).toBe(0);
  });

  test("SEC-32 project trust pins the agent file and the script its hook runs", async () => {
    const w = makeWorld();
    setUp(w);
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    const args = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "go"];
    expect((await runCliInProcess(w, args)).code).toBe(0);
    w.file("scripts/deny.sh", "#!/bin/sh\nexit 0\n", { executable: true });
    const changed = await runCliInProcess(w, args);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain("agent hooks trust");
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    w.file(".agent/agents/reviewer.md", FRONT("true", "/dev/null"));
    expect((await runCliInProcess(w, args)).code).toBe(1);
  });

  test("bad front matter is one error naming the file and line, and that agent's hooks are not loaded", async () => {
    const w = makeWorld();
    w.file(".agent/agents/bad.md", "---\nhooks:\n  PreToolUse:\n    - matcher: x\n   hooks: []\n---\nbody\n");
    const v = await runCliInProcess(w, ["hooks", "validate"]);
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toContain(".agent/agents/bad.md:5:1: front matter hooks: unexpected indentation");
    expect(existsSync(join(w.project, ".agent", "agents", "bad.md"))).toBe(true);
  });
});
