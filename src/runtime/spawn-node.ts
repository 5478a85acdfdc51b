/**
 * `Runtime.spawn` on Node (and any runtime implementing `node:child_process`; Bun's does).
 *
 * `detached: true` calls setsid() on POSIX, so the child leads a new session and process group
 * (pgid = pid) and `process.kill(-pid)` reaches its grandchildren. Node reports spawn failures
 * asynchronously (an `error` event instead of `spawn`), so this waits for one of the two. A missing
 * cwd surfaces from Node as `spawn /bin/sh ENOENT`, which blames the program; it is checked first
 * so the message names the cwd. The stdin stream gets a permanent `error` listener: an EPIPE with
 * no listener would crash the whole agent.
 */
import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import type { Readable } from "node:stream";
import type { ChildHandle, ExitStatus, Signal, SpawnRequest, SpawnResult } from "./types.ts";
import { windowsKillTree } from "./tree-kill.ts";

function errorCode(error: unknown, fallback: string): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return fallback;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sendSignal(pid: number, group: boolean, signal: Signal): void {
  if (process.platform === "win32") return windowsKillTree(pid);
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Never throws: ESRCH means the group is already gone.
  }
}

/** The handle's `kill`, made outside spawnNode so its closure holds only the pid (runInGroup keeps it through the kill grace, not the child's pipes). */
function groupSignaller(pid: number, group: boolean): (signal: Signal) => void {
  return (signal) => sendSignal(pid, group, signal);
}

function cwdProblem(cwd: string): SpawnResult | null {
  try {
    if (statSync(cwd).isDirectory()) return null;
    return { ok: false, code: "ENOTDIR", message: `cwd is not a directory: ${cwd}` };
  } catch (error) {
    return { ok: false, code: errorCode(error, "ENOENT"), message: `cwd not found: ${cwd}` };
  }
}

/** Adapts a Node readable to a web stream with backpressure (pause until the reader pulls). */
function toWebStream(readable: Readable): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      readable.on("data", (chunk: Buffer | string) => {
        controller.enqueue(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) readable.pause();
      });
      readable.once("end", () => {
        try {
          controller.close();
        } catch {
          // Already cancelled by the reader.
        }
      });
      readable.once("error", () => {
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
    },
    pull() {
      readable.resume();
    },
    cancel() {
      readable.destroy();
    },
  });
}

function waitForSpawn(child: ChildProcess): Promise<Error | null> {
  return new Promise((resolve) => {
    child.once("spawn", () => resolve(null));
    child.once("error", (error) => resolve(error));
  });
}

export async function spawnNode(req: SpawnRequest): Promise<SpawnResult> {
  const badCwd = cwdProblem(req.cwd);
  if (badCwd) return badCwd;
  const [program, ...args] = req.argv;
  if (program === undefined) return { ok: false, code: "EINVAL", message: "empty argv" };
  let child: ChildProcess;
  try {
    child = nodeSpawn(program, args, {
      cwd: req.cwd,
      env: { ...req.env },
      detached: req.newGroup,
      stdio: [req.stdin, req.stdout, req.stderr],
      windowsHide: true,
    });
  } catch (error) {
    return { ok: false, code: errorCode(error, "ESPAWN"), message: errorMessage(error) };
  }
  // Listeners first: the exit and stdin errors may fire before anyone awaits them.
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code: signal ? null : code, signal: signal ?? null }));
  });
  child.stdin?.on("error", () => undefined);
  const spawnError = await waitForSpawn(child);
  const pid = child.pid;
  if (spawnError || pid === undefined) {
    return { ok: false, code: errorCode(spawnError, "ESPAWN"), message: errorMessage(spawnError ?? "no pid") };
  }
  const stdin = child.stdin;
  const handle: ChildHandle = {
    pid,
    writeStdin(data) {
      return new Promise<void>((resolve, reject) => {
        if (!stdin || stdin.destroyed || stdin.writableEnded) {
          reject(Object.assign(new Error("stdin is closed"), { code: "EPIPE" }));
          return;
        }
        stdin.write(data, (error) => {
          if (error) reject(Object.assign(new Error(errorMessage(error)), { code: errorCode(error, "EIO") }));
          else resolve();
        });
      });
    },
    closeStdin() {
      try {
        stdin?.end();
      } catch {
        // Never throws.
      }
    },
    stdout: child.stdout ? toWebStream(child.stdout) : null,
    stderr: child.stderr ? toWebStream(child.stderr) : null,
    exited,
    kill: groupSignaller(pid, req.newGroup),
  };
  return { ok: true, child: handle };
}
