// A Claude Code `once` hook runs once per session, even across the fresh hook
// engine a cancelled turn (Ctrl-C) leaves behind. Real interactive process, real hook scripts.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, REPO, writeScript, type World } from "../support/cli.ts";

const MAIN = join(REPO, "src", "main.ts");

function start(w: World, args: string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: w.project, env: w.env({ AGENT_INTERACTIVE: "1" }) });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
  const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { write: (line: string) => child.stdin.write(`${line}\n`), signal: () => child.kill("SIGINT"), stdout: () => stdout, stderr: () => stderr, done };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function counter(w: World, name: string): string {
  return w.file(join(w.root, "bin", `${name}.sh`), `#!/bin/sh\ncat >/dev/null\necho x >> "${w.root}/${name}.count"\n`, { executable: true });
}

function runs(w: World, name: string): number {
  const path = join(w.root, `${name}.count`);
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").length : 0;
}

function sessionRecords(w: World): Record<string, unknown>[] {
  const dir = join(w.agentHome, "sessions");
  const [name] = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(".jsonl")) : [];
  return name === undefined ? [] : readJsonl(readFileSync(join(dir, name), "utf8"));
}

describe("once across a cancelled turn", () => {
  test("LIFE-70 a once UserPromptSubmit hook does not run again after Ctrl-C; an ordinary one does", async () => {
    const w = makeWorld();
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "sleep 30" } }] }, { text: "still here" }]);
    // User scope: no project trust needed.
    const once = counter(w, "once");
    const every = counter(w, "every");
    w.file(
      join(w.agentHome, "settings.json"),
      JSON.stringify({
        hooks: {
          lifecycle: {
            UserPromptSubmit: [
              {
                hooks: [
                  { type: "command", command: once, once: true },
                  { type: "command", command: every },
                ],
              },
            ],
          },
        },
      }),
    );
    const s = start(w, ["--script", "script.json", "--permission-mode", "bypass"]);
    s.write("go");
    await waitFor(() => sessionRecords(w).some((x) => x.type === "tool_call"), "the bash call");
    s.signal();
    await waitFor(() => s.stderr().includes("agent: turn cancelled"), "the cancelled turn");
    await waitFor(() => s.stderr().trimEnd().endsWith(">"), "the prompt");
    s.write("again");
    await waitFor(() => s.stdout().includes("still here") && s.stderr().trimEnd().endsWith(">"), "the next turn");
    s.write("/exit");
    expect(await s.done).toBe(0);
    expect(
      sessionRecords(w)
        .filter((x) => x.type === "user")
        .map((x) => x.content),
    ).toEqual(["go", "again"]);
    expect(runs(w, "every")).toBe(2);
    expect(runs(w, "once")).toBe(1);
  }, 60_000);
});
