/**
 * What the interactive session's parts share: the REPL state, the options from the command, and
 * what the status row and the informational slash commands read.
 */
import type { Runtime } from "../runtime/types.ts";
import type { TextOutput as CliIO } from "./output.ts";
import type { AgentSessionOptions } from "../agent/types.ts";
import type { EventStream } from "../agent/event-queue.ts";
import type { SessionRecord } from "../session/records.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { PromptIO } from "./prompt-io.ts";
import type { ActivityRenderer } from "./hook-rows.ts";
import type { Style } from "./style.ts";

export type ResumeSource = { readonly sessionId: string; readonly records: readonly SessionRecord[] };

export interface InteractiveOptions {
  /** Everything the AgentSession needs but the interactive callbacks, signal and start source. */
  readonly agent: Omit<AgentSessionOptions, "askPermission" | "startSource" | "signal" | "resume" | "onLine">;
  /** `agent --resume ID`: the first session continues this one (a `/clear` starts a fresh one). */
  readonly resume?: ResumeSource;
  readonly loaded: LoadedConfig;
  readonly hooksOff: boolean;
  /** Delay before the idle_prompt notification (DESIGN: 60 s; AGENT_IDLE_PROMPT_MS in tests). */
  readonly idleMs: number;
  readonly style: Style;
  /** What the status line, /model, /mcp, /cost and /resume need from the command. */
  readonly info: SessionInfo;
}

/** What the REPL shares across sessions (a `/clear` starts a new one) and with its interrupt handler. */
export interface Repl {
  readonly runtime: Runtime;
  readonly io: CliIO;
  readonly input: PromptIO;
  readonly options: InteractiveOptions;
  loaded: LoadedConfig;
  /** The running turn's controller (null at the prompt). */
  turn: AbortController | null;
  /** A permission question is waiting. */
  asking: boolean;
  /** The whole REPL's controller: SIGTERM/SIGHUP abort it and end the session. */
  readonly session: AbortController;
  /** SIGTERM or SIGHUP arrived: end after the current session_end. */
  terminated: boolean;
  /** The running session's renderer (hook rows, the question's tool line). */
  renderer: ActivityRenderer | null;
  /** "No, and tell the model": the text becomes the next prompt after the cancelled turn. */
  instead: string | null;
  /** The id of the session last run, for the resume hint on exit. */
  lastSessionId: string | null;
}

export type Render = <R>(stream: EventStream<R>) => Promise<R>;

/** Tokens the provider reported, summed over the session's requests (UsageMeter in the command). */
export interface UsageView {
  readonly requests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface SessionInfo {
  readonly provider: string;
  readonly model: string;
  readonly permissionMode: string;
  /** Null when the provider reported no usage yet. */
  usage(): UsageView | null;
  /** MCP servers and their state; [] without any. */
  mcp(): readonly { readonly name: string; readonly state: string; readonly tools: number; readonly error: string | null }[];
  /** Another session of this home for /resume, or a message saying why not. */
  loadSession(id: string): ResumeSource | string;
}
