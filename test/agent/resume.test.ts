// Resume (`agent run --resume ID` / `--continue`): the conversation is rebuilt from the session file
// and checked on the wire of a real local fake OpenAI server; local-only hook records never reach
// the provider and no earlier hook re-runs (D7, D25, LOOP-19, LOOP-28, TOOL-61).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bypassRunArgs, makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { group, lastJson, ofType, recordsOf, runScriptInProcess, sessionOf } from "./support.ts";

type Body = { messages: { role: string; content: string | null; tool_calls?: { id: string }[]; tool_call_id?: string }[] };

function settings(world: World, value: Record<string, unknown>): void {
  world.file(".agent/settings.json", JSON.stringify(value));
}

function marks(world: World, file: string): string[] {
  const path = join(world.root, file);
  return existsSync(path)
    ? readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .filter((l) => l !== "")
    : [];
}

/** Hooks of every kind that leave provider-visible and local-only traces, each counting its runs. */
function richSession(w: World): void {
  w.file(
    "inject.sh",
    `#!/bin/sh\ncat >/dev/null\necho x >> "${w.root}/inject.count"\necho '{"context_items":[{"role":"user","content":"injected memory"}]}'\n`,
    { executable: true },
  );
  w.file("broken.sh", `#!/bin/sh\ncat >/dev/null\necho x >> "${w.root}/broken.count"\necho 'diag-7f3a output' >&2\nexit 1\n`, { executable: true });
  w.file("start.sh", `#!/bin/sh\ninput=$(cat)\ncase "$input" in *'"source":"resume"'*) echo 'ctx resume' ;; *) echo 'ctx startup' ;; esac\n`, {
    executable: true,
  });
  settings(w, {
    hooks: {
      enabled: true,
      before_tool: [{ label: "diag-7f3a", command: "./broken.sh", failure_policy: "warn" }],
      after_tool: [{ label: "lbl-9c1e", command: "./inject.sh", provider_context_injection: true }],
      lifecycle: {
        session_start: [group(["./start.sh"])],
        post_tool_use: [
          group([
            `cat >/dev/null; echo x >> '${join(w.root, "post.count")}'; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx note"}}'`,
          ]),
        ],
      },
    },
  });
}

describe("resume", () => {
  test("LOOP-28 TOOL-61 LOOP-19 a resumed request replays what the provider saw, and nothing local-only", async () => {
    const w = makeWorld();
    richSession(w);
    const server = await startFakeOpenAI([
      { text: "", toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo hi" } }] },
      { text: "first done" },
      { text: "second" },
    ]);
    try {
      const first = await runCliInProcess(w, [...bypassRunArgs(server.url), "go"]);
      expect(first.code).toBe(0);
      const id = String(lastJson(first.stdout).session_id);
      const local = JSON.stringify(sessionOf(w, id));
      expect(local).toContain("lbl-9c1e");
      expect(local).toContain("diag-7f3a");

      const resumed = await runCliInProcess(w, [...bypassRunArgs(server.url), "--resume", id, "next"]);
      expect(resumed.code).toBe(0);
      expect(lastJson(resumed.stdout)).toMatchObject({ session_id: id, result: "second" });
      expect(server.requests).toHaveLength(3);
      const live = server.requests[1] as Body;
      const again = server.requests[2] as Body;
      // The replayed conversation is exactly what the provider last saw, then the new turn.
      expect(again.messages.slice(0, live.messages.length)).toEqual(live.messages);
      const rest = again.messages.slice(live.messages.length).map((m) => [m.role, m.content]);
      expect(rest).toEqual([
        ["assistant", "first done"],
        ["user", "<hook_context>\nctx resume\n</hook_context>"],
        ["user", "next"],
      ]);
      const wire = again.messages.map((m) => [m.role, m.content]);
      expect(wire).toContainEqual(["tool", "hi\n\n\n<hook_context>\nctx note\n</hook_context>"]);
      expect(wire).toContainEqual(["user", "injected memory"]);
      expect(wire[1]).toEqual(["user", "<hook_context>\nctx startup\n</hook_context>"]);
      const text = JSON.stringify(again);
      for (const local of ["lbl-9c1e", "diag-7f3a", "hook_lifecycle", "hook_diagnostic", "hook_context_injection"]) expect(text).not.toContain(local);
      // No hook of the earlier turn re-ran.
      expect(marks(w, "inject.count")).toHaveLength(1);
      expect(marks(w, "broken.count")).toHaveLength(1);
      expect(marks(w, "post.count")).toHaveLength(1);
      // One file, appended to: a second session_start record with source resume.
      const starts = ofType(sessionOf(w, id), "session_start").map((rec) => rec.source);
      expect(starts).toEqual(["startup", "resume"]);
    } finally {
      await server.close();
    }
  });

  test("LIFE-16 LOOP-19 --resume and --continue run only resume session_start groups", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "one" }]);
    const mark = (m: string): string => `cat >/dev/null; echo '${m}' >> '${join(w.root, "starts")}'`;
    settings(w, { hooks: { lifecycle: { session_start: ["startup", "resume", "clear", "compact", "startup|resume"].map((m) => group([mark(m)], m)) } } });
    const first = await runScriptInProcess(w, "bypass");
    expect(first.code).toBe(0);
    // The matching commands of one event run together (D13): compare each run's marks as a set.
    expect(marks(w, "starts").sort()).toEqual(["startup", "startup|resume"]);
    const id = String(lastJson(first.stdout).session_id);
    writeScript(w, [{ text: "two" }]);
    const resumed = await runScriptInProcess(w, "bypass", ["--resume", id], "again");
    expect(resumed.code).toBe(0);
    expect(marks(w, "starts").slice(2).sort()).toEqual(["resume", "startup|resume"]);
    const continued = await runScriptInProcess(w, "bypass", ["--continue"], "more");
    expect(continued.code).toBe(0);
    expect(lastJson(continued.stdout).session_id).toBe(id);
    expect(marks(w, "starts").slice(4).sort()).toEqual(["resume", "startup|resume"]);
    expect(ofType(sessionOf(w, id), "user").map((rec) => rec.content)).toEqual(["go", "again", "more"]);
  });

  test("LOOP-19 on resume the saved session_start item replays in place and the new context follows the conversation", async () => {
    const w = makeWorld();
    settings(w, { hooks: { lifecycle: { session_start: [group(["cat >/dev/null; echo 'repo: acme'"])] } } });
    const server = await startFakeOpenAI([{ text: "a" }, { text: "b" }]);
    try {
      const first = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--trust", "--output-format", "json", "hello"]);
      const id = String(lastJson(first.stdout).session_id);
      const second = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--trust", "--continue", "again"]);
      expect(second.code).toBe(0);
      const wire = (server.requests[1] as Body).messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content]);
      expect(wire).toEqual([
        ["user", "<hook_context>\nrepo: acme\n</hook_context>"],
        ["user", "hello"],
        ["assistant", "a"],
        ["user", "<hook_context>\nrepo: acme\n</hook_context>"],
        ["user", "again"],
      ]);
      expect(ofType(sessionOf(w, id), "provider_context_item")).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test("LOOP-37 resuming a compacted session starts from the same summary message", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "x".repeat(2000), tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
    const first = await runScriptInProcess(w, "bypass", ["--max-context-tokens", "200"]);
    expect(first.code).toBe(0);
    const id = String(lastJson(first.stdout).session_id);
    expect(ofType(recordsOf(w, first), "compaction")).toHaveLength(1);
    const server = await startFakeOpenAI([{ text: "resumed" }]);
    try {
      const r = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "--resume", id, "next"]);
      expect(r.code).toBe(0);
      const wire = (server.requests[0] as Body).messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content]);
      expect(wire).toEqual([
        ["user", "Summary of the earlier conversation (compacted):\n\ncompacted conversation"],
        ["assistant", "done"],
        ["user", "next"],
      ]);
    } finally {
      await server.close();
    }
  });

  test("LOOP-41 --resume of a --no-session id exits 1 naming it; an unknown id too", async () => {
    const w = makeWorld();
    writeScript(w, [{ text: "done" }]);
    const r = await runScriptInProcess(w, "bypass", ["--no-session"]);
    expect(r.code).toBe(0);
    const id = String(lastJson(r.stdout).session_id);
    const resumed = await runScriptInProcess(w, "bypass", ["--resume", id], "again");
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain(id);
    const nope = await runCliInProcess(w, ["run", "--provider", "script", "--script", "script.json", "--resume", "nope", "x"]);
    expect(nope.code).toBe(1);
    expect(nope.stderr).toContain("nope");
  });
});
