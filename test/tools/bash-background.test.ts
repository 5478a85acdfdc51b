// `bash` with `run_in_background`, `bash_output` and `kill_shell` — real processes,
// signal files instead of sleeps, the live-group registry and `ps` to prove nothing is left running.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { bashTool } from "../../src/tools/bash.ts";
import { bashOutputTool, killShellTool } from "../../src/tools/shell-tools.ts";
import { BackgroundShells, RingBuffer } from "../../src/tools/background-shells.ts";
import { validateToolInput } from "../../src/tools/schemas.ts";
import { canonicalTool } from "../../src/tools/names.ts";
import { liveGroups } from "../../src/runtime/process-groups.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, makeWorkspace, type Workspace } from "./helpers.ts";
import { makeWorld, runCli } from "../support/cli.ts";
import { RUN, delivered, ofType, sessionRecords } from "../e2e/helpers.ts";

setDefaultTimeout(60_000);

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

/** Waits for a condition (a signal file, a status) without fixed sleeps; fails after a generous bound. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Command lines of every live process (zombies show no arguments). */
function processArgs(): string {
  return spawnSync("ps", ["-eo", "args"], { encoding: "utf8" }).stdout ?? "";
}

function uniqueSeconds(): string {
  // An unusual `sleep` argument that `ps` can find; only an identifier, never a delay that matters.
  return String(700000 + Math.floor(Math.random() * 99999));
}

function context(root: string): ToolContext & { shells: BackgroundShells } {
  const runtime = createRuntime();
  return { ...makeContext(root, { runtime }), shells: new BackgroundShells(runtime) };
}

describe("RingBuffer", () => {
  test("keeps the newest bytes, counts everything, and reports what a reader missed", () => {
    const ring = new RingBuffer(8);
    ring.push(new TextEncoder().encode("abcdef"));
    expect(new TextDecoder().decode(ring.readFrom(0).bytes)).toBe("abcdef");
    ring.push(new TextEncoder().encode("ghij"));
    const read = ring.readFrom(0);
    expect(new TextDecoder().decode(read.bytes)).toBe("cdefghij");
    expect(read.dropped).toBe(2);
    expect(ring.total).toBe(10);
    // A chunk larger than the ring keeps its tail.
    ring.push(new TextEncoder().encode("0123456789XY"));
    expect(new TextDecoder().decode(ring.readFrom(10).bytes)).toBe("456789XY");
    expect(ring.readFrom(10).dropped).toBe(4);
    expect(ring.readFrom(ring.total).bytes.byteLength).toBe(0);
  });
});

describe("schemas and names", () => {
  test("run_in_background is a valid bash field; BashOutput and KillShell are aliases", () => {
    expect(validateToolInput("bash", { command: "ls", run_in_background: true }).ok).toBe(true);
    expect(validateToolInput("bash", { command: "ls", run_in_background: "yes" }).ok).toBe(false);
    expect(validateToolInput("bash_output", { bash_id: "bash_1", filter: "x" }).ok).toBe(true);
    expect(validateToolInput("kill_shell", { shell_id: "bash_1" }).ok).toBe(true);
    expect(validateToolInput("kill_shell", { bash_id: "bash_1" }).ok).toBe(false);
    expect(canonicalTool("BashOutput")).toBe("bash_output");
    expect(canonicalTool("KillShell")).toBe("kill_shell");
  });
});

describe("background shells through the tools", () => {
  test("started at once, output read incrementally, completion with its exit code", async () => {
    ws = makeWorkspace();
    const ctx = context(ws.root);
    const ready = join(ws.root, "ready");
    const go = join(ws.root, "go");
    const before = new Set(liveGroups.pids());
    const started = await bashTool.execute(
      { command: `echo first; touch ready; while [ ! -e go ]; do sleep 0.02; done; echo second; exit 3`, run_in_background: true },
      ctx,
    );
    expect(started.success).toBe(true);
    expect(started.metadata).toEqual({ background: true, shell_id: "bash_1" });
    expect(started.content).toContain("Command running in background with ID: bash_1");
    // The call returned while the command waits for `go`: it is running, in the live registry.
    expect(existsSync(go)).toBe(false);
    // Compared by pid, not by count: a group left by an earlier test file in this worker may end meanwhile.
    const ours = liveGroups.pids().filter((pid) => !before.has(pid));
    expect(ours.length).toBe(1);

    await until("the ready file", () => existsSync(ready));
    let seen = "";
    await until("the first line", async () => {
      const out = await bashOutputTool.execute({ bash_id: "bash_1" }, ctx);
      expect(out.success).toBe(true);
      expect(out.content.split("\n")[0]).toBe("status: running");
      seen += out.content;
      return seen.includes("first");
    });
    // Read once: the next read has nothing new.
    const again = await bashOutputTool.execute({ bash_id: "bash_1" }, ctx);
    expect(again.content).toBe("status: running\n[no new output]");

    writeFileSync(go, "");
    let last = "";
    await until("the command to finish", async () => {
      const out = await bashOutputTool.execute({ bash_id: "bash_1" }, ctx);
      last += out.content.replace(/^status: running\n\[no new output\]$/, "");
      return out.metadata?.status !== "running";
    });
    expect(last).toContain("status: failed (exit code 3)");
    expect(last).toContain("second");
    expect(last).not.toContain("first");
    await until("the group to leave the registry", () => !liveGroups.pids().includes(ours[0] ?? -1));
  });

  test("kill_shell stops the whole group; ps finds nothing; unknown ids and bad filters are errors", async () => {
    ws = makeWorkspace();
    const ctx = context(ws.root);
    const seconds = uniqueSeconds();
    const started = await bashTool.execute({ command: `sleep ${seconds} & echo child-started; touch ready; wait`, run_in_background: true }, ctx);
    expect(started.success).toBe(true);
    await until("the ready file", () => existsSync(join(ws?.root ?? "", "ready")));
    expect(processArgs()).toContain(`sleep ${seconds}`);

    const filtered = await bashOutputTool.execute({ bash_id: "bash_1", filter: "^nothing-matches$" }, ctx);
    expect(filtered.content).toBe("status: running\n[no new output]");
    const badFilter = await bashOutputTool.execute({ bash_id: "bash_1", filter: "(a+)+$" }, ctx);
    expect(badFilter.success).toBe(false);
    expect(badFilter.content).toContain("invalid filter");

    const killed = await killShellTool.execute({ shell_id: "bash_1" }, ctx);
    expect(killed.success).toBe(true);
    expect(killed.content.split("\n")[0]).toBe("status: killed");
    expect(killed.metadata?.status).toBe("killed");
    await until("the sleep to be gone", () => !processArgs().includes(`sleep ${seconds}`));
    expect(ctx.shells.running()).toBe(0);

    const after = await bashOutputTool.execute({ bash_id: "bash_1" }, ctx);
    expect(after.content).toBe("status: killed\n[no new output]");
    const unknown = await killShellTool.execute({ shell_id: "bash_9" }, ctx);
    expect(unknown.success).toBe(false);
    expect(unknown.content).toBe(`no background shell "bash_9"; known: bash_1`);
  });

  test("without a shell registry run_in_background is refused, not run in the foreground", async () => {
    ws = makeWorkspace();
    const result = await bashTool.execute({ command: "touch ran", run_in_background: true }, makeContext(ws.root));
    expect(result.success).toBe(false);
    expect(result.content).toContain("run_in_background is not available here");
    expect(existsSync(join(ws.root, "ran"))).toBe(false);
  });
});

describe("agent run --provider script", () => {
  test("background bash, BashOutput after a signal file, KillShell, and nothing left running after the run", () => {
    const w = makeWorld();
    const keep = uniqueSeconds();
    const killed = uniqueSeconds();
    const turns = [
      {
        tool_calls: [
          { id: "call_1", name: "bash", arguments: { command: `echo bg-hello; touch ready1; sleep ${killed}`, run_in_background: true } },
          // Left running: the session's end must kill it.
          { id: "call_2", name: "Bash", arguments: { command: `touch ready2; sleep ${keep}`, run_in_background: true } },
        ],
      },
      {
        tool_calls: [{ id: "call_3", name: "bash", arguments: { command: "while [ ! -e ready1 ] || [ ! -e ready2 ]; do sleep 0.02; done; echo both-ready" } }],
      },
      { tool_calls: [{ id: "call_4", name: "BashOutput", arguments: { bash_id: "bash_1" } }] },
      { tool_calls: [{ id: "call_5", name: "KillShell", arguments: { shell_id: "bash_1" } }] },
      { tool_calls: [{ id: "call_6", name: "bash_output", arguments: { bash_id: "bash_1" } }] },
      { text: "done" },
    ];
    w.file("script.json", JSON.stringify({ turns }));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    const results = delivered(records);
    expect(results[0]).toContain("Command running in background with ID: bash_1");
    expect(results[1]).toContain("Command running in background with ID: bash_2");
    expect(results[2]).toBe("both-ready\n");
    expect(results[3]).toBe("status: running\nbg-hello");
    expect(results[4]?.split("\n")[0]).toBe("status: killed");
    expect(results[5]).toBe("status: killed\n[no new output]");
    const meta = ofType(records, "tool_result").map((rec) => rec.metadata);
    expect(meta[0]).toEqual({ background: true, shell_id: "bash_1" });
    // The agent has exited: neither background command (nor its sleep) is alive.
    const ps = processArgs();
    expect(ps).not.toContain(`sleep ${keep}`);
    expect(ps).not.toContain(`sleep ${killed}`);
  });

  test("D8 a pre_tool hook's updatedInput that sets run_in_background is valid and the model is told the truth; a rejected one drops that hook's context", () => {
    const w = makeWorld();
    const seconds = uniqueSeconds();
    w.file(
      "bg.sh",
      [
        "#!/bin/bash",
        "command=$(jq -r '.tool_input.command')",
        'case "$command" in',
        `  "make serve") jq -n --arg c "touch served; sleep ${seconds}" '{hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:"allow",updatedInput:{command:$c,run_in_background:true},additionalContext:"moved to the background"}}' ;;`,
        `  "echo original-bad") echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo replaced","background":true},"additionalContext":"CONTEXT-OF-A-REJECTED-INPUT"}}' ;;`,
        "esac",
        "exit 0",
        "",
      ].join("\n"),
      { executable: true },
    );
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "$CLAUDE_PROJECT_DIR/bg.sh" }]\n`);
    const turns = [
      { tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "make serve" } }] },
      { tool_calls: [{ id: "call_2", name: "bash", arguments: { command: "while [ ! -e served ]; do sleep 0.02; done; echo served" } }] },
      { tool_calls: [{ id: "call_3", name: "bash", arguments: { command: "echo original-bad" } }] },
      { text: "done" },
    ];
    w.file("script.json", JSON.stringify({ turns }));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    const results = delivered(records);
    expect(results[0]).toContain("Command running in background with ID: bash_1");
    expect(results[0]).toContain("moved to the background");
    expect(results[1]).toBe("served\n");
    // The invalid replacement is a failure, the original command runs, and its context is gone.
    expect(r.stderr).toContain("modified input invalid");
    expect(results[2]).not.toContain("CONTEXT-OF-A-REJECTED-INPUT");
    expect(results[2]).toBe("original-bad\n");
    const ran = ofType(records, "tool_result").map((rec) => rec.input);
    expect(ran[0]).toEqual({ command: `touch served; sleep ${seconds}`, run_in_background: true });
    expect(ran[2]).toEqual({ command: "echo original-bad" });
    expect(processArgs()).not.toContain(`sleep ${seconds}`);
  });
});
