/**
 * The tool contract shared by the built-in tools and the agent loop. A tool is a plain object: a
 * JSON Schema for providers plus one `execute` that never throws — every failure (bad path,
 * missing file, non-zero exit, timeout) comes back as `success: false` with a model-readable text.
 */
import type { Runtime } from "../runtime/types.ts";
import type { ToolName } from "./names.ts";
import type { BackgroundShells } from "./background-shells.ts";
import type { TodoItem, TodoList } from "./todo-list.ts";

export interface ToolResult {
  success: boolean;
  content: string;
  /** Small, snake_case keys (this goes to hooks and the session JSONL). */
  metadata?: Record<string, unknown>;
  /** Model-facing hook context produced while the tool ran (subagent_stop on `task`, D19); never shown in the UI. */
  hookContext?: readonly string[];
  /**
   * Structured facts about the call for dialects that describe results per tool (the claude
   * dialect's `tool_response`). Held in memory for the post phase only: never written to the
   * session (file contents would bloat it) and never sent to action/envelope hooks (a redacted
   * envelope must not gain raw output through it).
   */
  details?: ToolDetails;
  /** A hook fired while the tool ran ended the turn (subagent_start/subagent_stop `continue: false` or `fail`, D8, D23). */
  hookStop?: { readonly reason: string; readonly kind: "hook_blocked" | "hook_failed" };
}

export type GrepMode = "content" | "files_with_matches" | "count";

/** Per-tool facts behind `ToolResult.details`; camelCase, internal (dialects map them to a wire). */
export type ToolDetails =
  | { readonly tool: "bash"; readonly stdout: string; readonly stderr: string; readonly interrupted: boolean }
  | {
      readonly tool: "read";
      readonly path: string;
      /** The lines shown, without line-number prefixes, joined with "\n". */
      readonly content: string;
      readonly startLine: number;
      readonly numLines: number;
      readonly totalLines: number;
    }
  | {
      readonly tool: "write";
      readonly path: string;
      readonly created: boolean;
      /** The replaced content; null when created or too large to keep. */
      readonly originalFile: string | null;
    }
  | { readonly tool: "edit"; readonly path: string; readonly originalFile: string; readonly updatedFile: string }
  | {
      readonly tool: "grep";
      readonly mode: GrepMode;
      /** Paths as printed (relative to the cwd); files_with_matches mode only. */
      readonly filenames: readonly string[];
      /** The printed result lines, without notes; content and count modes. */
      readonly content: string;
      readonly numLines: number;
      readonly numFiles: number;
      readonly numMatches: number;
      readonly appliedLimit?: number;
    }
  | { readonly tool: "glob" /** Absolute paths. */; readonly filenames: readonly string[]; readonly durationMs: number; readonly truncated: boolean }
  | { readonly tool: "multi_edit"; readonly path: string; readonly originalFile: string; readonly updatedFile: string }
  | { readonly tool: "apply_patch"; readonly files: readonly PatchedFile[] }
  | { readonly tool: "todo_write"; readonly oldTodos: readonly TodoItem[]; readonly newTodos: readonly TodoItem[] }
  | {
      readonly tool: "web_fetch";
      /** The final URL (after redirects). */
      readonly url: string;
      readonly code: number;
      readonly codeText: string;
      readonly bytes: number;
      readonly durationMs: number;
      readonly result: string;
    };

/** One file an `apply_patch` call changed. */
export interface PatchedFile {
  readonly kind: "add" | "update" | "delete";
  /** Absolute path (for a move: where it was). */
  readonly path: string;
  /** Absolute destination of a `*** Move to:`. */
  readonly movePath?: string;
  /** null when added. */
  readonly originalFile: string | null;
  /** null when deleted. */
  readonly updatedFile: string | null;
}

/** The user's `tools.web_fetch` settings; absent: the tool is off. */
export interface WebFetchSettings {
  /** Hosts (`docs.example.com`, `*.example.com`, `127.0.0.1:8080`) a URL and every redirect must name. */
  readonly allow: readonly string[];
  /** Injected in tests; default: the runtime's global fetch. */
  readonly fetch?: typeof fetch;
}

export interface ToolContext {
  runtime: Runtime;
  /** The agent's cwd; relative paths resolve against it. */
  cwd: string;
  /** Paths must stay inside this (the project root); symlink escapes are refused. */
  workspaceRoot: string;
  /** Environment for `bash`, already stripped by the caller (D18); bash drops BASH_ENV/ENV/BASH_FUNC_* again. */
  env: Record<string, string>;
  /** Cancels the call: `bash` kills its process group; `grep` and `glob` stop at the next file or line. */
  signal?: AbortSignal;
  /**
   * Where `bash` puts an output too long for the conversation (the model gets a preview and pages
   * the file with `read`, which may read this directory though it is outside the workspace).
   * Absent (`--no-session`, hooks test): outputs stay inline, capped.
   */
  outputDir?: string;
  /** Read-only roots beside the workspace (loaded plugins: their skills' SKILL.md and its files); only `read` uses them. */
  readRoots?: readonly string[];
  /** The session's background shells (`run_in_background`, `bash_output`, `kill_shell`); absent: not offered. */
  shells?: BackgroundShells;
  /** Sees the command's output as it arrives (`bash`): the session turns it into live progress. */
  onOutput?: (chunk: Uint8Array) => void;
  /** The session's plan (`todo_write`); absent: the call fails. */
  todos?: TodoList;
  /** `web_fetch` settings from user config; absent: the tool is off. */
  webFetch?: WebFetchSettings;
  /**
   * The ripgrep binary `grep` and `glob` run; null: never (the built-in walk); undefined: `rg` on the
   * env's PATH when there is one.
   */
  ripgrep?: string | null;
}

export interface Tool<I = Record<string, unknown>> {
  name: ToolName;
  description: string;
  /** JSON Schema (draft-07) of the input, for providers. */
  parameters: Record<string, unknown>;
  /** Never throws: failures are `success: false`. Re-validates `input` against the tool's schema. */
  execute(input: I, ctx: ToolContext): Promise<ToolResult>;
}
