/**
 * Model-facing hook context (D19) and hidden context (D7): pure string helpers shared by dispatch,
 * the agent loop and `agent hooks test`, so every path produces the same bytes.
 */

/** D19/D6/D7: the cap on merged model-facing context, in UTF-8 bytes. */
export const HOOK_CONTEXT_MAX_BYTES = 4096;

/**
 * The cap on one hook-given reason (a deny, block or stop reason, a permission message) before it
 * reaches the model or a user-role message: the same 4096 bytes as D6's stderr reason, so no reply
 * field can carry more hook text to the model than the context block itself.
 */
export const HOOK_REASON_MAX_BYTES = HOOK_CONTEXT_MAX_BYTES;

/**
 * Anything a model could read as a `hook_context` tag, opening or closing: `<`, then any run of
 * whitespace and invisible format characters (ZWSP, ZWJ, BOM, soft hyphen…), an optional `/` with
 * more of them, and `hook` + `context` with whitespace, format characters, `_` or `-` between, in
 * any case. The `>` is not required: `</hook_context` followed by a newline and `>` (or by nothing)
 * reads as a tag too. The optional slash sits in its own group after the first run so a long run
 * of spaces after `<` is backtracked over once, never twice: linear in the text.
 */
const TAG_LIKE = /<[\s\p{Cf}]*(?:(\/)[\s\p{Cf}]*)?hook[\s\p{Cf}_-]*context/giu;
const NEUTRAL_OPEN = "<\u200Bhook_context";
const NEUTRAL_CLOSE = "<\u200B/hook_context";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Neutralises every tag-like `hook_context` (TAG_LIKE) by rewriting it as `<\u200B/hook_context`
 * (closing) or `<\u200Bhook_context` (opening), so neither hook text nor a tool's output can close
 * the block early or forge one (D19, MERGE-21): `</HOOK_CONTEXT>` becomes `<\u200B/hook_context>`,
 * `</hook_context >` becomes `<\u200B/hook_context >`. Idempotent (U+200B right after `<` is
 * matched again and rewritten to itself); text without such a tag is returned as is.
 */
export function neutralizeContext(text: string): string {
  if (!/hook/i.test(text)) return text; // the common case: no regex pass with replacement
  return text.replace(TAG_LIKE, (_match, slash: string | undefined) => (slash === undefined ? NEUTRAL_OPEN : NEUTRAL_CLOSE));
}

/**
 * One hook-given reason as it may reach the model: neutralised, then cut at `capBytes` on a UTF-8
 * boundary (HOOK_REASON_MAX_BYTES by default). Short reasons without tags come back unchanged.
 */
export function boundReason(text: string, capBytes: number = HOOK_REASON_MAX_BYTES): string {
  return cutUtf8(neutralizeContext(text), capBytes);
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
 * with an empty `context` no block is added (DIR-51). `context` is expected to come from
 * `joinContexts` (already neutralised and capped). The tool content is neutralised always, block
 * or not: a file, command or MCP output holding `<hook_context>…</hook_context>` must never reach
 * the model as the agent's tag, whether it would close the agent's block or forge one on its own.
 * Content without a tag-like `hook_context` comes back byte for byte.
 */
export function appendHookContext(toolContent: string, context: string): string {
  const content = neutralizeContext(toolContent);
  if (context === "") return content;
  return `${content}\n\n<hook_context>\n${context}\n</hook_context>`;
}

/**
 * D7: the one user-role message carrying hidden context (session_start / user_prompt_submit, and
 * a child's first prompt from subagent_start). Each part is trimmed of trailing whitespace, empty
 * ones are dropped, the rest are joined with a blank line in merge order, neutralised, and cut at
 * `capBytes` (D19's 4096 bytes: D7 names no cap, and an unbounded one let 2 MB of hook output
 * reach the model). Returns null when no part has content, so callers send no message at all.
 */
export function hiddenContextMessage(parts: readonly string[], capBytes: number = HOOK_CONTEXT_MAX_BYTES): string | null {
  const kept = parts.map((part) => part.trimEnd()).filter((part) => part !== "");
  if (kept.length === 0) return null;
  return `<hook_context>\n${cutUtf8(neutralizeContext(kept.join("\n\n")), capBytes)}\n</hook_context>`;
}
