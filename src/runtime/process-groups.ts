/**
 * Every child process group that may still be alive (hooks and `bash` tool calls alike), so a
 * signal, a second Ctrl-C or the exit can kill them all and nothing outlives the agent (D15).
 * `runInGroup` (run-group.ts) adds each run while its group may be alive; `liveGroups` is the
 * one registry of the process.
 */

export interface TrackedGroup {
  readonly pid: number;
  /** Ends the run now: a live run stops as `cancelled` with `detail`; a group being killed gets SIGKILL at once. */
  stop(detail: string): void;
  /** Settles once the group has been sent SIGKILL (or was never at risk). Never rejects. */
  readonly settled: Promise<unknown>;
  /** Signals the whole group now. Never throws. */
  kill(signal: "SIGKILL"): void;
}

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
   * Stops every tracked run (as `cancelled` with `detail`) and resolves once each group got its
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

/** The process-wide registry: hooks of every engine and every `bash` call register here. */
export const liveGroups = new ProcessGroups();
