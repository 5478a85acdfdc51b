/**
 * An MCP stdio Transport of our own over the runtime shim's spawn (the SDK's StdioClientTransport
 * uses node:child_process and cross-spawn directly, which would bypass src/runtime/ and its process
 * groups). The server runs as leader of a new process group, so `close` and `killNow` reach every
 * process it started; messages are newline-delimited JSON-RPC on stdin/stdout; stderr is kept as a
 * bounded tail for error lines and `agent mcp list`. Every live group is tracked in the runtime's one
 * registry (`liveGroups`), so a signal or an exit that cannot wait (a second Ctrl-C) kills them too.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ChildHandle, ExitStatus, Runtime } from "../runtime/types.ts";
import { liveGroups } from "../runtime/process-groups.ts";

/** One JSON-RPC line may not exceed this; a server that sends more is stopped (it would grow memory without bound). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How much of the server's stderr is kept (the tail). */
export const STDERR_TAIL_BYTES = 8 * 1024;
/**
 * After stdin closes the server gets STDIN_GRACE_MS to exit before SIGTERM (a server that reads its
 * stdin sees the EOF at once and is gone in a few ms; one that ignores it need not hold the exit up),
 * then TERM_GRACE_MS before SIGKILL (time to flush and clean up on SIGTERM).
 */
export const STDIN_GRACE_MS = 50;
export const TERM_GRACE_MS = 200;

/** Registers the server's group in the runtime's one registry; returns the function that removes it. */
function track(child: ChildHandle): () => void {
  const kill = (): void => child.kill("SIGKILL");
  return liveGroups.add({ pid: child.pid, stop: kill, kill, settled: child.exited.catch(() => undefined) });
}

export interface StdioLaunch {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

export class RuntimeStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildHandle | null = null;
  private stderrTail = "";
  private exitStatus: ExitStatus | null = null;
  private closed = false;
  private closeRequested = false;
  private untrack: () => void = () => undefined;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly runtime: Runtime,
    private readonly launch: StdioLaunch,
  ) {}

  /** The last STDERR_TAIL_BYTES of the server's stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** How the process ended, once it has. */
  get exit(): ExitStatus | null {
    return this.exitStatus;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async start(): Promise<void> {
    const spawned = await this.runtime.spawn({
      argv: this.launch.argv,
      cwd: this.launch.cwd,
      env: this.launch.env,
      newGroup: true,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    if (!spawned.ok) throw new Error(`could not start ${this.launch.argv[0] ?? "?"}: ${spawned.message}`);
    const child = spawned.child;
    this.child = child;
    this.untrack = track(child);
    if (this.closeRequested) {
      // close() ran while the spawn was under way: the server must not outlive it.
      child.kill("SIGKILL");
      this.untrack();
      throw new Error("closed during start-up");
    }
    void this.readStdout(child);
    void this.readStderr(child);
    void child.exited.then((status) => {
      this.exitStatus = status;
      // The leader is gone; anything it left in its group goes with it.
      child.kill("SIGKILL");
      this.untrack();
      this.finish();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (child === null || this.closed) throw new Error("the MCP server is not running");
    await child.writeStdin(this.encoder.encode(`${JSON.stringify(message)}\n`));
  }

  /** stdin EOF, then SIGTERM, then SIGKILL to the group (MCP's stdio shutdown order). */
  async close(): Promise<void> {
    this.closeRequested = true;
    const child = this.child;
    if (child === null) return this.finish();
    child.closeStdin();
    const gone = child.exited.then(() => true);
    const waitFor = (ms: number): Promise<boolean> => Promise.race([gone, this.runtime.sleep(ms).then(() => false)]);
    if (!(await waitFor(STDIN_GRACE_MS))) {
      child.kill("SIGTERM");
      if (!(await waitFor(TERM_GRACE_MS))) child.kill("SIGKILL");
    }
    child.kill("SIGKILL");
    this.untrack();
    await gone;
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private async readStdout(child: ChildHandle): Promise<void> {
    const stream = child.stdout;
    if (stream === null) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of stream) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline = buffer.indexOf("\n");
        while (newline !== -1) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== "") this.deliver(line);
          newline = buffer.indexOf("\n");
        }
        if (buffer.length > MAX_MESSAGE_BYTES) {
          this.onerror?.(new Error(`the server sent a message over ${MAX_MESSAGE_BYTES} bytes; it was stopped`));
          child.kill("SIGKILL");
          return;
        }
      }
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private deliver(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // Servers that print logs to stdout break the protocol; say so once per line, keep going.
      this.onerror?.(new Error(`not JSON-RPC on stdout: ${line.slice(0, 200)}`));
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(parsed);
    if (!message.success) {
      this.onerror?.(new Error(`invalid JSON-RPC message: ${line.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(message.data);
  }

  private async readStderr(child: ChildHandle): Promise<void> {
    const stream = child.stderr;
    if (stream === null) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        const next = this.stderrTail + decoder.decode(chunk, { stream: true });
        this.stderrTail = next.length > STDERR_TAIL_BYTES ? next.slice(next.length - STDERR_TAIL_BYTES) : next;
      }
    } catch {
      // A broken stderr pipe only loses log text.
    }
  }
}
