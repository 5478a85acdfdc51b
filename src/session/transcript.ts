/**
 * A Claude Code-shaped transcript kept beside each session file, so hook scripts
 * written for Claude Code that read `transcript_path` (the last assistant message, the tool calls)
 * work unchanged. Our own session JSONL stays the record of truth; this file is derived from its
 * records as they are written, one whole line per entry:
 *
 *   `{parentUuid, isSidechain, userType, cwd, sessionId, type, message, uuid, timestamp}`
 *
 * `type` is `user` (a prompt: `message.content` a string, as Claude Code writes typed prompts; a
 * tool result: `[{type:"tool_result", tool_use_id, content, is_error}]`), `assistant`
 * (`message: {id, type:"message", role, model, content:[thinking?, text?, tool_use…], stop_reason}`),
 * or `system` (`subtype: "compact_boundary"`, followed by the summary as a user entry with
 * `isCompactSummary`). Hook context items are user entries with `isMeta: true`. Each entry's
 * `parentUuid` is the previous entry's `uuid`. Not written: `usage` (we do not know it per
 * message), `version`, `gitBranch`, `requestId`, `toolUseResult`. A child's transcript has
 * `isSidechain: true`, `sessionId` the parent's id and `agentId` the child's, as Claude Code's
 * subagent transcripts do.
 *
 * Path: `<dir of the session file>/claude/<session file name>` (a directory, so nothing that lists
 * `sessions/*.jsonl` sees transcripts as sessions). Disk errors are reported once and never stop
 * the session.
 */
import type { FileSystem } from "../runtime/types.ts";
import { CLAUDE_TOOL_NAMES, canonicalTool } from "../tools/names.ts";
import { deliveredTexts, type SessionRecord } from "./records.ts";
import { basenamePath, dirnamePath, joinPath } from "../util/path-utils.ts";

export const TRANSCRIPT_DIR_NAME = "claude";

/** The Claude-shaped transcript of the session file at `sessionPath` (null stays null: `--no-session`). */
export function claudeTranscriptPath(sessionPath: string | null): string | null {
  if (sessionPath === null) return null;
  return joinPath(dirnamePath(sessionPath), TRANSCRIPT_DIR_NAME, basenamePath(sessionPath));
}

export interface TranscriptOptions {
  readonly fs: FileSystem;
  /** The session JSONL; null with `--no-session` (then nothing is written). */
  readonly sessionPath: string | null;
  readonly sessionId: string;
  readonly cwd: string;
  readonly model: string;
  /** Set in a subagent: the entries are a sidechain of the parent's session. */
  readonly parentSessionId?: string;
  /** Hex digits (`runtime.randomId`), for entry uuids and message ids. */
  readonly randomHex: (bytes: number) => string;
  /** Told once, with the error naming the file. */
  readonly onWriteError?: (error: string) => void;
}

type Entry = Record<string, unknown>;

function uuidFrom(hex: string): string {
  const h = hex.padEnd(32, "0").slice(0, 32);
  // RFC 4122 version 4 / variant 1 bits, so validators that check the shape accept it.
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { ...value };
  } catch {
    // Raw argument text that is not JSON: Claude's shape needs an object, so the input is empty.
  }
  return {};
}

export class ClaudeTranscript {
  readonly path: string | null;
  private readonly options: TranscriptOptions;
  private lastUuid: string | null = null;
  private pendingThinking: string | null = null;
  /** Each call's raw `tool_result` until its delivered result is written (which may refer to its content). */
  private readonly results = new Map<string, { success: boolean; content: string }>();
  private prepared = false;
  private failed = false;

  constructor(options: TranscriptOptions) {
    this.options = options;
    this.path = claudeTranscriptPath(options.sessionPath);
  }

  /**
   * Creates the file (empty) when it does not exist yet, so a session_start hook already finds it;
   * with `backfill` (a resumed session whose transcript is missing) its records are written first.
   */
  open(backfill: readonly SessionRecord[] = []): void {
    if (this.path === null) return;
    const existed = this.prepare();
    if (existed === false) for (const record of backfill) this.observe(record);
    if (existed === true) this.lastUuid = this.lastEntryUuid();
  }

  /** A resumed transcript goes on from its last entry (the parentUuid chain stays unbroken). */
  private lastEntryUuid(): string | null {
    let text: string | undefined;
    try {
      text = this.path === null ? undefined : this.options.fs.readText(this.path);
    } catch {
      return null;
    }
    const last = text?.trimEnd().split("\n").pop();
    if (last === undefined || last === "") return null;
    try {
      const entry: unknown = JSON.parse(last);
      return typeof entry === "object" && entry !== null && "uuid" in entry && typeof entry.uuid === "string" ? entry.uuid : null;
    } catch {
      return null;
    }
  }

  /** Maps one session record to zero or more transcript entries and appends them. Never throws. */
  observe(record: SessionRecord): void {
    if (this.path === null || this.failed) return;
    const at = record.timestamp;
    switch (record.type) {
      case "user":
        this.append(at, { type: "user", message: { role: "user", content: record.content } });
        return;
      case "provider_context_item":
        this.append(at, { type: "user", isMeta: true, message: { role: "user", content: record.content } });
        return;
      case "reasoning":
        this.pendingThinking = record.content;
        return;
      case "assistant":
        this.append(at, { type: "assistant", message: this.assistantMessage(record.content, record.tool_calls) });
        return;
      case "tool_result":
        this.results.set(record.tool_call_id, { success: record.success, content: record.content });
        return;
      case "tool_result_delivered": {
        const raw = this.results.get(record.tool_call_id);
        this.results.delete(record.tool_call_id);
        const isError = raw?.success === false;
        const block = { type: "tool_result", tool_use_id: record.tool_call_id, content: deliveredTexts(record, raw?.content).content, is_error: isError };
        this.append(at, { type: "user", message: { role: "user", content: [block] } });
        return;
      }
      case "compaction":
        this.append(at, {
          type: "system",
          subtype: "compact_boundary",
          content: "Conversation compacted",
          level: "info",
          compactMetadata: { trigger: record.trigger },
        });
        this.append(at, { type: "user", isCompactSummary: true, message: { role: "user", content: record.summary } });
        return;
      default:
        return;
    }
  }

  private assistantMessage(text: string, calls: readonly { id: string; name: string; arguments: string }[]): Entry {
    const content: Entry[] = [];
    if (this.pendingThinking !== null) content.push({ type: "thinking", thinking: this.pendingThinking, signature: "" });
    this.pendingThinking = null;
    if (text !== "" || calls.length === 0) content.push({ type: "text", text });
    for (const call of calls) {
      const tool = canonicalTool(call.name);
      content.push({ type: "tool_use", id: call.id, name: tool ? CLAUDE_TOOL_NAMES[tool] : call.name, input: parseArguments(call.arguments) });
    }
    return {
      id: `msg_${this.options.randomHex(12)}`,
      type: "message",
      role: "assistant",
      model: this.options.model,
      content,
      stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
      stop_sequence: null,
    };
  }

  private append(timestamp: string, body: Entry): void {
    const { options } = this;
    const uuid = uuidFrom(options.randomHex(16));
    const child = options.parentSessionId !== undefined;
    const entry: Entry = {
      parentUuid: this.lastUuid,
      isSidechain: child,
      userType: "external",
      cwd: options.cwd,
      sessionId: child ? options.parentSessionId : options.sessionId,
      ...(child ? { agentId: options.sessionId } : {}),
      ...body,
      uuid,
      timestamp,
    };
    this.lastUuid = uuid;
    this.write(`${JSON.stringify(entry)}\n`);
  }

  /** true when the file already existed, false when it was created, undefined on a disk error. */
  private prepare(): boolean | undefined {
    const path = this.path;
    if (path === null) return undefined;
    this.prepared = true;
    try {
      this.options.fs.mkdir(dirnamePath(path), { recursive: true, mode: 0o700 });
      if (this.options.fs.stat(path) !== undefined) return true;
      this.options.fs.writeText(path, "", { mode: 0o600 });
      return false;
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  private write(line: string): void {
    if (this.path === null) return;
    if (!this.prepared && this.prepare() === undefined) return;
    try {
      this.options.fs.appendText(this.path, line);
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onWriteError?.(`${this.path ?? ""}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
