// `setsid -f sleep 30` from a hook or the bash tool leaves the process group the
// agent kills. On Linux under Bun the agent is a child subreaper, so the orphan is re-parented to
// it, and at exit every remaining descendant is killed: `ps` after the run finds none of them.
// Where that is impossible (here: Deno), `agent hooks validate` says so.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, makeWorld, runCliAsync, writeScript } from "../support/cli.ts";
import { isAlive } from "../support/procs.ts";

setDefaultTimeout(60_000);

/** `ps` rows (pid and state) for `pid`; zombies (Z) hold no resources and count as gone. */
function psLive(pid: number): string[] {
  let text = "";
  try {
    text = execFileSync("ps", ["-o", "pid=,stat=", "-p", String(pid)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when no process matches
  }
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/\sZ/.test(line));
}

/** Starts an escaped `sleep 30` in a new session and waits (no sleep) until it has written its pid. */
function escape(pidFile: string): string {
  return `setsid -f sh -c 'echo $$ > ${pidFile}; exec sleep 30' </dev/null >/dev/null 2>&1; while [ ! -s ${pidFile} ]; do :; done`;
}

function pidIn(path: string): number {
  return Number(readFileSync(path, "utf8").trim());
}

describe("escaped descendants are killed at exit (subreaper)", () => {
  test("a setsid escape from a lifecycle hook, a list hook and a bash call: none is alive after agent run", async () => {
    const w = makeWorld();
    const pids = { lifecycle: join(w.root, "lifecycle.pid"), list: join(w.root, "list.pid"), bash: join(w.root, "bash.pid") };
    const listHook = w.file(join(w.agentHome, "escape.sh"), `#!/bin/sh\ncat >/dev/null\n${escape(pids.list)}\n`, { executable: true });
    w.file(
      join(w.agentHome, "settings.json"),
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [{ label: "escape", command: listHook }],
          lifecycle: { session_start: [{ hooks: [{ command: `cat >/dev/null; ${escape(pids.lifecycle)}` }] }] },
        },
      }),
    );
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: escape(pids.bash) } }] }, { text: "done" }], "s.json");
    const r = await runCliAsync(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "--no-session", "hi"]);
    expect(r.code).toBe(0);
    for (const [name, file] of Object.entries(pids)) {
      expect(existsSync(file)).toBe(true);
      const pid = pidIn(file);
      expect(pid, name).toBeGreaterThan(0);
      expect({ name, rows: psLive(pid) }).toEqual({ name, rows: [] });
      expect(isAlive(pid)).toBe(false);
    }
  });

  test("the escape is re-parented to the agent while it runs (not to PID 1)", async () => {
    const w = makeWorld();
    const pidFile = join(w.root, "esc.pid");
    const seen = join(w.root, "ppid");
    // The second call reads the escaped process's parent while the agent is still running.
    writeScript(
      w,
      [
        { tool_calls: [{ name: "bash", arguments: { command: escape(pidFile) } }] },
        { tool_calls: [{ name: "bash", arguments: { command: `ps -o ppid= -p $(cat ${pidFile}) > ${seen}; echo $PPID >> ${seen}` } }] },
        { text: "done" },
      ],
      "s.json",
    );
    const r = await runCliAsync(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "--no-session", "hi"]);
    expect(r.code).toBe(0);
    const [ppidOfEscape, agentPid] = readFileSync(seen, "utf8")
      .trim()
      .split("\n")
      .map((line) => Number(line.trim()));
    expect(ppidOfEscape).toBe(agentPid);
    expect(ppidOfEscape).not.toBe(1);
    expect(psLive(pidIn(pidFile))).toEqual([]);
  });

  test("hooks validate says where descendants cannot be reaped (the CLI under Deno) and says nothing under Bun", () => {
    const w = makeWorld();
    w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { session_start: [{ hooks: [{ command: "true" }] }] } } }));
    const bun = execFileSync(process.execPath, [join(REPO, "src", "main.ts"), "hooks", "validate"], { cwd: w.project, env: w.env(), encoding: "utf8" });
    expect(bun).not.toContain("note: a hook's descendant");
    const deno = join(REPO, "node_modules", ".bin", "deno");
    const out = execFileSync(deno, ["run", "-A", join(REPO, "src", "main.ts"), "hooks", "validate"], {
      cwd: w.project,
      env: { ...w.env(), DENO_NO_UPDATE_CHECK: "1" },
      encoding: "utf8",
    });
    expect(out).toContain(
      "note: a hook's descendant that leaves its process group (setsid) is not killed when the agent exits here: needs Bun's FFI (running on Deno or Node)",
    );
    expect(out).toContain("ok: 1 hook in 1 file");
  });
});
