import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitForFile } from "../support/procs.ts";
import { bashTool } from "../../src/tools/bash.ts";
import { makeContext, makeWorkspace, spyRuntime, waitUntilDead, type Workspace } from "./helpers.ts";

const PATH = process.env.PATH ?? "/usr/bin:/bin";
let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

describe("bash", () => {
  test("runs /bin/bash -c (not login) in ctx.cwd as a new group with ctx.env; stdout+stderr combined", async () => {
    mkdirSync(join(ws.root, "sub"));
    const spy = spyRuntime();
    const ctx = makeContext(ws.root, { runtime: spy.runtime, cwd: join(ws.root, "sub"), env: { PATH, MARK: "m1" } });
    const result = await bashTool.execute({ command: "pwd; echo out; echo err >&2; echo $MARK" }, ctx);
    expect(result.success).toBe(true);
    const lines = result.content.trim().split("\n");
    expect(lines[0]).toBe(join(ws.root, "sub"));
    expect(lines).toContain("out");
    expect(lines).toContain("err");
    expect(lines).toContain("m1");
    // Two pipes: order across stdout/stderr is not guaranteed, order within one stream is.
    expect(lines.indexOf("out")).toBeLessThan(lines.indexOf("m1"));
    expect(result.metadata).toMatchObject({ exit_code: 0 });
    expect(spy.spawns).toHaveLength(1);
    expect(spy.spawns[0]).toMatchObject({ argv: ["/bin/bash", "-c", "pwd; echo out; echo err >&2; echo $MARK"], newGroup: true, cwd: join(ws.root, "sub") });
  });

  test("non-zero exit is success:false with the output and `exit code N`", async () => {
    const result = await bashTool.execute({ command: "echo partial; exit 3" }, makeContext(ws.root));
    expect(result.success).toBe(false);
    expect(result.content).toBe("partial\n[exit code 3]");
    expect(result.metadata).toMatchObject({ exit_code: 3 });
  });

  test("RUN-10 PWD, OLDPWD and TOKENIZERS_PARALLELISM reach the bash spawn unchanged", async () => {
    const spy = spyRuntime();
    const env = { PATH, PWD: "/x", OLDPWD: "/y", TOKENIZERS_PARALLELISM: "false" };
    const result = await bashTool.execute({ command: "echo $TOKENIZERS_PARALLELISM" }, makeContext(ws.root, { runtime: spy.runtime, env }));
    expect(result.content.trim()).toBe("false");
    // bash itself resets PWD/OLDPWD that do not name real directories; the spawn env is what D18 governs.
    expect(spy.spawns[0]?.env).toMatchObject({ PWD: "/x", OLDPWD: "/y", TOKENIZERS_PARALLELISM: "false" });
  });

  test("RUN-11 BASH_ENV, ENV and exported functions never reach the child and never run", async () => {
    const evil = join(ws.outside, "evil.sh");
    const envRan = join(ws.outside, "bashenv-ran");
    const fnRan = join(ws.outside, "fn-ran");
    writeFileSync(evil, `touch ${envRan}\n`);
    const spy = spyRuntime();
    const env = { PATH, BASH_ENV: evil, ENV: evil, "BASH_FUNC_ls%%": `() { touch ${fnRan}; }` };
    const result = await bashTool.execute({ command: "ls >/dev/null; env" }, makeContext(ws.root, { runtime: spy.runtime, env }));
    expect(result.success).toBe(true);
    const childEnv = spy.spawns[0]?.env ?? {};
    expect(Object.keys(childEnv).filter((key) => key === "BASH_ENV" || key === "ENV" || key.startsWith("BASH_FUNC_"))).toEqual([]);
    expect(result.content).not.toContain("BASH_ENV");
    expect(result.content).not.toContain("BASH_FUNC");
    expect(existsSync(envRan)).toBe(false);
    expect(existsSync(fnRan)).toBe(false);
  });

  test("SEC-37 `env` shows neither BASH_ENV nor a stripped key; PWD is present", async () => {
    // The caller strips D18 names; ctx.env here is what it would pass (no OPENAI_API_KEY), plus BASH_ENV.
    const result = await bashTool.execute({ command: "env" }, makeContext(ws.root, { env: { PATH, BASH_ENV: "/tmp/evil.sh" } }));
    expect(result.success).toBe(true);
    expect(result.content).not.toContain("BASH_ENV");
    expect(result.content).not.toContain("sk-canary");
    expect(result.content).toMatch(/^PWD=/m);
  });

  test("timeout: SIGTERM then SIGKILL of the group, success:false with a note, no survivors", async () => {
    const pidFile = join(ws.root, "pids");
    const result = await bashTool.execute(
      { command: `trap '' TERM; sleep 300 & echo $! > ${pidFile}; echo started; sleep 300`, timeout: 400 },
      makeContext(ws.root),
    );
    expect(result.success).toBe(false);
    expect(result.content).toContain("started");
    expect(result.content).toContain("[command timed out after 400 ms]");
    expect(result.metadata).toMatchObject({ timed_out: true });
    const pid = Number((await Bun.file(pidFile).text()).trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilDead(pid)).toBe(true);
  });

  test("a background `sleep 300 &` holding stdout neither blocks the call nor outlives it", async () => {
    const result = await bashTool.execute({ command: "sleep 300 & echo $!" }, makeContext(ws.root));
    expect(result.success).toBe(true);
    const pid = Number(result.content.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilDead(pid)).toBe(true);
  });

  test("cancel via AbortSignal kills the group", async () => {
    const controller = new AbortController();
    const ready = join(ws.root, "cancel.ready");
    const pending = bashTool.execute({ command: `echo $$; : > '${ready}'; sleep 300` }, makeContext(ws.root, { signal: controller.signal }));
    await waitForFile(ready); // the command runs: cancel it now
    controller.abort();
    const result = await pending;
    expect(result.success).toBe(false);
    expect(result.content).toContain("[command cancelled]");
    const pid = Number(result.content.split("\n")[0]);
    expect(await waitUntilDead(pid)).toBe(true);
    const already = await bashTool.execute({ command: "echo never" }, makeContext(ws.root, { signal: controller.signal }));
    expect(already.success).toBe(false);
    expect(already.content).not.toContain("never");
  });

  test("output is capped, keeping head and tail with a truncation note", async () => {
    const result = await bashTool.execute({ command: "echo FIRST; head -c 1000000 /dev/zero | tr '\\0' x; echo; echo LAST" }, makeContext(ws.root));
    expect(result.success).toBe(true);
    expect(result.content.length).toBeLessThan(256 * 1024 + 200);
    expect(result.content).toStartWith("FIRST\n");
    expect(result.content.trimEnd()).toEndWith("LAST");
    expect(result.content).toMatch(/\[\.\.\. output truncated: \d+ bytes omitted of 1000012 \.\.\.\]/);
    expect(result.metadata).toMatchObject({ truncated: true, output_bytes: 1000012 });
  });

  test("death by signal and bad input are error results", async () => {
    const killed = await bashTool.execute({ command: "kill -9 $$" }, makeContext(ws.root));
    expect(killed.success).toBe(false);
    expect(killed.content).toContain("SIGKILL");
    const invalid = await bashTool.execute({}, makeContext(ws.root));
    expect(invalid.success).toBe(false);
    expect(invalid.content).toContain("command");
    const badCwd = await bashTool.execute({ command: "true" }, makeContext(ws.root, { cwd: join(ws.root, "missing") }));
    expect(badCwd.success).toBe(false);
  });
});
