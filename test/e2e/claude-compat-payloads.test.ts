// Claude Code compatibility and payload security cases: the real CLI in a
// temp world with the script provider and real hook processes (jq-based Claude Code scripts).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, readJsonl, type World } from "../support/cli.ts";
import { RUN, delivered, hookRuns, lastJson, lines, sessionRecords, type Rec } from "./helpers.ts";

setDefaultTimeout(60_000);

/** Default permission mode (no bypass): the gate is a safety net behind the hooks under test. */
const DEFAULT_RUN = ["run", "--provider", "script", "--script", "script.json", "--output-format", "json", "--trust"];

function bashCalls(w: World, commands: string[], agents?: Rec): void {
  const turns: unknown[] = commands.map((command, i) => ({ tool_calls: [{ id: `call_${i + 1}`, name: "bash", arguments: { command } }] }));
  turns.push({ text: "done" });
  w.file("script.json", JSON.stringify(agents ? { turns, agents } : { turns }));
}

describe("Claude Code compatibility", () => {
  test("PLUS-11 an unmodified Claude Code bash validator blocks rm -rf with its stderr and lets ls run", () => {
    const w = makeWorld();
    // Verbatim Claude Code style: jq reads the command, exit 2 + stderr blocks.
    w.file(
      ".agent/hooks/bash-validator.sh",
      [
        "#!/bin/bash",
        "command=$(jq -r '.tool_input.command')",
        'if echo "$command" | grep -q "rm -rf"; then',
        '  echo "Blocked: rm -rf" >&2',
        "  exit 2",
        "fi",
        "exit 0",
        "",
      ].join("\n"),
      { executable: true },
    );
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "Bash"\nhooks = [{ command = "$CLAUDE_PROJECT_DIR/.agent/hooks/bash-validator.sh" }]\n`,
    );
    w.file("marker.txt", "listed");
    bashCalls(w, ["rm -rf /", "ls"]);
    const r = runCli(w, DEFAULT_RUN.concat(["--allow", "bash(ls*)", "go"]));
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    const results = delivered(records);
    expect(results[0]).toContain("Blocked: rm -rf");
    expect(results[1]).toContain("marker.txt");
    expect(hookRuns(records).map((h) => h.status)).toEqual(["success", "success"]);
  });

  test("PLUS-13 lifecycle pre_tool replies: exit 2 beats allow, decision block/approve, foreign hookEventName ignored, exit 1 non-blocking, CLAUDE_PROJECT_DIR everywhere", () => {
    const w = makeWorld();
    const envLog = join(w.root, "claude-dir.log");
    w.file(
      "reply.sh",
      [
        "#!/bin/bash",
        `printf '%s %s\\n' "$(basename "$0")" "$CLAUDE_PROJECT_DIR" >> '${envLog}'`,
        "command=$(jq -r '.tool_input.command')",
        'case "$command" in',
        `  "echo A") echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; echo "exit two wins" >&2; exit 2 ;;`,
        `  "echo B") echo '{"decision":"block","reason":"blocked by decision"}' ;;`,
        `  "echo C") echo '{"decision":"approve"}' ;;`,
        `  "echo D") echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}' ;;`,
        `  "echo E") echo "hook broke" >&2; exit 1 ;;`,
        "esac",
        "exit 0",
        "",
      ].join("\n"),
      { executable: true },
    );
    w.file("start.sh", `#!/bin/sh\ncat >/dev/null\nprintf 'session_start %s\\n' "$CLAUDE_PROJECT_DIR" >> '${envLog}'\n`, { executable: true });
    w.file(
      ".agent/config.toml",
      [
        `[[hooks.lifecycle.session_start]]`,
        `hooks = [{ command = "$CLAUDE_PROJECT_DIR/start.sh" }]`,
        `[[hooks.lifecycle.pre_tool_use]]`,
        `matcher = "Bash"`,
        `hooks = [{ command = "$CLAUDE_PROJECT_DIR/reply.sh" }]`,
      ].join("\n"),
    );
    w.file("pkg/keep.txt", "");
    const turns: unknown[] = ["echo A", "echo B", "echo C", "echo D", "echo E"].map((command, i) => ({
      tool_calls: [{ id: `call_${i + 1}`, name: "bash", arguments: { command } }],
    }));
    turns.push({ tool_calls: [{ id: "t1", name: "task", arguments: { description: "d", prompt: "p", cwd: "pkg" } }] });
    turns.push({ text: "done" });
    w.file(
      "script.json",
      JSON.stringify({
        turns,
        agents: { general: { turns: [{ tool_calls: [{ id: "k1", name: "bash", arguments: { command: "echo C" } }] }, { text: "child done" }] } },
      }),
    );
    // Only C and D are gate-allowed outside the hooks: A and B must be denied by the hook alone;
    // E is allowed by rule so that its failure visibly lets the tool run.
    const r = runCli(w, DEFAULT_RUN.concat(["--allow", "bash(echo D)", "--allow", "bash(echo E)", "--allow", "task", "go"]));
    expect(r.code).toBe(0);
    const results = delivered(sessionRecords(w));
    expect(results[0]).toContain("exit two wins");
    expect(results[0]).not.toBe("A\n");
    expect(results[1]).toContain("blocked by decision");
    expect(results[2]).toBe("C\n");
    expect(results[3]).toBe("D\n");
    expect(results[4]).toBe("E\n");
    expect(results[5]).toContain("child done");
    // D9: the PostToolUse block is ignored with a warning; exit 1 gives a failure line.
    expect(r.stderr).toContain(`hookSpecificOutput ignored: hookEventName "PostToolUse" does not name pre_tool`);
    const failures = r.stderr.split("\n").filter((l) => l.startsWith("agent: hook ") && l.includes("failed"));
    expect(failures.length).toBe(1);
    expect(failures[0]).toContain("exit");
    expect(failures[0]?.endsWith("tool ran anyway")).toBe(true);
    // The child's call went through the same lifecycle hook (C approves, so it ran).
    const kidDir = join(w.agentHome, "sessions", "subagents");
    const [kid] = readdirSync(kidDir).filter((f) => f.endsWith(".jsonl"));
    const kidResults = readJsonl(readFileSync(join(kidDir, String(kid)), "utf8")).filter((x) => x.type === "tool_result_delivered");
    expect(kidResults.map((x) => x.content)).toEqual(["C\n"]);
    // CLAUDE_PROJECT_DIR is the non-empty project root in every lifecycle hook: 1 session_start, 5 parent calls, 1 child call.
    const seen = lines(envLog);
    expect(seen.length).toBe(7);
    expect(seen.filter((l) => l.startsWith("session_start ")).length).toBeGreaterThanOrEqual(1);
    for (const line of seen) expect(line.split(" ")[1]).toBe(w.project);
  });
});

describe("hooks are not preflighted and payload modes", () => {
  test("SEC-09 a lifecycle command expands $AGENT_PROJECT_DIR and runs; a hook dir run is never preflighted or parsed as shell", () => {
    const w = makeWorld();
    const log = join(w.root, "ran.log");
    w.file(".agent/hooks/x.sh", `#!/bin/sh\ncat >/dev/null\necho lifecycle >> '${log}'\n`, { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "$AGENT_PROJECT_DIR/.agent/hooks/x.sh" }]\n`);
    // A directory name holding `$` (a list command's preflight would reject it) still runs as is.
    const odd = join(w.project, ".agent/hooks/odd$HOME");
    w.file(join(odd, "hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(join(odd, "run.sh"), `#!/bin/sh\ncat >/dev/null\necho dir >> '${log}'\n`, { executable: true });
    const inject = join(w.project, ".agent/hooks/inject");
    w.file(join(inject, "hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh; touch pwned" }));
    w.file(join(inject, "run.sh"), `#!/bin/sh\ncat >/dev/null\necho inject >> '${log}'\n`, { executable: true });
    bashCalls(w, ["true"]);
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(lines(log).sort()).toEqual(["dir", "lifecycle"]);
    const runs = hookRuns(sessionRecords(w));
    expect(runs.find((h) => h.label === "inject")).toMatchObject({ status: "failed", category: "runner" });
    expect(r.stderr).toContain(`not found: ${join(inject, "run.sh; touch pwned")}`);
    for (const dir of [w.project, inject, w.root]) expect(existsSync(join(dir, "pwned"))).toBe(false);
  });

  test("SEC-10 list hooks get redacted payloads by default and full with payload full; hook dirs and lifecycle get the input unredacted", () => {
    const w = makeWorld();
    const save = (name: string): string => w.file(`${name}.sh`, `#!/bin/sh\ncat > '${w.root}/${name}.json'\n`, { executable: true });
    save("dir");
    save("life");
    save("redacted");
    save("full");
    w.file(".agent/hooks/d/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/d/run.sh", `#!/bin/sh\nexec '${w.project}/dir.sh'\n`, { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "./life.sh" }]\n`);
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [
            { label: "r", command: "./redacted.sh" },
            { label: "f", command: "./full.sh", payload: "full" },
          ],
        },
      }),
    );
    bashCalls(w, ["rm -rf build"]);
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    const read = (name: string): Rec => JSON.parse(readFileSync(join(w.root, `${name}.json`), "utf8")) as Rec;
    expect(read("dir")).toMatchObject({ input: { command: "rm -rf build" } });
    expect(read("life")).toMatchObject({ tool_input: { command: "rm -rf build" } });
    const redacted = read("redacted");
    expect(redacted.payload_mode).toBe("redacted");
    expect(redacted.request).toMatchObject({ command: { redacted: true, kind: "command", bytes: 12 } });
    expect(JSON.stringify(redacted)).not.toContain("rm -rf build");
    const full = read("full");
    expect(full.payload_mode).toBe("full");
    expect(full.request).toMatchObject({ command: "rm -rf build" });
    expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "completed" });
  });
});
