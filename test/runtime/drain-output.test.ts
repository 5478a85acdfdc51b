// Output over 64 KiB was cut when piped and the exit code was still 0. `exit`
// now waits until stdout and stderr have drained. The readers here start late (after the writer
// says it is exiting) or read slowly, with more than 1 MiB of output, and must get every byte.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { REPO, makeWorld, runCli, writeScript, type World } from "../support/cli.ts";
import { waitForFile } from "../support/procs.ts";

setDefaultTimeout(60_000);

const MAIN = join(REPO, "src", "main.ts");

/** Reads a stream one chunk at a time, pausing between chunks: a reader slower than the writer. */
function slowRead(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      stream.pause();
      setTimeout(() => stream.resume(), 2);
    });
    stream.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function runSlowly(
  world: World,
  args: readonly string[],
  options: { startReadingAfter?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: world.project, env: world.env() });
  child.stdin.end("");
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const reading = (async () => {
    if (options.startReadingAfter !== undefined) await waitForFile(options.startReadingAfter);
    return Promise.all([slowRead(child.stdout), slowRead(child.stderr)]);
  })();
  return Promise.all([exited, reading]).then(([code, [stdout, stderr]]) => ({ code, stdout, stderr }));
}

describe("output drains before exit", () => {
  test("runtime.exit waits for 2 MiB of stdout and 1 MiB of stderr that a late reader picks up", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-drain-")));
    const marker = join(dir, "exiting");
    const child = spawn(process.execPath, [join(import.meta.dir, "fixtures", "drain-writer.ts"), marker], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Nothing is read until the writer has called exit.
    await waitForFile(marker);
    const [stdout, stderr, code] = await Promise.all([slowRead(child.stdout), slowRead(child.stderr), exited]);
    expect(code).toBe(0);
    expect(stdout.length).toBe(32 * 64 * 1024);
    expect(stderr.length).toBe(16 * 64 * 1024);
    expect(
      stdout
        .split("\n")
        .slice(0, 32)
        .map((line) => line.slice(0, 4)),
    ).toEqual(Array.from({ length: 32 }, (_, i) => String(i).padStart(4, "0")));
  });

  test("`agent run --output-format stream-json` and `agent sessions show` give a slow reader every byte of a 1.5 MiB reply", async () => {
    const w = makeWorld();
    const big = "x".repeat(1536 * 1024);
    writeScript(w, [{ text: `BEGIN${big}END` }]);
    const ending = join(w.root, "ending");
    // The reader of `agent run` starts only once session_end ran, when the agent is about to exit.
    w.file(
      join(w.agentHome, "settings.json"),
      JSON.stringify({ hooks: { lifecycle: { session_end: [{ hooks: [{ command: `cat >/dev/null; touch '${ending}'` }] }] } } }),
    );
    const r = await runSlowly(w, ["run", "--provider", "script", "--script", "script.json", "--output-format", "stream-json", "go"], {
      startReadingAfter: ending,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(r.stdout).toContain(`BEGIN${big}END`);
    const sessionId = parsed.map((line) => line.session_id).find((id) => typeof id === "string");
    expect(typeof sessionId).toBe("string");

    const shown = await runSlowly(w, ["sessions", "show", String(sessionId)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`BEGIN${big}END`);
    // And the same through the synchronous helper (a fast reader), for the byte count.
    expect(runCli(w, ["sessions", "show", String(sessionId)]).stdout).toBe(shown.stdout);
  });

  test("`agent config schema` piped to a late reader is whole JSON", async () => {
    const w = makeWorld();
    const r = await runSlowly(w, ["config", "schema"]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(64 * 1024);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
  });
});
