/**
 * Code blocks in the streamed markdown, highlighted by the fence's language: the same screen
 * however the reply is split into deltas, constructs that span lines, an unknown language as
 * before, colour off as written, and no control character of the model's let through.
 */
import { describe, expect, test } from "bun:test";
import { MarkdownStream } from "../../src/ui/markdown.ts";
import { safeText } from "../../src/ui/renderer.ts";
import { chooseStyle, plainStyle } from "../../src/ui/style.ts";

const colour = chooseStyle({}, true);

function render(text: string, pieces = 1, style = colour): string {
  const md = new MarkdownStream(style);
  const size = Math.ceil(text.length / pieces);
  let out = "";
  for (let at = 0; at < text.length; at += size) out += md.push(text.slice(at, at + size));
  return out + md.end();
}

const SAMPLE = [
  "```ts",
  "const n = 0x1f; // hex",
  "/* a comment",
  "   over two lines */ let s = `a",
  "b`; if (s) return 'x';",
  "```",
  "```python",
  'def f(): return """doc',
  'more""" # c',
  "```",
  "```sh",
  "echo $HOME a#b # real comment",
  "```",
  "```json",
  '{"k": [1, true, "v"]}',
  "```",
  "```go",
  'func main() { s := "go" }',
  "```",
  "```rust",
  "fn main() { let mut x = 1; }",
  "```",
  "```diff",
  "@@ -1 +1 @@",
  "-old",
  "+new",
  "```",
  "",
].join("\n");

describe("highlighted code blocks", () => {
  test("keywords, strings, comments and numbers per language; block comments and long strings carry to the next line", () => {
    const out = render(SAMPLE);
    expect(out).toContain("\x1b[35mconst\x1b[39m n = \x1b[33m0x1f\x1b[39m; \x1b[2m// hex\x1b[22m");
    expect(out).toContain("\x1b[2m   over two lines */\x1b[22m \x1b[35mlet\x1b[39m s = \x1b[32m`a\x1b[39m\n\x1b[32mb`\x1b[39m;");
    expect(out).toContain("\x1b[35mreturn\x1b[39m \x1b[32m'x'\x1b[39m");
    expect(out).toContain('\x1b[32m"""doc\x1b[39m\n\x1b[32mmore"""\x1b[39m \x1b[2m# c\x1b[22m');
    // Shell: a variable, a # inside a word is no comment, a # after a space is.
    expect(out).toContain("\x1b[36m$HOME\x1b[39m a#b \x1b[2m# real comment\x1b[22m");
    expect(out).toContain('{\x1b[36m"k"\x1b[39m: [\x1b[33m1\x1b[39m, \x1b[35mtrue\x1b[39m, \x1b[32m"v"\x1b[39m]}');
    expect(out).toContain('\x1b[35mfunc\x1b[39m main() { s := \x1b[32m"go"\x1b[39m }');
    expect(out).toContain("\x1b[35mfn\x1b[39m main() { \x1b[35mlet\x1b[39m \x1b[35mmut\x1b[39m x = \x1b[33m1\x1b[39m; }");
    expect(out).toContain("\x1b[36m@@ -1 +1 @@\x1b[39m\n\x1b[31m-old\x1b[39m\n\x1b[32m+new\x1b[39m");
  });

  test("the same output however the reply is split into deltas", () => {
    const whole = render(SAMPLE);
    for (const pieces of [3, 17, 101, SAMPLE.length]) expect(render(SAMPLE, pieces)).toBe(whole);
  });

  test("an unknown language is coloured as a whole as before; state ends with the block", () => {
    const out = render("```cobol\nDISPLAY 'x'.\n```\nconst plain\n");
    expect(out).toContain("\x1b[33mDISPLAY 'x'.\x1b[39m");
    expect(out).toContain("\nconst plain\n");
    // An unterminated block comment does not leak past the fence.
    expect(render("```c\n/* open\n```\nafter\n")).toContain("\nafter\n");
  });

  test("colour off: the text as written; model control characters arrive escaped and stay so", () => {
    expect(render(SAMPLE, 5, plainStyle)).toBe(SAMPLE);
    const out = render(safeText('```bash\nprintf "\x1b[31mred\x1b]52;c;eA==\x07"\n```\n'));
    expect(out).toContain('printf \x1b[32m"\\x1b[31mred\\x1b]52;c;eA==\\x07"\x1b[39m');
    // Only SGR sequences of the style itself.
    expect(out.replace(/\x1b\[\d+m/g, "")).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
  });
});
