/**
 * Keeps a long synchronous search (grep, glob) from starving the event loop: `tick()` is awaited
 * between files and lines; it yields a macrotask once PACER_SLICE_MS of work has passed (so Ctrl-C,
 * hook timeouts and the spinner get to run) and reports whether the call's signal has aborted. It
 * also keeps the search within a wall-clock budget. The runtime's clock is used, never Date.
 */
import type { Runtime } from "../runtime/types.ts";

/** Longest stretch of work between two yields to the event loop. */
export const PACER_SLICE_MS = 25;

export type PacerState = "running" | "aborted" | "over-budget";

export class Pacer {
  readonly #runtime: Runtime;
  readonly #signal: AbortSignal | undefined;
  readonly #deadline: number;
  #sliceEnd: number;

  constructor(options: { runtime: Runtime; signal?: AbortSignal; budgetMs: number }) {
    this.#runtime = options.runtime;
    this.#signal = options.signal;
    const start = options.runtime.now();
    this.#deadline = start + options.budgetMs;
    this.#sliceEnd = start + PACER_SLICE_MS;
  }

  /** Cheap check without yielding (abort only). */
  get aborted(): boolean {
    return this.#signal?.aborted === true;
  }

  /** True when `tick()` has something to do (yield, abort, budget); cheap enough to call per line. */
  due(): boolean {
    if (this.aborted) return true;
    const now = this.#runtime.now();
    return now >= this.#sliceEnd || now >= this.#deadline;
  }

  /** Yields when the current slice is used up; "running" means: go on. */
  async tick(): Promise<PacerState> {
    if (this.aborted) return "aborted";
    const now = this.#runtime.now();
    if (now >= this.#deadline) return "over-budget";
    if (now < this.#sliceEnd) return "running";
    await this.#runtime.sleep(0);
    this.#sliceEnd = this.#runtime.now() + PACER_SLICE_MS;
    return this.aborted ? "aborted" : "running";
  }
}
