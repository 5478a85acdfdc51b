/**
 * Where JSON text first goes wrong, for messages that name the place: config files
 * (`<file>:<line>:<col>`) and `agent hooks test --input` (`position N (line L, column C)`, CLI-07).
 * Needed because runtimes word JSON.parse errors differently and Bun's carry no position. A small
 * recursive-descent scanner over RFC 8259; it only locates, JSON.parse still parses.
 */

class JsonSyntaxError extends Error {
  readonly offset: number;
  constructor(offset: number, message: string) {
    super(message);
    this.offset = offset;
  }
}

/** 1-based line and column of `offset` in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
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
export function jsonErrorAt(text: string): { offset: number; message: string } | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw new JsonSyntaxError(i, message);
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
    if (error instanceof JsonSyntaxError) return { offset: error.offset, message: error.message };
    // The only other throw is a stack overflow on deeply nested input; never throw from here.
    return { offset: i, message: "nested too deeply" };
  }
}

/** `position N (line L, column C)` of the first error, 1-based line and column; null when valid. */
export function jsonErrorPosition(text: string): string | null {
  const located = jsonErrorAt(text);
  if (located === undefined) return null;
  const { line, column } = lineColumnAt(text, located.offset);
  return `position ${located.offset} (line ${line}, column ${column})`;
}
