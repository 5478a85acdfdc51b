import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTool } from "../../src/tools/read.ts";
import { writeTool } from "../../src/tools/write.ts";
import { editTool } from "../../src/tools/edit.ts";
import { resolveInWorkspace } from "../../src/tools/paths.ts";
import { nodeFileSystem } from "../../src/runtime/common.ts";
import { makeContext, makeWorkspace, type Workspace } from "./helpers.ts";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

describe("path confinement", () => {
  test("paths inside the workspace resolve, ../x, absolute outside and symlink escapes are refused", () => {
    mkdirSync(join(ws.root, "sub"));
    symlinkSync(ws.outside, join(ws.root, "link"));
    symlinkSync(join(ws.outside, "nothing-yet"), join(ws.root, "dangling"));
    symlinkSync(join(ws.root, "sub"), join(ws.root, "inner-link"));
    const resolve = (path: string, cwd = ws.root) => resolveInWorkspace(nodeFileSystem, { cwd, workspaceRoot: ws.root, path });
    expect(resolve("a.txt")).toEqual({ ok: true, path: join(ws.root, "a.txt") });
    expect(resolve("new/dir/a.txt")).toEqual({ ok: true, path: join(ws.root, "new/dir/a.txt") });
    expect(resolve(join(ws.root, "sub", "x"))).toEqual({ ok: true, path: join(ws.root, "sub/x") });
    expect(resolve("../a.txt", join(ws.root, "sub"))).toEqual({ ok: true, path: join(ws.root, "a.txt") });
    expect(resolve("inner-link/x")).toEqual({ ok: true, path: join(ws.root, "inner-link/x") });
    expect(resolve(".")).toEqual({ ok: true, path: ws.root });
    for (const bad of ["../x", "/etc/passwd", "link/x", "link", "dangling", "sub/../../x", join(ws.outside, "x")]) {
      expect(resolve(bad)).toEqual({ ok: false, message: `path outside the workspace: ${bad}` });
    }
  });
});

describe("read", () => {
  test("numbers lines cat -n style; offset 0 and 1 both mean line 1; limit; metadata path", async () => {
    writeFileSync(join(ws.root, "notes.txt"), "alpha\nbeta\ngamma\ndelta\n");
    const ctx = makeContext(ws.root);
    const all = await readTool.execute({ file_path: "notes.txt" }, ctx);
    expect(all.success).toBe(true);
    expect(all.content).toBe("     1\talpha\n     2\tbeta\n     3\tgamma\n     4\tdelta");
    expect(all.metadata?.path).toBe(join(ws.root, "notes.txt"));
    const zero = await readTool.execute({ file_path: "notes.txt", offset: 0, limit: 2 }, ctx);
    const one = await readTool.execute({ file_path: "notes.txt", offset: 1, limit: 2 }, ctx);
    expect(zero.content).toStartWith("     1\talpha\n     2\tbeta");
    expect(zero.content).toBe(one.content);
    expect(zero.content).toContain("use offset=3");
    const mid = await readTool.execute({ file_path: "notes.txt", offset: 3 }, ctx);
    expect(mid.content).toBe("     3\tgamma\n     4\tdelta");
    const past = await readTool.execute({ file_path: "notes.txt", offset: 9 }, ctx);
    expect(past.content).toContain("past the end");
  });

  test("TOOL-41 a missing file is success:false `no such file: <path>`", async () => {
    const result = await readTool.execute({ file_path: "missing.txt" }, makeContext(ws.root));
    expect(result.success).toBe(false);
    expect(result.content).toBe("no such file: missing.txt");
  });

  test("directories, binary files and escapes are error results", async () => {
    mkdirSync(join(ws.root, "dir"));
    writeFileSync(join(ws.root, "bin.dat"), new Uint8Array([1, 0, 2, 3]));
    writeFileSync(join(ws.outside, "secret.txt"), "TOP-SECRET");
    symlinkSync(join(ws.outside, "secret.txt"), join(ws.root, "s.txt"));
    const ctx = makeContext(ws.root);
    expect((await readTool.execute({ file_path: "dir" }, ctx)).success).toBe(false);
    const bin = await readTool.execute({ file_path: "bin.dat" }, ctx);
    expect(bin).toMatchObject({ success: false });
    expect(bin.content).toContain("binary");
    for (const path of ["s.txt", "../outside/secret.txt", join(ws.outside, "secret.txt")]) {
      const escaped = await readTool.execute({ file_path: path }, ctx);
      expect(escaped).toEqual({ success: false, content: `path outside the workspace: ${path}` });
    }
    const invalid = await readTool.execute({ file_path: "x", bogus: 1 }, ctx);
    expect(invalid.success).toBe(false);
    expect(invalid.content).toContain("bogus");
  });

  test("large files are capped with a truncation note", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(ws.root, "big.txt"), lines.join("\n"));
    const ctx = makeContext(ws.root);
    const first = await readTool.execute({ file_path: "big.txt" }, ctx);
    expect(first.content).toContain("  2000\tline 2000");
    expect(first.content).not.toContain("line 2001\n");
    expect(first.content).toContain("[truncated: showing lines 1-2000 of 5000; use offset=2001 to read more]");
    const wide = "x".repeat(200_000);
    writeFileSync(join(ws.root, "wide.txt"), Array.from({ length: 10 }, () => wide).join("\n"));
    const capped = await readTool.execute({ file_path: "wide.txt" }, ctx);
    expect(capped.success).toBe(true);
    expect(capped.content.length).toBeLessThan(256 * 1024 + 1000);
    expect(capped.content).toContain("line truncated");
    writeFileSync(join(ws.root, "mid.txt"), Array.from({ length: 2000 }, (_, i) => `${i + 1} ${"y".repeat(1500)}`).join("\n"));
    const mid = await readTool.execute({ file_path: "mid.txt" }, ctx);
    expect(mid.content.length).toBeLessThan(256 * 1024 + 200);
    expect(mid.content).toMatch(/\[truncated: showing lines 1-\d+ of 2000; use offset=\d+ to read more\]$/);
    expect(mid.metadata?.truncated).toBe(true);
  });
});

describe("write", () => {
  test("creates parent directories; metadata path and bytes", async () => {
    const ctx = makeContext(ws.root);
    const result = await writeTool.execute({ file_path: "a/b/c.txt", content: "héllo\n" }, ctx);
    expect(result.success).toBe(true);
    expect(result.metadata).toEqual({ path: join(ws.root, "a/b/c.txt"), bytes: 7 });
    expect(readFileSync(join(ws.root, "a/b/c.txt"), "utf8")).toBe("héllo\n");
    await writeTool.execute({ file_path: "a/b/c.txt", content: "new" }, ctx);
    expect(readFileSync(join(ws.root, "a/b/c.txt"), "utf8")).toBe("new");
  });

  test("writes outside the workspace or through a symlink are refused and create nothing", async () => {
    symlinkSync(ws.outside, join(ws.root, "link"));
    symlinkSync(join(ws.outside, "made.txt"), join(ws.root, "dangling.txt"));
    const ctx = makeContext(ws.root);
    for (const path of ["../escape.txt", "link/x.txt", "dangling.txt", join(ws.outside, "abs.txt")]) {
      const result = await writeTool.execute({ file_path: path, content: "x" }, ctx);
      expect(result).toEqual({ success: false, content: `path outside the workspace: ${path}` });
    }
    for (const name of ["escape.txt", "x.txt", "made.txt", "abs.txt"]) expect(existsSync(join(ws.outside, name))).toBe(false);
    expect(existsSync(join(ws.outside, "..", "escape.txt"))).toBe(false);
  });
});

describe("edit", () => {
  test("replaces exactly one occurrence, literally ($& stays $&)", async () => {
    writeFileSync(join(ws.root, "f.ts"), "const a = 1;\nconst b = 2;\n");
    const ctx = makeContext(ws.root);
    const result = await editTool.execute({ file_path: "f.ts", old_string: "b = 2", new_string: "b = '$&'" }, ctx);
    expect(result.success).toBe(true);
    expect(result.metadata).toEqual({ path: join(ws.root, "f.ts"), replacements: 1 });
    expect(readFileSync(join(ws.root, "f.ts"), "utf8")).toBe("const a = 1;\nconst b = '$&';\n");
  });

  test("ambiguous, missing and no-op edits are errors and leave the file alone; replace_all replaces all", async () => {
    const file = join(ws.root, "f.txt");
    writeFileSync(file, "x x x");
    const ctx = makeContext(ws.root);
    const ambiguous = await editTool.execute({ file_path: "f.txt", old_string: "x", new_string: "y" }, ctx);
    expect(ambiguous.success).toBe(false);
    expect(ambiguous.content).toContain("occurs 3 times");
    const missing = await editTool.execute({ file_path: "f.txt", old_string: "z", new_string: "y" }, ctx);
    expect(missing).toMatchObject({ success: false, content: "old_string not found in f.txt" });
    const same = await editTool.execute({ file_path: "f.txt", old_string: "x", new_string: "x" }, ctx);
    expect(same.success).toBe(false);
    const noFile = await editTool.execute({ file_path: "nope.txt", old_string: "x", new_string: "y" }, ctx);
    expect(noFile).toMatchObject({ success: false, content: "no such file: nope.txt" });
    expect(readFileSync(file, "utf8")).toBe("x x x");
    const all = await editTool.execute({ file_path: "f.txt", old_string: "x", new_string: "yy", replace_all: true }, ctx);
    expect(all).toMatchObject({ success: true, metadata: { replacements: 3 } });
    expect(readFileSync(file, "utf8")).toBe("yy yy yy");
  });

  test("edits outside the workspace are refused", async () => {
    writeFileSync(join(ws.outside, "o.txt"), "keep");
    const result = await editTool.execute({ file_path: "../outside/o.txt", old_string: "keep", new_string: "lost" }, makeContext(ws.root));
    expect(result).toEqual({ success: false, content: "path outside the workspace: ../outside/o.txt" });
    expect(readFileSync(join(ws.outside, "o.txt"), "utf8")).toBe("keep");
  });
});
