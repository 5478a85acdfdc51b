/**
 * A per-message memo of its wire form. Every request re-sends the whole history, and rebuilding
 * (and re-serializing) every earlier message made each request cost grow with the conversation. A
 * hit needs every field a wire form reads to be the identical value, so a message changed in place
 * is built afresh.
 */
import type { Message } from "./types.ts";

interface MessageKey {
  readonly content: string;
  readonly toolCallId: string | undefined;
  readonly isError: boolean | undefined;
  readonly calls: readonly { id: string; name: string; arguments: string }[] | undefined;
  readonly callFields: readonly string[];
}

function keyOf(message: Message): MessageKey {
  return {
    content: message.content,
    toolCallId: message.role === "tool" ? message.toolCallId : undefined,
    isError: message.role === "tool" ? message.isError : undefined,
    calls: message.role === "assistant" ? message.toolCalls : undefined,
    callFields: message.role === "assistant" ? message.toolCalls.flatMap((call) => [call.id, call.name, call.arguments]) : [],
  };
}

function sameKey(a: MessageKey, b: MessageKey): boolean {
  if (a.content !== b.content || a.toolCallId !== b.toolCallId || a.isError !== b.isError || a.calls !== b.calls) return false;
  if (a.callFields.length !== b.callFields.length) return false;
  for (let i = 0; i < a.callFields.length; i++) if (a.callFields[i] !== b.callFields[i]) return false;
  return true;
}

export class WireMemo<T> {
  private readonly cache = new WeakMap<Message, { readonly key: MessageKey; readonly value: T }>();

  /** The memoized wire form of `message`, built with `build` on a miss. */
  get(message: Message, build: (message: Message) => T): T {
    const key = keyOf(message);
    const cached = this.cache.get(message);
    if (cached !== undefined && sameKey(cached.key, key)) return cached.value;
    const value = build(message);
    this.cache.set(message, { key, value });
    return value;
  }
}
