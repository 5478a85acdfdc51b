// `agent hooks replay` judges each recorded tool call with today's permission gate too, end to end
// through the real CLI: a session recorded with `agent run` (script provider), then a rule change in
// the project's settings or the managed layer, then a replay that names the rule deciding today.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript, type World } from "../support/cli.ts";
import { ofType, sessionRecords, type Rec } from "./helpers.ts";

setDefaultTimeout(90_000);

const SCRIPT_RUN = ["run", "--provider", "script", "--script", "script.json", "--output-format", "json", "--trust"];

/** Records one session running `rm -rf build` then `echo fine`; returns its id. */
function record(w: World, flags: readonly string[]): string {
  w.file("build/out.o", "x\n");
  writeScript(w, [
    {
      tool_calls: [
        { id: "c1", name: "bash", arguments: { command: "rm -rf build" } },
        { id: "c2", name: "bash", arguments: { command: "echo fine" } },
      ],
    },
    { text: "done" },
  ]);
  const ran = runCli(w, [...SCRIPT_RUN, ...flags, "clean up"]);
  expect(ran.code).toBe(0);
  return String(sessionRecords(w)[0]?.session_id);
}

interface ReplayJson {
  permission_mode: string;
  changed: number;
  events: Rec[];
}

function replayJson(w: World, args: readonly string[], env?: Record<string, string>): ReplayJson {
  const r = runCli(w, ["hooks", "replay", ...args, "--trust", "--json"], env ? { env } : {});
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as ReplayJson;
}

const decisionOf = (json: ReplayJson, callId: string): Rec | undefined => json.events.find((e) => e.event === "decision" && e.tool_call_id === callId);

describe("replay through today's permission rules", () => {
  test("a new project deny rule changes a call that ran; the row names the rule and its file; an unchanged call shows no difference; --json", () => {
    const w = makeWorld();
    const id = record(w, ["--permission-mode", "bypass"]);
    expect(existsSync(join(w.project, "build"))).toBe(false);
    // The gate's decision is recorded on the call's result.
    const results = ofType(sessionRecords(w), "tool_result");
    expect(results.map((rec) => [rec.tool_call_id, (rec.permission as Rec | undefined)?.mode, (rec.permission as Rec | undefined)?.decision])).toEqual([
      ["c1", "bypass", "allow"],
      ["c2", "bypass", "allow"],
    ]);

    const same = runCli(w, ["hooks", "replay", id, "--trust"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain("permission mode: bypass (recorded)");
    expect(same.stdout).toContain("0 changed");

    w.file(".agent/settings.json", JSON.stringify({ permissions: { deny: ["bash(rm*)"] } }));
    const changed = runCli(w, ["hooks", "replay", id, "--trust"]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(
      /decision bash\s+rm -rf build\s+allow \(bash is allowed in bypass permission mode\)\s+deny \(deny rule bash\(rm\*\) in \.agent\/settings\.json\)\s+CHANGED/,
    );
    expect(changed.stdout).toContain("now: denied by permission rule bash(rm*)");
    // No hook runs here: the hook row of each call is unchanged; echo is unchanged altogether.
    expect(changed.stdout).toMatch(/pre_tool bash\s+rm -rf build\s+none\s+none\n/);
    expect(changed.stdout).toMatch(
      /decision bash\s+echo fine\s+allow \(bash is allowed in bypass permission mode\)\s+allow \(bash is allowed in bypass permission mode\)\n/,
    );
    expect(changed.stdout).toContain("1 changed");

    const json = replayJson(w, [id]);
    expect(json.permission_mode).toBe("bypass");
    expect(json.changed).toBe(1);
    expect(decisionOf(json, "c1")).toMatchObject({
      tool: "bash",
      subject: "rm -rf build",
      mode: "bypass",
      then: { decision: "allow", ran: true, decided_by: null },
      now: { decision: "deny", decided_by: "deny rule bash(rm*) in .agent/settings.json", reason: "denied by permission rule bash(rm*)" },
      changed: true,
    });
    expect(decisionOf(json, "c2")).toMatchObject({ then: { decision: "allow" }, now: { decision: "allow" }, changed: false });
  });

  test("a managed deny rule shows as managed, with its file", () => {
    const w = makeWorld();
    const id = record(w, ["--permission-mode", "bypass"]);
    const path = w.file(join(w.root, "policy", "managed.toml"), `[permissions]\ndeny = ["bash(rm -rf *)"]\n`);
    chmodSync(join(w.root, "policy"), 0o755);
    chmodSync(path, 0o644);
    const env = w.env({ AGENT_MANAGED_FILE: path });
    const r = runCli(w, ["hooks", "replay", id, "--trust"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/decision bash\s+rm -rf build\s+allow \(.*\)\s+deny \(managed deny rule bash\(rm -rf \*\) in \S+managed\.toml\)\s+CHANGED/);
    const json = replayJson(w, [id], env);
    expect(decisionOf(json, "c1")).toMatchObject({ now: { decision: "deny", decided_by: `managed deny rule bash(rm -rf *) in ${path}` }, changed: true });
    expect(decisionOf(json, "c2")?.changed).toBe(false);
  });

  test("under default mode, a removed allow rule turns a call that ran into an ask; an ask nobody answered then is unchanged", () => {
    const w = makeWorld();
    w.file(".agent/settings.json", JSON.stringify({ permissions: { allow: ["bash(rm*)"] } }));
    const id = record(w, ["--permission-mode", "default"]);
    expect(existsSync(join(w.project, "build"))).toBe(false);

    const before = replayJson(w, [id]);
    expect(before.permission_mode).toBe("default");
    expect(decisionOf(before, "c1")).toMatchObject({
      then: { decision: "allow", decided_by: "allow rule bash(rm*)", ran: true },
      now: { decision: "allow", decided_by: "allow rule bash(rm*) in .agent/settings.json" },
      changed: false,
    });

    w.file(".agent/settings.json", JSON.stringify({ permissions: {} }));
    const r = runCli(w, ["hooks", "replay", id, "--trust"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /decision bash\s+rm -rf build\s+allow \(allow rule bash\(rm\*\)\)\s+ask \(bash needs approval in default permission mode\)\s+CHANGED/,
    );
    const after = replayJson(w, [id]);
    expect(decisionOf(after, "c1")).toMatchObject({ now: { decision: "ask", decided_by: null }, mode: "default", changed: true });

    // Recorded again without the rule: nobody could answer the ask, so the call was refused; today it still asks.
    rmSync(join(w.agentHome, "sessions"), { recursive: true, force: true });
    const asked = record(w, ["--permission-mode", "default"]);
    expect(existsSync(join(w.project, "build"))).toBe(true);
    const again = runCli(w, ["hooks", "replay", asked, "--trust"]);
    expect(again.stdout).toMatch(
      /decision bash\s+rm -rf build\s+ask \(bash needs approval in default permission mode\); nobody answered: refused\s+ask \(.*\)\n/,
    );
    expect(again.code).toBe(0);
    expect(decisionOf(replayJson(w, [asked]), "c1")).toMatchObject({ then: { decision: "ask", answered_by: "nobody", ran: false }, changed: false });
  });

  test("--permission-mode judges every call in that mode instead of the recorded one", () => {
    const w = makeWorld();
    const id = record(w, ["--permission-mode", "bypass"]);
    const json = replayJson(w, [id, "--permission-mode", "readonly"]);
    expect(json.permission_mode).toBe("readonly");
    expect(decisionOf(json, "c1")).toMatchObject({
      mode: "readonly",
      now: { decision: "deny", reason: "bash is not allowed in readonly permission mode" },
      changed: true,
    });
    // echo only reads: readonly lets it run.
    expect(decisionOf(json, "c2")?.changed).toBe(false);
    const bad = runCli(w, ["hooks", "replay", id, "--permission-mode", "nope"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--permission-mode: "nope" is not one of');
  });

  test("today's pre_tool hooks go first, as in a live session: a hook's deny decides before any rule; the gate judges the input a hook rewrote", () => {
    const w = makeWorld();
    const id = record(w, ["--permission-mode", "bypass"]);
    w.file(".agent/settings.json", JSON.stringify({ permissions: { deny: ["bash(rm*)"] } }));
    const dir = join(w.project, ".agent/hooks/guard");
    w.file(join(dir, "hook.json"), JSON.stringify({ event: "pre_tool", match: "bash", run: "./run.sh" }));
    const guard = (reply: string) => w.file(join(dir, "run.sh"), `#!/bin/sh\nif grep -q 'rm -rf'; then echo '${reply}'; fi\nexit 0\n`, { executable: true });

    guard('{"action":"deny","reason":"no rm -rf"}');
    const denied = decisionOf(replayJson(w, [id]), "c1");
    expect(denied).toMatchObject({ now: { decision: "deny", decided_by: "guard", reason: "no rm -rf" }, changed: true });

    // The hook rewrites the command: the deny rule no longer matches what would run.
    guard('{"action":"modify","input":{"command":"echo skipped"}}');
    const rewritten = decisionOf(replayJson(w, [id]), "c1");
    expect(rewritten).toMatchObject({ now: { decision: "allow", decided_by: null }, changed: false });
  });
});
