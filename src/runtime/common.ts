/**
 * Runtime pieces that are the same on Bun, Deno and Node: all three implement `node:fs`,
 * `node:os`, `node:crypto` and `process`, so only spawning differs (see spawn-*.ts).
 */
import * as nodeFs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import { createHash, randomBytes } from "node:crypto";
import type { FileStat, FileSystem, PlatformFacts } from "./types.ts";

function toStat(stats: nodeFs.Stats): FileStat {
  const kind = stats.isFile() ? "file" : stats.isDirectory() ? "dir" : stats.isSymbolicLink() ? "symlink" : "other";
  return { kind, mode: stats.mode & 0o7777, size: stats.size, mtimeMs: stats.mtimeMs, uid: stats.uid };
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP" || code === "ENAMETOOLONG";
}

export const nodeFileSystem: FileSystem = {
  readText(path) {
    try {
      return nodeFs.readFileSync(path, "utf8");
    } catch (error) {
      if (isMissing(error) || (error as { code?: string }).code === "EISDIR") return undefined;
      throw error;
    }
  },
  readBytes(path) {
    try {
      return new Uint8Array(nodeFs.readFileSync(path));
    } catch (error) {
      if (isMissing(error) || (error as { code?: string }).code === "EISDIR") return undefined;
      throw error;
    }
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
  return { os: process.platform, arch: process.arch, tmpdir: tmp.replace(/\/+$/, "") || "/", homedir: process.env.HOME || os.homedir(), uid: typeof process.getuid === "function" ? process.getuid() : null };
}

export function envSnapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (typeof value === "string") out[key] = value;
  return out;
}

/** PATH lookup without spawning. On Windows also tries PATHEXT-less `.exe` names. */
export function which(command: string, pathValue?: string): string | null {
  if (command.includes("/") || (process.platform === "win32" && command.includes("\\"))) {
    return nodeFileSystem.isExecutable(command) ? nodePath.resolve(command) : null;
  }
  const sep = process.platform === "win32" ? ";" : ":";
  const dirs = (pathValue ?? process.env.PATH ?? "").split(sep).filter((dir) => dir.length > 0);
  for (const dir of dirs) {
    const candidate = nodePath.join(dir, command);
    const stat = nodeFileSystem.stat(candidate);
    if (stat?.kind === "file" && nodeFileSystem.isExecutable(candidate)) return candidate;
  }
  return null;
}

export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

export function randomId(bytes = 8): string {
  return randomBytes(bytes).toString("hex");
}

export function writeStdout(text: string): void {
  process.stdout.write(text);
}

export function writeStderr(text: string): void {
  process.stderr.write(text);
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

export function isTTY(stream: "stdout" | "stderr" | "stdin"): boolean {
  return Boolean(process[stream].isTTY);
}

export function onSignal(signal: "SIGINT" | "SIGTERM", handler: () => void): () => void {
  process.on(signal, handler);
  return () => {
    process.off(signal, handler);
  };
}

export function exit(code: number): never {
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
