/**
 * Streamed markdown for the terminal, a line at a time: code fences (highlighted by the fence's
 * language, highlight.ts; a language it does not know coloured as a whole, comments dimmed),
 * headings, lists, quotes, rules, and inline bold, italic and `code`. Text arrives in deltas;
 * each complete line is rendered as it ends, the unfinished rest when the reply ends. With
 * colour off the text is printed as written. Input is escaped text (no control characters).
 */
import type { Style } from "./style.ts";
import { CodeBlock } from "./highlight.ts";

const FENCE = /^\s*(```|~~~)(.*)$/;
const COMMENT = /^\s*(\/\/|#(?!!)|--\s|;)/;

export class MarkdownStream {
  private buffer = "";
  private fence: string | null = null;
  /** The open block's highlighter; null for a language it does not know (coloured as a whole). */
  private code: CodeBlock | null = null;

  constructor(private readonly style: Style) {}

  /** Rendered text for the complete lines in `delta` (each ending in `\n`). */
  push(delta: string): string {
    this.buffer += delta;
    const end = this.buffer.lastIndexOf("\n");
    if (end < 0) return "";
    const complete = this.buffer.slice(0, end);
    this.buffer = this.buffer.slice(end + 1);
    return complete
      .split("\n")
      .map((line) => `${this.line(line)}\n`)
      .join("");
  }

  /** The unfinished last line, rendered; the stream is ready for the next reply. */
  end(): string {
    const rest = this.buffer;
    this.buffer = "";
    const out = rest === "" ? "" : this.line(rest);
    this.fence = null;
    this.code = null;
    return out;
  }

  /** True when part of a line is waiting for its end. */
  get pending(): boolean {
    return this.buffer !== "";
  }

  line(text: string): string {
    const s = this.style;
    if (!s.enabled) return text;
    const fence = FENCE.exec(text);
    if (fence !== null && (this.fence === null || (fence[1] === this.fence && (fence[2] ?? "").trim() === ""))) {
      if (this.fence === null) {
        this.fence = fence[1] ?? "```";
        this.code = CodeBlock.of(fence[2] ?? "");
      } else {
        this.fence = null;
        this.code = null;
      }
      return s.dim(text);
    }
    if (this.fence !== null) {
      if (this.code !== null) return this.code.line(text, s);
      return COMMENT.test(text) ? s.dim(text) : s.code(text);
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(text);
    if (heading !== null) return s.bold(s.accent(inline(heading[2] ?? "", s)));
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(text)) return s.dim("─".repeat(Math.min(text.length, 40)));
    const quote = /^\s*>\s?(.*)$/.exec(text);
    if (quote !== null) return `${s.dim("│")} ${s.italic(inline(quote[1] ?? "", s))}`;
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text);
    if (bullet !== null) return `${bullet[1] ?? ""}${s.accent("•")} ${inline(bullet[2] ?? "", s)}`;
    const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(text);
    if (numbered !== null) return `${numbered[1] ?? ""}${s.accent(numbered[2] ?? "")} ${inline(numbered[3] ?? "", s)}`;
    return inline(text, s);
  }
}

/** `code`, **bold** and *italic* / _italic_ within one line; code spans are left as written. */
export function inline(text: string, s: Style): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) return s.code(part.slice(1, -1));
      return part
        .replace(/\*\*([^*]+)\*\*/g, (_m, body: string) => s.bold(body))
        .replace(/__([^_]+)__/g, (_m, body: string) => s.bold(body))
        .replace(/(^|[^\w*])\*([^*\s][^*]*?)\*(?!\w)/g, (_m, lead: string, body: string) => `${lead}${s.italic(body)}`)
        .replace(/(^|[^\w])_([^_\s][^_]*?)_(?!\w)/g, (_m, lead: string, body: string) => `${lead}${s.italic(body)}`);
    })
    .join("");
}
