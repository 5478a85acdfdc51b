// payload_ref spill hygiene (D14): spill files vanish whatever the hook does, a long session leaves
// nothing behind, stale spills are swept at start-up, and no spill path or hook stdin ever reaches
// a provider request, a session record or a diagnostic.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { allSessionText } from "./helpers.ts";

// Each test runs the CLI several times; two shared cores can make that slow.
setDefaultTimeout(60_000);

/** Just over the 1 MiB stdin cap once wrapped in the envelope, so a full-mode payload spills. */
const BIG = "a".repeat(1024 * 1024 + 100);

/** A world whose TMPDIR is private, so `<tmp>/agent-hook-payloads/` can be checked exactly. */
function spillWorld(): { w: World; tmp: string; env: Record<string, string>; spillRoot: string } {
  const w = makeWorld();
  const tmp = join(w.root, "tmp");
  mkdirSync(tmp);
  return { w, tmp, env: w.env({ TMPDIR: tmp }), spillRoot: join(tmp, "agent-hook-payloads") };
}

/** A user-scope list hook (no trust needed) that saves its stdin and what the spill root held meanwhile. */
function spillHook(w: World, name: string, body: string): string {
  return w.file(
    join(w.agentHome, `${name}.sh`),
    `#!/bin/sh\ncat > "${w.root}/${name}.stdin.json"\nls "$TMPDIR/agent-hook-payloads" > "${w.root}/${name}.during"\n${body}\n`,
    { executable: true },
  );
}

function refPath(w: World, name: string): string {
  const envelope = JSON.parse(readFileSync(join(w.root, `${name}.stdin.json`), "utf8"));
  expect(envelope.payload).toEqual({ inline: false, status: "referenced" });
  const path: unknown = envelope.payload_ref?.path;
  if (typeof path !== "string") throw new Error("no payload_ref.path");
  return path;
}

describe("payload_ref spills", () => {
  test("SEC-22 the spill file and its directory are gone after a hook exits 0, exits 1 or is killed at its timeout", async () => {
    const { w, env, spillRoot } = spillWorld();
    const hooks = [
      { label: "ok", command: spillHook(w, "ok", "exit 0"), payload: "full" },
      { label: "fails", command: spillHook(w, "fails", "exit 1"), payload: "full" },
      { label: "slow", command: spillHook(w, "slow", "sleep 30"), payload: "full", timeout_seconds: 1 },
    ];
    w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: hooks } }));
    writeScript(w, [{ tool_calls: [{ name: "write", arguments: { file_path: "big.txt", content: BIG } }] }, { text: "done" }], "s.json");
    const r = await runCliInProcess(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "hi"], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("agent: hook fails (pre_tool) failed: exit");
    expect(r.stderr).toContain("agent: hook slow (pre_tool) failed: timeout");
    for (const name of ["ok", "fails", "slow"]) {
      const path = refPath(w, name);
      expect(path.startsWith(`${spillRoot}/`)).toBe(true);
      // While the hook ran, its spill directory existed.
      expect(
        readFileSync(join(w.root, `${name}.during`), "utf8")
          .trim()
          .split("\n"),
      ).toContain(path.slice(spillRoot.length + 1).split("/")[0] ?? "?");
      expect(existsSync(path)).toBe(false);
      expect(existsSync(join(path, ".."))).toBe(false);
    }
    expect(readdirSync(spillRoot)).toEqual([]);
  });

  test("SEC-22 a session of 100 spilled calls leaves nothing under <tmp>/agent-hook-payloads/", async () => {
    const { w, env, spillRoot } = spillWorld();
    const counter = join(w.root, "referenced");
    const hook = w.file(join(w.agentHome, "count.sh"), `#!/bin/sh\nif grep -q '"status":"referenced"'; then echo r >> "${counter}"; fi\n`, {
      executable: true,
    });
    w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "count", command: hook, payload: "full" }] } }));
    const calls = Array.from({ length: 100 }, (_, i) => ({ name: "write", arguments: { file_path: `out-${i % 3}.txt`, content: BIG } }));
    writeScript(w, [{ tool_calls: calls }, { text: "done" }], "s.json");
    const r = await runCliInProcess(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "--no-session", "hi"], { env });
    expect(r.code).toBe(0);
    expect(readFileSync(counter, "utf8").trim().split("\n")).toHaveLength(100);
    expect(readdirSync(spillRoot)).toEqual([]);
  }, 120_000);

  test("SEC-22 stale spill directories of a crashed run are swept when `agent run` and `agent hooks test` start", async () => {
    for (const args of [
      ["run", "--provider", "script", "--script", "s.json", "hi"],
      ["hooks", "test", "session_start"],
    ]) {
      const { w, env, spillRoot } = spillWorld();
      writeScript(w, [{ text: "done" }], "s.json");
      const stale = join(spillRoot, "stale0001");
      const fresh = join(spillRoot, "fresh0001");
      mkdirSync(spillRoot, { mode: 0o700 });
      for (const dir of [stale, fresh]) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "payload.json"), "{}");
      }
      const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
      utimesSync(stale, hourAgo, hourAgo);
      const r = await runCliInProcess(w, args, { env });
      expect(r.code).toBe(0);
      expect(existsSync(stale)).toBe(false);
      // A recent directory may belong to another running agent: it stays.
      expect(existsSync(join(fresh, "payload.json"))).toBe(true);
    }
  });

  test("TOOL-50 SEC-25 no spill path, payload_ref or hook stdin reaches a provider request, a session record or a diagnostic (parent and subagent)", async () => {
    const { w, env } = spillWorld();
    const hook = spillHook(w, "spill", 'mv "' + w.root + '/spill.stdin.json" "' + w.root + '/spill-$$.stdin.json"; exit 1');
    w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, after_tool: [{ label: "spill", command: hook, payload: "full" }] } }));
    w.file(join(w.agentHome, "agents/general.md"), "You are a helper.\n");
    const server = await startFakeOpenAI([
      { toolCalls: [{ id: "p1", name: "write", arguments: { file_path: "parent.txt", content: BIG } }] },
      { toolCalls: [{ id: "t1", name: "task", arguments: { description: "child", prompt: "write it" } }] },
      { toolCalls: [{ id: "c1", name: "write", arguments: { file_path: "child.txt", content: BIG } }] },
      { text: "child done" },
      { text: "all done" },
    ]);
    try {
      const r = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "hi"], {
        env: { ...env, OPENAI_API_KEY: "sk-test-key" },
      });
      expect(r.code).toBe(0);
      expect(server.requests).toHaveLength(5);
      const stdins = readdirSync(w.root)
        .filter((name) => /^spill-\d+\.stdin\.json$/.test(name))
        .map((name) => readFileSync(join(w.root, name), "utf8"));
      // One per tool call: the parent's write and task, the child's write.
      expect(stdins).toHaveLength(3);
      const paths = stdins.flatMap((text) => {
        const path: unknown = JSON.parse(text).payload_ref?.path;
        return typeof path === "string" ? [path] : [];
      });
      expect(paths).toHaveLength(2);
      const bodies = server.requests.map((body) => JSON.stringify(body));
      const records = allSessionText(w);
      for (const text of [...bodies, records, r.stdout, r.stderr]) {
        expect(text).not.toContain("payload_ref");
        expect(text).not.toContain("agent-hook-payloads");
        for (const path of paths) expect(text).not.toContain(path);
        for (const stdin of stdins) expect(text).not.toContain(stdin.trim());
      }
      // The failure lines were printed (parent and child), without any of that.
      expect(r.stderr.split("\n").filter((line) => line.startsWith("agent: hook spill (post_tool) failed")).length).toBeGreaterThanOrEqual(2);
    } finally {
      await server.close();
    }
  });
});
