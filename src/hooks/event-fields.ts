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

const SUBAGENT_FIELDS = {
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

export const EVENT_FIELD_DEFAULTS: Readonly<Record<CanonicalEvent, Readonly<Record<string, unknown>>>> = {
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
