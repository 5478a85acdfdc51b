/**
 * `Runtime.spawn` on Deno, over `Deno.Command`.
 *
 * Probed on Deno 2.9: `detached: true` makes the child a session leader (setsid: pgid = sid = pid,
 * no controlling terminal) and `Deno.kill(-pid, sig)` signals the whole group (it throws NotFound
 * for ESRCH, swallowed here). `clearEnv` + `env` replaces the environment; a bare argv[0] is looked
 * up on that env's PATH. Spawn failures throw synchronously with an errno `code` (ENOENT, EACCES,
 * and ENOENT for a missing cwd). Stdin write errors are `BrokenPipe` with `code: "EPIPE"`.
 * `child.status` resolves on the direct child's exit; a background grandchild holding the stdout
 * pipe does not delay it.
 *
 * The project type-checks against Bun's types only, so the few Deno APIs used are declared here.
 */
import type { ChildHandle, ExitStatus, Signal, SpawnRequest, SpawnResult } from "./types.ts";

interface DenoChild {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ success: boolean; code: number; signal: string | null }>;
}

interface DenoCommandOptions {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  clearEnv: boolean;
  stdin: "piped" | "null" | "inherit";
  stdout: "piped" | "null" | "inherit";
  stderr: "piped" | "null" | "inherit";
  detached: boolean;
}

interface DenoApi {
  Command: new (program: string, options: DenoCommandOptions) => { spawn(): DenoChild };
  kill(pid: number, signal: string): void;
}

function isDenoApi(value: unknown): value is DenoApi {
  return (
    typeof value === "object" &&
    value !== null &&
    "Command" in value &&
    typeof value.Command === "function" &&
    "kill" in value &&
    typeof value.kill === "function"
  );
}

function denoApi(): DenoApi | null {
  const value: unknown = Reflect.get(globalThis, "Deno");
  return isDenoApi(value) ? value : null;
}

function errorCode(error: unknown, fallback: string): string {
  if (typeof error === "object" && error !== null) {
    if ("code" in error && typeof error.code === "string") return error.code;
    if ("name" in error && error.name === "BrokenPipe") return "EPIPE";
    if ("name" in error && error.name === "NotFound") return "ENOENT";
    if ("name" in error && error.name === "PermissionDenied") return "EACCES";
  }
  return fallback;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function stdio(mode: "pipe" | "ignore" | "inherit"): "piped" | "null" | "inherit" {
  return mode === "pipe" ? "piped" : mode === "ignore" ? "null" : "inherit";
}

/** The handle's `kill`, made outside spawnDeno so its closure holds only the pid (runInGroup keeps it through the kill grace, not the child's pipes). */
function groupSignaller(deno: DenoApi, target: number): (signal: Signal) => void {
  return (signal) => {
    try {
      deno.kill(target, signal);
    } catch {
      // Never throws: NotFound (ESRCH) means the group is already gone.
    }
  };
}

export async function spawnDeno(req: SpawnRequest): Promise<SpawnResult> {
  const deno = denoApi();
  if (!deno) return { ok: false, code: "ENOSYS", message: "Deno runtime not available" };
  const [program, ...args] = req.argv;
  if (program === undefined) return { ok: false, code: "EINVAL", message: "empty argv" };
  let proc: DenoChild;
  try {
    proc = new deno.Command(program, {
      args,
      cwd: req.cwd,
      env: { ...req.env },
      clearEnv: true,
      stdin: stdio(req.stdin),
      stdout: stdio(req.stdout),
      stderr: stdio(req.stderr),
      detached: req.newGroup,
    }).spawn();
  } catch (error) {
    return { ok: false, code: errorCode(error, "ESPAWN"), message: errorMessage(error) };
  }
  const pid = proc.pid;
  // Deno reports 128+n in `code` for a death by signal; a signal death must never read as a code.
  const exited: Promise<ExitStatus> = proc.status.then(
    (status) => ({ code: status.signal ? null : status.code, signal: status.signal ?? null }),
    () => ({ code: null, signal: null }),
  );
  const writer = req.stdin === "pipe" ? proc.stdin.getWriter() : null;
  // A pending write rejects when the pipe breaks; nobody may be listening by then.
  writer?.closed.catch(() => undefined);
  const kill = groupSignaller(deno, req.newGroup ? -pid : pid);
  const child: ChildHandle = {
    pid,
    async writeStdin(data) {
      if (!writer) throw Object.assign(new Error("stdin is not a pipe"), { code: "EBADF" });
      try {
        await writer.write(data);
      } catch (error) {
        throw Object.assign(new Error(errorMessage(error)), { code: errorCode(error, "EIO") });
      }
    },
    closeStdin() {
      if (!writer) return;
      try {
        writer.close().catch(() => undefined);
      } catch {
        // Never throws.
      }
    },
    stdout: req.stdout === "pipe" ? proc.stdout : null,
    stderr: req.stderr === "pipe" ? proc.stderr : null,
    exited,
    kill,
  };
  return { ok: true, child };
}
