/**
 * The one process wrapper for hooks and the `bash` tool (D15): the child leads a new process
 * group; the stdin write, the run and the output drain sit inside one deadline; stdout and stderr
 * are read concurrently with the stdin write (no deadlock) into sinks that bound what is kept; the
 * run resolves on the direct child's exit, not on pipe close; on a deadline, cancel, overflow or
 * stdin failure the group gets SIGTERM, then SIGKILL after the grace, unconditionally; after an
 * in-time exit the pipes get at most the drain grace and leftovers of the group are killed the
 * same way. Every run is in a `ProcessGroups` registry while its group may be alive, so a signal
 * or an immediate exit reaches it. Never throws.
 */
import { liveGroups, type ProcessGroups } from "./process-groups.ts";
import type { ChildHandle, ExitStatus, Runtime, SpawnResult } from "./types.ts";

export const DEFAULT_KILL_GRACE_MS = 500;
export const DEFAULT_DRAIN_GRACE_MS = 200;
/** How long to wait for the direct child's exit after the final SIGKILL before giving up on it. */
const REAP_WAIT_MS = 1000;

/** Where one output stream goes. */
export interface OutputSink {
  /** Takes one chunk (a view the stream may reuse: copy what you keep). False: over the cap, stop the run. */
  push(chunk: Uint8Array): boolean;
}

export interface GroupRunRequest {
  /** argv[0] is the program: an absolute path or a name looked up on the env's PATH. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The complete child environment (already stripped by the caller, D18). */
  readonly env: Readonly<Record<string, string>>;
  /** Bytes for stdin, then EOF; null: stdin is /dev/null. EPIPE while writing is ignored (D15). */
  readonly stdin: Uint8Array | null;
  readonly timeoutMs: number;
  readonly stdout: OutputSink;
  readonly stderr: OutputSink;
  /** SIGTERM to the group, then SIGKILL after this many ms, unconditionally. Default 500. */
  readonly killGraceMs?: number;
  /** After the exit, wait at most this long for the pipes to close, then kill the group. Default 200. */
  readonly drainGraceMs?: number;
  /** External cancel (SIGINT, SIGTERM, shutdown): kills the group; stop `cancelled`. */
  readonly signal?: AbortSignal;
  /** The registry to be tracked in while the group may be alive. Default: `liveGroups`. */
  readonly groups?: ProcessGroups;
}

/** How the run ended: the direct child exited in time, or the wrapper stopped it. */
export type GroupStop = "exit" | "timeout" | "cancelled" | "output-limit" | "stdin" | "spawn";

export interface GroupRunResult {
  readonly stop: GroupStop;
  /**
   * The direct child's status. For `exit` its in-time exit; for the other stops, what was observed
   * after the kill (null when it was not reaped within a second); the status then means nothing.
   */
  readonly exit: ExitStatus | null;
  /** `spawn`: the errno name; `stdin`: the errno name; `cancelled`: the reason given; else "". */
  readonly code: string;
  /** `spawn`: the runtime's message; else "". */
  readonly message: string;
  /** `output-limit`: the stream whose sink refused a chunk. */
  readonly overflow: "stdout" | "stderr" | null;
  readonly pid: number | null;
  readonly elapsedMs: number;
}

/** Keeps the first `cap` bytes; `fail` refuses the first byte past it, `truncate` drops the rest and keeps draining (D3). */
export class CappedSink implements OutputSink {
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  truncated = false;

  constructor(
    private readonly cap: number,
    private readonly mode: "truncate" | "fail",
  ) {}

  push(chunk: Uint8Array): boolean {
    const room = this.cap - this.#bytes;
    if (chunk.byteLength <= room) {
      // Copy: a view could pin a larger buffer than the cap allows.
      this.#chunks.push(chunk.slice());
      this.#bytes += chunk.byteLength;
      return true;
    }
    if (room > 0) this.#chunks.push(chunk.slice(0, room));
    this.#bytes = this.cap;
    this.truncated = true;
    return this.mode === "truncate";
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

/** Pumps one stream into its sink until EOF, an error, a cancel or the sink's refusal. */
class Pump {
  #reader: { cancel(): Promise<void> } | null = null;
  overflowed = false;
  readonly done: Promise<void>;

  constructor(stream: ReadableStream<Uint8Array> | null, sink: OutputSink, onOverflow: () => void) {
    this.done = stream ? this.#run(stream, sink, onOverflow) : Promise.resolve();
  }

  async #run(stream: ReadableStream<Uint8Array>, sink: OutputSink, onOverflow: () => void): Promise<void> {
    try {
      const reader = stream.getReader();
      this.#reader = reader;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (!sink.push(value)) {
          this.overflowed = true;
          onOverflow();
          return;
        }
      }
    } catch {
      // A stream error ends the output like EOF.
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
}

type Stop = { readonly kind: "exit"; readonly exit: ExitStatus } | { readonly kind: "timeout" | "cancelled" | "output-limit" | "stdin"; readonly code: string };

function errorCode(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return "EIO";
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Resolves with the value if `promise` settles within `ms`, else with undefined. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/** A SIGTERM-then-SIGKILL in progress: `done` once the SIGKILL is sent; `hurry` sends it now. */
interface GroupKill {
  readonly done: Promise<void>;
  readonly hurry: () => void;
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` without checking whether anything looks dead
 * (STYLE.md: `child.killed` is already true after SIGTERM). `hurry` skips the rest of the grace.
 * Takes the handle's `kill` alone, not the handle: see `killLeftovers`.
 */
function terminateGroup(kill: ChildHandle["kill"], graceMs: number): GroupKill {
  let hurry = (): void => undefined;
  const hurried = new Promise<void>((resolve) => {
    hurry = resolve;
  });
  kill("SIGTERM");
  const done = Promise.race([delay(graceMs), hurried]).then(() => kill("SIGKILL"));
  return { done, hurry };
}

/**
 * After an in-time exit: the group's leftovers get SIGTERM now and SIGKILL after the grace, tracked
 * in `groups` until then (`stop` hurries the SIGKILL). Made outside runInGroup's scope so that
 * only the pid and the handle's `kill` live through the grace, not the run (the child handle with
 * its pipes, the pumps): at a few hundred runs per grace window in a session with hooks, keeping
 * them cost ~20 MiB of RSS (BENCHMARKS.md, 1,000 tool calls × 10 hooks).
 */
function killLeftovers(groups: ProcessGroups, pid: number, kill: ChildHandle["kill"], graceMs: number): GroupKill {
  const killing = terminateGroup(kill, graceMs);
  const untrack = groups.add({ pid, stop: () => killing.hurry(), settled: killing.done, kill });
  void killing.done.then(untrack);
  return killing;
}

/** A one-shot latch: the first `stop` decides how the run ends; later calls are ignored. */
function stopLatch(): { stopped: Promise<Stop>; stop: (stop: Stop) => void } {
  let stop: (stop: Stop) => void = () => undefined;
  const stopped = new Promise<Stop>((resolve) => {
    stop = resolve;
  });
  return { stopped, stop };
}

async function spawnInGroup(runtime: Pick<Runtime, "spawn">, req: GroupRunRequest): Promise<SpawnResult> {
  try {
    return await runtime.spawn({
      argv: req.argv,
      cwd: req.cwd,
      env: req.env,
      newGroup: true,
      stdin: req.stdin === null ? "ignore" : "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
  } catch (error) {
    // The contract says spawn never throws; an injected spy might.
    return { ok: false, code: errorCode(error), message: String(error) };
  }
}

/** Both output pumps; `overflowed` settles on the first refused chunk, which also stops the run. */
interface Pumps {
  readonly out: Pump;
  readonly err: Pump;
  readonly overflowed: Promise<void>;
}

function startPumps(child: ChildHandle, req: GroupRunRequest, stopRun: (stop: Stop) => void): Pumps {
  let overflowNotice: () => void = () => undefined;
  const overflowed = new Promise<void>((resolve) => {
    overflowNotice = resolve;
  });
  const onOverflow = (): void => {
    overflowNotice();
    stopRun({ kind: "output-limit", code: "" });
  };
  return { out: new Pump(child.stdout, req.stdout, onOverflow), err: new Pump(child.stderr, req.stderr, onOverflow), overflowed };
}

function overflowStream(pumps: Pumps): "stdout" | "stderr" | null {
  return pumps.out.overflowed ? "stdout" : pumps.err.overflowed ? "stderr" : null;
}

function cancelPumps(pumps: Pumps): void {
  pumps.out.cancel();
  pumps.err.cancel();
}

/** Writes stdin then EOF, concurrently with the pumps; awaited by nobody but the stop latch. */
function feedStdin(child: ChildHandle, stdin: Uint8Array, stopRun: (stop: Stop) => void, hasExited: () => boolean): void {
  void Promise.resolve()
    .then(() => child.writeStdin(stdin))
    .then(
      () => child.closeStdin(),
      (error: unknown) => {
        child.closeStdin();
        const code = errorCode(error);
        // EPIPE: the child closed stdin early (D15). After the exit, the exit status decides.
        if (code === "EPIPE" || hasExited()) return;
        stopRun({ kind: "stdin", code });
      },
    );
}

/** Arms the deadline and the external cancel; the returned function disarms both. */
function armDeadlineAndCancel(req: GroupRunRequest, stopRun: (stop: Stop) => void): () => void {
  const timer = setTimeout(() => stopRun({ kind: "timeout", code: "" }), Math.max(0, req.timeoutMs));
  const onAbort = (): void => stopRun({ kind: "cancelled", code: "cancelled" });
  req.signal?.addEventListener("abort", onAbort, { once: true });
  // A cancel that arrived while the child was being spawned fired before the listener existed:
  // without this the run would wait for its whole deadline and end as a timeout.
  if (req.signal?.aborted) onAbort();
  return () => {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onAbort);
  };
}

/** The run's entry in the registry, from the spawn until its group is dealt with. */
interface TrackedRun {
  readonly untrack: () => void;
  /** Resolves the entry's `settled` (a bare resolver: passing it on keeps no run scope alive). */
  readonly settle: () => void;
  /** From now on a registry stop hurries this kill instead of cancelling the run. */
  readonly killingWith: (killing: GroupKill) => void;
}

function trackRun(groups: ProcessGroups, child: ChildHandle, stopRun: (stop: Stop) => void): TrackedRun {
  let killing: GroupKill | null = null;
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const untrack = groups.add({
    pid: child.pid,
    stop(detail) {
      if (killing) killing.hurry();
      else stopRun({ kind: "cancelled", code: detail });
    },
    settled,
    kill: (signal) => child.kill(signal),
  });
  return {
    untrack,
    settle,
    killingWith: (next) => {
      killing = next;
    },
  };
}

/** What the two endings of a spawned run share. */
interface SpawnedRun {
  readonly child: ChildHandle;
  readonly pumps: Pumps;
  readonly tracked: TrackedRun;
  readonly groups: ProcessGroups;
  readonly killGraceMs: number;
  readonly drainGraceMs: number;
  readonly elapsed: () => number;
}

/** Deadline, cancel, overflow or stdin failure: whatever the group does from now on is ignored. */
async function endAfterStop(run: SpawnedRun, first: Exclude<Stop, { kind: "exit" }>): Promise<GroupRunResult> {
  const { child, tracked } = run;
  const killing = terminateGroup(child.kill, run.killGraceMs);
  tracked.killingWith(killing);
  await killing.done;
  const exit = await within(child.exited, REAP_WAIT_MS);
  cancelPumps(run.pumps);
  tracked.untrack();
  tracked.settle();
  return { stop: first.kind, exit: exit ?? null, code: first.code, message: "", overflow: overflowStream(run.pumps), pid: child.pid, elapsedMs: run.elapsed() };
}

async function endAfterExit(run: SpawnedRun, exit: ExitStatus): Promise<GroupRunResult> {
  const { child, pumps, tracked } = run;
  // Exited in time: drain briefly (a background child may hold the pipes). Bounded by the drain
  // grace, not by what is left of the deadline: the exit decided the outcome, and bytes written
  // before the exit must not be lost because the exit was observed just before the deadline.
  await within(Promise.race([Promise.all([pumps.out.done, pumps.err.done]), pumps.overflowed]), run.drainGraceMs);
  cancelPumps(pumps);
  // Leftovers of the group (background children) never outlive the run. Not awaited: the agent
  // goes on; the registry keeps the group tracked until its SIGKILL has been sent (the leftovers'
  // entry is added before the run's own is removed, so the group is never untracked meanwhile).
  const leftovers = killLeftovers(run.groups, child.pid, child.kill, run.killGraceMs);
  tracked.untrack();
  // A killAll that took the run's entry before the switch still waits for the SIGKILL (the
  // resolver is passed, not a closure, so the run's scope is not kept).
  void leftovers.done.then(tracked.settle);
  const overflow = overflowStream(pumps);
  if (overflow !== null) {
    leftovers.hurry(); // D14: the group is killed at once
    return { stop: "output-limit", exit: null, code: "", message: "", overflow, pid: child.pid, elapsedMs: run.elapsed() };
  }
  return { stop: "exit", exit, code: "", message: "", overflow: null, pid: child.pid, elapsedMs: run.elapsed() };
}

export async function runInGroup(runtime: Pick<Runtime, "spawn" | "now">, req: GroupRunRequest): Promise<GroupRunResult> {
  const started = runtime.now();
  const elapsed = (): number => Math.round(runtime.now() - started);
  const bare = (stop: GroupStop, code: string, message: string): GroupRunResult => ({
    stop,
    exit: null,
    code,
    message,
    overflow: null,
    pid: null,
    elapsedMs: elapsed(),
  });

  if (req.signal?.aborted) return bare("cancelled", "cancelled", "");
  const spawned = await spawnInGroup(runtime, req);
  if (!spawned.ok) return bare("spawn", spawned.code, spawned.message);
  const child = spawned.child;

  const latch = stopLatch();
  const pumps = startPumps(child, req, latch.stop);
  let hasExited = false;
  void child.exited.then((exit) => {
    hasExited = true;
    latch.stop({ kind: "exit", exit });
  });
  if (req.stdin !== null) feedStdin(child, req.stdin, latch.stop, () => hasExited);
  const disarm = armDeadlineAndCancel(req, latch.stop);
  const groups = req.groups ?? liveGroups;
  const tracked = trackRun(groups, child, latch.stop);

  const first = await latch.stopped;
  disarm();
  const run: SpawnedRun = {
    child,
    pumps,
    tracked,
    groups,
    killGraceMs: req.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    drainGraceMs: req.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS,
    elapsed,
  };
  return first.kind === "exit" ? endAfterExit(run, first.exit) : endAfterStop(run, first);
}
