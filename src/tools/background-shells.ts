/**
 * `bash` with `run_in_background` (Claude Code's Bash field): the command runs
 * through the same process wrapper as every bash call (`runInGroup`: its own process group, in the
 * live-group registry, so Ctrl-C, SIGTERM, SIGHUP and the exit kill it), with no deadline of its
 * own, and its combined output goes to a ring buffer that keeps the last BACKGROUND_RING_BYTES.
 * `bash_output` reads what arrived since the last read; `kill_shell` stops it (SIGTERM, SIGKILL
 * after the grace). One registry per session: the session's end kills what is still running, so a
 * background shell never outlives the session that started it (a subagent's ends with it).
 */
import type { Runtime, SpawnResult } from "../runtime/types.ts";
import { runInGroup, type GroupRunResult } from "../runtime/run-group.ts";

/** Output kept per shell: the newest bytes; older ones are dropped with a note. */
export const BACKGROUND_RING_BYTES = 256 * 1024;
/** Running shells per session; one more is refused (each holds a process group and a buffer). */
export const BACKGROUND_MAX_RUNNING = 16;
/** No deadline but the session's end: the longest a timer can wait (about 24.8 days). */
const NO_DEADLINE_MS = 2 ** 31 - 1;

/** The last `cap` bytes of a stream, with the count of every byte ever pushed. */
export class RingBuffer {
  readonly #buffer: Uint8Array;
  /** Bytes ever pushed; the buffer holds stream offsets [max(0, total - cap), total). */
  #total = 0;

  constructor(readonly cap: number = BACKGROUND_RING_BYTES) {
    this.#buffer = new Uint8Array(cap);
  }

  get total(): number {
    return this.#total;
  }

  push(chunk: Uint8Array): void {
    const bytes = chunk.byteLength > this.cap ? chunk.subarray(chunk.byteLength - this.cap) : chunk;
    const skipped = chunk.byteLength - bytes.byteLength;
    this.#total += skipped;
    const start = this.#total % this.cap;
    const first = Math.min(bytes.byteLength, this.cap - start);
    this.#buffer.set(bytes.subarray(0, first), start);
    if (first < bytes.byteLength) this.#buffer.set(bytes.subarray(first), 0);
    this.#total += bytes.byteLength;
  }

  /** Bytes from stream offset `from` to the end; `dropped` counts those already overwritten. */
  readFrom(from: number): { bytes: Uint8Array; dropped: number } {
    const oldest = Math.max(0, this.#total - this.cap);
    const begin = Math.max(from, oldest);
    const out = new Uint8Array(Math.max(0, this.#total - begin));
    for (let i = 0; i < out.byteLength; i += 1) out[i] = this.#buffer[(begin + i) % this.cap] ?? 0;
    return { bytes: out, dropped: Math.max(0, begin - from) };
  }
}

export type ShellStatus = "running" | "completed" | "failed" | "killed";

export interface ShellReport {
  readonly id: string;
  readonly command: string;
  readonly status: ShellStatus;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Output since the previous read (decoded, U+FFFD for broken UTF-8). */
  readonly output: string;
  /** Bytes of that stretch that the ring had already overwritten. */
  readonly dropped: number;
}

interface Shell {
  readonly id: string;
  readonly command: string;
  readonly ring: RingBuffer;
  readonly controller: AbortController;
  done: Promise<void>;
  /** Stream offset of the next read. */
  readAt: number;
  result: GroupRunResult | null;
  killed: boolean;
}

export interface StartRequest {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly command: string;
  readonly killGraceMs: number;
  readonly drainGraceMs: number;
}

function statusOf(shell: Shell): Pick<ShellReport, "status" | "exitCode" | "signal"> {
  const result = shell.result;
  if (result === null) return { status: "running", exitCode: null, signal: null };
  const exitCode = result.exit?.code ?? null;
  const signal = result.exit?.signal ?? null;
  if (shell.killed || result.stop === "cancelled") return { status: "killed", exitCode, signal };
  return { status: result.stop === "exit" && exitCode === 0 ? "completed" : "failed", exitCode, signal };
}

export class BackgroundShells {
  readonly #shells = new Map<string, Shell>();
  #next = 1;

  constructor(private readonly runtime: Pick<Runtime, "spawn" | "now">) {}

  running(): number {
    let count = 0;
    for (const shell of this.#shells.values()) if (shell.result === null) count += 1;
    return count;
  }

  /** Starts the command; resolves once it was spawned (or refused), not when it ends. */
  async start(req: StartRequest): Promise<{ ok: true; id: string } | { ok: false; error: string }> {
    if (this.running() >= BACKGROUND_MAX_RUNNING) {
      return { ok: false, error: `${BACKGROUND_MAX_RUNNING} background shells are already running; stop one with kill_shell first` };
    }
    const id = `bash_${this.#next++}`;
    const ring = new RingBuffer();
    const controller = new AbortController();
    const sink = {
      push: (chunk: Uint8Array): boolean => {
        ring.push(chunk);
        return true;
      },
    };
    let spawned: (result: SpawnResult | null) => void = () => undefined;
    const started = new Promise<SpawnResult | null>((resolve) => {
      spawned = resolve;
    });
    const shell: Shell = { id, command: req.command, ring, controller, readAt: 0, result: null, killed: false, done: Promise.resolve() };
    const run = runInGroup(
      {
        now: () => this.runtime.now(),
        // The wrapper spawns first thing: once this resolves, the group exists (and is tracked) or failed.
        spawn: async (request) => {
          const result = await this.runtime.spawn(request);
          spawned(result);
          return result;
        },
      },
      {
        argv: req.argv,
        cwd: req.cwd,
        env: req.env,
        stdin: null,
        timeoutMs: NO_DEADLINE_MS,
        stdout: sink,
        stderr: sink,
        killGraceMs: req.killGraceMs,
        drainGraceMs: req.drainGraceMs,
        signal: controller.signal,
      },
    );
    shell.done = run.then((result) => {
      shell.result = result;
      spawned(null); // a run that ended without spawning (a thrown spawn) must not leave start() waiting
    });
    const spawn = await started;
    if (spawn === null || !spawn.ok) {
      await shell.done;
      const why = spawn === null ? `${shell.result?.code ?? "EIO"}: ${shell.result?.message ?? ""}` : `${spawn.code}: ${spawn.message}`;
      return { ok: false, error: `cannot start ${req.argv[0] ?? "bash"}: ${why}` };
    }
    this.#shells.set(id, shell);
    return { ok: true, id };
  }

  has(id: string): boolean {
    return this.#shells.has(id);
  }

  ids(): string[] {
    return [...this.#shells.keys()];
  }

  /** What arrived since the last read, and the status; null for an unknown id. */
  read(id: string): ShellReport | null {
    const shell = this.#shells.get(id);
    if (shell === undefined) return null;
    const status = statusOf(shell);
    const { bytes, dropped } = shell.ring.readFrom(shell.readAt);
    shell.readAt = shell.ring.total;
    return { id, command: shell.command, ...status, output: new TextDecoder().decode(bytes), dropped };
  }

  /** Stops a running shell and waits until its group got SIGKILL (or it ended); null for an unknown id. */
  async kill(id: string): Promise<ShellReport | null> {
    const shell = this.#shells.get(id);
    if (shell === undefined) return null;
    if (shell.result === null) {
      shell.killed = true;
      shell.controller.abort();
      await shell.done;
    }
    return this.read(id);
  }

  /** The session's end: every running shell is stopped; resolves once each got its SIGKILL. */
  async killAll(): Promise<void> {
    await Promise.all([...this.#shells.keys()].map((id) => this.kill(id)));
  }
}
