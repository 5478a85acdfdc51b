/**
 * HTML to readable text for `web_fetch`: scripts, styles and comments dropped, block elements on
 * their own lines, headings as `#`, list items as `- `, links as `text (url)`, `<pre>` kept as is,
 * entities decoded. A single forward scan with `indexOf` (no backtracking regexes), so any page is
 * converted in linear time. Pure.
 */

const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "head", "iframe", "object"]);
const BLOCKS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "nav",
  "aside",
  "ul",
  "ol",
  "table",
  "tr",
  "form",
  "blockquote",
  "figure",
  "figcaption",
  "dl",
  "dt",
  "dd",
  "hr",
  "details",
  "summary",
  "body",
  "html",
  "title",
]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

const NAMED: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  bull: "•",
  middot: "·",
  laquo: "«",
  raquo: "»",
};

/** Decodes `&amp;`, `&#39;`, `&#x27;` and the common named entities; others stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,8});/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body.toLowerCase()] ?? whole;
  });
}

interface Tag {
  readonly name: string;
  readonly closing: boolean;
  readonly attrs: string;
  /** Index just past the tag's `>`. */
  readonly end: number;
}

const TAG_NAME = /\/?([a-zA-Z][a-zA-Z0-9-]*)/y;

/** The tag at `html[at]` (a `<`) whose `>` is at `close`, or undefined when none starts there. */
function readTag(html: string, at: number, close: number): Tag | undefined {
  TAG_NAME.lastIndex = at + 1;
  const match = TAG_NAME.exec(html);
  if (match === null || at + 1 + match[0].length > close) return undefined;
  return { name: (match[1] ?? "").toLowerCase(), closing: html[at + 1] === "/", attrs: html.slice(at + 1 + match[0].length, close), end: close + 1 };
}

function hrefOf(attrs: string): string | undefined {
  const match = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(attrs);
  const href = match === null ? undefined : (match[1] ?? match[2] ?? match[3]);
  return href === undefined || href === "" || href.startsWith("#") || href.startsWith("javascript:") ? undefined : decodeEntities(href);
}

class TextOut {
  private parts: string[] = [];
  pre = 0;

  text(raw: string): void {
    const decoded = decodeEntities(raw);
    // Inside <pre>, spaces and tabs are kept through the clean-up below by stand-in characters.
    this.parts.push(this.pre > 0 ? decoded.replace(/ /g, "\uE000").replace(/\t/g, "\uE001") : decoded.replace(/\s+/g, " "));
  }

  push(literal: string): void {
    this.parts.push(literal);
  }

  result(): string {
    return this.parts
      .join("")
      .split("\n")
      .map((line) => line.replace(/[ \t]+$/g, "").replace(/^ +/, ""))
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
      .replace(/\uE000/g, " ")
      .replace(/\uE001/g, "\t");
  }
}

function onTag(tag: Tag, out: TextOut, links: (string | undefined)[]): void {
  const { name, closing } = tag;
  if (name === "br") out.push("\n");
  else if (name === "pre") {
    out.pre = Math.max(0, out.pre + (closing ? -1 : 1));
    out.push("\n");
  } else if (HEADINGS.has(name)) out.push(closing ? "\n\n" : `\n\n${"#".repeat(Number(name[1]))} `);
  else if (name === "li") out.push(closing ? "" : "\n- ");
  else if (name === "td" || name === "th") out.push(closing ? "" : " | ");
  else if (name === "a") {
    if (!closing) links.push(hrefOf(tag.attrs));
    else {
      const href = links.pop();
      if (href !== undefined) out.push(` (${href})`);
    }
  } else if (name === "img" && !closing) {
    const alt = /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag.attrs);
    const text = alt === null ? "" : (alt[1] ?? alt[2] ?? "");
    if (text !== "") out.push(`[image: ${decodeEntities(text)}]`);
  } else if (BLOCKS.has(name)) out.push("\n");
}

/** The visible text of an HTML document. */
export function htmlToText(html: string): string {
  const lower = html.toLowerCase();
  const out = new TextOut();
  const links: (string | undefined)[] = [];
  // The next `>`, found once and reused until passed, so a page full of stray `<` stays linear.
  let close = -1;
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open === -1) {
      out.text(html.slice(at));
      break;
    }
    if (open > at) out.text(html.slice(at, open));
    if (html.startsWith("<!--", open)) {
      const end = html.indexOf("-->", open + 4);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    if (close < open) close = html.indexOf(">", open);
    if (close === -1) {
      // No `>` anywhere after this point: no tag can start again.
      out.text(html.slice(open));
      break;
    }
    const tag = readTag(html, open, close);
    if (tag === undefined) {
      // `<!DOCTYPE`, `<?xml`: a declaration to drop; `a < b`: text.
      if (html[open + 1] === "!" || html[open + 1] === "?") at = close + 1;
      else {
        out.text("<");
        at = open + 1;
      }
      continue;
    }
    at = tag.end;
    if (!tag.closing && SKIPPED.has(tag.name) && !tag.attrs.trimEnd().endsWith("/")) {
      const end = lower.indexOf(`</${tag.name}`, at);
      at = end === -1 ? html.length : Math.max(at, lower.indexOf(">", end) + 1 || html.length);
      continue;
    }
    onTag(tag, out, links);
  }
  return out.result();
}
