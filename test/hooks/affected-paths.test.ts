import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { affectedPaths } from "../../src/hooks/affected-paths.ts";
import { createRuntime } from "../../src/runtime/index.ts";

const fs = createRuntime().fs;
const cwd = mkdtempSync(path.join(tmpdir(), "agent-affected-"));
mkdirSync(path.join(cwd, "src"));
writeFileSync(path.join(cwd, "notes.txt"), "x");
symlinkSync("/etc", path.join(cwd, "link"));
mkdirSync(path.join(cwd, "inner"));
symlinkSync(path.join(cwd, "inner"), path.join(cwd, "goodlink"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("affected_paths (D20)", () => {
  test("SEC-26 TOOL-51 read, write, edit and grep give their structured path as given", () => {
    expect(affectedPaths(fs, "read", { file_path: "src/a.ts" }, cwd)).toEqual([{ path: "src/a.ts", kind: "read_target", source: "request.file_path" }]);
    expect(affectedPaths(fs, "write", { file_path: "src/b.ts", content: "x" }, cwd)).toEqual([
      { path: "src/b.ts", kind: "write_target", source: "request.file_path" },
    ]);
    expect(affectedPaths(fs, "edit", { file_path: "notes.txt", old_string: "a", new_string: "b" }, cwd)).toEqual([
      { path: "notes.txt", kind: "write_target", source: "request.file_path" },
    ]);
    expect(affectedPaths(fs, "grep", { pattern: "x", path: "src" }, cwd)).toEqual([{ path: "src", kind: "read_target", source: "request.path" }]);
    expect(affectedPaths(fs, "read", { file_path: "./src//a.ts" }, cwd)).toEqual([{ path: "./src//a.ts", kind: "read_target", source: "request.file_path" }]);
  });

  test("D20 multi_edit gives its file; apply_patch every file its patch names, once, escapes omitted, redacted", () => {
    expect(affectedPaths(fs, "multi_edit", { file_path: "notes.txt", edits: [] }, cwd)).toEqual([
      { path: "notes.txt", kind: "write_target", source: "request.file_path" },
    ]);
    const input = [
      "*** Begin Patch",
      "*** Add File: src/new.ts",
      "+x",
      "*** Update File: notes.txt",
      "*** Move to: src/notes.txt",
      "@@",
      "-x",
      "+y",
      "*** Delete File: ../outside.txt",
      "*** Delete File: link/passwd",
      "*** Update File: notes.txt",
      "@@",
      "-y",
      "+z",
      "*** End Patch",
    ].join("\n");
    expect(affectedPaths(fs, "apply_patch", { input }, cwd)).toEqual([
      { path: "src/new.ts", kind: "write_target", source: "request.input" },
      { path: "notes.txt", kind: "write_target", source: "request.input" },
      { path: "src/notes.txt", kind: "write_target", source: "request.input" },
    ]);
    expect(affectedPaths(fs, "apply_patch", { input }, cwd, { redact: (p) => p.replace("new", "[REDACTED]") })[0]?.path).toBe("src/[REDACTED].ts");
    expect(affectedPaths(fs, "apply_patch", { input: "not a patch mentioning notes.txt" }, cwd)).toEqual([]);
    expect(affectedPaths(fs, "todo_write", { todos: [{ content: "edit notes.txt", status: "pending" }] }, cwd)).toEqual([]);
    expect(affectedPaths(fs, "web_fetch", { url: "https://example.com/notes.txt" }, cwd)).toEqual([]);
  });

  test("TOOL-51 glob, bash, task and grep without path give []", () => {
    expect(affectedPaths(fs, "glob", { pattern: "*.ts", path: "src" }, cwd)).toEqual([]);
    expect(affectedPaths(fs, "bash", { command: "cat src/a.ts > out.txt" }, cwd)).toEqual([]);
    expect(affectedPaths(fs, "task", { description: "d", prompt: "read notes.txt", cwd: "src" }, cwd)).toEqual([]);
    expect(affectedPaths(fs, "grep", { pattern: "notes.txt" }, cwd)).toEqual([]);
  });

  test("SEC-27 TOOL-52 traversal, escapes, overlong paths and symlink escapes are omitted", () => {
    for (const file_path of ["../x", "/etc/passwd", "src/../../x", "src/../x", "a".repeat(4097), "link/secret", "link", "", "C:\\x"]) {
      expect(affectedPaths(fs, "read", { file_path }, cwd)).toEqual([]);
    }
    expect(affectedPaths(fs, "read", { file_path: 5 }, cwd)).toEqual([]);
  });

  test("TOOL-52 a path of exactly 4096 bytes, a symlink inside the cwd and an absolute path under the cwd are kept", () => {
    const long = `src/${"b".repeat(4092)}`;
    expect(affectedPaths(fs, "read", { file_path: long }, cwd)).toHaveLength(1);
    expect(affectedPaths(fs, "read", { file_path: "goodlink/x" }, cwd)).toHaveLength(1);
    const inside = path.join(cwd, "notes.txt");
    expect(affectedPaths(fs, "read", { file_path: inside }, cwd)).toEqual([{ path: inside, kind: "read_target", source: "request.file_path" }]);
  });
});
