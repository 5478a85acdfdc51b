/**
 * The runtime shim's contract. Everything that touches Bun, Deno, node:child_process, node:fs,
 * process or env globals lives behind these interfaces in `src/runtime/`; the rest of the code
 * receives a `Runtime` (tests inject fakes: spawn spies, platform facts, failing file systems).
 */

export type Signal = "SIGTERM" | "SIGKILL" | "SIGINT";

export interface PlatformFacts {
  /** `linux`, `darwin`, `win32`, … (process.platform spelling). */
  readonly os: string;
  readonly arch: string;
  /** Directory for temporary files: `$TMPDIR`, else `/tmp` on Unix. */
  readonly tmpdir: string;
  readonly homedir: string;
  /** The agent's uid (`process.getuid()`); null on Windows. Owner checks of private directories. */
  readonly uid: number | null;
  /** The kernel/OS release (`os.release()`), shown to the model; "" or absent when unknown. */
  readonly osRelease?: string;
}

export interface ExitStatus {
  /** Exit code, or null when the process died by a signal. */
  readonly code: number | null;
  /** Signal name (`SIGKILL`, `SIGSEGV`, …) when the process died by one, else null. */
  readonly signal: string | null;
}

export interface SpawnRequest {
  /** argv[0] is the program: an absolute path or a name looked up on the env's PATH. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The complete environment of the child (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** Start the child as leader of a new session/process group so `kill` reaches its whole tree. */
  readonly newGroup: boolean;
  readonly stdin: "pipe" | "ignore";
  readonly stdout: "pipe" | "ignore" | "inherit";
  readonly stderr: "pipe" | "ignore" | "inherit";
}

export interface ChildHandle {
  readonly pid: number;
  /**
   * Writes all bytes to stdin. Resolves when written; rejects with an Error whose `code` is the
   * errno name (`EPIPE`, `EIO`, …). Callers decide which codes are failures (EPIPE never is, D15).
   */
  writeStdin(data: Uint8Array): Promise<void>;
  /** Closes stdin (EOF for the child). Never throws. */
  closeStdin(): void;
  readonly stdout: ReadableStream<Uint8Array> | null;
  readonly stderr: ReadableStream<Uint8Array> | null;
  /** Resolves once the direct child has exited (not when its pipes close). Never rejects. */
  readonly exited: Promise<ExitStatus>;
  /** Sends `signal` to the child's process group (or the child alone without `newGroup`). Never throws. */
  kill(signal: Signal): void;
}

export type SpawnResult = { readonly ok: true; readonly child: ChildHandle } | { readonly ok: false; readonly code: string; readonly message: string };

export interface FileStat {
  readonly kind: "file" | "dir" | "symlink" | "other";
  /** Permission bits (e.g. 0o755). */
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Owner's uid (0 on Windows, where it means nothing). Absent in fakes that do not care. */
  readonly uid?: number;
}

/** File-system calls. Reads return undefined for a missing path; writes throw an Error with `code`. */
export interface ReadOptions {
  /** Refuse (throw) past this many bytes. */
  readonly maxBytes?: number;
}

export interface FileSystem {
  /**
   * A regular file's text (UTF-8) or bytes; undefined when missing or a directory. A FIFO, device
   * or socket, or a file past `maxBytes` (default 1 GiB), is an error: never a hang or a 4 GB read.
   */
  readText(path: string, options?: ReadOptions): string | undefined;
  readBytes(path: string, options?: ReadOptions): Uint8Array | undefined;
  writeText(path: string, text: string, options?: { mode?: number }): void;
  writeBytes(path: string, bytes: Uint8Array, options?: { mode?: number }): void;
  /** Appends; the caller passes whole lines so a crash never leaves half a record. */
  appendText(path: string, text: string): void;
  /** Follows symlinks. */
  stat(path: string): FileStat | undefined;
  /** Does not follow symlinks. */
  lstat(path: string): FileStat | undefined;
  realpath(path: string): string | undefined;
  /** Entry names, sorted by code point; [] for a missing or unreadable directory. */
  readdir(path: string): string[];
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): void;
  /** Creates a fresh private directory `<prefix>XXXXXX`. */
  mkdtemp(prefix: string): string;
  rm(path: string, options?: { recursive?: boolean }): void;
  chmod(path: string, mode: number): void;
  rename(from: string, to: string): void;
  /** True when the current user may execute the file. */
  isExecutable(path: string): boolean;
}

export interface Runtime {
  readonly name: "bun" | "deno" | "node";
  readonly fs: FileSystem;
  readonly platform: PlatformFacts;
  /** A snapshot copy of the process environment. */
  env(): Record<string, string>;
  cwd(): string;
  argv(): string[];
  /** Looks a command name up on `pathValue` (default: the process PATH). Null when absent. */
  which(command: string, pathValue?: string): string | null;
  spawn(request: SpawnRequest): Promise<SpawnResult>;
  /** Monotonic milliseconds. */
  now(): number;
  sha256Hex(data: Uint8Array | string): string;
  randomId(bytes?: number): string;
  writeStdout(text: string): void;
  writeStderr(text: string): void;
  readStdin(): Promise<string>;
  isTTY(stream: "stdout" | "stderr" | "stdin"): boolean;
  /** Registers a handler for SIGINT/SIGTERM/SIGHUP; returns an unsubscribe function. */
  onSignal(signal: "SIGINT" | "SIGTERM" | "SIGHUP", handler: () => void): () => void;
  /**
   * Waits until stdout and stderr have drained (at most `drainWithinMs` when given: exits forced by
   * a signal), kills what is left of the agent's descendants, then exits. New spawns are refused
   * from the call on. Only `src/main.ts` and the signal paths call this.
   */
  exit(code: number, options?: { drainWithinMs?: number }): Promise<never>;
  sleep(ms: number): Promise<void>;
  /** Called at a quiet point (between tool calls): a full collection when many spawns piled up garbage; a few ms. */
  collectGarbageIfDue?(): void;
}
