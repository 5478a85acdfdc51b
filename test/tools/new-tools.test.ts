// todo_write, multi_edit, read's refusal of images and PDFs, and web_fetch against a real HTTP
// server on 127.0.0.1 (allowlist, redirects re-checked, size bound, HTML to text, binary refused).
import { afterEach, describe, expect, test } from "bun:test";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TodoList, todosOfMetadata } from "../../src/tools/todo-list.ts";
import { todoWriteTool } from "../../src/tools/todos.ts";
import { multiEditTool } from "../../src/tools/multi-edit.ts";
import { readTool } from "../../src/tools/read.ts";
import { mediaKind } from "../../src/tools/media.ts";
import { hostAllowed, hostPatternProblem, webFetchTool, WEB_FETCH_MAX_BYTES } from "../../src/tools/web-fetch.ts";
import { htmlToText } from "../../src/tools/html-text.ts";
import { listenLocal } from "../support/listen.ts";
import { makeContext, makeWorkspace, putFile, type Workspace } from "./helpers.ts";

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("todo_write", () => {
  test("replaces the plan, shows it, and carries it in metadata; ids default to positions; duplicates refused", async () => {
    ws = makeWorkspace();
    const todos = new TodoList();
    const ctx = makeContext(ws.root, { todos });
    const first = await todoWriteTool.execute(
      {
        todos: [
          { content: "Write the parser", status: "completed" },
          { content: "Add tests", status: "in_progress", activeForm: "Adding tests" },
          { content: "Docs", status: "pending" },
        ],
      },
      ctx,
    );
    expect(first.content).toBe("Plan (1/3 completed):\n[x] 1. Write the parser\n[>] 2. Add tests\n[ ] 3. Docs");
    expect(first.metadata).toEqual({
      todos: [
        { id: "1", content: "Write the parser", status: "completed" },
        { id: "2", content: "Add tests", status: "in_progress" },
        { id: "3", content: "Docs", status: "pending" },
      ],
      counts: { pending: 1, in_progress: 1, completed: 1 },
    });
    expect(todosOfMetadata(first.metadata)).toEqual(todos.items.map(({ id, content, status }) => ({ id, content, status })));
    const second = await todoWriteTool.execute({ todos: [{ id: "a", content: "Only this", status: "pending" }] }, ctx);
    expect(second.details).toMatchObject({
      tool: "todo_write",
      oldTodos: [{ id: "1" }, { id: "2" }, { id: "3" }],
      newTodos: [{ id: "a", content: "Only this" }],
    });
    const dup = await todoWriteTool.execute(
      {
        todos: [
          { id: "x", content: "a", status: "pending" },
          { id: "x", content: "b", status: "pending" },
        ],
      },
      ctx,
    );
    expect(dup).toMatchObject({ success: false, content: 'todos: id "x" is used twice; give every item its own id (or none)' });
    expect(todos.items.map((item) => item.id)).toEqual(["a"]);
    const bad = await todoWriteTool.execute({ todos: [{ content: "", status: "pending" }] }, ctx);
    expect(bad.success).toBe(false);
    expect(bad.content).toContain("invalid input: todos.0.content");
    expect((await todoWriteTool.execute({ todos: [] }, makeContext(ws.root))).content).toBe("todo_write is not available here (no session plan)");
  });
});

describe("multi_edit", () => {
  test("edits apply in order to the result of the previous ones; replace_all; one failure changes nothing", async () => {
    ws = makeWorkspace();
    putFile(ws.root, "a.ts", "const a = 1;\nconst b = a + a;\n");
    const ctx = makeContext(ws.root);
    const ok = await multiEditTool.execute(
      {
        file_path: "a.ts",
        edits: [
          { old_string: "const a = 1", new_string: "const x = 1" },
          { old_string: "a + a", new_string: "x + x" },
          { old_string: "const", new_string: "let", replace_all: true },
        ],
      },
      ctx,
    );
    expect(ok).toMatchObject({ success: true, content: "edited a.ts: 3 edits, 4 replacements", metadata: { edits: 3, replacements: 4 } });
    expect(readFileSync(join(ws.root, "a.ts"), "utf8")).toBe("let x = 1;\nlet b = x + x;\n");
    const failing = await multiEditTool.execute(
      {
        file_path: "a.ts",
        edits: [
          { old_string: "let x", new_string: "var x" },
          { old_string: "x", new_string: "y" },
        ],
      },
      ctx,
    );
    expect(failing).toMatchObject({
      success: false,
      content: "edits[1]: old_string occurs 3 times in a.ts; add surrounding context to make it unique, or set replace_all; no edit was applied",
    });
    expect(readFileSync(join(ws.root, "a.ts"), "utf8")).toBe("let x = 1;\nlet b = x + x;\n");
    const literal = await multiEditTool.execute({ file_path: "a.ts", edits: [{ old_string: "b = ", new_string: "b = $& " }] }, ctx);
    expect(literal.success).toBe(true);
    expect(readFileSync(join(ws.root, "a.ts"), "utf8")).toContain("let b = $& x + x;");
    expect((await multiEditTool.execute({ file_path: "../outside/a", edits: [{ old_string: "a", new_string: "b" }] }, ctx)).content).toBe(
      "path outside the workspace: ../outside/a",
    );
    expect((await multiEditTool.execute({ file_path: "a.ts", edits: [] }, ctx)).success).toBe(false);
  });
});

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const PDF = new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n");

describe("read: images and PDFs", () => {
  test("recognised by their bytes, not their names, and refused with a clear message", async () => {
    ws = makeWorkspace();
    putFile(ws.root, "logo.txt", PNG);
    putFile(ws.root, "paper.dat", PDF);
    putFile(ws.root, "photo.jpg", new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]));
    putFile(ws.root, "BM.txt", "BM is how this text file starts\n");
    const ctx = makeContext(ws.root);
    expect((await readTool.execute({ file_path: "logo.txt" }, ctx)).content).toBe(
      "logo.txt is a PNG image (12 bytes): read shows text files only, so images and PDFs cannot be read here",
    );
    expect((await readTool.execute({ file_path: "paper.dat" }, ctx)).content).toContain("paper.dat is a PDF document");
    expect((await readTool.execute({ file_path: "photo.jpg" }, ctx)).content).toContain("is a JPEG image");
    expect((await readTool.execute({ file_path: "BM.txt" }, ctx)).content).toBe("     1\tBM is how this text file starts");
    expect(mediaKind(new TextEncoder().encode("GIF89a"))).toBe("GIF image");
    expect(mediaKind(new TextEncoder().encode("RIFF\0\0\0\0WEBPVP8 "))).toBe("WebP image");
    expect(mediaKind(new TextEncoder().encode("plain text"))).toBeUndefined();
  });
});

describe("html to text", () => {
  test("drops scripts, styles and comments; blocks, headings, lists, links, pre and entities", () => {
    const html =
      "<!doctype html><html><head><title>T</title><style>p{color:red}</style></head><body><!-- hidden -->" +
      "<h1>Guide &amp; notes</h1><p>First  para\n with   spaces.</p><script>alert('x<p>')</script>" +
      '<ul><li>one</li><li>two <a href="/two">link</a></li></ul><pre>  keep\n    indent</pre><p>a &lt; b &#x2014; done&nbsp;</p></body></html>';
    expect(htmlToText(html)).toBe("# Guide & notes\n\nFirst para with spaces.\n\n- one\n- two link (/two)\n\n  keep\n    indent\n\na < b — done");
  });

  test("linear on hostile input: unclosed comments and tags", () => {
    // Each of these would be quadratic with a search per `<`; 1 MiB of each converts at once.
    expect(htmlToText(`x${"<!--".repeat(250_000)}`)).toBe("x");
    expect(htmlToText(`${"< ".repeat(500_000)}>`).endsWith("< >")).toBe(true);
    expect(htmlToText("<a ".repeat(350_000))).toBe("<a".concat(" <a".repeat(349_999)));
    expect(htmlToText(`<p>${"<x ".repeat(300_000)}`).startsWith("<x <x")).toBe(true);
  });
});

describe("web_fetch", () => {
  async function server(handler: (req: IncomingMessage, res: ServerResponse) => void) {
    return listenLocal(createServer(handler));
  }

  test("host patterns and their check", () => {
    expect(hostPatternProblem("docs.example.com")).toBeNull();
    expect(hostPatternProblem("*.example.com")).toBeNull();
    expect(hostPatternProblem("127.0.0.1:8080")).toBeNull();
    expect(hostPatternProblem("https://docs.example.com")).toContain("is not a host");
    expect(hostPatternProblem("docs.example.com/path")).toContain("is not a host");
    expect(hostAllowed(new URL("https://docs.example.com/x"), ["docs.example.com"])).toBe(true);
    expect(hostAllowed(new URL("https://evil.com/docs.example.com"), ["docs.example.com"])).toBe(false);
    expect(hostAllowed(new URL("https://a.example.com/"), ["*.example.com"])).toBe(true);
    expect(hostAllowed(new URL("https://example.com/"), ["*.example.com"])).toBe(false);
    expect(hostAllowed(new URL("http://127.0.0.1:8080/"), ["127.0.0.1:8081"])).toBe(false);
  });

  test("off without an allowlist; refuses other hosts, schemes and user info; HTML becomes text", async () => {
    ws = makeWorkspace();
    const site = await server((req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end("<html><body><h2>Hello</h2><p>from <b>the</b> server</p></body></html>");
    });
    try {
      const url = `${site.url}/page`;
      expect((await webFetchTool.execute({ url }, makeContext(ws.root))).content).toContain("web_fetch is off");
      const ctx = makeContext(ws.root, { webFetch: { allow: ["127.0.0.1"] } });
      const page = await webFetchTool.execute({ url, prompt: "what does it say" }, ctx);
      expect(page.success).toBe(true);
      expect(page.content).toBe(`URL: ${url}\nStatus: 200 OK\n\n## Hello\n\nfrom the server`);
      expect(page.metadata).toMatchObject({ url, status: 200, truncated: false });
      const other = await webFetchTool.execute({ url: url.replace("127.0.0.1", "localhost") }, ctx);
      expect(other.content).toContain("localhost:");
      expect(other.content).toContain("is not in tools.web_fetch.allow");
      expect((await webFetchTool.execute({ url: "file:///etc/passwd" }, ctx)).content).toBe("only http and https URLs can be fetched, not file:");
      expect((await webFetchTool.execute({ url: url.replace("http://", "http://u:p@") }, ctx)).content).toContain("user info");
    } finally {
      await site.close();
    }
  });

  test("redirects are re-checked against the allowlist; binary bodies refused; size bounded", async () => {
    ws = makeWorkspace();
    const site = await server((req, res) => {
      if (req.url === "/hop") {
        res.writeHead(302, { location: "/text" });
        res.end();
      } else if (req.url === "/away") {
        res.writeHead(301, { location: "http://localhost:1/secret" });
        res.end();
      } else if (req.url === "/image") {
        res.setHeader("content-type", "image/png");
        res.end(Buffer.from(PNG));
      } else if (req.url === "/huge") {
        res.setHeader("content-type", "text/plain");
        res.end("x".repeat(WEB_FETCH_MAX_BYTES + 1000));
      } else {
        res.setHeader("content-type", "text/plain");
        res.end("plain text body");
      }
    });
    try {
      const ctx = makeContext(ws.root, { webFetch: { allow: ["127.0.0.1"] } });
      const hop = await webFetchTool.execute({ url: `${site.url}/hop` }, ctx);
      expect(hop.content).toBe(`URL: ${site.url}/text\nStatus: 200 OK\n\nplain text body`);
      const away = await webFetchTool.execute({ url: `${site.url}/away` }, ctx);
      expect(away.success).toBe(false);
      expect(away.content).toContain(`redirect from ${site.url}/away refused: localhost:1 is not in tools.web_fetch.allow`);
      expect((await webFetchTool.execute({ url: `${site.url}/image` }, ctx)).content).toContain("is PNG image, not text");
      const huge = await webFetchTool.execute({ url: `${site.url}/huge` }, ctx);
      expect(huge.metadata).toMatchObject({ bytes: WEB_FETCH_MAX_BYTES, truncated: true });
      expect(huge.content.endsWith("[truncated: the page is longer than web_fetch returns]")).toBe(true);
    } finally {
      await site.close();
    }
  });
});
