/**
 * `Runtime.spawn` on Bun, over `Bun.spawn`.
 *
 * Probed on Bun 1.4: `detached: true` calls setsid(), so the child leads a new session and process
 * group (pgid = pid) with no controlling terminal, and `process.kill(-pid)` reaches grandchildren.
 * `proc.exited` resolves on the direct child's exit (not pipe close) but yields 128+n for a death
 * by signal, so the status is read from `exitCode`/`signalCode` instead. Spawn failures (ENOENT,
 * EACCES, missing cwd) are thrown synchronously with an errno `code`; stdin writes to a closed
 * pipe reject with `code: "EPIPE"`.
 */
import type { ChildHandle, ExitStatus, Signal, SpawnRequest, SpawnResult } from "./types.ts";
import { windowsKillTree } from "./tree-kill.ts";

function errorCode(error: unknown, fallback: string): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return fallback;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An Error with the errno name in `code`, as ChildHandle.writeStdin promises. */
function codedError(error: unknown): Error {
  return Object.assign(new Error(errorMessage(error)), { code: errorCode(error, "EIO") });
}

/** Signals the group (negative pid) or the child alone. ESRCH (already gone) and EPERM are ignored. */
function sendSignal(pid: number, group: boolean, signal: Signal): void {
  if (process.platform === "win32") return windowsKillTree(pid);
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {
    // Never throws: a vanished group is the goal, not an error.
  }
}

/**
 * The handle's `kill`, made outside spawnBun so its closure holds only the pid: runInGroup keeps
 * it through the kill grace after an exit, and a closure of spawnBun's scope would keep the
 * Subprocess with its pipes alive too (hundreds per grace window in a busy session).
 */
function groupSignaller(pid: number, group: boolean): (signal: Signal) => void {
  return (signal) => sendSignal(pid, group, signal);
}

export async function spawnBun(req: SpawnRequest): Promise<SpawnResult> {
  let proc: Bun.Subprocess<"pipe" | "ignore", "pipe" | "ignore" | "inherit", "pipe" | "ignore" | "inherit">;
  try {
    proc = Bun.spawn([...req.argv], {
      cwd: req.cwd,
      env: { ...req.env },
      stdin: req.stdin,
      stdout: req.stdout,
      stderr: req.stderr,
      detached: req.newGroup,
    });
  } catch (error) {
    return { ok: false, code: errorCode(error, "ESPAWN"), message: errorMessage(error) };
  }
  const pid = proc.pid;
  const sink = req.stdin === "pipe" ? proc.stdin : undefined;
  const status = (): ExitStatus => {
    const signal = proc.signalCode === null || proc.signalCode === undefined ? null : String(proc.signalCode);
    return { code: signal === null ? proc.exitCode : null, signal };
  };
  const exited: Promise<ExitStatus> = proc.exited.then(status, status);
  const readable = (stream: unknown): ReadableStream<Uint8Array> | null => (stream instanceof ReadableStream ? stream : null);

  const child: ChildHandle = {
    pid,
    async writeStdin(data) {
      if (!sink || typeof sink === "number") throw Object.assign(new Error("stdin is not a pipe"), { code: "EBADF" });
      try {
        await sink.write(data);
        await sink.flush();
      } catch (error) {
        throw codedError(error);
      }
    },
    closeStdin() {
      if (!sink || typeof sink === "number") return;
      try {
        Promise.resolve(sink.end()).catch(() => undefined);
      } catch {
        // Closing an already broken pipe is not an error for the caller.
      }
    },
    stdout: req.stdout === "pipe" ? readable(proc.stdout) : null,
    stderr: req.stderr === "pipe" ? readable(proc.stderr) : null,
    exited,
    kill: groupSignaller(pid, req.newGroup),
  };
  return { ok: true, child };
}
