/**
 * Canonical hook events and every alias accepted wherever an event is named (DESIGN.md, Events).
 * Names are case-sensitive here; D9's case-insensitive `hookEventName` check lives in the claude dialect.
 */
export const CANONICAL_EVENTS = [
  "pre_tool",
  "post_tool",
  "post_tool_failure",
  "after_assistant",
  "after_reasoning",
  "user_prompt_submit",
  "session_start",
  "session_end",
  "permission_request",
  "stop",
  "pre_compact",
  "notification",
  "subagent_start",
  "subagent_stop",
] as const;

export type CanonicalEvent = (typeof CANONICAL_EVENTS)[number];

/** Aliases per canonical event, excluding the canonical name itself. */
export const EVENT_ALIASES: Readonly<Record<CanonicalEvent, readonly string[]>> = {
  pre_tool: ["pre_tool_use", "before_tool", "PreToolUse"],
  post_tool: ["post_tool_use", "after_tool", "PostToolUse"],
  post_tool_failure: ["post_tool_use_failure", "PostToolUseFailure"],
  after_assistant: [],
  after_reasoning: [],
  user_prompt_submit: ["UserPromptSubmit"],
  session_start: ["SessionStart"],
  session_end: ["SessionEnd"],
  permission_request: ["PermissionRequest"],
  stop: ["Stop", "task_completion", "task_completed"],
  pre_compact: ["PreCompact"],
  notification: ["Notification"],
  subagent_start: ["SubagentStart"],
  subagent_stop: ["SubagentStop"],
};

/** The Claude-style name sent as `hook_event_name` and `VT_HOOK_EVENT` to claude-dialect hooks. */
export const CLAUDE_EVENT_NAMES: Readonly<Record<CanonicalEvent, string>> = {
  pre_tool: "PreToolUse",
  post_tool: "PostToolUse",
  post_tool_failure: "PostToolUseFailure",
  after_assistant: "AfterAssistant",
  after_reasoning: "AfterReasoning",
  user_prompt_submit: "UserPromptSubmit",
  session_start: "SessionStart",
  session_end: "SessionEnd",
  permission_request: "PermissionRequest",
  stop: "Stop",
  pre_compact: "PreCompact",
  notification: "Notification",
  subagent_start: "SubagentStart",
  subagent_stop: "SubagentStop",
};

const BY_NAME: ReadonlyMap<string, CanonicalEvent> = (() => {
  const map = new Map<string, CanonicalEvent>();
  for (const event of CANONICAL_EVENTS) {
    map.set(event, event);
    for (const alias of EVENT_ALIASES[event]) map.set(alias, event);
  }
  return map;
})();

/** Canonical event for any accepted spelling (case-sensitive), or undefined. Never throws. */
export function canonicalEvent(name: string): CanonicalEvent | undefined {
  return BY_NAME.get(name);
}

/** Every accepted spelling, for error messages that list the valid names. */
export function allEventNames(): string[] {
  return [...BY_NAME.keys()];
}

/** Events that concern one tool call (D24's "tool events"). */
export const TOOL_EVENTS: ReadonlySet<CanonicalEvent> = new Set(["pre_tool", "post_tool", "post_tool_failure", "permission_request"]);
