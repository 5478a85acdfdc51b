/**
 * The claude-payload fields each event carries beyond the common ones (LIFE-22..28), with the
 * defaults `agent hooks test` uses (DESIGN.md: `source` startup, `reason` completed, `trigger`
 * manual, `notification_type` custom, `agent_name` general, everything else empty).
 */
import type { CanonicalEvent } from "../util/events.ts";
import type { EnvelopeContext } from "./dialects/types.ts";

/** Envelope `context` of an event fired outside a session (`agent hooks test`, `agent notify`). */
export const STANDALONE_ENVELOPE_CONTEXT: EnvelopeContext = {
  sessionPath: null,
  providerId: null,
  modelId: null,
  agentId: null,
  invocationMode: "print",
  turnId: "turn-0",
  messageId: "message-0",
  subagent: false,
};

/** The subagent events' own fields: which child, under which agent, in what state. */
export type SubagentFields = {
  readonly parent_session_id: string;
  readonly child_session_id: string;
  readonly child_thread_id: string;
  readonly agent_name: string;
  readonly agent_id: string;
  readonly agent_type: string;
  readonly display_label: string;
  readonly background: boolean;
  readonly status: string;
};

/**
 * The typed input of each event beyond the common fields, spelled as the claude payload spells them
 * (the dialects copy them through; envelope and action payloads pick what they carry). The one place
 * these names are defined: a caller that fires an event gets its fields checked here.
 */
export type EventFields = {
  readonly pre_tool: { readonly permission_decision: "allow" | "deny" | "ask" | "" };
  readonly post_tool: Record<string, never>;
  readonly post_tool_failure: Record<string, never>;
  readonly after_assistant: { readonly text: string };
  readonly after_reasoning: { readonly text: string };
  readonly user_prompt_submit: { readonly prompt: string; readonly turn_id: string };
  readonly session_start: { readonly source: "startup" | "resume" | "clear" | "compact" | string };
  readonly session_end: { readonly reason: string; readonly turn_id: string };
  readonly permission_request: { readonly permission_request: Readonly<Record<string, unknown>>; readonly permission_suggestions: readonly unknown[] };
  readonly stop: { readonly stop_hook_active: boolean; readonly last_assistant_message: string };
  readonly pre_compact: { readonly trigger: "manual" | "auto" | string; readonly custom_instructions: string; readonly original_message_count: number };
  readonly notification: { readonly notification_type: string; readonly title: string; readonly message: string };
  readonly subagent_start: SubagentFields & { readonly prompt: string };
  readonly subagent_stop: SubagentFields & { readonly last_assistant_message?: string; readonly [extra: string]: unknown };
};

const SUBAGENT_FIELDS: SubagentFields = {
  parent_session_id: "",
  child_session_id: "",
  child_thread_id: "",
  agent_name: "general",
  agent_id: "",
  agent_type: "general",
  display_label: "",
  background: false,
  status: "",
};

export const EVENT_FIELD_DEFAULTS: { readonly [E in CanonicalEvent]: EventFields[E] } = {
  pre_tool: { permission_decision: "" },
  post_tool: {},
  post_tool_failure: {},
  after_assistant: { text: "" },
  after_reasoning: { text: "" },
  user_prompt_submit: { prompt: "", turn_id: "" },
  session_start: { source: "startup" },
  session_end: { reason: "completed", turn_id: "" },
  permission_request: { permission_request: {}, permission_suggestions: [] },
  stop: { stop_hook_active: false, last_assistant_message: "" },
  pre_compact: { trigger: "manual", custom_instructions: "", original_message_count: 0 },
  notification: { notification_type: "custom", title: "", message: "" },
  subagent_start: { ...SUBAGENT_FIELDS, prompt: "" },
  subagent_stop: { ...SUBAGENT_FIELDS, last_assistant_message: "" },
};
