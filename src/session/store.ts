/**
 * Session files (D25): `$AGENT_HOME/sessions/<start>-<id>.jsonl`, children under `sessions/subagents/`;
 * each directory's `claude/` holds the Claude-shaped transcripts under the same names (transcript.ts),
 * which listing and lookup skip (they read files only, never subdirectories).
 * Ids are UUIDs (v4, so scripts can key files on `session_id.slice(0, 8)` as under Claude Code); the
 * UTC start time in front of each file name keeps the directory sortable by time. Files
 * of older versions, `<id>.jsonl` with time-sortable ids, are still found, listed and resumed.
 * The writer appends each record as one whole line with one file call, so a crash never leaves half
 * a record, and hands the identical line to an optional listener (`--output-format stream-json`).
 * With `persist: false` (`--no-session`) nothing touches the disk but the listener still gets every
 * line. Readers validate every line and report bad ones instead of throwing.
 */
import type { FileSystem } from "../runtime/types.ts";
import { buildRecord, parseRecord, recordLine, type RecordFields, type RecordOf, type RecordType, type SessionRecord } from "./records.ts";
import { dirnamePath } from "../util/path-utils.ts";

export { replayMessages, compactionSummaryMessage } from "./replay.ts";

export interface SessionStoreRuntime {
  readonly fs: FileSystem;
}

export interface SessionWriterOptions {
  readonly runtime: SessionStoreRuntime;
  /** `$AGENT_HOME` (already resolved). */
  readonly home: string;
  readonly id: string;
  /** A child agent's session: written under `sessions/subagents/`. */
  readonly child?: boolean;
  /** false for `--no-session`: no file, no directory, `path` null. */
  readonly persist: boolean;
  /** Receives each line exactly as appended (JSON plus `\n`), after the append. */
  readonly listener?: (line: string) => void;
  /** Wall clock for record timestamps; tests inject a fixed one. */
  readonly clock?: () => Date;
  /**
   * Told once per kind of disk failure (the error code, else its message), with the error naming
   * the file: a session whose file cannot be written says so once, not once per record.
   */
  readonly onWriteError?: (error: string) => void;
  /** Sees each record after its line is written (the Claude-shaped transcript, src/session/transcript.ts). */
  readonly observer?: (record: SessionRecord) => void;
}

/** `ok: false` when the disk write failed; the line was still given to the listener. */
export type WriteOutcome = { readonly ok: true; readonly line: string } | { readonly ok: false; readonly line: string; readonly error: string };

function errorKind(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return error instanceof Error ? error.message : String(error);
}

export function sessionsDir(home: string): string {
  return `${trimSlash(home)}/sessions`;
}

/** What a session id (or a prefix of one) may look like: never a path. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function sessionDir(home: string, child: boolean): string {
  return child ? `${sessionsDir(home)}/subagents` : sessionsDir(home);
}

/**
 * File stamps of the sessions this process created, fixed at creation so that every path computed
 * for a new id (the child's transcript_path before its writer exists, then the writer's) agrees.
 */
const createdStamps = new Map<string, string>();

/** `20261130T082233.123Z`: sortable as text, no `:` (not allowed in Windows file names). */
function fileStamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "");
}

/** `<stamp>-<id>.jsonl` → id; a name of the older `<id>.jsonl` form → that id. */
const STAMPED_NAME = /^\d{8}T\d{6}(?:\.\d{3})?Z-(.+)\.jsonl$/;

export function sessionIdOfFile(name: string): string | undefined {
  if (!name.endsWith(".jsonl")) return undefined;
  const id = STAMPED_NAME.exec(name)?.[1] ?? name.slice(0, -".jsonl".length);
  return SESSION_ID.test(id) ? id : undefined;
}

/**
 * The path of a session this process created (`newSessionId`), else of the older `<id>.jsonl`
 * form. Pure: an existing session's file is found with `findSessionFile`.
 */
export function sessionPath(home: string, id: string, options: { child?: boolean } = {}): string {
  const stamp = createdStamps.get(id);
  return `${sessionDir(home, options.child ?? false)}/${stamp === undefined ? "" : `${stamp}-`}${id}.jsonl`;
}

/** The existing file of session `id` (main or child directory as asked), or undefined. */
export function findSessionFile(fs: FileSystem, home: string, id: string, options: { child?: boolean } = {}): string | undefined {
  const dir = sessionDir(home, options.child ?? false);
  const name = fs.readdir(dir).find((entry) => sessionIdOfFile(entry) === id);
  return name === undefined ? undefined : `${dir}/${name}`;
}

export class SessionWriter {
  readonly id: string;
  /** The JSONL path (`transcript_path`), or null with `--no-session`. */
  readonly path: string | null;
  private readonly fs: FileSystem;
  private readonly listener: ((line: string) => void) | undefined;
  private readonly clock: () => Date;
  private prepared = false;
  private readonly onWriteError: ((error: string) => void) | undefined;
  private readonly observer: ((record: SessionRecord) => void) | undefined;
  private readonly failureKinds = new Set<string>();
  private firstFailure: string | null = null;

  constructor(options: SessionWriterOptions) {
    this.id = options.id;
    const child = { child: options.child ?? false };
    // A resumed session appends to its existing file; a new one gets its stamped name.
    const existing = options.persist && !createdStamps.has(options.id) ? findSessionFile(options.runtime.fs, options.home, options.id, child) : undefined;
    this.path = options.persist ? (existing ?? sessionPath(options.home, options.id, child)) : null;
    this.fs = options.runtime.fs;
    this.listener = options.listener;
    this.clock = options.clock ?? (() => new Date());
    this.onWriteError = options.onWriteError;
    this.observer = options.observer;
  }

  /** The first failed write's error (naming the file), or null while every line reached the disk. */
  get failure(): string | null {
    return this.firstFailure;
  }

  /** Builds (allowlisted, timestamped) and writes one record; returns it too. Never throws on a disk error. */
  append<T extends RecordType>(type: T, fields: RecordFields<T>): WriteOutcome & { readonly record: RecordOf<T> } {
    const record = buildRecord(type, fields, this.clock().toISOString());
    return { ...this.write(record), record };
  }

  /** Writes an already built record as one line. Never throws on a disk error. */
  write(record: SessionRecord): WriteOutcome {
    const line = recordLine(record);
    let outcome: WriteOutcome = { ok: true, line };
    if (this.path !== null) {
      try {
        this.appendLine(this.path, line);
      } catch (error) {
        outcome = { ok: false, line, error: `${this.path}: ${error instanceof Error ? error.message : String(error)}` };
        this.noteFailure(errorKind(error), outcome.error);
      }
    }
    this.listener?.(line);
    this.observer?.(record);
    return outcome;
  }

  private noteFailure(kind: string, error: string): void {
    this.firstFailure ??= error;
    if (this.failureKinds.has(kind)) return;
    this.failureKinds.add(kind);
    this.onWriteError?.(error);
  }

  private appendLine(path: string, line: string): void {
    if (!this.prepared) {
      this.fs.mkdir(dirnamePath(path), { recursive: true, mode: 0o700 });
      this.prepared = true;
      // A new file is created private (sessions hold prompts and tool output); an existing one (resume) is appended to.
      if (this.fs.stat(path) === undefined) {
        this.fs.writeText(path, line, { mode: 0o600 });
        return;
      }
    }
    this.fs.appendText(path, line);
  }
}

/**
 * A random (version 4) UUID from the runtime's random source, e.g.
 * `3f2b8c1e-9a4d-4e6f-b1c2-7d8e9f0a1b2c`; `date` becomes its file's start stamp.
 */
export function newSessionId(runtime: { randomId(bytes?: number): string }, date: Date = new Date()): string {
  const hex = runtime.randomId(16).padEnd(32, "0").slice(0, 32);
  // RFC 9562: version nibble 4; variant bits 10 in the top of byte 8.
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  createdStamps.set(id, fileStamp(date));
  return id;
}

export interface LineProblem {
  /** 1-based line number. */
  readonly line: number;
  readonly message: string;
}

export type ReadSessionResult =
  | { readonly ok: true; readonly records: SessionRecord[]; readonly problems: LineProblem[] }
  | { readonly ok: false; readonly error: string };

/** Reads and validates a session file. Missing/unreadable file → `ok: false`; bad lines → `problems`. */
export function readSession(runtime: SessionStoreRuntime, path: string): ReadSessionResult {
  let text: string | undefined;
  try {
    text = runtime.fs.readText(path);
  } catch (error) {
    return { ok: false, error: `${path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (text === undefined) return { ok: false, error: `${path}: no such session file` };
  return { ok: true, ...parseSessionText(text) };
}

/** Parses JSONL text; a final line without `\n` is a cut-off write and reported like any bad line. */
export function parseSessionText(text: string): { records: SessionRecord[]; problems: LineProblem[] } {
  const records: SessionRecord[] = [];
  const problems: LineProblem[] = [];
  const lines = text.split("\n");
  const complete = text.endsWith("\n") || text.length === 0;
  lines.forEach((raw, index) => {
    const number = index + 1;
    if (index === lines.length - 1) {
      if (raw.length > 0 && !complete) problems.push({ line: number, message: "incomplete last line (no newline)" });
      if (raw.length === 0 || !complete) return;
    }
    if (raw.trim().length === 0) {
      problems.push({ line: number, message: "empty line" });
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      problems.push({ line: number, message: "invalid JSON" });
      return;
    }
    const parsed = parseRecord(json);
    if (parsed.ok) records.push(parsed.record);
    else problems.push({ line: number, message: parsed.error });
  });
  return { records, problems };
}

export type SessionLookup = { readonly ok: true; readonly id: string; readonly path: string } | { readonly ok: false; readonly message: string };

/** At most this many candidates are named when a prefix is ambiguous. */
const AMBIGUOUS_SHOWN = 5;

/**
 * Session `query`: an exact id (a main session first, else a child), else the one session whose id
 * starts with it (`--resume 3f2b8c1e`). Never throws; a missing or ambiguous query is a message.
 */
export function resolveSession(runtime: SessionStoreRuntime, home: string, query: string): SessionLookup {
  if (!SESSION_ID.test(query)) return { ok: false, message: `no session "${query}" in ${sessionsDir(home)}` };
  const all: { id: string; path: string }[] = [];
  for (const child of [false, true]) {
    const dir = sessionDir(home, child);
    for (const name of runtime.fs.readdir(dir)) {
      const id = sessionIdOfFile(name);
      const path = `${dir}/${name}`;
      if (id !== undefined && runtime.fs.stat(path)?.kind === "file") all.push({ id, path });
    }
  }
  const exact = all.find((entry) => entry.id === query);
  if (exact !== undefined) return { ok: true, ...exact };
  const matches = all.filter((entry) => entry.id.startsWith(query));
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return { ok: true, ...only };
  if (matches.length === 0) return { ok: false, message: `no session "${query}" in ${sessionsDir(home)}` };
  const shown = matches
    .slice(0, AMBIGUOUS_SHOWN)
    .map((entry) => entry.id)
    .join(", ");
  return {
    ok: false,
    message: `session prefix "${query}" is ambiguous: ${matches.length} sessions match (${shown}${matches.length > AMBIGUOUS_SHOWN ? ", …" : ""})`,
  };
}

/** Path of session `id` (or a unique prefix of it): a main session first, else a child; undefined when absent. */
export function findSession(runtime: SessionStoreRuntime, home: string, id: string): string | undefined {
  const found = resolveSession(runtime, home, id);
  return found.ok ? found.path : undefined;
}

export interface SessionSummary {
  readonly id: string;
  readonly path: string;
  /** `session_start` timestamp, else the file's modification time (ISO). */
  readonly startedAt: string;
  readonly cwd: string | null;
  /** `project_dir` of `session_start`: the project root the session ran in. */
  readonly projectDir: string | null;
  readonly provider: string | null;
  readonly model: string | null;
  /** First user prompt, if any. */
  readonly prompt: string | null;
  /** `stop_reason` of `session_end`; null while running or after a crash. */
  readonly stopReason: string | null;
}

/** Main sessions (never `subagents/`), newest first. */
export function listSessions(runtime: SessionStoreRuntime, home: string): SessionSummary[] {
  const dir = sessionsDir(home);
  const summaries: SessionSummary[] = [];
  for (const name of runtime.fs.readdir(dir)) {
    const id = sessionIdOfFile(name);
    const path = `${dir}/${name}`;
    const stat = runtime.fs.stat(path);
    if (stat?.kind !== "file" || id === undefined) continue;
    const read = readSession(runtime, path);
    const records = read.ok ? read.records : [];
    const start = records.find((record) => record.type === "session_start");
    const prompt = records.find((record) => record.type === "user");
    const end = records.findLast((record) => record.type === "session_end");
    summaries.push({
      id,
      path,
      startedAt: start?.timestamp ?? new Date(stat.mtimeMs).toISOString(),
      cwd: start?.type === "session_start" ? start.cwd : null,
      projectDir: start?.type === "session_start" ? start.project_dir : null,
      provider: start?.type === "session_start" ? start.provider : null,
      model: start?.type === "session_start" ? start.model : null,
      prompt: prompt?.type === "user" ? prompt.content : null,
      stopReason: end?.type === "session_end" ? end.stop_reason : null,
    });
  }
  // Newest first; the stamped file name breaks ties within one millisecond.
  return summaries.sort((a, b) => compareDesc(a.startedAt, b.startedAt) || compareDesc(a.path, b.path));
}

/** `--continue`: the newest main session that ran in project `projectDir`, if any. */
export function latestSessionOf(runtime: SessionStoreRuntime, home: string, projectDir: string): SessionSummary | undefined {
  const root = trimSlash(projectDir);
  return listSessions(runtime, home).find((summary) => summary.projectDir !== null && trimSlash(summary.projectDir) === root);
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}
