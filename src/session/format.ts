/**
 * Text for `agent sessions list` and `agent sessions show ID` (CLI-28). Pure: the CLI prints what
 * these return. `show` lists what the conversation held — prompts, replies, tool calls and the
 * results as delivered to the provider — and leaves local hook telemetry out.
 */
import { deliveredTexts, type SessionRecord } from "./records.ts";
import type { SessionSummary } from "./store.ts";

const PROMPT_PREVIEW_CHARS = 60;

/** One line per session, each starting with the id and the start time; "" for no sessions. */
export function formatSessionList(sessions: readonly SessionSummary[]): string {
  return sessions
    .map((session) => {
      const parts = [session.id, session.startedAt];
      if (session.provider !== null && session.model !== null) parts.push(`${session.provider}/${session.model}`);
      parts.push(session.stopReason ?? "unfinished");
      if (session.prompt !== null) parts.push(JSON.stringify(preview(session.prompt)));
      return `${parts.join("  ")}\n`;
    })
    .join("");
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > PROMPT_PREVIEW_CHARS ? `${line.slice(0, PROMPT_PREVIEW_CHARS - 1)}…` : line;
}

/** The session's conversation in file order, one labelled block per prompt, reply, call and result. */
export function formatSessionShow(id: string, records: readonly SessionRecord[]): string {
  const out: string[] = [];
  const block = (label: string, text: string): void => {
    const [first = "", ...rest] = text.split("\n");
    out.push(`${label} ${first}`.trimEnd(), ...rest.map((line) => `  ${line}`.trimEnd()));
  };
  // Raw results by call id: a delivered result may refer to its tool_result's content.
  const raw = new Map<string, string>();
  for (const record of records) {
    switch (record.type) {
      case "session_start": {
        const child = record.agent_name !== undefined ? `  agent ${record.agent_name} (parent ${record.parent_session_id ?? "?"})` : "";
        out.push(`session ${id}  started ${record.timestamp}  ${record.provider}/${record.model}  cwd ${record.cwd}${child}`);
        break;
      }
      case "user":
        block("[user]", record.content);
        break;
      case "assistant":
        if (record.content.length > 0) block("[assistant]", record.content);
        break;
      case "tool_call":
        block(`[tool_call ${record.tool_call_id}]`, `${record.tool_name} ${typeof record.input === "string" ? record.input : JSON.stringify(record.input)}`);
        break;
      case "tool_result":
        raw.set(record.tool_call_id, record.content);
        break;
      case "tool_result_delivered":
        block(`[result ${record.tool_call_id}]`, deliveredTexts(record, raw.get(record.tool_call_id)).content);
        break;
      case "provider_context_item":
        block("[context]", record.content);
        break;
      case "compaction":
        block(`[compaction ${record.trigger}]`, record.summary);
        break;
      case "session_end":
        out.push(`[end] ${record.stop_reason}${record.is_error ? " (error)" : ""}`);
        break;
      default:
        break;
    }
  }
  return out.map((line) => `${line}\n`).join("");
}
