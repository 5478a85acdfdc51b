/**
 * Text → plain data for config files. Syntax errors come back as values carrying a 1-based line and
 * column, because JSON.parse's messages and positions differ between Bun, Deno and Node.
 */
import { parse as parseTomlText, TomlError } from "smol-toml";

export type ParseResult = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}

/**
 * Finds the offset and reason of the first JSON syntax error (RFC 8259), or undefined when the text
 * is valid. Only used after JSON.parse failed, to point at the place.
 */
function jsonErrorAt(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw { offset: i, message };
  };
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i] ?? "")) i++;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail("unexpected token");
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const ch = text[i] ?? "";
      if (ch === '"') {
        i++;
        return;
      }
      if (ch < " ") fail("control character in string");
      if (ch === "\\") {
        const next = text[i + 1] ?? "";
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail("invalid unicode escape");
          i += 6;
        } else if ('"\\/bfnrt'.includes(next) && next !== "") i += 2;
        else fail("invalid escape");
      } else i++;
    }
  };
  const number = (): void => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail("invalid number");
    i += match?.[0].length ?? 0;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === undefined) fail("unexpected end of input");
    else if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === undefined ? "unexpected end of input" : "expected a string key");
        string();
        ws();
        if (text[i] !== ":") fail(text[i] === undefined ? "unexpected end of input" : "expected ':'");
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail(text[i] === undefined ? "unexpected end of input" : "expected ',' or '}'");
      }
    } else if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail(text[i] === undefined ? "unexpected end of input" : "expected ',' or ']'");
      }
    } else if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else if (ch === "-" || (ch >= "0" && ch <= "9")) number();
    else fail("unexpected token");
  };
  try {
    value();
    ws();
    if (i < text.length) fail("unexpected data after the JSON value");
    return undefined;
  } catch (error) {
    const located = error as { offset: number; message: string };
    return { offset: located.offset, message: located.message };
  }
}

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

/** Plain-object test for parsed data (TOML tables have a null prototype). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
