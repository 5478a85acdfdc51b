/**
 * Text → plain data for config files. Syntax errors come back as values carrying a 1-based line and
 * column, because JSON.parse's messages and positions differ between Bun, Deno and Node.
 */
import { parse as parseTomlText, TomlError } from "smol-toml";
import { jsonErrorAt, lineColumnAt as position } from "./json-position.ts";

export type ParseResult = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

/** Parses JSON text; never throws. A leading UTF-8 BOM is ignored. */
export function parseJson(text: string): ParseResult {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    const located = jsonErrorAt(body) ?? { offset: 0, message: "invalid JSON" };
    return { ok: false, ...position(body, located.offset), message: located.message };
  }
}

/** Parses TOML text with smol-toml; never throws. */
export function parseToml(text: string): ParseResult {
  try {
    return { ok: true, value: parseTomlText(text) };
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split("\n")[0] ?? "invalid TOML";
      return { ok: false, line: error.line, column: error.column, message: first.replace(/^Invalid TOML document: /, "") };
    }
    return { ok: false, line: 1, column: 1, message: error instanceof Error ? error.message : "invalid TOML" };
  }
}
