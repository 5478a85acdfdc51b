/**
 * PLUS-15: the README's demo command, offline (script provider, no key, no network), over the
 * demo's own hooks. The demo is copied (modes kept) to a temp dir so the test never writes into
 * the checkout; AGENT_DEMO_OUT points its hook output at a temp dir, as the README allows.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, runCli } from "../support/cli.ts";
import { EXAMPLES, tempDir } from "./helpers.ts";

/** The command from hooks-examples/demo/README.md, minus the leading `agent`. */
const DEMO_ARGS = [
  "run",
  "--provider",
  "script",
  "--script",
  "script.json",
  "--trust",
  "--permission-mode",
  "accept-edits",
  "--allow",
  "bash(ls*)",
  "Show me around",
];

describe("demo", () => {
  test("PLUS-15 LIFE-59 the demo runs offline, exits 0 and shows its hooks acting; it can run again", () => {
    const world = makeWorld({ git: false });
    const demo = join(world.root, "demo");
    cpSync(join(EXAMPLES, "demo"), demo, { recursive: true });
    const out = tempDir("agent-demo-out-");
    const env = world.env({ AGENT_DEMO_OUT: out });

    const first = runCli(world, DEMO_ARGS, { cwd: demo, env });
    if (first.code !== 0) throw new Error(`demo exited ${first.code}:\n${first.stdout}\n${first.stderr}`);
    expect(first.stdout).toContain("Double-checked as the stop hook asked");

    // The denied call is in the audit log. The demo's audit-requests hook dir runs before
    // guard-bash and logs every request; guard-bash denied rm -rf /, so the list hooks (which run
    // last, D13) saw only the two calls that went ahead.
    const audit = readJsonl(readFileSync(join(out, "audit.jsonl"), "utf8"));
    const calls = audit.map((line) => {
      const tool = line.tool;
      const phase = String(line.phase);
      return typeof tool === "object" && tool !== null && "call_id" in tool ? `${phase}:${String(tool.call_id)}` : phase;
    });
    expect(calls).toEqual([
      "pre_tool:call_ls",
      "before_tool:call_ls",
      "after_tool:call_ls",
      "pre_tool:call_rm",
      "pre_tool:call_write",
      "before_tool:call_write",
      "after_tool:call_write",
    ]);
    expect(JSON.stringify(audit)).not.toContain("rm -rf");
    expect(readFileSync(join(demo, ".agent", "demo-out", "notes.txt"), "utf8")).toStartWith("Demo notes:");

    // The session shows the denial, the hidden context and the stop hook's reason sent back.
    const sessions = readdirSync(join(world.agentHome, "sessions")).filter((name) => name.endsWith(".jsonl"));
    expect(sessions.length).toBe(1);
    const records = readJsonl(readFileSync(join(world.agentHome, "sessions", sessions[0] ?? ""), "utf8"));
    const rm = records.find((record) => record.type === "tool_result" && record.tool_call_id === "call_rm");
    expect(rm?.success).toBe(false);
    expect(String(rm?.content)).toContain("guard-bash");
    const context = records.filter((record) => record.type === "provider_context_item").map((record) => String(record.content));
    expect(context.some((content) => content.includes("project: agent hooks demo"))).toBe(true);
    const users = records.filter((record) => record.type === "user").map((record) => String(record.content));
    expect(users.some((content) => content.includes("Before you finish"))).toBe(true);
    expect(readdirSync(out).filter((name) => name.startsWith("stop-once.")).length).toBe(1);

    // Re-runnable: a second session blocks its first stop again and ends the same way.
    const second = runCli(world, [...DEMO_ARGS, "--output-format", "json"], { cwd: demo, env });
    expect(second.code).toBe(0);
    const summary: unknown = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ is_error: false, stop_reason: "completed" });
    expect(readdirSync(out).filter((name) => name.startsWith("stop-once.")).length).toBe(2);
    expect(existsSync(join(demo, ".agent", "audit.jsonl"))).toBe(false);
  });
});
