// Subagents end to end: the CLI (in-process) with the script provider or a real local OpenAI-format server,
// the `task` tool, child sessions under sessions/subagents/, subagent_start/subagent_stop, inherited
// hooks of every form in the child's cwd, and D13's concurrent task calls.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { bypassRunArgs, makeWorld, readJsonl, sessionFileOf, sessionIdOfName, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { runScriptInProcess, lastJson, logTo, readLog, sessionOf, ofType, group } from "./support.ts";

type Rec = Record<string, unknown>;

function childIds(w: World): string[] {
  const dir = join(w.agentHome, "sessions", "subagents");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .map(sessionIdOfName);
}

function childRecords(w: World, id: string): Rec[] {
  return readJsonl(readFileSync(sessionFileOf(join(w.agentHome, "sessions", "subagents"), id), "utf8"));
}

/** Child sessions by their session_start `agent_name` and `cwd`. */
function children(w: World): { id: string; name: string; cwd: string; records: Rec[] }[] {
  return childIds(w).map((id) => {
    const records = childRecords(w, id);
    const start = records.find((r) => r.type === "session_start") ?? {};
    return { id, name: String(start.agent_name), cwd: String(start.cwd), records };
  });
}

function script(w: World, turns: unknown[], agents: Record<string, unknown[]> = {}): void {
  const entries = Object.entries(agents).map(([name, agentTurns]) => [name, { turns: agentTurns }]);
  w.file("script.json", JSON.stringify({ turns, agents: Object.fromEntries(entries) }));
}

const task = (id: string, args: Rec): Rec => ({ id, name: "task", arguments: { description: "d", prompt: "p", ...args } });
const bash = (id: string | undefined, command: string): Rec => ({ ...(id ? { id } : {}), name: "bash", arguments: { command } });

/** Parsed OpenAI request bodies. */
type Body = { messages: { role: string; content?: string; tool_call_id?: string }[] };
const systemOf = (body: unknown): string => (body as Body).messages.find((m) => m.role === "system")?.content ?? "";
const isChild = (body: unknown, marker: string): boolean => systemOf(body).includes(marker);

describe("subagents", () => {
  test("LOOP-43 the user's agent file wins over the project's, the child runs in its cwd, unknown types error, default general", async () => {
    const w = makeWorld();
    w.file("pkg/keep", "");
    w.file(".agent/agents/reviewer.md", "---\nname: reviewer\n---\nPROJECT REVIEWER BODY\n");
    w.file(join(w.agentHome, "agents/reviewer.md"), "USER REVIEWER BODY\n");
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { subagent_start: [group([logTo(w, "start.log")])] } } }));
    const server = await startFakeOpenAI([
      { toolCalls: [{ id: "t1", name: "task", arguments: { description: "d", prompt: "p", subagent_type: "reviewer", cwd: "pkg" } }] },
      { text: "done" },
      { toolCalls: [{ id: "t2", name: "task", arguments: { description: "d", prompt: "p", subagent_type: "nope" } }] },
      { toolCalls: [{ id: "t3", name: "task", arguments: { description: "d", prompt: "p" } }] },
      { text: "general done" },
      { text: "end" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "go"]);
      expect(r.code).toBe(0);
      expect(lastJson(r.stdout)).toMatchObject({ result: "end", stop_reason: "completed" });
      expect(server.requests.length).toBe(6);
      const reviewerSystem = systemOf(server.requests[1]);
      expect(reviewerSystem).toContain("USER REVIEWER BODY");
      expect(reviewerSystem).not.toContain("PROJECT REVIEWER BODY");
      expect(reviewerSystem).not.toContain("name: reviewer");
      const toolMessage = (index: number, id: string) => (server.requests[index] as Body).messages.find((m) => m.role === "tool" && m.tool_call_id === id);
      expect(toolMessage(2, "t1")?.content).toBe("done");
      expect(toolMessage(3, "t2")?.content).toContain("nope");
      expect(toolMessage(5, "t3")?.content).toBe("general done");
      const kids = children(w);
      expect(kids.map((k) => k.name).sort()).toEqual(["general", "reviewer"]);
      expect(kids.find((k) => k.name === "reviewer")?.cwd).toBe(join(w.project, "pkg"));
      expect(kids.find((k) => k.name === "general")?.cwd).toBe(w.project);
      const starts = readLog(w, "start.log");
      expect(starts.map((s) => s.agent_name)).toEqual(["reviewer", "general"]);
      const parentId = String(lastJson(r.stdout).session_id);
      expect(starts.every((s) => s.parent_session_id === parentId)).toBe(true);
      const parentStart = kids.map((k) => k.records.find((rec) => rec.type === "session_start"));
      expect(parentStart.every((s) => s?.parent_session_id === parentId)).toBe(true);
    } finally {
      await server.close();
    }
  });

  test("LOOP-23 TOOL-29 LOOP-24 TOOL-30 inherited hooks of every form run in the child's cwd; child records stay in the child's file", async () => {
    const w = makeWorld();
    const pkg = join(w.project, "pkg");
    w.file("pkg/x", "keep");
    w.file(".agent/hooks/guard/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(
      ".agent/hooks/guard/run.sh",
      `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> '${w.root}/dir.log'\nprintf '%s %s\\n' "$AGENT_SESSION_ID" "$AGENT_CWD" >> '${w.root}/dir.env'\ncase "$input" in *'"rm '*) echo '{"action":"deny","reason":"no rm here"}'; exit 2 ;; esac\necho '{"action":"allow"}'\n`,
      { executable: true },
    );
    w.file("list.sh", `#!/bin/sh\nf='${w.root}/list-'$$\npwd -P > "$f.pwd"\nprintf '%s' "$AGENT_CWD" > "$f.env"\ncat > "$f.json"\n`, { executable: true });
    w.file("inject.sh", `#!/bin/sh\ncat >/dev/null\necho '{"context_items":[{"role":"user","content":"CHILD-INJECT"}]}'\n`, { executable: true });
    w.file("fail.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n", { executable: true });
    w.file("task.sh", `#!/bin/sh\ncat > '${w.root}/task.json'\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          payload: "full",
          lifecycle: { pre_tool_use: [group([`${logTo(w, "life.log")}; echo "$AGENT_SESSION_ID $AGENT_CWD" >> '${w.root}/life.env'`])] },
          before_tool: [
            { label: "list", command: `${w.project}/list.sh`, include_tools: ["bash"] },
            { label: "task-only", command: `${w.project}/task.sh`, include_tools: ["task"] },
          ],
          after_tool: [
            { label: "inject", command: `${w.project}/inject.sh`, include_tools: ["bash"], provider_context_injection: true },
            { label: "broken", command: `${w.project}/fail.sh`, include_tools: ["bash"] },
          ],
        },
      }),
    );
    const server = await startFakeOpenAI([
      { toolCalls: [{ id: "t1", name: "task", arguments: { description: "d", prompt: "p", cwd: "pkg" } }] },
      {
        toolCalls: [
          { id: "c1", name: "bash", arguments: { command: "rm x" } },
          { id: "c2", name: "bash", arguments: { command: "echo hi" } },
        ],
      },
      { text: "child answer" },
      { text: "all done" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "go"]);
      expect(r.code).toBe(0);
      expect(existsSync(join(pkg, "x"))).toBe(true);
      const parentId = String(lastJson(r.stdout).session_id);
      const [kid] = children(w);
      expect(kid).toBeDefined();
      const childId = kid?.id ?? "";

      // Hook dir: the parent's task call, then the child's two calls (the rm denied in the child too).
      const dirLog = readLog(w, "dir.log");
      expect(dirLog.map((d) => d.tool_use_id)).toEqual(["t1", "c1", "c2"]);
      expect(dirLog[0]).toMatchObject({ tool: "task", session_id: parentId, cwd: w.project });
      expect(dirLog[1]).toMatchObject({ tool: "bash", session_id: childId, cwd: pkg });
      const dirEnv = readFileSync(join(w.root, "dir.env"), "utf8").trim().split("\n");
      expect(dirEnv).toEqual([`${parentId} ${w.project}`, `${childId} ${pkg}`, `${childId} ${pkg}`]);
      // Lifecycle: Task for the parent, the child's allowed call (the dir hook's deny ended c1's chain).
      const life = readLog(w, "life.log");
      expect(life.map((l) => l.tool_name)).toEqual(["Task", "Bash"]);
      expect(life[1]).toMatchObject({ session_id: childId, cwd: pkg, tool_use_id: "c2" });
      expect(readFileSync(join(w.root, "life.env"), "utf8").trim().split("\n")).toEqual([`${parentId} ${w.project}`, `${childId} ${pkg}`]);
      // List hooks: process cwd, AGENT_CWD and context are the child's.
      const lists = readdirSync(w.root).filter((f) => f.startsWith("list-") && f.endsWith(".json"));
      expect(lists.length).toBe(1);
      const base = join(w.root, (lists[0] ?? "").slice(0, -".json".length));
      expect(readFileSync(`${base}.pwd`, "utf8").trim()).toBe(pkg);
      expect(readFileSync(`${base}.env`, "utf8")).toBe(pkg);
      const listPayload = JSON.parse(readFileSync(`${base}.json`, "utf8"));
      expect(listPayload.context).toMatchObject({ cwd: pkg, session_id: childId, subagent: true, invocation_mode: "subagent", agent_id: "general" });
      const taskPayload = JSON.parse(readFileSync(join(w.root, "task.json"), "utf8"));
      expect(taskPayload.tool).toMatchObject({ name: "task", call_id: "t1" });
      expect(taskPayload.context).toMatchObject({ cwd: w.project, session_id: parentId, subagent: false, invocation_mode: "print" });

      // Records: every child hook record in the child's file, none in the parent's.
      const parent = sessionOf(w, parentId);
      const childRecs = kid?.records ?? [];
      const childCalls = new Set(["c1", "c2"]);
      expect(ofType(childRecs, "hook_lifecycle").some((rec) => rec.tool_call_id === "c2")).toBe(true);
      expect(ofType(childRecs, "hook_diagnostic").length).toBeGreaterThan(0);
      expect(ofType(childRecs, "hook_context_injection").length).toBe(1);
      expect(ofType(childRecs, "provider_context_item").map((rec) => rec.content)).toEqual(["CHILD-INJECT"]);
      expect(parent.some((rec) => childCalls.has(String(rec.tool_call_id)))).toBe(false);
      expect(ofType(parent, "hook_diagnostic")).toEqual([]);
      expect(ofType(parent, "hook_context_injection")).toEqual([]);
      expect(ofType(parent, "provider_context_item")).toEqual([]);
      expect(JSON.stringify(parent)).not.toContain("CHILD-INJECT");
      expect(r.stderr).toContain("broken");

      // Provider requests: the child's own request carries its injected item; the parent's never do.
      expect(server.requests.length).toBe(4);
      expect(isChild(server.requests[2], "You are agent")).toBe(true);
      expect(JSON.stringify(server.requests[2])).toContain("CHILD-INJECT");
      for (const index of [0, 3]) {
        const text = JSON.stringify(server.requests[index]);
        expect(text).not.toContain("CHILD-INJECT");
        expect(text).not.toContain("no rm here");
        expect(text).not.toContain("hook_lifecycle");
      }
      const result = (server.requests[3] as Body).messages.find((m) => m.role === "tool" && m.tool_call_id === "t1");
      expect(result?.content).toBe("child answer");
    } finally {
      await server.close();
    }
  });

  test("LOOP-25 LIFE-18 LIFE-26 LIFE-64 subagent_start matches the agent name, carries the child's fields, and a block spawns no child", async () => {
    const w = makeWorld();
    for (const name of ["reviewer", "tester", "blocked"]) w.file(`.agent/agents/${name}.md`, `You are ${name}.\n`);
    w.file("block.sh", "#!/bin/sh\ncat >/dev/null\necho 'no children' >&2\nexit 2\n", { executable: true });
    w.file(".agent/hooks/pre/hook.json", JSON.stringify({ event: "pre_tool", match: "task", run: "./run.sh" }));
    w.file(".agent/hooks/pre/run.sh", `#!/bin/sh\ncat >> '${w.root}/dirpre.log'\necho >> '${w.root}/dirpre.log'\necho '{"action":"allow"}'\n`, {
      executable: true,
    });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          lifecycle: {
            pre_tool_use: [group([logTo(w, "lifepre.log")], "Task")],
            subagent_start: [group([logTo(w, "start.log")], "reviewer"), group([`${w.project}/block.sh`], "blocked")],
            subagent_stop: [group([logTo(w, "stop.log")], "reviewer")],
          },
        },
      }),
    );
    script(
      w,
      [
        { tool_calls: [task("t1", { subagent_type: "tester", description: "test it" })] },
        { tool_calls: [task("t2", { subagent_type: "reviewer", description: "review it" })] },
        { tool_calls: [task("t3", { subagent_type: "blocked" })] },
        { text: "end" },
      ],
      { tester: [{ text: "tests ok" }], reviewer: [{ text: "rev done" }] },
    );
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const parentId = String(lastJson(r.stdout).session_id);
    const kids = children(w);
    expect(kids.map((k) => k.name).sort()).toEqual(["reviewer", "tester"]);
    const reviewer = kids.find((k) => k.name === "reviewer");
    // The claude dialect names the child's Claude-shaped transcript, beside its session file under the same name.
    const childFile = sessionFileOf(join(w.agentHome, "sessions", "subagents"), String(reviewer?.id));
    const transcript = join(w.agentHome, "sessions", "subagents", "claude", basename(childFile));

    const starts = readLog(w, "start.log");
    expect(starts.length).toBe(1);
    expect(starts[0]).toMatchObject({
      hook_event_name: "SubagentStart",
      session_id: parentId,
      parent_session_id: parentId,
      child_session_id: reviewer?.id,
      child_thread_id: reviewer?.id,
      agent_name: "reviewer",
      display_label: "review it",
      background: false,
      transcript_path: transcript,
    });
    expect(typeof starts[0]?.status).toBe("string");
    const stops = readLog(w, "stop.log");
    expect(stops.length).toBe(1);
    expect(stops[0]).toMatchObject({
      hook_event_name: "SubagentStop",
      agent_name: "reviewer",
      child_session_id: reviewer?.id,
      transcript_path: transcript,
      last_assistant_message: "rev done",
    });

    const parent = sessionOf(w, parentId);
    const delivered = ofType(parent, "tool_result_delivered");
    expect(delivered.map((d) => d.content)).toEqual(["tests ok", "rev done", "subagent blocked by hook: no children"]);
    expect(ofType(parent, "tool_result").find((rec) => rec.tool_call_id === "t3")?.success).toBe(false);
    // The parent's own pre_tool hooks see the task call in their dialect's spelling.
    expect(readLog(w, "dirpre.log").map((d) => d.tool)).toEqual(["task", "task", "task"]);
    expect(readLog(w, "lifepre.log").map((d) => d.tool_name)).toEqual(["Task", "Task", "Task"]);
  });

  test("LIFE-64 subagent_start updatedInput replaces the task input and additionalContext reaches the child's first request", async () => {
    const w = makeWorld();
    w.file("pkg/keep", "");
    const reply = {
      hookSpecificOutput: {
        hookEventName: "SubagentStart",
        updatedInput: { description: "d2", prompt: "NEW PROMPT", cwd: "pkg" },
        additionalContext: "START CTX",
      },
    };
    w.file("start.sh", `#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '${JSON.stringify(reply)}'\n`, { executable: true });
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { subagent_start: [group([`${w.project}/start.sh`])] } } }));
    script(w, [{ tool_calls: [task("t1", { prompt: "old prompt" })] }, { text: "end" }], { general: [{ text: "ok" }] });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const [kid] = children(w);
    expect(kid?.cwd).toBe(join(w.project, "pkg"));
    const recs = kid?.records ?? [];
    const types = recs.map((rec) => rec.type);
    expect(ofType(recs, "user").map((rec) => rec.content)).toEqual(["NEW PROMPT"]);
    expect(ofType(recs, "provider_context_item").map((rec) => rec.content)).toEqual(["<hook_context>\nSTART CTX\n</hook_context>"]);
    expect(types.indexOf("provider_context_item")).toBeLessThan(types.indexOf("user"));
    // The context is the child's: the parent's task result is only the child's answer.
    const parent = sessionOf(w, String(lastJson(r.stdout).session_id));
    expect(ofType(parent, "tool_result_delivered")[0]?.content).toBe("ok");
  });

  test("LIFE-65 LOOP-25 subagent_stop: a block sends the child back, additionalContext joins the task result", async () => {
    const w = makeWorld();
    const block = { decision: "block", reason: "add tests" };
    const ctx = { hookSpecificOutput: { hookEventName: "SubagentStop", additionalContext: "checked" } };
    w.file(
      "stop.sh",
      `#!/bin/sh\ncat >> '${w.root}/stop.log'\necho >> '${w.root}/stop.log'\nif [ ! -e '${w.root}/blocked-once' ]; then touch '${w.root}/blocked-once'; printf '%s\\n' '${JSON.stringify(block)}'; else printf '%s\\n' '${JSON.stringify(ctx)}'; fi\n`,
      { executable: true },
    );
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { subagent_stop: [group([`${w.project}/stop.sh`])] } } }));
    script(w, [{ tool_calls: [task("t1", {})] }, { text: "end" }], { general: [{ text: "first" }, { text: "second" }] });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const [kid] = children(w);
    const recs = kid?.records ?? [];
    expect(ofType(recs, "user").map((rec) => rec.content)).toEqual(["p", "add tests"]);
    expect(ofType(recs, "assistant").map((rec) => rec.content)).toEqual(["first", "second"]);
    const stops = readLog(w, "stop.log");
    expect(stops.map((s) => [s.last_assistant_message, s.stop_hook_active])).toEqual([
      ["first", false],
      ["second", true],
    ]);
    const parent = sessionOf(w, String(lastJson(r.stdout).session_id));
    expect(ofType(parent, "tool_result_delivered")[0]).toMatchObject({ content: "second\n\n<hook_context>\nchecked\n</hook_context>", output: "second" });
    // subagent_stop is a parent-side event: its hook records are in the parent's file.
    expect(ofType(parent, "hook_lifecycle").some((rec) => rec.phase === "subagent_stop")).toBe(true);
    expect(ofType(recs, "hook_lifecycle")).toEqual([]);
  });

  test("LIFE-65 D11 an always-blocking subagent_stop is capped: the child stops and the parent goes on", async () => {
    const w = makeWorld();
    w.file(
      ".agent/config.toml",
      `[hooks]\nstop_block_cap = 2\n\n[[hooks.lifecycle.subagent_stop]]\nhooks = [{ command = "cat >/dev/null; echo '{\\"decision\\":\\"block\\",\\"reason\\":\\"again\\"}'" }]\n`,
    );
    script(w, [{ tool_calls: [task("t1", {})] }, { text: "end" }], { general: [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }] });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({ result: "end", stop_reason: "completed" });
    const [kid] = children(w);
    const recs = kid?.records ?? [];
    expect(ofType(recs, "user").map((rec) => rec.content)).toEqual(["p", "again", "again"]);
    expect(ofType(recs, "session_end")[0]).toMatchObject({ stop_reason: "stop_block_cap" });
    const parent = sessionOf(w, String(lastJson(r.stdout).session_id));
    expect(ofType(parent, "tool_result_delivered")[0]?.content).toBe("c");
  });
});

describe("concurrent subagents", () => {
  test("MERGE-35 D13 consecutive task calls run together between sequential calls; results reach the provider in call order", async () => {
    const w = makeWorld();
    const log = join(w.root, "order.log");
    const step = (label: string): string => `echo start-${label} >> '${log}'; sleep 1; echo end-${label} >> '${log}'`;
    w.file(".agent/agents/a.md", "AGENT A\n");
    const server = await startFakeOpenAI([
      {
        toolCalls: [
          { id: "c1", name: "bash", arguments: { command: step("c1") } },
          { id: "c2", name: "task", arguments: { description: "d", prompt: "p", subagent_type: "a" } },
          { id: "c3", name: "task", arguments: { description: "d", prompt: "p", subagent_type: "a" } },
          { id: "c4", name: "bash", arguments: { command: step("c4") } },
        ],
      },
      // The two children's first requests (either order) each run one sleeping command.
      { toolCalls: [{ id: "k1", name: "bash", arguments: { command: step("child") } }] },
      { toolCalls: [{ id: "k2", name: "bash", arguments: { command: step("child") } }] },
      { text: "child done" },
      { text: "child done" },
      { text: "end" },
    ]);
    try {
      const r = await runCliInProcess(w, [...bypassRunArgs(server.url), "go"]);
      expect(r.code).toBe(0);
      const lines = readFileSync(log, "utf8").trim().split("\n");
      expect(lines).toEqual(["start-c1", "end-c1", "start-child", "start-child", "end-child", "end-child", "start-c4", "end-c4"]);
      expect(server.requests.length).toBe(6);
      const last = server.requests[5] as Body;
      expect(last.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["c1", "c2", "c3", "c4"]);
      expect(last.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["", "child done", "child done", ""]);
    } finally {
      await server.close();
    }
  });

  test("MERGE-35 D13 six consecutive task calls run at most 4 at once", async () => {
    const w = makeWorld();
    const log = join(w.root, "six.log");
    script(w, [{ tool_calls: Array.from({ length: 6 }, (_, i) => task(`t${i + 1}`, {})) }, { text: "end" }], {
      general: [{ tool_calls: [bash(undefined, `echo start >> '${log}'; sleep 1; echo end >> '${log}'`)] }, { text: "ok" }],
    });
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines.length).toBe(12);
    let running = 0;
    let peak = 0;
    for (const line of lines) {
      running += line === "start" ? 1 : -1;
      peak = Math.max(peak, running);
    }
    expect(peak).toBeLessThanOrEqual(4);
    expect(peak).toBeGreaterThan(1);
    const parent = sessionOf(w, String(lastJson(r.stdout).session_id));
    expect(ofType(parent, "tool_result_delivered").map((d) => d.content)).toEqual(Array(6).fill("ok"));
    expect(children(w).length).toBe(6);
  });

  test("PLUS-06 RUN-51 a project guard denies rm in the parent and five subagents; concurrent children's hooks run in their own cwd", async () => {
    const w = makeWorld();
    for (const dir of ["", "a/", "b/"]) w.file(`${dir}x`, "keep");
    w.file(".agent/hooks/guard/hook.json", JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
    w.file(
      ".agent/hooks/guard/run.sh",
      `#!/bin/sh\ncase "$(cat)" in *'"rm '*) echo '{"action":"deny","reason":"rm denied"}'; exit 2 ;; esac\necho '{"action":"allow"}'\n`,
      { executable: true },
    );
    w.file("list.sh", `#!/bin/sh\nf='${w.root}/run51-'$$\npwd -P > "$f.pwd"\nprintf '%s' "$AGENT_CWD" > "$f.env"\ncat > "$f.json"\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: { enabled: true, payload: "full", before_tool: [{ label: "where", command: `${w.project}/list.sh`, include_tools: ["bash"] }] },
      }),
    );
    for (const name of ["ga", "gb"]) w.file(`.agent/agents/${name}.md`, `agent ${name}\n`);
    const child = [{ tool_calls: [bash(undefined, "rm x"), bash(undefined, "sleep 1; pwd")] }, { text: "ok" }];
    script(
      w,
      [
        { tool_calls: [task("t1", { subagent_type: "ga", cwd: "a" }), task("t2", { subagent_type: "gb", cwd: "b" })] },
        { tool_calls: [task("t3", { subagent_type: "ga", cwd: "a" }), task("t4", { subagent_type: "gb", cwd: "b" })] },
        { tool_calls: [task("t5", {}), bash("p1", "rm x")] },
        { text: "end" },
      ],
      { ga: child, gb: child, general: child },
    );
    const r = await runScriptInProcess(w, "bypass");
    expect(r.code).toBe(0);
    for (const dir of ["", "a", "b"]) expect(existsSync(join(w.project, dir, "x"))).toBe(true);
    const parent = sessionOf(w, String(lastJson(r.stdout).session_id));
    expect(ofType(parent, "tool_result_delivered").find((d) => d.tool_call_id === "p1")?.content).toBe("rm denied");
    const kids = children(w);
    expect(kids.length).toBe(5);
    for (const kid of kids) {
      const delivered = ofType(kid.records, "tool_result_delivered");
      expect(delivered[0]?.content).toBe("rm denied");
      const own = new Set(ofType(kid.records, "tool_call").map((rec) => rec.tool_call_id));
      const hookRecs = ofType(kid.records, "hook_lifecycle");
      expect(hookRecs.length).toBeGreaterThan(0);
      expect(hookRecs.every((rec) => own.has(rec.tool_call_id))).toBe(true);
    }
    expect(ofType(parent, "hook_lifecycle").every((rec) => ["t1", "t2", "t3", "t4", "t5", "p1"].includes(String(rec.tool_call_id)))).toBe(true);

    // RUN-51: each list hook run (one per child `pwd` call) saw its own child's cwd and session.
    const cwdOf = new Map(kids.map((k) => [k.id, k.cwd]));
    const runs = readdirSync(w.root).filter((f) => f.startsWith("run51-") && f.endsWith(".json"));
    expect(runs.length).toBe(5);
    for (const file of runs) {
      const base = join(w.root, file.slice(0, -".json".length));
      const payload = JSON.parse(readFileSync(`${base}.json`, "utf8"));
      const cwd = readFileSync(`${base}.pwd`, "utf8").trim();
      expect(readFileSync(`${base}.env`, "utf8")).toBe(cwd);
      expect(payload.context.cwd).toBe(cwd);
      expect(payload.context.subagent).toBe(true);
      expect(cwdOf.get(payload.context.session_id)).toBe(cwd);
    }
  });
});
