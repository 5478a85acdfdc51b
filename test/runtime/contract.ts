/**
 * The spawn contract of src/runtime/types.ts, checked with real processes. Runtime-neutral (no
 * bun:test): contract.test.ts runs it under Bun for the bun and node spawners, contract-cli.ts
 * under Deno and Node. Each check cleans up its own process group.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildHandle, ExitStatus, Runtime, SpawnRequest } from "../../src/runtime/types.ts";
import { isAlive, killGroup, procInfo, waitGroupGone } from "../support/procs.ts";

const BASE_ENV: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C" };
const CHECK_LIMIT_MS = 15_000;

type Check = (ctx: Ctx) => Promise<void>;

interface Ctx {
  readonly runtime: Runtime;
  readonly dir: string;
  /** Spawns or throws (a check's setup failing is a failed check). Tracks the group for cleanup. */
  spawn(argv: string[], extra?: Partial<SpawnRequest>): Promise<ChildHandle>;
}

class CheckFailure extends Error {}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailure(message);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!stream) return "";
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return new TextDecoder().decode(concat(chunks));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Reads until the first newline; leaves the stream locked (the check ends with a group kill). */
async function readLine(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  assert(stream, "stdout stream is null");
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0] ?? "";
}

function withLimit<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CheckFailure(`${what} did not happen within ${ms}ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function sameExit(actual: ExitStatus, expected: ExitStatus): boolean {
  return actual.code === expected.code && actual.signal === expected.signal;
}

const checks: Record<string, Check> = {
  async "argv is exec'd without a shell"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", 'printf "%s|" "$@"', "sh", "a b", "$HOME;echo x", "*"]);
    const out = await readAll(child.stdout);
    assert(out === "a b|$HOME;echo x|*|", `argv mangled: ${JSON.stringify(out)}`);
  },

  async "env is replaced entirely"(ctx) {
    const child = await ctx.spawn(["/usr/bin/env"], { env: { PATH: "/usr/bin:/bin", ONLY_THIS: "1" } });
    const lines = (await readAll(child.stdout))
      .split("\n")
      .filter((l) => l.length > 0)
      .sort();
    assert(JSON.stringify(lines) === JSON.stringify(["ONLY_THIS=1", "PATH=/usr/bin:/bin"]), `env: ${JSON.stringify(lines)}`);
  },

  async "bare argv[0] is looked up on the env's PATH"(ctx) {
    const bin = join(ctx.dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "contract-tool"), "#!/bin/sh\nexit 7\n", { mode: 0o755 });
    const child = await ctx.spawn(["contract-tool"], { env: { PATH: `${bin}:/usr/bin:/bin` } });
    const exit = await child.exited;
    assert(sameExit(exit, { code: 7, signal: null }), `exit ${JSON.stringify(exit)}`);
  },

  async "cwd is honoured"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "pwd -P"]);
    const out = (await readAll(child.stdout)).trim();
    assert(out === realpathSync(ctx.dir), `pwd ${out} != ${ctx.dir}`);
  },

  async "stdout and stderr are separate pipes"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "echo out; echo err >&2"]);
    const [out, err] = await Promise.all([readAll(child.stdout), readAll(child.stderr)]);
    assert(out === "out\n" && err === "err\n", `out=${JSON.stringify(out)} err=${JSON.stringify(err)}`);
  },

  async "newGroup makes the child a group and session leader"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "sleep 30"]);
    const info = procInfo(child.pid);
    assert(info, "child not found in /proc");
    assert(info.pgid === child.pid, `pgid ${info.pgid} != pid ${child.pid}`);
    assert(info.sid === child.pid, `sid ${info.sid} != pid ${child.pid}`);
  },

  async "without newGroup the child stays in our group"(ctx) {
    // exec: no grandchild, since a kill without newGroup reaches the child alone.
    const child = await ctx.spawn(["/bin/sh", "-c", "exec sleep 30"], { newGroup: false });
    const info = procInfo(child.pid);
    try {
      assert(info, "child not found in /proc");
      assert(info.pgid !== child.pid, "child leads its own group without newGroup");
    } finally {
      child.kill("SIGKILL");
    }
    const exit = await withLimit(child.exited, 5000, "exit after kill");
    assert(exit.signal === "SIGKILL", `exit ${JSON.stringify(exit)}`);
  },

  async "kill reaches grandchildren"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "sleep 300 & echo $!; wait"]);
    const grandchild = Number(await readLine(child.stdout));
    assert(grandchild > 0 && isAlive(grandchild), "grandchild not started");
    child.kill("SIGTERM");
    const exit = await withLimit(child.exited, 5000, "exit after SIGTERM");
    assert(exit.signal === "SIGTERM" && exit.code === null, `exit ${JSON.stringify(exit)}`);
    const survivors = await waitGroupGone(child.pid, 3000);
    assert(survivors.length === 0, `survivors ${survivors.join(",")}`);
  },

  async "SIGKILL reaches a TERM-ignoring group"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "trap '' TERM; sleep 300 & echo $!; while :; do sleep 1; done"]);
    await readLine(child.stdout);
    child.kill("SIGTERM");
    await sleep(200);
    assert(isAlive(child.pid), "TERM was not ignored, check is meaningless");
    child.kill("SIGKILL");
    const exit = await withLimit(child.exited, 5000, "exit after SIGKILL");
    assert(exit.signal === "SIGKILL", `exit ${JSON.stringify(exit)}`);
    const survivors = await waitGroupGone(child.pid, 3000);
    assert(survivors.length === 0, `survivors ${survivors.join(",")}`);
  },

  async "kill never throws after the group is gone"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "exit 0"]);
    await child.exited;
    await sleep(50);
    child.kill("SIGTERM");
    child.kill("SIGKILL");
    child.kill("SIGINT");
  },

  async "exited resolves on exit while a grandchild holds stdout"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "sleep 300 & echo ok; exit 0"]);
    const exit = await withLimit(child.exited, 5000, "exited");
    assert(sameExit(exit, { code: 0, signal: null }), `exit ${JSON.stringify(exit)}`);
    assert(procInfo(child.pid) === null || procInfo(child.pid)?.state === "Z", "direct child still running");
  },

  async "exit codes and deaths by signal"(ctx) {
    const cases: Array<[string, ExitStatus]> = [
      ["exit 0", { code: 0, signal: null }],
      ["exit 3", { code: 3, signal: null }],
      ["kill -SEGV $$", { code: null, signal: "SIGSEGV" }],
      ["kill -9 $$", { code: null, signal: "SIGKILL" }],
      ["kill -TERM $$", { code: null, signal: "SIGTERM" }],
    ];
    for (const [script, expected] of cases) {
      const child = await ctx.spawn(["/bin/sh", "-c", script]);
      const exit = await withLimit(child.exited, 5000, `exit of ${script}`);
      assert(sameExit(exit, expected), `${script}: ${JSON.stringify(exit)}`);
    }
  },

  async "spawn failures are values"(ctx) {
    const noexec = join(ctx.dir, "noexec.sh");
    writeFileSync(noexec, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    chmodSync(noexec, 0o644);
    const base: SpawnRequest = { argv: [], cwd: ctx.dir, env: BASE_ENV, newGroup: true, stdin: "pipe", stdout: "pipe", stderr: "pipe" };
    const cases: Array<[string, SpawnRequest, string[]]> = [
      ["missing program", { ...base, argv: [join(ctx.dir, "missing")] }, ["ENOENT"]],
      ["name not on PATH", { ...base, argv: ["agent-contract-no-such-cmd"] }, ["ENOENT"]],
      ["not executable", { ...base, argv: [noexec] }, ["EACCES"]],
      ["missing cwd", { ...base, argv: ["/bin/sh", "-c", "exit 0"], cwd: join(ctx.dir, "nope") }, ["ENOENT", "ENOTDIR"]],
    ];
    for (const [what, req, codes] of cases) {
      let result;
      try {
        result = await ctx.runtime.spawn(req);
      } catch (error) {
        throw new CheckFailure(`${what}: spawn threw ${String(error)}`);
      }
      if (result.ok) result.child.kill("SIGKILL");
      assert(!result.ok, `${what}: spawned`);
      assert(codes.includes(result.code), `${what}: code ${result.code} (${result.message})`);
      assert(result.message.length > 0, `${what}: empty message`);
    }
  },

  async "stdin round trip with concurrent output (2 MiB)"(ctx) {
    const child = await ctx.spawn(["/bin/cat"]);
    const data = new Uint8Array(2 * 1024 * 1024).map((_, i) => i % 251);
    const reading = (async () => {
      const reader = child.stdout!.getReader();
      let n = 0;
      let ok = true;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        for (let i = 0; i < value.byteLength; i++) if (value[i] !== (n + i) % 251) ok = false;
        n += value.byteLength;
      }
      return { n, ok };
    })();
    await withLimit(child.writeStdin(data), 10_000, "stdin write");
    child.closeStdin();
    const { n, ok } = await withLimit(reading, 10_000, "stdout EOF");
    assert(n === data.byteLength && ok, `echoed ${n} bytes, intact=${ok}`);
    const exit = await child.exited;
    assert(sameExit(exit, { code: 0, signal: null }), `exit ${JSON.stringify(exit)}`);
  },

  async "closeStdin gives EOF"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "wc -c"]);
    await child.writeStdin(new TextEncoder().encode("hello\n"));
    child.closeStdin();
    child.closeStdin(); // twice: never throws
    const out = await withLimit(readAll(child.stdout), 5000, "EOF");
    assert(out.trim() === "6", `wc said ${JSON.stringify(out)}`);
  },

  async "writeStdin rejects with code EPIPE on a closed pipe"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "exec 0<&-; sleep 0.3; exit 0"]);
    let code: unknown = "resolved";
    try {
      await withLimit(child.writeStdin(new Uint8Array(4 * 1024 * 1024)), 10_000, "stdin write to settle");
    } catch (error) {
      code = error instanceof Error && "code" in error ? error.code : `non-coded ${String(error)}`;
    }
    assert(code === "EPIPE", `write settled with ${String(code)}`);
    const exit = await child.exited;
    assert(sameExit(exit, { code: 0, signal: null }), `exit ${JSON.stringify(exit)}`);
  },

  async "ignored stdio"(ctx) {
    const child = await ctx.spawn(["/bin/sh", "-c", "cat; echo done >&2"], { stdin: "ignore", stdout: "ignore" });
    assert(child.stdout === null, "stdout stream for ignored stdout");
    const err = await withLimit(readAll(child.stderr), 5000, "stderr EOF");
    assert(err === "done\n", `stderr ${JSON.stringify(err)}`);
    const exit = await child.exited;
    assert(sameExit(exit, { code: 0, signal: null }), `exit ${JSON.stringify(exit)}`);
  },
};

export async function runContract(runtime: Runtime): Promise<{ passed: number; failed: string[] }> {
  const failed: string[] = [];
  let passed = 0;
  const root = mkdtempSync(join(tmpdir(), "agent-contract-"));
  try {
    for (const [name, check] of Object.entries(checks)) {
      const dir = realpathSync(mkdtempSync(join(root, "c-")));
      const groups: number[] = [];
      const ctx: Ctx = {
        runtime,
        dir,
        async spawn(argv, extra) {
          const result = await runtime.spawn({ argv, cwd: dir, env: BASE_ENV, newGroup: true, stdin: "pipe", stdout: "pipe", stderr: "pipe", ...extra });
          if (!result.ok) throw new CheckFailure(`spawn ${argv[0]} failed: ${result.code} ${result.message}`);
          if (extra?.newGroup !== false) groups.push(result.child.pid);
          return result.child;
        },
      };
      try {
        await withLimit(check(ctx), CHECK_LIMIT_MS, "check");
        passed++;
      } catch (error) {
        failed.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        for (const pgid of groups) killGroup(pgid);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { passed, failed };
}
