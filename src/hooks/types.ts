/**
 * The hook registry's value types: one frozen spec per loaded hook, whatever form declared it.
 * Wire names (snake_case) never appear here; dialects translate.
 */
import type { CanonicalEvent } from "../util/events.ts";

/** `managed`: the administrator's policy file (src/config/managed.ts), loaded before user and project. */
export type Scope = "managed" | "user" | "project";
export type Form = "dir" | "lifecycle" | "list";
export type Dialect = "action" | "claude" | "envelope";
export type FailurePolicy = "ignore" | "warn" | "block" | "fail";
export type PayloadMode = "redacted" | "full";
export type ListPhase = "before_tool" | "after_tool" | "after_assistant" | "after_reasoning";

interface HookSpecBase {
  /** Label shown in lists, failure lines and records (D2, conventions): name, label or position. */
  readonly label: string;
  readonly scope: Scope;
  readonly form: Form;
  readonly dialect: Dialect;
  readonly event: CanonicalEvent;
  /** Absolute path of the file that declared the hook (hook.json, config.toml, settings.json). */
  readonly source: string;
  /** Field path inside `source`, e.g. `hooks.before_tool[0]` or `hooks.lifecycle.pre_tool_use[0].hooks[1]`. */
  readonly field: string;
  readonly disabled: boolean;
  readonly timeoutMs: number;
  /**
   * Project hooks: run right before each spawn; a non-null result is the failure detail, and the hook
   * does not run and fails closed (src/trust/guard.ts). Never part of the digest.
   */
  readonly trustCheck?: () => string | null;
  /** Declared in the front matter of agent definition NAME: active only inside that subagent (src/hooks/agent-scope.ts). */
  readonly agent?: string;
}

/** Seed 000: a directory with hook.json, run by direct exec in that directory. */
export interface DirHookSpec extends HookSpecBase {
  readonly form: "dir";
  readonly name: string;
  /** Absolute hook directory. */
  readonly dir: string;
  /** Absolute, normalised path of the `run` target (never parsed as shell). */
  readonly run: string;
  /** `*` or an exact tool name/alias (never a regex). */
  readonly match: string;
  readonly failClosed: boolean;
  readonly async: boolean;
}

/**
 * Claude Code's handler types beyond `command`. `http` POSTs the claude payload
 * to an allowlisted URL (src/hooks/handlers/http.ts); `prompt` asks the session's provider for a
 * `{"ok": …}` decision (src/hooks/handlers/prompt.ts). Both replies decode as a command's stdout.
 */
export interface HttpHandler {
  readonly type: "http";
  /** Absolute http(s) URL, already checked against the user's `hooks.http_allow`. */
  readonly url: string;
  /** Header name → value template; `${NAME}` is read from the environment at request time. */
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: PayloadMode;
}

export interface PromptHandler {
  readonly type: "prompt";
  /** Template; `$ARGUMENTS` becomes the event's claude JSON payload. */
  readonly prompt: string;
  readonly model?: string;
}

export type LifecycleHandler = HttpHandler | PromptHandler;

/** Seed 002: one command of a `[[hooks.lifecycle.<event>]]` group, run through `/bin/sh -c`. */
export interface LifecycleHookSpec extends HookSpecBase {
  readonly form: "lifecycle";
  /** The shell command; "" when `handler` is set. */
  readonly command: string;
  /** Absent: a command hook. */
  readonly handler?: LifecycleHandler;
  /**
   * http hooks: the user's `hooks.http_allow` at load time; a redirect is followed only to a URL it
   * allows. Not part of the trust digest (the user's list is not the project's to pin).
   */
  readonly httpAllow?: readonly string[];
  /** The matcher as written; undefined when absent. */
  readonly matcher: string | undefined;
  /** Compiled `^(?:p)$`; null when it matches everything (`*`, `""`, absent). */
  readonly matcherRegex: RegExp | null;
  /** The event key as written in the file (`pre_tool_use`, `PreToolUse`, `task_completion`…). */
  readonly eventKey: string;
  readonly groupIndex: number;
  readonly hookIndex: number;
  readonly failurePolicy: FailurePolicy;
  /** Claude Code's `async`: runs beside the event and never decides or delays it (D15). */
  readonly async?: boolean;
  /** Claude Code's `once`: runs at most once per session id. */
  readonly once?: boolean;
  /** Claude Code's `statusMessage`: the line shown while the hook runs. */
  readonly statusMessage?: string;
  /** Declared by this Claude Code plugin (src/config/plugins.ts). */
  readonly plugin?: string;
  /** The plugin's root: `CLAUDE_PLUGIN_ROOT` in the hook's environment. */
  readonly pluginRoot?: string;
}

/** Seed 003: one entry of `hooks.before_tool|after_tool|after_assistant|after_reasoning`. */
export interface ListHookSpec extends HookSpecBase {
  readonly form: "list";
  readonly command: string;
  readonly phase: ListPhase;
  /** Position in its own file's array (`hook.index`, D26). */
  readonly index: number;
  readonly failurePolicy: FailurePolicy;
  readonly payload: PayloadMode;
  readonly stdoutMaxBytes: number;
  readonly stderrMaxBytes: number;
  readonly providerContextInjection: boolean;
  readonly providerContextMaxBytes: number;
  readonly includeTools: readonly string[];
  readonly excludeTools: readonly string[];
  /** Effective `tools.bash.absolute_paths` for this hook's scope (D26), used by preflight. */
  readonly absolutePaths: boolean;
}

export type HookSpec = DirHookSpec | LifecycleHookSpec | ListHookSpec;

/** A config problem found while loading. `error` makes `agent hooks validate` exit 1 (D21). */
export interface LoadWarning {
  readonly severity: "error" | "warning";
  /** Absolute file path (or directory) the problem is in. */
  readonly file: string;
  /** Field path inside the file, `""` for the whole file. */
  readonly field: string;
  readonly message: string;
}

/** Failure categories of seed 003, used by every form (D15). */
export type FailureCategory = "exit" | "timeout" | "runner" | "stdin" | "output-limit";

/** A user hook dir that a project hook dir of the same name replaces. */
export interface HookDirShadow {
  readonly name: string;
  readonly userRun: string;
  readonly userFailClosed: boolean;
  readonly projectSource: string;
}
