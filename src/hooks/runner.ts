/**
 * Runs one hook process to completion over a `Runtime` (D15): stdin write, run and output drain
 * inside one deadline (the deadline covers the write; pipes still open after an in-time exit get
 * at most the drain grace); stdout/stderr drained concurrently with the stdin write (no deadlock);
 * capped capture that never holds more than the cap; resolution on the direct child's exit, not
 * on pipe close; SIGTERM to the whole group, then SIGKILL after the grace, unconditionally.
 *
 * The runner knows nothing of dialects: it reports how the process ended (`RunResult.kind`), and
 * dispatch/dialects decide what that means. It never throws.
 */
import type { ChildHandle, ExitStatus, Runtime, SpawnResult } from "../runtime/types.ts";

export const DEFAULT_KILL_GRACE_MS = 500;
export const DEFAULT_DRAIN_GRACE_MS = 200;
/** How long to wait for the direct child's exit after the final SIGKILL before giving up on it. */
const REAP_WAIT_MS = 1000;

export type RunKind = "ok" | "timeout" | "runner" | "stdin" | "output-limit";

export interface RunRequest {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** One JSON line. EPIPE while writing is ignored (D15): the exit status decides. */
  readonly stdin: Uint8Array;
  readonly timeoutMs: number;
  readonly stdoutCapBytes: number;
  readonly stderrCapBytes: number;
  /**
   * `truncate`: keep the first cap bytes and keep draining (D3, hook dirs).
   * `fail`: kill the group at once, kind `output-limit` (D14 lists, lifecycle 1 MiB).
   */
  readonly overflow: "truncate" | "fail";
  /** Shell forms: exit 127/126 from the shell are kind `runner` (D15). */
  readonly shellForm: boolean;
  /** SIGTERM to the group, then SIGKILL after this many ms, unconditionally. Default 500. */
  readonly killGraceMs?: number;
  /** After the exit, wait at most this long for the pipes to close, then kill the group. Default 200. */
  readonly drainGraceMs?: number;
  /** External cancel (SIGINT, shutdown): kills the group; kind `timeout`, detail `cancelled`. */
  readonly signal?: AbortSignal;
  /** Registers the run while its group may be alive, so shutdown can kill it (async hooks). */
  readonly groups?: ProcessGroups;
}

export interface RunResult {
  /** `ok`: exited within the deadline and the caps (any exit code, or a death by signal). */
  readonly kind: RunKind;
  /** The direct child's status; null unless the process exited before the deadline (RUN-22). */
  readonly exit: ExitStatus | null;
  /**
   * Captured bytes (at most the caps). For kinds other than `ok`/`runner` they are diagnostics only
   * and must never be decoded as a reply; for `output-limit` both are empty (D14: no output content).
   */
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
  readonly truncated: { readonly stdout: boolean; readonly stderr: boolean };
  /** "" for ok+exit 0; `exited 1`; `killed by signal SIGSEGV`; `timed out after 1s`; … */
  readonly detail: string;
  readonly elapsedMs: number;
  readonly pid: number | null;
}

/** `exited N`, `killed by signal SIG…`, or "" for exit 0. */
export function exitDetail(exit: ExitStatus): string {
  if (exit.signal !== null) return `killed by signal ${exit.signal}`;
  if (exit.code === 0) return "";
  return `exited ${exit.code ?? "?"}`;
}

/** `1s` for whole seconds, else `200ms` (the form used in failure details). */
export function formatDuration(ms: number): string {
  const rounded = Math.round(ms);
  return rounded > 0 && rounded % 1000 === 0 ? `${rounded / 1000}s` : `${rounded}ms`;
}

interface TrackedGroup {
  readonly pid: number;
  /** Ends the run now: a live run fails as `timeout` with `detail`; a group being killed gets SIGKILL at once. */
  stop(detail: string): void;
  /** Settles once the group has been sent SIGKILL (or was never at risk). Never rejects. */
  readonly settled: Promise<unknown>;
  /** Signals the whole group now. Never throws. */
  kill(signal: "SIGKILL"): void;
}

/**
 * Every hook process group that may still be alive, so nothing outlives the agent (D15: async
 * hooks, shutdown). `runProcess` adds itself when `RunRequest.groups` is set.
 */
export class ProcessGroups {
  readonly #live = new Set<TrackedGroup>();

  /** Returns the function that removes the entry. */
  add(entry: TrackedGroup): () => void {
    this.#live.add(entry);
    return () => {
      this.#live.delete(entry);
    };
  }

  get size(): number {
    return this.#live.size;
  }

  pids(): number[] {
    return [...this.#live].map((entry) => entry.pid);
  }

  /**
   * Stops every tracked run (kind `timeout` with `detail`) and resolves once each group got its
   * SIGKILL: at most about one kill grace. Never rejects.
   */
  async killAll(detail = "cancelled"): Promise<void> {
    const entries = [...this.#live];
    for (const entry of entries) entry.stop(detail);
    await Promise.all(entries.map((entry) => entry.settled.catch(() => undefined)));
  }

  /** SIGKILLs every tracked group at once, synchronously: for an exit that cannot wait (a second Ctrl-C). */
  killNow(): void {
    for (const entry of this.#live) entry.kill("SIGKILL");
  }
}

/** Captures one stream up to a cap; in `fail` mode the first byte past the cap calls `onOverflow`. */
class Capture {
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  #reader: { cancel(): Promise<void> } | null = null;
  truncated = false;
  overflowed = false;
  /** Resolves at EOF, on a stream error, on cancel, or at the overflow. */
  readonly done: Promise<void>;

  constructor(
    stream: ReadableStream<Uint8Array> | null,
    private readonly cap: number,
    private readonly mode: "truncate" | "fail",
    private readonly onOverflow: () => void,
  ) {
    this.done = stream ? this.#pump(stream) : Promise.resolve();
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      const reader = stream.getReader();
      this.#reader = reader;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const room = this.cap - this.#bytes;
        if (value.byteLength <= room) {
          // Copy: a view could pin a larger buffer than the cap allows.
          this.#chunks.push(value.slice());
          this.#bytes += value.byteLength;
          continue;
        }
        if (room > 0) this.#chunks.push(value.slice(0, room));
        this.#bytes = this.cap;
        this.truncated = true;
        if (this.mode === "fail") {
          this.overflowed = true;
          this.onOverflow();
          return;
        }
        // truncate: keep reading and discarding so the writer never blocks on a full pipe (D3).
      }
    } catch {
      // A stream error ends the capture like EOF.
    }
  }

  cancel(): void {
    const reader = this.#reader;
    if (!reader) return;
    try {
      reader.cancel().catch(() => undefined);
    } catch {
      // already released
    }
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.#bytes);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.byteLength;
    }
    return out;
  }
}

type Stop =
  | { readonly kind: "exit"; readonly exit: ExitStatus }
  | { readonly kind: "timeout" | "output-limit" | "stdin"; readonly detail: string };

function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return "EIO";
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Resolves true if `promise` settles within `ms`, else false. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    promise.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` without checking whether anything looks dead
 * (STYLE.md: `child.killed` is already true after SIGTERM). `hurry` skips the rest of the grace.
 */
function terminateGroup(child: ChildHandle, graceMs: number): { done: Promise<void>; hurry: () => void } {
  let hurry = (): void => undefined;
  const hurried = new Promise<void>((resolve) => {
    hurry = resolve;
  });
  child.kill("SIGTERM");
  const done = Promise.race([delay(graceMs), hurried]).then(() => child.kill("SIGKILL"));
  return { done, hurry };
}

const EMPTY = new Uint8Array(0);

export async function runProcess(runtime: Runtime, req: RunRequest): Promise<RunResult> {
  const started = runtime.now();
  const killGraceMs = req.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const drainGraceMs = req.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
  const elapsed = (): number => Math.round(runtime.now() - started);
  const bare = (kind: RunKind, detail: string, pid: number | null): RunResult => ({
    kind,
    exit: null,
    stdout: EMPTY,
    stderr: EMPTY,
    truncated: { stdout: false, stderr: false },
    detail,
    elapsedMs: elapsed(),
    pid,
  });

  if (req.signal?.aborted) return bare("timeout", "cancelled", null);
  let spawned: SpawnResult;
  try {
    spawned = await runtime.spawn({ argv: req.argv, cwd: req.cwd, env: req.env, newGroup: true, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  } catch (error) {
    // The contract says spawn never throws; an injected spy might.
    spawned = { ok: false, code: errorCode(error), message: String(error) };
  }
  if (!spawned.ok) return bare("runner", `spawn failed: ${spawned.code}`, null);
  const child = spawned.child;

  let stopRun: (stop: Stop) => void = () => undefined;
  const stopped = new Promise<Stop>((resolve) => {
    stopRun = resolve; // first caller wins
  });
  let overflowNotice: () => void = () => undefined;
  const overflowed = new Promise<void>((resolve) => {
    overflowNotice = resolve;
  });
  const overflowStop = (stream: "stdout" | "stderr", cap: number) => (): void => {
    overflowNotice();
    stopRun({ kind: "output-limit", detail: `${stream} exceeded ${cap} bytes` });
  };
  const out = new Capture(child.stdout, req.stdoutCapBytes, req.overflow, overflowStop("stdout", req.stdoutCapBytes));
  const err = new Capture(child.stderr, req.stderrCapBytes, req.overflow, overflowStop("stderr", req.stderrCapBytes));

  let hasExited = false;
  void child.exited.then((exit) => {
    hasExited = true;
    stopRun({ kind: "exit", exit });
  });

  // Written concurrently with the captures above; awaited by nobody but the stop latch.
  void Promise.resolve()
    .then(() => child.writeStdin(req.stdin))
    .then(
      () => child.closeStdin(),
      (error: unknown) => {
        child.closeStdin();
        const code = errorCode(error);
        // EPIPE: the hook closed stdin early (D15). After the exit, the exit status decides.
        if (code === "EPIPE" || hasExited) return;
        stopRun({ kind: "stdin", detail: `stdin write failed: ${code}` });
      },
    );

  const timer = setTimeout(() => stopRun({ kind: "timeout", detail: `timed out after ${formatDuration(req.timeoutMs)}` }), Math.max(0, req.timeoutMs));
  const onAbort = (): void => stopRun({ kind: "timeout", detail: "cancelled" });
  req.signal?.addEventListener("abort", onAbort, { once: true });

  let killing: { done: Promise<void>; hurry: () => void } | null = null;
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const untrack =
    req.groups?.add({
      pid: child.pid,
      stop(detail) {
        if (killing) killing.hurry();
        else stopRun({ kind: "timeout", detail });
      },
      settled,
      kill: (signal) => child.kill(signal),
    }) ?? ((): void => undefined);

  const first = await stopped;
  clearTimeout(timer);
  req.signal?.removeEventListener("abort", onAbort);

  if (first.kind !== "exit") {
    // Deadline, cancel, overflow or stdin failure: whatever the group does from now on is ignored.
    killing = terminateGroup(child, killGraceMs);
    await killing.done;
    await within(child.exited, REAP_WAIT_MS);
    out.cancel();
    err.cancel();
    untrack();
    settle();
    const limit = first.kind === "output-limit";
    return {
      kind: first.kind,
      exit: null,
      stdout: limit ? EMPTY : out.bytes(),
      stderr: limit ? EMPTY : err.bytes(),
      truncated: { stdout: out.truncated, stderr: err.truncated },
      detail: first.detail,
      elapsedMs: elapsed(),
      pid: child.pid,
    };
  }

  // Exited in time: drain briefly (a background child may hold the pipes). Bounded by the drain
  // grace, not by what is left of the deadline: the exit decided the outcome, and bytes the hook
  // wrote before exiting must not be lost because its exit was observed just before the deadline.
  await within(Promise.race([Promise.all([out.done, err.done]), overflowed]), drainGraceMs);
  out.cancel();
  err.cancel();
  // Leftovers of the group (background children) never outlive the hook. Not awaited: the agent
  // goes on; `groups` keeps the group tracked until its SIGKILL has been sent.
  killing = terminateGroup(child, killGraceMs);
  void killing.done.then(() => {
    untrack();
    settle();
  });

  if (out.overflowed || err.overflowed) {
    const stream = out.overflowed ? "stdout" : "stderr";
    const cap = out.overflowed ? req.stdoutCapBytes : req.stderrCapBytes;
    killing.hurry(); // D14: the group is killed at once
    return { ...bare("output-limit", `${stream} exceeded ${cap} bytes`, child.pid), truncated: { stdout: out.truncated, stderr: err.truncated } };
  }
  const exit = first.exit;
  let kind: RunKind = "ok";
  let detail = exitDetail(exit);
  if (req.shellForm && exit.signal === null && (exit.code === 127 || exit.code === 126)) {
    kind = "runner";
    detail = exit.code === 127 ? "command not found (exit 127)" : "permission denied (exit 126)";
  }
  return {
    kind,
    exit,
    stdout: out.bytes(),
    stderr: err.bytes(),
    truncated: { stdout: out.truncated, stderr: err.truncated },
    detail,
    elapsedMs: elapsed(),
    pid: child.pid,
  };
}
