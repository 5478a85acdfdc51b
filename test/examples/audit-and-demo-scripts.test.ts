/**
 * audit-log's list hook and the demo's own scripts, run directly with the stdin they receive and
 * the cwd their form gives them (list and lifecycle hooks: the agent cwd).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { claudeStdin, EXAMPLES, onlyJsonLine, runScript, tempDir } from "./helpers.ts";

const AUDIT = join(EXAMPLES, "audit-log", "audit-jsonl.sh");
const DEMO_SCRIPTS = join(EXAMPLES, "demo", ".agent", "scripts");

const envelope = (phase: string, extra: Record<string, unknown> = {}) => ({
  schema: "agent.tool_hook",
  schema_version: 1,
  phase,
  tool: { name: "bash", call_id: "call_1" },
  request: { command: { redacted: true, kind: "command", bytes: 2 } },
  ...extra,
});

describe("audit-log", () => {
  test("D12 appends each envelope as one JSON line to <project>/.agent/audit.jsonl", () => {
    const project = tempDir();
    const before = envelope("before_tool");
    const after = envelope("after_tool", { result: { success: true, content: "<redacted:tool-output>" } });
    expect(runScript(AUDIT, `${JSON.stringify(before)}\n`, { cwd: project })).toEqual({ code: 0, stdout: "", stderr: "" });
    // A pretty-printed envelope still becomes exactly one line.
    expect(runScript(AUDIT, JSON.stringify(after, null, 2), { cwd: project }).code).toBe(0);
    const lines = readFileSync(join(project, ".agent", "audit.jsonl"), "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual([before, after]);
  });

  test("D12 honours AGENT_AUDIT_LOG and writes nothing for an empty stdin", () => {
    const project = tempDir();
    const log = join(project, "logs", "tools.jsonl");
    runScript(AUDIT, "", { cwd: project, env: { AGENT_AUDIT_LOG: log } });
    expect(existsSync(log)).toBe(false);
    runScript(AUDIT, `${JSON.stringify(envelope("before_tool"))}\n`, { cwd: project, env: { AGENT_AUDIT_LOG: log } });
    expect(readFileSync(log, "utf8")).toBe(`${JSON.stringify(envelope("before_tool"))}\n`);
    expect(existsSync(join(project, ".agent"))).toBe(false);
  });
});

describe("demo scripts", () => {
  test("LIFE-59 stop-once blocks the first stop of a session, then allows", () => {
    const project = tempDir();
    const out = join(project, "out");
    const env = { AGENT_DEMO_OUT: out, AGENT_SESSION_ID: "s1" };
    const first = runScript(join(DEMO_SCRIPTS, "stop-once.sh"), claudeStdin("stop", { cwd: project, fields: { stop_hook_active: false } }), {
      cwd: project,
      env,
    });
    expect(first.code).toBe(0);
    expect(onlyJsonLine(first.stdout).decision).toBe("block");
    const active = runScript(join(DEMO_SCRIPTS, "stop-once.sh"), claudeStdin("stop", { cwd: project, fields: { stop_hook_active: true } }), {
      cwd: project,
      env,
    });
    expect(active).toEqual({ code: 0, stdout: "", stderr: "" });
    // Even without stop_hook_active, the marker makes it block once per session only.
    const again = runScript(join(DEMO_SCRIPTS, "stop-once.sh"), claudeStdin("stop", { cwd: project, fields: { stop_hook_active: false } }), {
      cwd: project,
      env,
    });
    expect(again.stdout).toBe("");
    const otherSession = runScript(join(DEMO_SCRIPTS, "stop-once.sh"), claudeStdin("stop", { cwd: project, fields: { stop_hook_active: false } }), {
      cwd: project,
      env: { ...env, AGENT_SESSION_ID: "s2" },
    });
    expect(onlyJsonLine(otherSession.stdout).decision).toBe("block");
    expect(readdirSync(out).sort()).toEqual(["stop-once.s1", "stop-once.s2"]);
  });

  test("D7 demo-context prints plain context; demo-audit logs under AGENT_DEMO_OUT", () => {
    const project = tempDir();
    const context = runScript(join(DEMO_SCRIPTS, "demo-context.sh"), claudeStdin("session_start", { cwd: project, fields: { source: "startup" } }), {
      cwd: project,
    });
    expect(context.code).toBe(0);
    expect(context.stdout).toStartWith("project: agent hooks demo");
    const out = join(project, "somewhere");
    // List hooks are started as ./.agent/scripts/demo-audit.sh from the agent cwd.
    const audit = runScript(join(DEMO_SCRIPTS, "demo-audit.sh"), `${JSON.stringify(envelope("before_tool"))}\n`, {
      cwd: project,
      env: { AGENT_DEMO_OUT: out },
    });
    expect(audit).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(JSON.parse(readFileSync(join(out, "audit.jsonl"), "utf8"))).toEqual(envelope("before_tool"));
  });
});
