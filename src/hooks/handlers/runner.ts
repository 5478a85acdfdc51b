/**
 * Runs one hook process to completion (D15) over the runtime's process wrapper (`runInGroup`:
 * new group, one deadline over stdin write + run + drain, TERM→KILL, drain grace, registry) with
 * the hook caps: capture that never holds more than the cap, `truncate` (D3) or `fail` (D14).
 *
 * The runner knows nothing of dialects: it reports how the process ended (`RunResult.kind`), and
 * dispatch/dialects decide what that means. It never throws.
 */
import type { ExitStatus, Runtime } from "../../runtime/types.ts";
import { CappedSink, DEFAULT_DRAIN_GRACE_MS, DEFAULT_KILL_GRACE_MS, runInGroup } from "../../runtime/run-group.ts";
import { ProcessGroups } from "../../runtime/process-groups.ts";

export { DEFAULT_DRAIN_GRACE_MS, DEFAULT_KILL_GRACE_MS, ProcessGroups };

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
  /** The registry the run is tracked in while its group may be alive (default: the process-wide one). */
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

const EMPTY = new Uint8Array(0);

export async function runProcess(runtime: Runtime, req: RunRequest): Promise<RunResult> {
  const out = new CappedSink(req.stdoutCapBytes, req.overflow);
  const err = new CappedSink(req.stderrCapBytes, req.overflow);
  const run = await runInGroup(runtime, {
    argv: req.argv,
    cwd: req.cwd,
    env: req.env,
    stdin: req.stdin,
    timeoutMs: req.timeoutMs,
    stdout: out,
    stderr: err,
    ...(req.killGraceMs !== undefined ? { killGraceMs: req.killGraceMs } : {}),
    ...(req.drainGraceMs !== undefined ? { drainGraceMs: req.drainGraceMs } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.groups ? { groups: req.groups } : {}),
  });
  const truncated = { stdout: out.truncated, stderr: err.truncated };
  const base = { elapsedMs: run.elapsedMs, pid: run.pid };
  switch (run.stop) {
    case "spawn":
      return {
        ...base,
        kind: "runner",
        exit: null,
        stdout: EMPTY,
        stderr: EMPTY,
        truncated: { stdout: false, stderr: false },
        detail: `spawn failed: ${run.code}`,
      };
    case "output-limit": {
      // D14: no output content for an overflow.
      const cap = run.overflow === "stderr" ? req.stderrCapBytes : req.stdoutCapBytes;
      return {
        ...base,
        kind: "output-limit",
        exit: null,
        stdout: EMPTY,
        stderr: EMPTY,
        truncated,
        detail: `${run.overflow ?? "stdout"} exceeded ${cap} bytes`,
      };
    }
    case "timeout":
    case "cancelled":
    case "stdin": {
      // After the deadline the exit status and output are diagnostics only (RUN-22).
      const detail =
        run.stop === "timeout" ? `timed out after ${formatDuration(req.timeoutMs)}` : run.stop === "stdin" ? `stdin write failed: ${run.code}` : run.code;
      return { ...base, kind: run.stop === "stdin" ? "stdin" : "timeout", exit: null, stdout: out.bytes(), stderr: err.bytes(), truncated, detail };
    }
    case "exit":
      break;
  }
  const exit = run.exit ?? { code: null, signal: null };
  let kind: RunKind = "ok";
  let detail = exitDetail(exit);
  if (req.shellForm && exit.signal === null && (exit.code === 127 || exit.code === 126)) {
    kind = "runner";
    detail = exit.code === 127 ? "command not found (exit 127)" : "permission denied (exit 126)";
  }
  return { ...base, kind, exit, stdout: out.bytes(), stderr: err.bytes(), truncated, detail };
}
