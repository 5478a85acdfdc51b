/** Output caps shared by the tools, so no tool result can flood the provider context. */
import { errorMessage } from "../util/errors.ts";

export const OUTPUT_MAX_BYTES = 256 * 1024;
export const LINE_MAX_CHARS = 2000;

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** Cuts one over-long line, saying so. */
export function capLine(line: string): string {
  return line.length <= LINE_MAX_CHARS ? line : `${line.slice(0, LINE_MAX_CHARS)}… [line truncated, ${line.length} chars]`;
}

/**
 * Joins lines until `maxBytes` would be exceeded. `shown` is how many lines fit (a line is never
 * cut in the middle by this function; `capLine` handles long lines).
 */
export function joinCapped(lines: readonly string[], maxBytes = OUTPUT_MAX_BYTES): { text: string; shown: number } {
  let bytes = 0;
  let shown = 0;
  for (const line of lines) {
    const size = utf8Bytes(line) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    shown++;
  }
  return { text: lines.slice(0, shown).join("\n"), shown };
}

/** True when the first 8000 bytes hold a NUL: the file is treated as binary (as git and ripgrep do). */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.byteLength, 8000);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** `errorMessage`, prefixed with a Node-style `code` (`ENOENT: …`) when the message lacks it. */
export function describeError(error: unknown): string {
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  const message = errorMessage(error);
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
}

export function failure(content: string, metadata?: Record<string, unknown>): { success: false; content: string; metadata?: Record<string, unknown> } {
  return metadata === undefined ? { success: false, content } : { success: false, content, metadata };
}
