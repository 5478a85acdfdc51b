// `agent notify` (notification hooks: filter, modify, suppress) and `agent sessions list|show`,
// through the CLI (in-process) in a temp world with real hook processes.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, readJsonl, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";

function lifecycle(world: World, groups: Record<string, unknown>[]): void {
  world.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { notification: groups } } }));
}

async function trust(world: World): Promise<void> {
  expect((await runCliInProcess(world, ["hooks", "trust"])).code).toBe(0);
}

function logged(world: World, name: string): Record<string, unknown>[] {
  const path = join(world.root, name);
  return existsSync(path) ? readJsonl(readFileSync(path, "utf8")) : [];
}

describe("agent notify", () => {
  test("CLI-30 LIFE-19 a custom notification runs only matching groups and prints T: MESSAGE", async () => {
    const w = makeWorld();
    const log = (name: string): string => `cat >> '${join(w.root, name)}'; echo >> '${join(w.root, name)}'`;
    lifecycle(w, [
      { matcher: "custom", hooks: [{ command: log("custom.log") }] },
      { matcher: "idle_prompt", hooks: [{ command: log("idle.log") }] },
    ]);
    await trust(w);
    const r = await runCliInProcess(w, ["notify", "--title", "T", "hello"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("T: hello\n");
    expect(logged(w, "custom.log")).toMatchObject([{ hook_event_name: "Notification", notification_type: "custom", title: "T", message: "hello" }]);
    expect(logged(w, "idle.log")).toHaveLength(0);

    // Without a title only the message is printed.
    expect((await runCliInProcess(w, ["notify", "plain"])).stderr).toBe("plain\n");

    // Inside a notification hook no hook fires (no recursion), and the line is still printed.
    const inside = await runCliInProcess(w, ["notify", "--title", "T", "again"], { env: w.env({ AGENT_HOOK_EVENT: "notification" }) });
    expect(inside.code).toBe(0);
    expect(inside.stderr).toBe("T: again\n");
    expect(logged(w, "custom.log")).toHaveLength(2);
  });

  test("CLI-30 LIFE-63 hooks suppress or rewrite the notification; exit 2 blocks nothing", async () => {
    const w = makeWorld();
    lifecycle(w, [{ hooks: [{ command: `cat >/dev/null; echo '{"suppressOutput":true}'` }] }]);
    await trust(w);
    const suppressed = await runCliInProcess(w, ["notify", "--title", "T", "hello"]);
    expect(suppressed.code).toBe(0);
    expect(suppressed.stderr).toBe("");

    lifecycle(w, [
      {
        hooks: [
          { command: `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"Notification","updatedNotification":{"title":"U","message":"m"}}}'` },
        ],
      },
    ]);
    await trust(w);
    const rewritten = await runCliInProcess(w, ["notify", "--title", "T", "hello"]);
    expect(rewritten.code).toBe(0);
    expect(rewritten.stderr).toBe("U: m\n");

    lifecycle(w, [{ hooks: [{ command: "cat >/dev/null; echo stop >&2; exit 2" }] }]);
    await trust(w);
    const exit2 = await runCliInProcess(w, ["notify", "--title", "T", "hello"]);
    expect(exit2.code).toBe(0);
    expect(exit2.stderr).toContain("T: hello\n");
  });

  test("CLI-30 D17 untrusted project notification hooks: notify exits 1 and runs nothing", async () => {
    const w = makeWorld();
    lifecycle(w, [{ hooks: [{ command: `touch '${join(w.root, "ran")}'` }] }]);
    const r = await runCliInProcess(w, ["notify", "hello"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("agent hooks trust");
    expect(existsSync(join(w.root, "ran"))).toBe(false);
  });
});

describe("agent sessions", () => {
  test("CLI-28 list shows main sessions newest first; show prints the conversation; an unknown id exits 1", async () => {
    const w = makeWorld();
    // The first session runs a child agent (sessions/subagents/<child>.jsonl), which is never listed.
    w.file(
      "script.json",
      JSON.stringify({
        turns: [{ tool_calls: [{ name: "task", arguments: { description: "d", prompt: "p" } }] }, { text: "first reply" }],
        agents: { general: { turns: [{ text: "child done" }] } },
      }),
    );
    const one = await runCliInProcess(w, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--permission-mode",
      "bypass",
      "--output-format",
      "json",
      "first prompt",
    ]);
    expect(one.code).toBe(0);
    const children = readdirSync(join(w.agentHome, "sessions", "subagents")).filter((name) => name.endsWith(".jsonl"));
    expect(children).toHaveLength(1);
    const childId = (children[0] as string).replace(/\.jsonl$/, "");
    writeScript(w, [{ tool_calls: [{ id: "call_9", name: "bash", arguments: { command: "echo shown" } }] }, { text: "second reply" }]);
    w.file(".agent/hooks/audit/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/audit/run.sh", `#!/bin/sh\ncat >/dev/null\necho x >> '${join(w.root, "audit.count")}'\n`, { executable: true });
    await trust(w);
    const two = await runCliInProcess(w, [
      "run",
      "--provider",
      "script",
      "--script",
      "script.json",
      "--permission-mode",
      "bypass",
      "--output-format",
      "json",
      "second prompt",
    ]);
    const idOne = String(JSON.parse(one.stdout.trim()).session_id);
    const idTwo = String(JSON.parse(two.stdout.trim()).session_id);

    const list = await runCliInProcess(w, ["sessions", "list"]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]?.startsWith(`${idTwo}  20`)).toBe(true);
    expect(lines[1]?.startsWith(`${idOne}  20`)).toBe(true);
    expect(list.stdout).not.toContain(childId);

    const show = await runCliInProcess(w, ["sessions", "show", idTwo]);
    expect(show.code).toBe(0);
    const text = show.stdout;
    const order = ["second prompt", "[tool_call call_9] bash", "[result call_9] shown", "second reply"].map((needle) => text.indexOf(needle));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    // Hook rows come from the records; showing never reruns a hook.
    expect(text).toMatch(/\[hook audit\]  pre_tool  success  \d+ms  call call_9/);
    expect(readFileSync(join(w.root, "audit.count"), "utf8").trim().split("\n")).toHaveLength(1);

    const nope = await runCliInProcess(w, ["sessions", "show", "nope"]);
    expect(nope.code).toBe(1);
    expect(nope.stderr).toContain("nope");
  });
});
