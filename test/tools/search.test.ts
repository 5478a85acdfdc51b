import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { grepTool } from "../../src/tools/grep.ts";
import { globTool } from "../../src/tools/glob.ts";
import { compileGlob, expandBraces } from "../../src/tools/glob-match.ts";
import { makeContext, makeWorkspace, putFile, type Workspace } from "./helpers.ts";

let ws: Workspace;
const put = (path: string, content: string | Uint8Array): void => putFile(ws.root, path, content);
beforeEach(() => {
  ws = makeWorkspace();
  put("src/a.ts", "import x from 'y';\nexport const Foo = 1;\n// foo again\n");
  put("src/lib/b.ts", "const foo = 2;\n");
  put("src/lib/c.tsx", "<Foo/>\n");
  put("src/readme.md", "foo docs\n");
  put("test/a.test.ts", "one\ntwo\nfoo three\nfour\nfive\nsix\nseven\nfoo eight\n");
  put(".git/config", "foo\n");
  put("node_modules/m/index.ts", "foo\n");
  put("src/data.bin", new Uint8Array([102, 111, 111, 0, 1, 2]));
  put(".hidden/h.ts", "foo\n");
});
afterEach(() => ws.cleanup());

describe("glob matcher", () => {
  test("**, *, ?, classes, braces and hidden names", () => {
    expect(expandBraces("src/*.{ts,tsx}")).toEqual(["src/*.ts", "src/*.tsx"]);
    expect(expandBraces("{a,b{c,d}}")).toEqual(["a", "bc", "bd"]);
    const ts = compileGlob("src/**/*.ts");
    expect(ts("src/a.ts")).toBe(true);
    expect(ts("src/lib/deep/b.ts")).toBe(true);
    expect(ts("src/a.tsx")).toBe(false);
    expect(ts("lib/a.ts")).toBe(false);
    expect(ts("src/.hidden/a.ts")).toBe(false);
    expect(compileGlob("*.ts")("a.ts")).toBe(true);
    expect(compileGlob("*.ts")("src/a.ts")).toBe(false);
    expect(compileGlob("*")(".env")).toBe(false);
    expect(compileGlob(".*")(".env")).toBe(true);
    expect(compileGlob("?.[tj]s")("a.js")).toBe(true);
    expect(compileGlob("[!a].ts")("a.ts")).toBe(false);
    expect(compileGlob("**")("x/y/z")).toBe(true);
  });
});

describe("glob tool", () => {
  test("src/**/*.ts gives sorted paths relative to the cwd, skipping .git and node_modules", async () => {
    const ctx = makeContext(ws.root);
    const result = await globTool.execute({ pattern: "**/*.ts" }, ctx);
    expect(result.success).toBe(true);
    expect(result.content.split("\n")).toEqual(["src/a.ts", "src/lib/b.ts", "test/a.test.ts"]);
    const braces = await globTool.execute({ pattern: "src/**/*.{ts,tsx}" }, ctx);
    expect(braces.content.split("\n")).toEqual(["src/a.ts", "src/lib/b.ts", "src/lib/c.tsx"]);
    const withPath = await globTool.execute({ pattern: "*.ts", path: "src/lib" }, ctx);
    expect(withPath.content).toBe("src/lib/b.ts");
    const fromSub = await globTool.execute({ pattern: "**/*.ts" }, makeContext(ws.root, { cwd: join(ws.root, "src") }));
    expect(fromSub.content.split("\n")).toEqual(["a.ts", "lib/b.ts"]);
    const absolute = await globTool.execute({ pattern: `${ws.root}/src/*.md` }, ctx);
    expect(absolute.content).toBe("src/readme.md");
    const none = await globTool.execute({ pattern: "**/*.py" }, ctx);
    expect(none).toMatchObject({ success: true, content: "No files found" });
  });

  test("patterns or paths that leave the workspace are refused", async () => {
    writeFileSync(join(ws.outside, "o.ts"), "");
    symlinkSync(ws.outside, join(ws.root, "link"));
    const ctx = makeContext(ws.root);
    expect(await globTool.execute({ pattern: "../outside/*.ts" }, ctx)).toMatchObject({ success: false, content: "path outside the workspace: ../outside" });
    expect((await globTool.execute({ pattern: "*.ts", path: ws.outside }, ctx)).success).toBe(false);
    expect((await globTool.execute({ pattern: "*.ts", path: "link" }, ctx)).success).toBe(false);
    const all = await globTool.execute({ pattern: "**/*.ts" }, ctx);
    expect(all.content).not.toContain("o.ts");
  });
});

describe("grep tool", () => {
  test("files_with_matches is the default; binary, .git and node_modules are skipped", async () => {
    const result = await grepTool.execute({ pattern: "foo" }, makeContext(ws.root));
    expect(result.success).toBe(true);
    expect(result.content.split("\n")).toEqual([".hidden/h.ts", "src/a.ts", "src/lib/b.ts", "src/readme.md", "test/a.test.ts"]);
  });

  test("-i, glob filter by name and by path, count mode, path argument", async () => {
    const ctx = makeContext(ws.root);
    const insensitive = await grepTool.execute({ pattern: "foo", "-i": true, glob: "*.{ts,tsx}", path: "src" }, ctx);
    expect(insensitive.content.split("\n")).toEqual(["src/a.ts", "src/lib/b.ts", "src/lib/c.tsx"]);
    const byPath = await grepTool.execute({ pattern: "foo", glob: "lib/*.ts", path: "src" }, ctx);
    expect(byPath.content).toBe("src/lib/b.ts");
    const count = await grepTool.execute({ pattern: "foo", output_mode: "count", "-i": true, path: "src" }, ctx);
    expect(count.content.split("\n")).toEqual(["src/a.ts:2", "src/lib/b.ts:1", "src/lib/c.tsx:1", "src/readme.md:1"]);
    const oneFile = await grepTool.execute({ pattern: "foo", output_mode: "count", path: "test/a.test.ts" }, ctx);
    expect(oneFile.content).toBe("test/a.test.ts:2");
    const none = await grepTool.execute({ pattern: "zzz" }, ctx);
    expect(none).toMatchObject({ success: true, content: "No matches found" });
  });

  test("content mode: line numbers by default, -n false, -C context with separators, head_limit", async () => {
    const ctx = makeContext(ws.root);
    const content = await grepTool.execute({ pattern: "foo", output_mode: "content", path: "test" }, ctx);
    expect(content.content).toBe("test/a.test.ts:3:foo three\ntest/a.test.ts:8:foo eight");
    const plain = await grepTool.execute({ pattern: "foo", output_mode: "content", path: "test", "-n": false }, ctx);
    expect(plain.content).toBe("test/a.test.ts:foo three\ntest/a.test.ts:foo eight");
    const context = await grepTool.execute({ pattern: "foo", output_mode: "content", path: "test", "-C": 1 }, ctx);
    expect(context.content.split("\n")).toEqual([
      "test/a.test.ts-2-two",
      "test/a.test.ts:3:foo three",
      "test/a.test.ts-4-four",
      "--",
      "test/a.test.ts-7-seven",
      "test/a.test.ts:8:foo eight",
    ]);
    const limited = await grepTool.execute({ pattern: "foo", head_limit: 2 }, ctx);
    expect(limited.content.split("\n").slice(0, 2)).toEqual([".hidden/h.ts", "src/a.ts"]);
    expect(limited.content).toContain("head_limit 2");
  });

  test("invalid regex and paths outside the workspace are error results", async () => {
    const ctx = makeContext(ws.root);
    const bad = await grepTool.execute({ pattern: "(" }, ctx);
    expect(bad.success).toBe(false);
    expect(bad.content).toContain("invalid regular expression");
    writeFileSync(join(ws.outside, "o.txt"), "foo");
    symlinkSync(join(ws.outside, "o.txt"), join(ws.root, "o-link.txt"));
    expect(await grepTool.execute({ pattern: "foo", path: "../outside" }, ctx)).toMatchObject({
      success: false,
      content: "path outside the workspace: ../outside",
    });
    const all = await grepTool.execute({ pattern: "foo" }, ctx);
    expect(all.content).not.toContain("o-link.txt");
  });
});
