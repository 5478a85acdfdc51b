/**
 * The `hooks:` block of an agent definition's front matter (`.agent/agents/NAME.md`),
 * in the shape Claude Code's agent files use:
 *
 *   ---
 *   name: reviewer
 *   hooks:
 *     PreToolUse:
 *       - matcher: "Bash"
 *         hooks:
 *           - type: command
 *             command: "$CLAUDE_PROJECT_DIR/.agent/hooks/check.sh"
 *             timeout: 30
 *   ---
 *
 * Only that block is read, with a small strict YAML subset (no YAML library is a dependency):
 * block mappings and `- ` sequences indented with spaces, scalars plain (`true`, `false`, `null`,
 * numbers, else text), `"double"` (JSON escapes) or `'single'` (`''` is a quote), `#` comments, and
 * any value written as one-line JSON (`hooks: {"PreToolUse": [...]}` or `hooks: [ ... ]` flows).
 * Anchors, tags, multi-line scalars (`|`, `>`), flow collections that are not JSON and tabs in the
 * indentation are errors naming the line: a hook that runs code is never guessed at. The other
 * front-matter keys are not parsed at all (they may use any YAML).
 */

export type FrontmatterHooksResult = { readonly ok: true; readonly hooks: unknown } | { readonly ok: false; readonly line: number; readonly message: string };

interface Line {
  readonly number: number;
  readonly indent: number;
  readonly text: string;
}

/** The `hooks:` value of the front matter of `text`; `hooks: undefined` when there is none. */
export function frontmatterHooks(text: string): FrontmatterHooksResult {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n/g, "\n")
    .split("\n");
  if (lines[0]?.trimEnd() !== "---") return { ok: true, hooks: undefined };
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === "---");
  if (end < 0) return { ok: true, hooks: undefined };
  const start = lines.findIndex((line, index) => index > 0 && index < end && /^hooks\s*:/.test(line));
  if (start < 0) return { ok: true, hooks: undefined };
  const block: Line[] = [];
  for (let index = start + 1; index < end; index += 1) {
    const raw = lines[index] ?? "";
    // The block ends at the next top-level key.
    if (raw !== "" && !/^\s/.test(raw) && !raw.startsWith("#")) break;
    const text = stripComment(raw);
    if (text.trim() === "") continue;
    const lead = /^[ \t]*/.exec(text)?.[0] ?? "";
    if (lead.includes("\t")) return { ok: false, line: index + 1, message: "tab in indentation (use spaces)" };
    block.push({ number: index + 1, indent: lead.length, text: text.trim() });
  }
  const inline = stripComment(lines[start] ?? "")
    .replace(/^hooks\s*:/, "")
    .trim();
  try {
    if (inline !== "") {
      if (block.length > 0) throw new FrontmatterError(start + 1, "hooks: has both an inline value and an indented block");
      return { ok: true, hooks: scalar(inline, start + 1) };
    }
    if (block.length === 0) return { ok: true, hooks: null };
    const parser = new BlockParser(block);
    const value = parser.parse(block[0]?.indent ?? 0);
    parser.expectEnd();
    return { ok: true, hooks: value };
  } catch (error) {
    if (error instanceof FrontmatterError) return { ok: false, line: error.line, message: error.message };
    throw error;
  }
}

class FrontmatterError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** Drops a `#` comment that is not inside quotes (a comment starts a line or follows a space). */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let index = 0; index < line.length; index += 1) {
    const char = line.charAt(index);
    if (quote !== null) {
      if (char === "\\" && quote === '"') index += 1;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "#" && (index === 0 || /\s/.test(line.charAt(index - 1)))) return line.slice(0, index).trimEnd();
  }
  return line.trimEnd();
}

const KEY = /^([A-Za-z_][A-Za-z0-9_.-]*|"[^"]*"|'[^']*')\s*:(?:\s+(.*))?$/;

function keyName(raw: string): string {
  return raw.startsWith('"') || raw.startsWith("'") ? raw.slice(1, -1) : raw;
}

function scalar(text: string, line: number): unknown {
  const value = text.trim();
  if (value.startsWith("{") || value.startsWith("[") || value.startsWith('"')) {
    try {
      return JSON.parse(value);
    } catch {
      throw new FrontmatterError(line, `not valid JSON: ${value.slice(0, 40)}`);
    }
  }
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new FrontmatterError(line, "unterminated single-quoted string");
    const inner = value.slice(1, -1);
    if (/(^|[^'])'([^']|$)/.test(inner.replace(/''/g, ""))) throw new FrontmatterError(line, "a quote inside a single-quoted string must be doubled ('')");
    return inner.replace(/''/g, "'");
  }
  if (/^[|>&*!%@`]/.test(value)) throw new FrontmatterError(line, `unsupported YAML (${value.charAt(0)}): write the value on one line, quoted`);
  if (value === "true") return true;
  if (value === "false") return false;
  if (value === "null" || value === "~") return null;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

class BlockParser {
  private index = 0;
  constructor(private lines: readonly Line[]) {}

  expectEnd(): void {
    const line = this.lines[this.index];
    if (line !== undefined) throw new FrontmatterError(line.number, "unexpected indentation");
  }

  /** The node whose lines start at the current line, indented exactly `indent`. */
  parse(indent: number): unknown {
    const first = this.lines[this.index];
    if (first === undefined) return null;
    if (first.indent !== indent) throw new FrontmatterError(first.number, "unexpected indentation");
    return first.text === "-" || first.text.startsWith("- ") ? this.sequence(indent) : this.mapping(indent);
  }

  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (let line = this.lines[this.index]; line !== undefined && line.indent === indent; line = this.lines[this.index]) {
      // A key at this indentation ends a sequence that sat at its parent key's indentation.
      if (!(line.text === "-" || line.text.startsWith("- "))) break;
      const rest = line.text.slice(1).trim();
      if (rest === "") {
        this.index += 1;
        const next = this.lines[this.index];
        items.push(next !== undefined && next.indent > indent ? this.parse(next.indent) : null);
      } else if (KEY.test(rest)) {
        // `- key: value` opens a mapping whose other keys line up with `key`.
        const inner = indent + (line.text.length - rest.length);
        this.lines = this.replaced(this.index, { number: line.number, indent: inner, text: rest });
        items.push(this.mapping(inner));
      } else {
        items.push(scalar(rest, line.number));
        this.index += 1;
      }
    }
    return items;
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let line = this.lines[this.index]; line !== undefined && line.indent === indent; line = this.lines[this.index]) {
      const match = KEY.exec(line.text);
      if (match === null) throw new FrontmatterError(line.number, "expected `key: value`");
      const key = keyName(match[1] ?? "");
      if (Object.hasOwn(out, key)) throw new FrontmatterError(line.number, `duplicate key ${JSON.stringify(key)}`);
      const rest = match[2]?.trim() ?? "";
      this.index += 1;
      if (rest !== "") out[key] = scalar(rest, line.number);
      else {
        const next = this.lines[this.index];
        // A sequence may sit at the key's own indentation (`key:\n- a`), as YAML allows.
        if (next !== undefined && (next.indent > indent || (next.indent === indent && next.text.startsWith("- ")))) out[key] = this.parse(next.indent);
        else out[key] = null;
      }
    }
    return out;
  }

  private replaced(index: number, line: Line): readonly Line[] {
    const copy = [...this.lines];
    copy[index] = line;
    return copy;
  }
}
