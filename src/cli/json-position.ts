/**
 * Where JSON text first goes wrong, for error messages that name the parse position (CLI-07).
 * Needed because runtimes word JSON.parse errors differently and Bun's carry no position.
 * A small recursive-descent scanner over RFC 8259; it only locates, JSON.parse still parses.
 */

/** Zero-based offset of the first syntax error in `text`, or null when it is valid JSON. */
export function jsonErrorOffset(text: string): number | null {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && " \t\n\r".includes(text[i] ?? "")) i += 1;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i += 1;
    }
  };
  const string = (): void => {
    i += 1; // opening quote
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch < " ") fail();
      if (ch === '"') {
        i += 1;
        return;
      }
      if (ch === "\\") {
        i += 1;
        const esc = text[i] ?? "";
        if (esc === "u") {
          for (let k = 1; k <= 4; k += 1) if (!/[0-9a-fA-F]/.test(text[i + k] ?? "")) fail();
          i += 5;
        } else if ('"\\/bfnrt'.includes(esc) && esc !== "") i += 1;
        else fail();
      } else i += 1;
    }
  };
  const number = (): void => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === "" || match[0] === "-") fail();
    i += match?.[0].length ?? 0;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i += 1;
      ws();
      if (text[i] === "}") {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i += 1;
        value();
        ws();
        if (text[i] === ",") i += 1;
        else if (text[i] === "}") {
          i += 1;
          return;
        } else fail();
      }
    }
    if (ch === "[") {
      i += 1;
      ws();
      if (text[i] === "]") {
        i += 1;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i += 1;
        else if (text[i] === "]") {
          i += 1;
          return;
        } else fail();
      }
    }
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return number();
    fail();
  };
  try {
    value();
    ws();
    return i < text.length ? i : null;
  } catch (offset) {
    return typeof offset === "number" ? offset : 0;
  }
}

/** `position N (line L, column C)` of the first error, 1-based line and column; null when valid. */
export function jsonErrorPosition(text: string): string | null {
  const offset = jsonErrorOffset(text);
  if (offset === null) return null;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `position ${offset} (line ${line}, column ${column})`;
}
