/**
 * Runtime pieces that are the same on Bun, Deno and Node: all three implement `node:fs`,
 * `node:os`, `node:crypto` and `process`, so only spawning differs (see spawn-*.ts).
 */
import * as nodeFs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import { createHash, randomBytes } from "node:crypto";
import type { FileStat, FileSystem, PlatformFacts } from "./types.ts";
import { heldCredentials } from "./credentials.ts";

function toStat(stats: nodeFs.Stats): FileStat {
  const kind = stats.isFile() ? "file" : stats.isDirectory() ? "dir" : stats.isSymbolicLink() ? "symlink" : "other";
  return { kind, mode: stats.mode & 0o7777, size: stats.size, mtimeMs: stats.mtimeMs, uid: stats.uid };
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" || code === "ENAMETOOLONG";
}

/** What any read may hold at most unless the caller says less (a bound, not a budget). */
export const DEFAULT_READ_MAX_BYTES = 1024 * 1024 * 1024;
const READ_CHUNK_BYTES = 64 * 1024;
// Opening a FIFO for reading blocks until a writer comes; non-blocking, the open returns at once.
const OPEN_FLAGS = nodeFs.constants.O_RDONLY | (nodeFs.constants.O_NONBLOCK ?? 0);

/**
 * The bytes of a regular file, or undefined when it is missing or a directory. Everything else a
 * path can name (a FIFO, `/dev/stdin`, `/dev/zero`, a socket) is refused with an error before a
 * byte is read, so a project's `x -> /dev/zero` cannot grow the agent and a FIFO cannot hang it;
 * a file past `maxBytes` (by its size, or growing while read) is refused too.
 */
function readRegular(path: string, maxBytes: number): Uint8Array | undefined {
  let fd: number;
  try {
    fd = nodeFs.openSync(path, OPEN_FLAGS);
  } catch (error) {
    if (isMissing(error) || (error as { code?: string }).code === "EISDIR") return undefined;
    throw error;
  }
  try {
    const stats = nodeFs.fstatSync(fd);
    if (stats.isDirectory()) return undefined;
    if (!stats.isFile()) throw new Error(`${path} is not a regular file (a FIFO, device or socket); refused`);
    if (stats.size > maxBytes) throw new Error(`${path} holds ${stats.size} bytes, more than the ${maxBytes} read at most; refused`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.max(READ_CHUNK_BYTES, Math.min(stats.size + 1, maxBytes + 1) - total));
      const read = nodeFs.readSync(fd, chunk, 0, chunk.length, null);
      if (read <= 0) break;
      total += read;
      if (total > maxBytes) throw new Error(`${path} grew past the ${maxBytes} bytes read at most; refused`);
      chunks.push(chunk.subarray(0, read));
    }
    return new Uint8Array(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
  } finally {
    nodeFs.closeSync(fd);
  }
}

export const nodeFileSystem: FileSystem = {
  readText(path, options) {
    const bytes = readRegular(path, options?.maxBytes ?? DEFAULT_READ_MAX_BYTES);
    return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  },
  readBytes(path, options) {
    return readRegular(path, options?.maxBytes ?? DEFAULT_READ_MAX_BYTES);
  },
  writeText(path, text, options) {
    nodeFs.writeFileSync(path, text, options?.mode === undefined ? undefined : { mode: options.mode });
  },
  writeBytes(path, bytes, options) {
    nodeFs.writeFileSync(path, bytes, options?.mode === undefined ? undefined : { mode: options.mode });
  },
  appendText(path, text) {
    nodeFs.appendFileSync(path, text);
  },
  stat(path) {
    try {
      return toStat(nodeFs.statSync(path));
    } catch (error) {
      if (isMissing(error) || (error as { code?: string }).code === "EACCES") return undefined;
      throw error;
    }
  },
  lstat(path) {
    try {
      return toStat(nodeFs.lstatSync(path));
    } catch (error) {
      if (isMissing(error) || (error as { code?: string }).code === "EACCES") return undefined;
      throw error;
    }
  },
  realpath(path) {
    try {
      return nodeFs.realpathSync(path);
    } catch {
      return undefined;
    }
  },
  readdir(path) {
    try {
      return nodeFs.readdirSync(path).sort();
    } catch {
      return [];
    }
  },
  mkdir(path, options) {
    nodeFs.mkdirSync(path, { recursive: options?.recursive ?? false, ...(options?.mode === undefined ? {} : { mode: options.mode }) });
  },
  mkdtemp(prefix) {
    return nodeFs.mkdtempSync(prefix);
  },
  rm(path, options) {
    nodeFs.rmSync(path, { recursive: options?.recursive ?? false, force: true });
  },
  chmod(path, mode) {
    nodeFs.chmodSync(path, mode);
  },
  rename(from, to) {
    nodeFs.renameSync(from, to);
  },
  isExecutable(path) {
    try {
      nodeFs.accessSync(path, nodeFs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

export function platformFacts(): PlatformFacts {
  const tmp = process.env.TMPDIR && process.env.TMPDIR.length > 0 ? process.env.TMPDIR : process.platform === "win32" ? os.tmpdir() : "/tmp";
  return {
    os: process.platform,
    arch: process.arch,
    tmpdir: tmp.replace(/\/+$/, "") || "/",
    homedir: process.env.HOME || os.homedir(),
    uid: typeof process.getuid === "function" ? process.getuid() : null,
    osRelease: osRelease(),
  };
}

function osRelease(): string {
  try {
    return os.release();
  } catch {
    return "";
  }
}

/** `process.env` plus the credentials held in memory only (credentials.ts). */
export function envSnapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (typeof value === "string") out[key] = value;
  return { ...out, ...heldCredentials() };
}

/** PATH lookup without spawning. On Windows also tries PATHEXT-less `.exe` names. */
export function which(command: string, pathValue?: string): string | null {
  if (command.includes("/") || (process.platform === "win32" && command.includes("\\"))) {
    return nodeFileSystem.isExecutable(command) ? nodePath.resolve(command) : null;
  }
  const sep = process.platform === "win32" ? ";" : ":";
  const dirs = (pathValue ?? process.env.PATH ?? "").split(sep).filter((dir) => dir.length > 0);
  const names = process.platform === "win32" && !/\.[A-Za-z0-9]+$/.test(command) ? [`${command}.exe`, command] : [command];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = nodePath.join(dir, name);
      const stat = nodeFileSystem.stat(candidate);
      if (stat?.kind === "file" && nodeFileSystem.isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

export function randomId(bytes = 8): string {
  return randomBytes(bytes).toString("hex");
}

/**
 * Every spawn leaves pipe buffers and stream objects that the collector sees as a few small objects,
 * so between the collections it schedules on its own a run of hook processes grows RSS by ~10 MiB
 * (1,000 tool calls × 10 hooks: peak 79–84 MiB). Asking for a concurrent collection (Bun; nothing on
 * Node without `--expose-gc` or on Deno) every 16 spawns frees them before they pile up, for a
 * little collector work off the main thread (BENCHMARKS.md, "1,000 tool calls × 10 hooks"): every
 * 8 spawns measured no lower peak and more CPU, every 32 about the same peak.
 */
const SPAWNS_PER_COLLECTION = 16;
let spawnsSinceCollection = 0;

/**
 * Spawns since the last full collection at a quiet point. Concurrent collections alone let the heap
 * grow while they run; a synchronous one (a few ms) after every 64 spawns, taken where nothing waits
 * on it, took the 1,000-call × 10-hook peak from 75 to 73 MiB. Counting spawns, not calls, keeps a
 * session without hooks (one spawn per call) at one such pause per 64 calls.
 */
const SPAWNS_PER_FULL_COLLECTION = 64;
let spawnsSinceFullCollection = 0;

/**
 * RSS growth since the last full collection that asks for another at the next quiet point. Spawn
 * counts miss garbage that comes in bytes, not processes: 100 bash calls of 50 KiB each leave their
 * read buffers, decoded strings and redaction copies (about 0.4 MiB a call), and on an idle machine
 * the collector's own pacing let that reach 1.4× the floor loop's peak. Reading RSS costs a few µs.
 */
const RSS_GROWTH_PER_FULL_COLLECTION = 16 * 1024 * 1024;
let rssAfterFullCollection = 0;

/**
 * A quiet point (the agent between tool calls): a full collection when enough spawns or enough RSS
 * growth have piled up since the last (Bun; elsewhere nothing).
 */
export function collectGarbageIfDue(): void {
  const bun = (globalThis as { Bun?: { gc(sync: boolean): unknown } }).Bun;
  if (bun === undefined) return;
  const rss = process.memoryUsage.rss();
  if (spawnsSinceFullCollection < SPAWNS_PER_FULL_COLLECTION && rss - rssAfterFullCollection < RSS_GROWTH_PER_FULL_COLLECTION) return;
  spawnsSinceFullCollection = 0;
  bun.gc(true);
  rssAfterFullCollection = process.memoryUsage.rss();
}

/** Counts one spawn; every SPAWNS_PER_COLLECTION-th asks for a collection without waiting for it. */
export function noteSpawnForCollection(): void {
  spawnsSinceFullCollection += 1;
  spawnsSinceCollection += 1;
  if (spawnsSinceCollection < SPAWNS_PER_COLLECTION) return;
  spawnsSinceCollection = 0;
  (globalThis as { Bun?: { gc(sync: boolean): unknown } }).Bun?.gc(false);
}

/**
 * Writes still on their way to the reader. Bun hands a pipe writer a 64 KiB buffer and
 * `process.exit` drops the rest (`agent config schema | jq` got 64 KiB and exit 0); the
 * write callback fires once the bytes are really written, so `exit` waits for the count to reach 0.
 */
let pendingWrites = 0;
let drainWaiters: Array<() => void> = [];
const watchedStreams = new Set<NodeJS.WriteStream>();

function trackedWrite(stream: NodeJS.WriteStream, text: string): void {
  if (!watchedStreams.has(stream)) {
    watchedStreams.add(stream);
    // A reader that went away (EPIPE) must not crash the agent; the callback below still fires.
    stream.on("error", () => undefined);
  }
  pendingWrites += 1;
  const done = (): void => {
    pendingWrites -= 1;
    if (pendingWrites > 0) return;
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const waiter of waiters) waiter();
  };
  try {
    stream.write(text, done);
  } catch {
    done();
  }
}

/** Resolves once every write so far has reached the reader (or failed because it went away). */
export function drained(): Promise<void> {
  if (pendingWrites === 0) return Promise.resolve();
  return new Promise((resolve) => drainWaiters.push(resolve));
}

export function writeStdout(text: string): void {
  trackedWrite(process.stdout, text);
}

export function writeStderr(text: string): void {
  trackedWrite(process.stderr, text);
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

export function isTTY(stream: "stdout" | "stderr" | "stdin"): boolean {
  return Boolean(process[stream].isTTY);
}

export function onSignal(signal: "SIGINT" | "SIGTERM" | "SIGHUP", handler: () => void): () => void {
  process.on(signal, handler);
  return () => {
    process.off(signal, handler);
  };
}

let exiting = false;
const exitSteps: Array<() => void> = [];

/** True once `exit` was called: no new child may start while the agent waits for its output to drain. */
export function isExiting(): boolean {
  return exiting;
}

/** Registers a step `exit` runs just before the process ends (the subreaper's descendant sweep). */
export function beforeExit(step: () => void): void {
  exitSteps.push(step);
}

/**
 * Waits for stdout and stderr to drain (a slow reader gets everything; `drainWithinMs` bounds the
 * wait for exits forced by a signal), runs the exit steps, then exits.
 */
export async function exit(code: number, options: { drainWithinMs?: number } = {}): Promise<never> {
  exiting = true;
  const limit = options.drainWithinMs;
  await (limit === undefined ? drained() : Promise.race([drained(), sleep(limit)]));
  for (const step of exitSteps) {
    try {
      step();
    } catch {
      // An exit step never stops the exit.
    }
  }
  process.exit(code);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function now(): number {
  return performance.now();
}

export function cwd(): string {
  return process.cwd();
}

export function argv(): string[] {
  return process.argv.slice();
}
