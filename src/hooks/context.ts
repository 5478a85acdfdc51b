/**
 * Model-facing hook context (D19) and hidden context (D7): pure string helpers shared by dispatch,
 * the agent loop and `agent hooks test`, so every path produces the same bytes.
 */

/** D19/D6/D7: the cap on merged model-facing context, in UTF-8 bytes. */
export const HOOK_CONTEXT_MAX_BYTES = 4096;

const CLOSING_TAG = /<\/hook_context>/gi;
const NEUTRALISED_TAG = "<\u200B/hook_context>";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Neutralises every `</hook_context>` (any case) as `<\u200B/hook_context>`, so hook text can never
 * close the block early (D19, MERGE-21). Idempotent.
 */
export function neutralizeContext(text: string): string {
  return text.replace(CLOSING_TAG, NEUTRALISED_TAG);
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `capBytes`, never splitting a
 * character (D6's stderr reason, D19's context cap). Returns `text` itself when it fits.
 */
export function cutUtf8(text: string, capBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= capBytes) return text;
  let end = Math.max(0, capBytes);
  // Step back over continuation bytes (10xxxxxx) to the start of the character that crosses the cap.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return decoder.decode(bytes.subarray(0, end));
}

/**
 * D19: the content of the `<hook_context>` block for one tool call. Empty parts are skipped (an
 * empty context is no context); each part is neutralised, the parts are joined with a blank line
 * in the given (merge) order, and the result is cut at `capBytes` on a UTF-8 boundary. Parts are
 * not trimmed: D19 keeps hook text as given. Returns `""` when there is no context.
 */
export function joinContexts(parts: readonly string[], capBytes: number = HOOK_CONTEXT_MAX_BYTES): string {
  const joined = parts
    .filter((part) => part !== "")
    .map(neutralizeContext)
    .join("\n\n");
  return cutUtf8(joined, capBytes);
}

/**
 * Appends the joined context to a tool result as `\n\n<hook_context>\n…\n</hook_context>`;
 * returns `toolContent` unchanged (byte for byte, no tags) when `context` is empty (DIR-51).
 * `context` is expected to come from `joinContexts` (already neutralised and capped).
 */
export function appendHookContext(toolContent: string, context: string): string {
  if (context === "") return toolContent;
  return `${toolContent}\n\n<hook_context>\n${context}\n</hook_context>`;
}

/**
 * D7: the one user-role message carrying hidden context (session_start / user_prompt_submit).
 * Each part is trimmed of trailing whitespace, empty ones are dropped, the rest are joined with a
 * blank line in merge order and neutralised. No byte cap applies (D7 names none).
 * Returns null when no part has content, so callers send no message at all.
 */
export function hiddenContextMessage(parts: readonly string[]): string | null {
  const kept = parts.map((part) => part.trimEnd()).filter((part) => part !== "");
  if (kept.length === 0) return null;
  return `<hook_context>\n${neutralizeContext(kept.join("\n\n"))}\n</hook_context>`;
}
