/**
 * Line-at-a-time stdin for the interactive session (src/ui/prompt-io.ts). Lives here because it is
 * the one other place that touches the process's stdin stream (Bun, Deno and Node all offer it).
 */

export interface StdinLines {
  /** The next line without its newline; null at end of input. Calls are answered in order. */
  next(): Promise<string | null>;
  /** Stops reading so the process can exit. */
  close(): void;
}

export function openStdinLines(): StdinLines {
  const stdin = process.stdin;
  const lines: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  let buffer = "";
  let ended = false;
  const deliver = (): void => {
    while (waiters.length > 0 && (lines.length > 0 || ended)) {
      const waiter = waiters.shift();
      waiter?.(lines.length > 0 ? (lines.shift() ?? null) : null);
    }
  };
  const onData = (chunk: string | Uint8Array): void => {
    buffer += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    let at = buffer.indexOf("\n");
    while (at >= 0) {
      lines.push(buffer.slice(0, at).replace(/\r$/, ""));
      buffer = buffer.slice(at + 1);
      at = buffer.indexOf("\n");
    }
    deliver();
  };
  const onEnd = (): void => {
    if (buffer !== "") lines.push(buffer);
    buffer = "";
    ended = true;
    deliver();
  };
  stdin.setEncoding("utf8");
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.resume();
  return {
    next: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        deliver();
      }),
    close: () => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
      ended = true;
      deliver();
    },
  };
}
