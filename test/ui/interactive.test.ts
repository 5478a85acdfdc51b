/**
 * The interactive session (`agent` with no command) driven as a real child process: AGENT_INTERACTIVE=1,
 * lines written to a piped stdin, the script provider, and real hook scripts that log their stdin.
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, REPO, writeScript, type World } from "../support/cli.ts";

const MAIN = join(REPO, "src", "main.ts");

interface Live {
  write(line: string): void;
  /** Closes stdin (Ctrl-D). */
  end(): void;
  stderr(): string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function start(w: World, args: string[] = ["--script", "script.json"], env: Record<string, string> = {}): Live {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: w.project, env: w.env({ AGENT_INTERACTIVE: "1", ...env }) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { write: (line) => child.stdin.write(`${line}\n`), end: () => child.stdin.end(), stderr: () => stderr, done };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A user-scope settings file whose lifecycle hooks append their stdin to log.jsonl. */
function userHooks(w: World, lifecycle: Record<string, { matcher?: string }[]>, extra: Record<string, unknown> = {}): string {
  const log = join(w.root, "log.jsonl");
  const command = `cat >> ${log}; echo >> ${log}`;
  const groups = Object.fromEntries(Object.entries(lifecycle).map(([event, list]) => [event, list.map((g) => ({ ...g, hooks: [{ command }] }))]));
  w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, lifecycle: groups, ...extra } }));
  return log;
}

function logged(log: string): Record<string, unknown>[] {
  return existsSync(log) ? readJsonl(readFileSync(log, "utf8")) : [];
}

function sessionRecords(w: World): Record<string, unknown>[][] {
  const dir = join(w.agentHome, "sessions");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => readJsonl(readFileSync(join(dir, name), "utf8")));
}

describe("interactive session", () => {
  test("LIFE-70 quitting fires session_end reason exit once; several prompts share one session; /help", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "first reply" }, { text: "second reply" }]);
    const log = userHooks(w, { session_end: [{ matcher: "completed" }, { matcher: "exit" }] });
    const s = start(w);
    s.write("one");
    s.write("/help");
    s.write("two");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("first reply");
    expect(r.stdout).toContain("second reply");
    expect(r.stderr).toContain("/compact");
    const ends = logged(log);
    expect(ends.length).toBe(1);
    expect(ends[0]?.reason).toBe("exit");
    const [records] = sessionRecords(w);
    expect(records?.filter((x) => x.type === "user").map((x) => x.content)).toEqual(["one", "two"]);
    expect(records?.at(-1)).toMatchObject({ type: "session_end", reason: "exit" });
  });

  test("LIFE-70 end of input (Ctrl-D) also exits with reason exit", async () => {
    const w = makeWorld();
    writeScript(w, []);
    const log = userHooks(w, { session_end: [{ matcher: "exit" }] });
    const s = start(w);
    const child = s.done;
    s.write("hi");
    // Closing stdin is end of input.
    await waitFor(() => s.stderr().split("> ").length > 2, "the second prompt");
    s.end();
    const r = await child;
    expect(r.code).toBe(0);
    expect(logged(log).map((x) => x.reason)).toEqual(["exit"]);
  });

  test("LIFE-69 /clear: session_end reason clear, then only the clear session_start group with source clear", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "a" }]);
    const log = userHooks(w, {
      session_start: [{ matcher: "startup" }, { matcher: "clear" }],
      session_end: [{ matcher: "clear" }],
    });
    const s = start(w);
    s.write("hello");
    s.write("/clear");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    const events = logged(log).map((x) => `${x.hook_event_name}:${x.source ?? x.reason}`);
    expect(events).toEqual(["SessionStart:startup", "SessionEnd:clear", "SessionStart:clear"]);
    const sessions = sessionRecords(w);
    expect(sessions.length).toBe(2);
    const sources = sessions.map((records) => records[0]?.source).sort();
    expect(sources).toEqual(["clear", "startup"]);
  });

  test("LIFE-71 /compact keep tests runs only the manual pre_compact group with custom_instructions", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "a reply" }]);
    const log = userHooks(w, { pre_compact: [{ matcher: "auto" }, { matcher: "manual" }] });
    const s = start(w);
    s.write("hello");
    s.write("/compact keep tests");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    const runs = logged(log);
    expect(runs.length).toBe(1);
    expect(runs[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "manual", custom_instructions: "keep tests" });
    const [records] = sessionRecords(w);
    expect(records?.some((x) => x.type === "compaction" && x.trigger === "manual")).toBe(true);
  });

  test("LOOP-38 LIFE-71 a permission prompt fires only the permission_prompt notification group; y runs the tool once", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo one > one.txt" } }] }, { text: "ok" }]);
    const log = userHooks(w, { notification: [{ matcher: "permission_prompt" }, { matcher: "idle_prompt" }] });
    const s = start(w);
    s.write("make a file");
    // A question takes only input that arrives after it is shown.
    await waitFor(() => s.stderr().includes("allow bash:"), "the question");
    s.write("y");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    const runs = logged(log);
    expect(runs.length).toBe(1);
    expect(runs[0]).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt" });
    expect(String(runs[0]?.title)).not.toBe("");
    expect(String(runs[0]?.message)).toContain("echo one > one.txt");
    expect(r.stderr).toContain("allow bash: echo one > one.txt?");
    expect(existsSync(join(w.project, "one.txt"))).toBe(true);
  });

  test("LOOP-38 a adds the first suggestion as a session rule (no second prompt); n denies", async () => {
    const w = makeWorld();
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "mkdir -p a && touch a/1" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "mkdir -p a && touch a/1" } }] },
      // Not covered by the prefix rules `a` added (mkdir:*, touch:*): asked again.
      { tool_calls: [{ name: "bash", arguments: { command: "cp a/1 b.txt" } }] },
      { text: "done" },
    ]);
    const s = start(w);
    s.write("go");
    await waitFor(() => s.stderr().split("allow bash:").length === 2, "the first question");
    s.write("a");
    await waitFor(() => s.stderr().split("allow bash:").length === 3, "the second question");
    s.write("n");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stderr.split("allow bash:").length - 1).toBe(2);
    expect(existsSync(join(w.project, "a/1"))).toBe(true);
    expect(existsSync(join(w.project, "b.txt"))).toBe(false);
    expect(r.stderr).toContain("rejected");
  });

  test("p keeps the command prefix in the project's settings; the next call of it is not asked", async () => {
    const w = makeWorld();
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "touch one" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "touch two" } }] },
      { text: "done" },
    ]);
    const s = start(w);
    s.write("go");
    await waitFor(() => s.stderr().split("allow bash:").length === 2, "the question");
    s.write("p");
    await waitFor(() => s.stderr().includes("touch two"), "the second call");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stderr.split("allow bash:").length - 1).toBe(1);
    expect(existsSync(join(w.project, "two"))).toBe(true);
    expect(JSON.parse(readFileSync(join(w.project, ".agent/settings.json"), "utf8")).permissions.allow).toEqual(["bash(touch:*)"]);
  });

  test("u keeps the command prefix in your own settings; the next call of it is not asked", async () => {
    const w = makeWorld();
    writeScript(w, [
      { tool_calls: [{ name: "bash", arguments: { command: "touch one" } }] },
      { tool_calls: [{ name: "bash", arguments: { command: "touch two" } }] },
      { text: "done" },
    ]);
    const s = start(w);
    s.write("go");
    await waitFor(() => s.stderr().split("allow bash:").length === 2, "the question");
    s.write("u");
    await waitFor(() => s.stderr().includes("touch two"), "the second call");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stderr.split("allow bash:").length - 1).toBe(1);
    expect(JSON.parse(readFileSync(join(w.agentHome, "settings.json"), "utf8")).permissions.allow).toEqual(["bash(touch:*)"]);
    expect(existsSync(join(w.project, ".agent/settings.json"))).toBe(false);
  });

  test("LIFE-71 idle_prompt notification after the (injectable) idle delay without input", async () => {
    const w = makeWorld();
    writeScript(w, []);
    const log = userHooks(w, { notification: [{ matcher: "permission_prompt" }, { matcher: "idle_prompt" }] });
    const s = start(w, ["--script", "script.json"], { AGENT_IDLE_PROMPT_MS: "300" });
    await waitFor(() => logged(log).length > 0, "the idle_prompt hook");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(logged(log)[0]).toMatchObject({ hook_event_name: "Notification", notification_type: "idle_prompt" });
  });

  test("RUN-39 a hook reading /dev/tty fails at once and consumes no input meant for the agent", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "answered" }]);
    w.file(
      join(w.agentHome, "settings.json"),
      JSON.stringify({ hooks: { lifecycle: { user_prompt_submit: [{ hooks: [{ command: "read x < /dev/tty || exit 1; echo got $x" }] }] } } }),
    );
    const s = start(w);
    s.write("hello");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("answered");
    const [records] = sessionRecords(w);
    const hook = records?.find((x) => x.type === "hook_lifecycle" && x.status === "failed");
    expect(hook).toMatchObject({ phase: "user_prompt_submit", category: "exit" });
    expect(records?.filter((x) => x.type === "user").map((x) => x.content)).toEqual(["hello"]);
    expect(records?.at(-1)).toMatchObject({ type: "session_end", reason: "exit" });
  });
});

describe("interactive trust and /hooks", () => {
  function untrustedProject(w: World): string {
    const canary = join(w.root, "canary");
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { session_start: [{ hooks: [{ command: "./start.sh" }] }] } } }));
    w.file("start.sh", `#!/bin/sh\ncat > /dev/null\ntouch ${canary}\n`, { executable: true });
    return canary;
  }

  test("SEC-41 untrusted project: the D17 listing and a question; no exits 1 and nothing ran", async () => {
    const w = makeWorld();
    writeScript(w, []);
    const canary = untrustedProject(w);
    const s = start(w);
    await waitFor(() => s.stderr().includes("trust this project"), "the trust question");
    s.write("n");
    const r = await s.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not trusted yet");
    expect(r.stderr).toContain("./start.sh");
    expect(r.stderr).toContain("trust this project");
    expect(existsSync(canary)).toBe(false);
    expect(existsSync(join(w.agentHome, "trust.json"))).toBe(false);
  });

  test("SEC-41 yes pins trust and starts with every hook", async () => {
    const w = makeWorld();
    writeScript(w, []);
    const canary = untrustedProject(w);
    const s = start(w);
    await waitFor(() => s.stderr().includes("trust this project"), "the trust question");
    s.write("y");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(existsSync(canary)).toBe(true);
    expect(readFileSync(join(w.agentHome, "trust.json"), "utf8")).toContain(w.project);
  });

  test("DIR-13 no file watching: a new hook applies only after /hooks reload; /hooks lists hooks and warnings", async () => {
    const w = makeWorld();
    writeScript(w, [
      { tool_calls: [{ name: "read", arguments: { file_path: "x.txt" } }] },
      { text: "one" },
      { tool_calls: [{ name: "read", arguments: { file_path: "x.txt" } }] },
      { text: "two" },
      { tool_calls: [{ name: "read", arguments: { file_path: "x.txt" } }] },
      { text: "three" },
    ]);
    w.file("x.txt", "x\n");
    const log = join(w.root, "log.jsonl");
    const settings = (events: string[]): void => {
      const lifecycle = Object.fromEntries(events.map((event) => [event, [{ hooks: [{ command: `cat >> ${log}; echo >> ${log}` }] }]]));
      writeFileSync(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { lifecycle, bogus_key: 1 } }));
    };
    w.file(join(w.agentHome, "settings.json"), "{}");
    settings(["session_start"]);
    const s = start(w);
    s.write("first");
    await waitFor(() => s.stderr().split("> ").length > 2, "the first turn");
    settings(["session_start", "pre_tool_use"]);
    s.write("/hooks");
    s.write("second");
    await waitFor(() => s.stderr().split("> ").length > 4, "the second turn");
    expect(logged(log).filter((x) => x.hook_event_name === "PreToolUse").length).toBe(0);
    s.write("/hooks reload");
    s.write("/hooks");
    s.write("third");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("1 hooks loaded:");
    expect(r.stderr).toContain("2 hooks loaded:");
    expect(r.stderr).toContain("load warnings:");
    expect(r.stderr).toContain("hooks reloaded");
    expect(logged(log).filter((x) => x.hook_event_name === "PreToolUse").length).toBe(1);
  });

  // The previous hooks stay loaded, but the changed
  // run.sh is not run (it is no longer the trusted script); its hook fails closed and the session stops.
  test("DIR-14 reload after the trusted run.sh changed: the D17 review asks in place; no keeps the previous hooks, the changed script never runs", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "a" }, { text: "b" }]);
    const log = join(w.root, "dir-log");
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { user_prompt_submit: [{ hooks: [{ command: "./run.sh" }] }] } } }));
    w.file("run.sh", `#!/bin/sh\ncat > /dev/null\necho v1 >> ${log}\n`, { executable: true });
    const s = start(w);
    await waitFor(() => s.stderr().includes("trust this project"), "the trust question");
    s.write("y");
    s.write("one");
    await waitFor(() => existsSync(log), "the first hook run");
    w.file("run.sh", `#!/bin/sh\ncat > /dev/null\necho v2 >> ${log}\n`, { executable: true });
    s.write("/hooks reload");
    // The review is offered in place; no keeps the previous hooks.
    await waitFor(() => s.stderr().includes("trust this project and run these hooks?"), "the trust review");
    s.write("n");
    s.write("two");
    s.write("/exit");
    const r = await s.done;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("changed since it was trusted");
    expect(r.stderr).toContain("agent hooks trust");
    expect(r.stderr).toContain("previous hooks stay");
    // The loaded set stays, but the next prompt's hook finds its script changed: it does not run.
    expect(r.stderr).toContain(`changed: ${join(w.project, "run.sh")}`);
    expect(r.stderr).toContain("the hook did not run");
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["v1"]);
  });
});
