/**
 * The one path an AgentSession's events take to its driver: producers `push` (the loop, tool calls,
 * hook records, notices, async hook completions), one consumer iterates. Each operation of the
 * session (`start`, `prompt`, `compact`, `end`, …) hands out an `EventStream` that yields the
 * events pushed while it runs and then ends; events pushed between operations (an async hook that
 * finishes while the user types) wait for the next stream. Unbounded on purpose: a session's events
 * are few per step, and a stream nobody reads is a driver bug that `idle` would also expose.
 */
import type { AgentEvent } from "./types.ts";

/** One operation's events, then its result (available once the operation finished). */
export interface EventStream<R> extends AsyncIterable<AgentEvent> {
  readonly result: Promise<R>;
}

export class EventQueue {
  private readonly buffer: AgentEvent[] = [];
  private waiter: ((step: IteratorResult<AgentEvent>) => void) | null = null;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  push(event: AgentEvent): void {
    const waiter = this.waiter;
    if (waiter !== null) {
      this.waiter = null;
      waiter({ done: false, value: event });
    } else this.buffer.push(event);
  }

  /**
   * Resolves once the consumer has handled every event pushed so far: it asked for the next event
   * with nothing buffered (a `for await` asks only after its body ran). An interactive permission
   * question waits for this, so the rows before it are on screen first.
   */
  idle(): Promise<void> {
    if (this.buffer.length === 0 && this.waiter !== null) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Runs `operation` and streams the events it (and anything else) pushes until it settles. The
   * operation starts at once, whether or not anyone iterates; a rejection ends the stream and
   * rejects `result`.
   */
  stream<R>(operation: () => Promise<R>): EventStream<R> {
    this.closed = false;
    const result = operation();
    void result.then(
      () => this.close(),
      () => this.close(),
    );
    const next = (): Promise<IteratorResult<AgentEvent>> => {
      const event = this.buffer.shift();
      if (event !== undefined) return Promise.resolve({ done: false, value: event });
      if (this.closed) return result.then(() => ({ done: true, value: undefined }));
      return new Promise((resolve) => {
        this.waiter = resolve;
        this.wakeIdle();
      });
    };
    return {
      result,
      [Symbol.asyncIterator]: () => ({ next }),
    };
  }

  private close(): void {
    this.closed = true;
    const waiter = this.waiter;
    if (waiter !== null && this.buffer.length === 0) {
      this.waiter = null;
      waiter({ done: true, value: undefined });
    }
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
