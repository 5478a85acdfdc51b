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

/** A recursive-descent reader that only checks syntax; `i` is where it stands, and where it fails. */
class JsonScanner {
  i = 0;
  constructor(private readonly text: string) {}

  private fail(message: string): never {
    throw new JsonSyntaxError(this.i, message);
  }

  /** The failure message at the current position: the end of the input, or `expected`. */
  private expected(what: string): never {
    return this.fail(this.text[this.i] === undefined ? "unexpected end of input" : what);
  }

  ws(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i] ?? "")) this.i++;
  }

  private literal(word: string): void {
    if (this.text.startsWith(word, this.i)) this.i += word.length;
    else this.fail("unexpected token");
  }

  private string(): void {
    const text = this.text;
    this.i++;
    for (;;) {
      if (this.i >= text.length) this.fail("unterminated string");
      const ch = text[this.i] ?? "";
      if (ch === '"') {
        this.i++;
        return;
      }
      if (ch < " ") this.fail("control character in string");
      if (ch !== "\\") {
        this.i++;
        continue;
      }
      const next = text[this.i + 1] ?? "";
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 2, this.i + 6))) this.fail("invalid unicode escape");
        this.i += 6;
      } else if ('"\\/bfnrt'.includes(next) && next !== "") this.i += 2;
      else this.fail("invalid escape");
    }
  }

  private number(): void {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.i));
    if (!match) this.fail("invalid number");
    this.i += match[0].length;
  }

  /** `{` or `[` at the current position: its members up to the closing bracket. */
  private container(close: "}" | "]"): void {
    this.i++;
    this.ws();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      if (close === "}") this.member();
      else this.value();
      this.ws();
      const ch = this.text[this.i];
      if (ch === "," || ch === close) {
        this.i++;
        if (ch === close) return;
        continue;
      }
      this.expected(`expected ',' or '${close}'`);
    }
  }

  private member(): void {
    this.ws();
    if (this.text[this.i] !== '"') this.expected("expected a string key");
    this.string();
    this.ws();
    if (this.text[this.i] !== ":") this.expected("expected ':'");
    this.i++;
    this.value();
  }

  value(): void {
    this.ws();
    const ch = this.text[this.i];
    if (ch === undefined) this.fail("unexpected end of input");
    else if (ch === "{") this.container("}");
    else if (ch === "[") this.container("]");
    else if (ch === '"') this.string();
    else if (ch === "t") this.literal("true");
    else if (ch === "f") this.literal("false");
    else if (ch === "n") this.literal("null");
    else if (ch === "-" || (ch >= "0" && ch <= "9")) this.number();
    else this.fail("unexpected token");
  }
}

/**
 * Finds the offset and reason of the first JSON syntax error (RFC 8259), or undefined when the text
 * is valid. Only used after JSON.parse failed, to point at the place.
 */
export function jsonErrorAt(text: string): { offset: number; message: string } | undefined {
  const scanner = new JsonScanner(text);
  try {
    scanner.value();
    scanner.ws();
    if (scanner.i < text.length) throw new JsonSyntaxError(scanner.i, "unexpected data after the JSON value");
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { offset: error.offset, message: error.message };
    // The only other throw is a stack overflow on deeply nested input; never throw from here.
    return { offset: scanner.i, message: "nested too deeply" };
  }
}

/** `position N (line L, column C)` of the first error, 1-based line and column; null when valid. */
export function jsonErrorPosition(text: string): string | null {
  const located = jsonErrorAt(text);
  if (located === undefined) return null;
  const { line, column } = lineColumnAt(text, located.offset);
  return `position ${located.offset} (line ${line}, column ${column})`;
}
