/**
 * SIGINT, SIGTERM and SIGHUP all stop the agent the same way: every live process
 * group (hooks and `bash` calls, one registry) is killed, the session is told to stop so it writes
 * its end record, and the exit code is 128 + the signal number (130, 143, 129). A second stop
 * signal exits at once, SIGKILLing every group. Outside a command's own handling (`agent hooks
 * test`, config commands, between phases) the default handler does the immediate exit.
 */
import { liveGroups } from "./process-groups.ts";
import type { Runtime } from "./types.ts";

export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";
export const STOP_SIGNALS: readonly StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
export const SIGNAL_EXIT_CODES: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
/** A forced exit does not wait longer than this for a reader of stdout. */
export const SIGNAL_DRAIN_MS = 2000;

let terminatedBy: "SIGTERM" | "SIGHUP" | null = null;

/** The SIGTERM or SIGHUP that ended this run, if one did: `main.ts` exits 143 or 129 then. */
export function terminationSignal(): "SIGTERM" | "SIGHUP" | null {
  return terminatedBy;
}

function note(signal: StopSignal): void {
  if (signal !== "SIGINT" && terminatedBy === null) terminatedBy = signal;
}

let forceExit: (code: number) => void = () => undefined;
const forcedExit = new Promise<number>((resolve) => {
  forceExit = resolve;
});

/**
 * Settles with 128+n once a stop signal demands an immediate exit. `main.ts`, the one place that
 * exits, races the command against it and then exits without waiting for anything but (briefly) stdout.
 */
export function forcedExitCode(): Promise<number> {
  return forcedExit;
}

/** SIGKILLs every live group now and asks `main.ts` to exit 128+n at once. */
export function exitNow(signal: StopSignal): void {
  note(signal);
  liveGroups.killNow();
  forceExit(SIGNAL_EXIT_CODES[signal]);
}

/**
 * While a session runs: the first of `signals` calls `onStop` (abort the session) and kills every
 * live group (SIGTERM, SIGKILL after the grace); any second one exits at once. Returns `off`.
 */
export function watchStopSignals(runtime: Pick<Runtime, "onSignal">, signals: readonly StopSignal[], onStop: (signal: StopSignal) => void): () => void {
  let received = 0;
  const offs = signals.map((signal) =>
    runtime.onSignal(signal, () => {
      received += 1;
      if (received > 1) {
        exitNow(signal);
        return;
      }
      note(signal);
      onStop(signal);
      void liveGroups.killAll("cancelled");
    }),
  );
  return () => {
    for (const off of offs) off();
  };
}

/**
 * Process-wide fallback (installed once by `main.ts`): a stop signal that no command is handling
 * kills every group and exits 128+n, so no child is orphaned under PID 1.
 */
export function installSignalExits(): void {
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      // Another listener means a command handles this signal (agent run, the interactive session).
      if (process.listenerCount(signal) > 1) return;
      exitNow(signal);
    });
  }
}
