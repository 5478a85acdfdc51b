// SIGTERM and SIGHUP are treated like Ctrl-C. A real `bun src/main.ts run …` waits
// on a signal file its hook or bash command writes; the test then signals it and checks the exit
// code (143, 129), that no process of the hook's or command's group survives (nothing reparented
// to PID 1), and that the session was marked (session_end record, stop reason interrupted).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO, makeWorld, writeScript, type World } from "../support/cli.ts";
import { killGroup, waitForText, waitGroupGone } from "../support/procs.ts";
import { group, lastJson, logTo, readLog, recordsOf, ofType } from "../agent/support.ts";

setDefaultTimeout(60_000);

interface Running {
  readonly child: ReturnType<typeof spawn>;
  readonly done: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>;
}

function start(world: World, args: readonly string[]): Running {
  const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), ...args], { cwd: world.project, env: world.env() });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  child.stdin?.end("");
  return { child, done };
}

const RUN = ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--trust", "--output-format", "json", "go"];

describe("SIGTERM and SIGHUP stop agent run like Ctrl-C", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    test(`LOOP-36 ${signal} during a hanging pre_tool hook kills its group (grandchild too), runs session_end, exits ${code}`, async () => {
      const w = makeWorld();
      writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `touch '${join(w.root, "ran")}'` } }] }, { text: "never" }]);
      w.file(
        ".agent/settings.json",
        JSON.stringify({
          hooks: {
            lifecycle: {
              pre_tool_use: [group([`cat >/dev/null; sleep 300 & echo $$ > '${join(w.root, "pid")}'; sleep 300`])],
              session_end: [group([logTo(w, "end.log")])],
            },
          },
        }),
      );
      const run = start(w, RUN);
      const pgid = Number(await waitForText(join(w.root, "pid")));
      try {
        run.child.kill(signal);
        const r = await run.done;
        expect(r.code).toBe(code);
        expect(await waitGroupGone(pgid)).toEqual([]);
        expect(existsSync(join(w.root, "ran"))).toBe(false);
        expect(readLog(w, "end.log").map((p) => p.reason)).toEqual(["cancelled"]);
        expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "interrupted", is_error: true });
        const end = ofType(recordsOf(w, r), "session_end");
        expect(end).toHaveLength(1);
        expect(end[0]).toMatchObject({ stop_reason: "interrupted" });
      } finally {
        killGroup(pgid);
      }
    });
  }

  test("SIGTERM during a bash tool command kills the command's group and exits 143 with the session marked", async () => {
    const w = makeWorld();
    const pidFile = join(w.root, "bash-pid");
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `sleep 300 & echo $$ > '${pidFile}'; sleep 300` } }] }, { text: "never" }]);
    const run = start(w, RUN);
    const pgid = Number(await waitForText(pidFile));
    try {
      run.child.kill("SIGTERM");
      const r = await run.done;
      expect(r.code).toBe(143);
      expect(await waitGroupGone(pgid)).toEqual([]);
      expect(lastJson(r.stdout)).toMatchObject({ stop_reason: "interrupted" });
      expect(ofType(recordsOf(w, r), "session_end")).toHaveLength(1);
    } finally {
      killGroup(pgid);
    }
  });

  test("a second SIGTERM exits 143 at once and kills a hanging session_end hook too", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `echo $$ > '${join(w.root, "pid")}'; sleep 300` } }] }, { text: "never" }]);
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { lifecycle: { session_end: [group([`cat >/dev/null; echo $$ > '${join(w.root, "end-pid")}'; trap '' TERM; sleep 300`])] } } }),
    );
    const run = start(w, RUN);
    const pgid = Number(await waitForText(join(w.root, "pid")));
    let endPgid = 0;
    try {
      run.child.kill("SIGTERM");
      endPgid = Number(await waitForText(join(w.root, "end-pid")));
      run.child.kill("SIGTERM");
      const r = await run.done;
      expect(r.code).toBe(143);
      expect(await waitGroupGone(endPgid)).toEqual([]);
      expect(await waitGroupGone(pgid)).toEqual([]);
    } finally {
      killGroup(pgid);
      if (endPgid) killGroup(endPgid);
    }
  });

  test("SIGTERM during `agent hooks test` (no session) kills the hanging hook's group and exits 143", async () => {
    const w = makeWorld();
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { lifecycle: { session_start: [group([`cat >/dev/null; echo $$ > '${join(w.root, "pid")}'; sleep 300`])] } } }),
    );
    const run = start(w, ["hooks", "test", "session_start", "--trust"]);
    const pgid = Number(await waitForText(join(w.root, "pid")));
    try {
      run.child.kill("SIGTERM");
      const r = await run.done;
      expect(r.code).toBe(143);
      expect(await waitGroupGone(pgid)).toEqual([]);
    } finally {
      killGroup(pgid);
    }
  });
});

describe("SIGTERM in the interactive session", () => {
  test("SIGTERM while a bash command runs kills its group, ends the session with session_end, exits 143", async () => {
    const w = makeWorld();
    const pidFile = join(w.root, "bash-pid");
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `sleep 300 & echo $$ > '${pidFile}'; sleep 300` } }] }, { text: "never" }]);
    w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { lifecycle: { session_end: [group([logTo(w, "end.log")])] } } }));
    const child = spawn(process.execPath, [join(REPO, "src", "main.ts"), "--script", "script.json", "--permission-mode", "bypass"], {
      cwd: w.project,
      env: w.env({ AGENT_INTERACTIVE: "1" }),
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
    child.stdout.on("data", () => undefined);
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    child.stdin.write("go\n");
    const pgid = Number(await waitForText(pidFile));
    try {
      child.kill("SIGTERM");
      expect(await done).toBe(143);
      expect(await waitGroupGone(pgid)).toEqual([]);
      expect(readLog(w, "end.log")).toHaveLength(1);
      expect(stderr).not.toContain("internal error");
    } finally {
      killGroup(pgid);
      child.stdin.destroy();
    }
  });
});
