// apply_patch: the Codex patch parser (pure), chunk application, and the tool on a real workspace —
// all files or none, paths confined like write/edit.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { parsePatch, patchPaths } from "../../src/tools/patch-parse.ts";
import { applyChunks, seekSequence } from "../../src/tools/patch-apply.ts";
import { applyPatchTool } from "../../src/tools/apply-patch.ts";
import { makeContext, makeWorkspace, putFile, type Workspace } from "./helpers.ts";

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe("patch parser", () => {
  test("add, delete, update with move, anchors, end of file", () => {
    const parsed = parsePatch(
      wrap(
        [
          "*** Add File: path/add.py",
          "+abc",
          "+def",
          "*** Delete File: path/delete.py",
          "*** Update File: path/update.py",
          "*** Move to: path/update2.py",
          "@@ def f():",
          "-    pass",
          "+    return 123",
          "@@",
          " tail",
          "+more",
          "*** End of File",
        ].join("\n"),
      ),
    );
    expect(parsed).toEqual({
      ok: true,
      ops: [
        { kind: "add", path: "path/add.py", contents: "abc\ndef\n" },
        { kind: "delete", path: "path/delete.py" },
        {
          kind: "update",
          path: "path/update.py",
          movePath: "path/update2.py",
          chunks: [
            { context: "def f():", oldLines: ["    pass"], newLines: ["    return 123"], endOfFile: false },
            { context: null, oldLines: ["tail"], newLines: ["tail", "more"], endOfFile: true },
          ],
        },
      ],
    });
    if (parsed.ok) expect(patchPaths(parsed.ops)).toEqual(["path/add.py", "path/delete.py", "path/update.py", "path/update2.py"]);
  });

  test("lenient like Codex: padded markers, a heredoc wrapper, a first chunk without @@, empty lines as context", () => {
    const padded = parsePatch("  *** Begin Patch \n*** Update File: a.txt\n x\n-y\n\n+z\n  *** End Patch  \n");
    expect(padded).toEqual({
      ok: true,
      ops: [
        { kind: "update", path: "a.txt", movePath: null, chunks: [{ context: null, oldLines: ["x", "y", ""], newLines: ["x", "", "z"], endOfFile: false }] },
      ],
    });
    const heredoc = parsePatch(`<<'EOF'\n${wrap("*** Add File: h.txt\n+hi")}\nEOF\n`);
    expect(heredoc).toEqual({ ok: true, ops: [{ kind: "add", path: "h.txt", contents: "hi\n" }] });
  });

  test("errors name the problem and the line", () => {
    expect(parsePatch("bad")).toEqual({ ok: false, message: "the first line must be '*** Begin Patch'" });
    expect(parsePatch("*** Begin Patch\n*** Add File: a\n+x")).toEqual({ ok: false, message: "the last line must be '*** End Patch'" });
    expect(parsePatch(wrap(""))).toMatchObject({ ok: false });
    expect(parsePatch(wrap("*** Update File: t.py"))).toEqual({ ok: false, message: "line 2: '*** Update File: t.py' has no @@ chunk" });
    expect(parsePatch(wrap("*** Frobnicate File: x"))).toMatchObject({
      ok: false,
      message: expect.stringContaining("line 2: '*** Frobnicate File: x' is not a file section header"),
    });
    expect(parsePatch(wrap("*** Update File: a\n@@\n-x\n+y\n@@ ctx\nnot a diff line"))).toMatchObject({
      ok: false,
      message: expect.stringContaining("line 7:"),
    });
    expect(parsePatch(wrap("*** Add File:   "))).toMatchObject({ ok: false, message: expect.stringContaining("needs a path") });
  });
});

describe("chunk application", () => {
  test("anchors, ordered chunks, whitespace-tolerant matching, typographic punctuation", () => {
    expect(seekSequence(["a", "b  ", "c"], ["b"], 0, false)).toBe(1);
    expect(seekSequence(["a", "  b", "c"], ["b"], 0, false)).toBe(1);
    expect(seekSequence(["x = “quoted” — yes"], ['x = "quoted" - yes'], 0, false)).toBe(0);
    expect(seekSequence(["a", "b", "a"], ["a"], 1, false)).toBe(2);
    expect(seekSequence(["a", "b", "a"], ["a"], 0, true)).toBe(2);
    const parsed = parsePatch(wrap("*** Update File: f\n@@ class B\n-  x = 1\n+  x = 2\n@@\n c\n+d"));
    if (!parsed.ok || parsed.ops[0]?.kind !== "update") throw new Error("parse failed");
    const text = "class A\n  x = 1\nclass B\n  x = 1\nc\n";
    expect(applyChunks(text, parsed.ops[0].chunks, "f")).toEqual({ ok: true, text: "class A\n  x = 1\nclass B\n  x = 2\nc\nd\n" });
  });

  test("CRLF files stay CRLF; a file without a final newline gets one; missing lines are an error naming the file", () => {
    const parsed = parsePatch(wrap("*** Update File: f\n@@\n-two\n+TWO"));
    if (!parsed.ok || parsed.ops[0]?.kind !== "update") throw new Error("parse failed");
    expect(applyChunks("one\r\ntwo\r\n", parsed.ops[0].chunks, "f")).toEqual({ ok: true, text: "one\r\nTWO\r\n" });
    expect(applyChunks("one\ntwo", parsed.ops[0].chunks, "f")).toEqual({ ok: true, text: "one\nTWO\n" });
    const missing = applyChunks("one\n", parsed.ops[0].chunks, "f");
    expect(missing).toEqual({ ok: false, message: "cannot find these lines in f (re-read the file and copy them exactly):\ntwo" });
  });
});

describe("apply_patch tool", () => {
  test("adds, updates, moves and deletes in one call; the summary lists them as Codex does", async () => {
    ws = makeWorkspace();
    putFile(ws.root, "src/app.py", 'def greet():\n    print("Hi")\n');
    putFile(ws.root, "obsolete.txt", "old\n");
    const input = wrap(
      [
        "*** Add File: hello.txt",
        "+Hello world",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def greet():",
        '-    print("Hi")',
        '+    print("Hello, world!")',
        "*** Delete File: obsolete.txt",
      ].join("\n"),
    );
    const result = await applyPatchTool.execute({ input }, makeContext(ws.root));
    expect(result.success).toBe(true);
    expect(result.content).toBe("Success. Updated the following files:\nA hello.txt\nM src/main.py\nD obsolete.txt");
    expect(readFileSync(join(ws.root, "hello.txt"), "utf8")).toBe("Hello world\n");
    expect(readFileSync(join(ws.root, "src/main.py"), "utf8")).toBe('def greet():\n    print("Hello, world!")\n');
    expect(existsSync(join(ws.root, "src/app.py"))).toBe(false);
    expect(existsSync(join(ws.root, "obsolete.txt"))).toBe(false);
    expect(result.metadata).toEqual({
      files: [
        { path: join(ws.root, "hello.txt"), kind: "add" },
        { path: join(ws.root, "src/main.py"), kind: "update", moved_from: join(ws.root, "src/app.py") },
        { path: join(ws.root, "obsolete.txt"), kind: "delete" },
      ],
    });
  });

  test("all or none: a failing section, a path outside the workspace or a symlink escape changes nothing", async () => {
    ws = makeWorkspace();
    putFile(ws.root, "a.txt", "one\n");
    const ctx = makeContext(ws.root);
    const failing = await applyPatchTool.execute({ input: wrap("*** Add File: new.txt\n+x\n*** Update File: a.txt\n@@\n-nope\n+yes") }, ctx);
    expect(failing.success).toBe(false);
    expect(failing.content).toContain("cannot find these lines in a.txt");
    expect(failing.content).toContain("nothing was changed");
    expect(existsSync(join(ws.root, "new.txt"))).toBe(false);

    const outside = await applyPatchTool.execute({ input: wrap("*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: ../outside/evil.txt\n+x") }, ctx);
    expect(outside).toMatchObject({ success: false, content: "path outside the workspace: ../outside/evil.txt; nothing was changed" });
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ws.outside, "evil.txt"))).toBe(false);

    symlinkSync(ws.outside, join(ws.root, "link"));
    const escaped = await applyPatchTool.execute({ input: wrap("*** Add File: link/evil.txt\n+x") }, ctx);
    expect(escaped.success).toBe(false);
    expect(existsSync(join(ws.outside, "evil.txt"))).toBe(false);

    const missing = await applyPatchTool.execute({ input: wrap("*** Delete File: nothing.txt") }, ctx);
    expect(missing).toMatchObject({ success: false, content: "nothing.txt does not exist (use '*** Add File:' to create it); nothing was changed" });
  });

  test("a write that fails half-way is rolled back", async () => {
    ws = makeWorkspace();
    putFile(ws.root, "a.txt", "one\n");
    // `q` becomes a file, so `q/c.txt` cannot be written: the failure comes only when writing (root too).
    const result = await applyPatchTool.execute(
      { input: wrap("*** Update File: a.txt\n@@\n-one\n+ONE\n*** Add File: q\n+file\n*** Add File: q/c.txt\n+new") },
      makeContext(ws.root),
    );
    expect(result.success).toBe(false);
    expect(result.content).toContain("cannot write q/c.txt");
    expect(result.content).toContain("(nothing was changed)");
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ws.root, "q"))).toBe(false);
  });

  test("later sections see earlier ones; binary files and invalid patches are refused", async () => {
    ws = makeWorkspace();
    const ctx = makeContext(ws.root);
    const chained = await applyPatchTool.execute({ input: wrap("*** Add File: n.txt\n+a\n*** Update File: n.txt\n@@\n-a\n+b") }, ctx);
    expect(chained).toMatchObject({ success: true, content: "Success. Updated the following files:\nA n.txt" });
    expect(readFileSync(join(ws.root, "n.txt"), "utf8")).toBe("b\n");
    putFile(ws.root, "bin.dat", new Uint8Array([1, 0, 2, 0]));
    const binary = await applyPatchTool.execute({ input: wrap("*** Update File: bin.dat\n@@\n-x\n+y") }, ctx);
    expect(binary.content).toContain("bin.dat is a binary file");
    const invalid = await applyPatchTool.execute({ input: "*** Add File: x\n+y" }, ctx);
    expect(invalid).toEqual({ success: false, content: "invalid patch: the first line must be '*** Begin Patch'; nothing was changed" });
  });
});
