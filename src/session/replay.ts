/**
 * Resume (D25, TOOL-61, LOOP-28): rebuilds the provider conversation from a session's records. Only
 * what the provider saw is replayed: the last `compaction` summary, then `user`, `assistant`,
 * `tool_result_delivered` and `provider_context_item` in file order. The raw `tool_result` is never
 * replayed; it only lends its content to a delivered record that refers to it (`deliveredTexts`).
 * Local-only `hook_*` records never reach a provider.
 */
import type { Message } from "../providers/types.ts";
import { deliveredTexts, type SessionRecord } from "./records.ts";

/** Stands in for a call whose delivered result was never written (the session died mid-call). */
export const MISSING_RESULT_TEXT = "Tool call did not complete: the session ended before its result was recorded.";

/**
 * The message a compaction summary becomes, live and on resume alike (the agent loop should build it
 * with this function too, so a resumed conversation matches the one the provider last saw).
 */
export function compactionSummaryMessage(summary: string): Message {
  return { role: "user", content: `Summary of the earlier conversation (compacted):\n\n${summary}` };
}

export function replayMessages(records: readonly SessionRecord[]): Message[] {
  const lastCompaction = records.findLastIndex((record) => record.type === "compaction");
  const toolNames = new Map<string, string>();
  const failed = new Set<string>();
  // The raw content only of results whose delivered record refers to it (an output kept in the outputs directory).
  const raw = new Map<string, string>();
  for (const record of records) {
    if (record.type === "tool_call") toolNames.set(record.tool_call_id, record.tool_name);
    if (record.type === "assistant") for (const call of record.tool_calls) toolNames.set(call.id, call.name);
    // The raw result gives the success flag (for isError) and, when the delivered record left it out, the content.
    if (record.type === "tool_result" && !record.success) failed.add(record.tool_call_id);
    if (record.type === "tool_result" && record.metadata.output_file !== undefined) raw.set(record.tool_call_id, record.content);
  }

  const messages: Message[] = [];
  const compaction = records[lastCompaction];
  if (compaction?.type === "compaction") messages.push(compactionSummaryMessage(compaction.summary));

  // Calls of the latest assistant message still waiting for their delivered result, in call order.
  let pending: { id: string; name: string }[] = [];
  const closePending = (): void => {
    for (const call of pending) messages.push({ role: "tool", toolCallId: call.id, name: call.name, content: MISSING_RESULT_TEXT, isError: true });
    pending = [];
  };

  for (const record of records.slice(lastCompaction + 1)) {
    switch (record.type) {
      case "user":
        closePending();
        messages.push({ role: "user", content: record.content });
        break;
      case "assistant":
        closePending();
        messages.push({
          role: "assistant",
          content: record.content,
          toolCalls: record.tool_calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
        });
        pending = record.tool_calls.map((call) => ({ id: call.id, name: call.name }));
        break;
      case "tool_result_delivered": {
        pending = pending.filter((call) => call.id !== record.tool_call_id);
        const message: Message = {
          role: "tool",
          toolCallId: record.tool_call_id,
          name: toolNames.get(record.tool_call_id) ?? "",
          content: deliveredTexts(record, raw.get(record.tool_call_id)).content,
        };
        messages.push(failed.has(record.tool_call_id) ? { ...message, isError: true } : message);
        break;
      }
      case "provider_context_item":
        messages.push({ role: "user", content: record.content });
        break;
      default:
        break;
    }
  }
  closePending();
  return messages;
}
