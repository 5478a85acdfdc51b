// grep/glob bounds: regex shapes that backtrack catastrophically are refused, the walk
// honours the call's AbortSignal between files and lines, and the time budget and match cap end a
// search with a bounded result. No timings are asserted: aborts are triggered by what the tool
// reads, and the budget is crossed by a runtime whose clock jumps.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createRuntime } from "../../src/runtime/index.ts";
import type { Runtime } from "../../src/runtime/types.ts";
import { GREP_MAX_MATCHES, GREP_TIME_BUDGET_MS, grepTool } from "../../src/tools/grep.ts";
import { globTool } from "../../src/tools/glob.ts";
import { compileSearchRegex, riskyShape } from "../../src/tools/regex-guard.ts";
import { makeContext, makeWorkspace, putFile, type Workspace } from "./helpers.ts";

let ws: Workspace;
const put = (path: string, content: string | Uint8Array): void => putFile(ws.root, path, content);
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.cleanup());

/** The real runtime, with a hook called after every file read (the read itself is real). */
function runtimeOnRead(onRead: (count: number, path: string) => void): Runtime {
  const real = createRuntime();
  let reads = 0;
  return {
    ...real,
    fs: {
      ...real.fs,
      readBytes(path) {
        const bytes = real.fs.readBytes(path);
        onRead(++reads, path);
        return bytes;
      },
    },
  };
}

describe("regex guard", () => {
  test("nested quantifiers at any depth and backreferences are refused", () => {
    for (const pattern of ["(a+)+$", "(a*)*", "(\\w+\\s*)*x", "((ab)*c)+", "(?:x+)+y", "(?<n>a+)*", "(a+){2,}", "(a+){1,50}", "([a-z]+)*\\d"]) {
      expect([pattern, riskyShape(pattern)]).toEqual([pattern, expect.stringContaining("nested quantifier")]);
    }
    for (const pattern of ["(a)\\1", "(?<q>['\"]).*\\k<q>"]) {
      expect([pattern, riskyShape(pattern)]).toEqual([pattern, expect.stringContaining("backreference")]);
    }
  });

  test("ordinary patterns pass: single repeats, bounded repeats, literal parens and classes", () => {
    for (const pattern of [
      "foo",
      "a+b*c?",
      "(a|b)+",
      "(foo)+",
      "(a+){2}",
      "(a+){1,5}",
      "(a+)?",
      "\\d+(\\.\\d+)?",
      "\\(a+\\)+",
      "[(a+)+]x",
      "\\\\1",
      "[\\1]",
      "x{2,3}",
      "function\\s+\\w+\\(",
      "\\u{41}+",
    ]) {
      expect([pattern, riskyShape(pattern)]).toEqual([pattern, undefined]);
    }
  });

  test("an invalid or oversized pattern is a clear error", () => {
    expect(compileSearchRegex("(", { ignoreCase: false })).toMatchObject({ ok: false, message: expect.stringContaining("invalid regular expression") });
    expect(compileSearchRegex("a".repeat(5000), { ignoreCase: false })).toMatchObject({ ok: false, message: expect.stringContaining("too long") });
    const ok = compileSearchRegex("Foo", { ignoreCase: true });
    expect(ok.ok && ok.regex.test("foo")).toBe(true);
  });
});

describe("grep bounds", () => {
  test("a pathological pattern on a long line of a's returns a clear error instead of freezing", async () => {
    put("long.txt", `${"a".repeat(5000)}!\n`.repeat(20));
    const result = await grepTool.execute({ pattern: "(a+)+$", output_mode: "content" }, makeContext(ws.root));
    expect(result.success).toBe(false);
    expect(result.content).toBe(
      "regular expression refused: nested quantifier: the group `(a+)+` is repeated and repeats inside, which can backtrack exponentially; rewrite it without the outer repeat (e.g. `(\\w+\\s*)+` → `[\\w\\s]+`) or search for a literal part",
    );
    const backref = await grepTool.execute({ pattern: "(a)\\1" }, makeContext(ws.root));
    expect(backref).toMatchObject({ success: false, content: expect.stringContaining("backreference \\1 is not supported") });
  });

  test("an abort mid-walk ends the search at the next file with the cancelled result", async () => {
    for (let i = 0; i < 50; i++) put(`src/f${String(i).padStart(2, "0")}.ts`, "const foo = 1;\n");
    const controller = new AbortController();
    let reads = 0;
    const runtime = runtimeOnRead((count) => {
      reads = count;
      if (count === 5) controller.abort();
    });
    const result = await grepTool.execute({ pattern: "foo" }, makeContext(ws.root, { runtime, signal: controller.signal }));
    expect(result).toEqual({ success: false, content: "[grep cancelled]", metadata: { path: ws.root, files: 4, matches: 4, cancelled: true } });
    expect(reads).toBe(5);
  });

  test("an abort while a slow (accepted) pattern scans a file is honoured between lines", async () => {
    // `(a|a)*b` passes the shape check but costs JavaScriptCore its whole match limit on every line:
    // without yields between lines the timer below could not run until all 400 lines were scanned.
    put("slow.txt", `${"a".repeat(40)}\n`.repeat(400));
    put("later.txt", "aab\n");
    const controller = new AbortController();
    const runtime = runtimeOnRead(() => setTimeout(() => controller.abort(), 0));
    const result = await grepTool.execute({ pattern: "(a|a)*b" }, makeContext(ws.root, { runtime, signal: controller.signal }));
    expect(result).toMatchObject({ success: false, content: "[grep cancelled]", metadata: { cancelled: true } });
  }, 120_000);

  test("an already aborted signal reads nothing", async () => {
    put("a.txt", "foo\n");
    const controller = new AbortController();
    controller.abort();
    let reads = 0;
    const runtime = runtimeOnRead((count) => {
      reads = count;
    });
    const result = await grepTool.execute({ pattern: "foo" }, makeContext(ws.root, { runtime, signal: controller.signal }));
    expect(result).toMatchObject({ success: false, content: "[grep cancelled]" });
    expect(reads).toBe(0);
  });

  test("past the time budget the search stops with an error naming the file and the partial results", async () => {
    put("a.txt", "foo one\n");
    put("b.txt", "foo two\nfoo three\n");
    put("c.txt", "foo four\n");
    const real = createRuntime();
    let skew = 0;
    const base = runtimeOnRead((count) => {
      // The clock jumps past the budget while the second file is being read.
      if (count === 2) skew = GREP_TIME_BUDGET_MS + 1;
    });
    const runtime: Runtime = { ...base, now: () => real.now() + skew };
    const result = await grepTool.execute({ pattern: "foo" }, makeContext(ws.root, { runtime }));
    expect(result.success).toBe(false);
    expect(result.content).toBe(
      `grep stopped after ${GREP_TIME_BUDGET_MS / 1000} s (in b.txt): the pattern is too slow for this input. ` +
        "Overlapping alternatives under a repeat (`(a|ab)*`) or stacked wildcards (`.*.*`) backtrack heavily; simplify the pattern or narrow path/glob.\n" +
        "Partial results:\na.txt",
    );
    expect(result.metadata).toEqual({ path: ws.root, files: 1, matches: 1, timed_out: true });
  });

  test("the search stops once GREP_MAX_MATCHES matching lines are held, saying so", async () => {
    const many = "foo\n".repeat(GREP_MAX_MATCHES / 2 + 1);
    put("a.txt", many);
    put("b.txt", many);
    put("c.txt", many);
    const result = await grepTool.execute({ pattern: "foo", output_mode: "count" }, makeContext(ws.root));
    expect(result.success).toBe(true);
    expect(result.content).toBe(
      `a.txt:${GREP_MAX_MATCHES / 2 + 1}\nb.txt:${GREP_MAX_MATCHES / 2 + 1}\n[search stopped early: ${GREP_MAX_MATCHES} matching lines; narrow the pattern, path or glob]`,
    );
  });
});

describe("glob bounds", () => {
  test("an abort mid-walk ends the walk with the cancelled result", async () => {
    for (let i = 0; i < 30; i++) put(`d${String(i).padStart(2, "0")}/x.ts`, "");
    const real = createRuntime();
    const controller = new AbortController();
    let listed = 0;
    const runtime: Runtime = {
      ...real,
      fs: {
        ...real.fs,
        readdir(path) {
          if (++listed === 4) controller.abort();
          return real.fs.readdir(path);
        },
      },
    };
    const result = await globTool.execute({ pattern: "**/*.ts" }, makeContext(ws.root, { runtime, signal: controller.signal }));
    expect(result).toEqual({ success: false, content: "[glob cancelled]", metadata: { path: ws.root, count: 2, cancelled: true } });
    expect(listed).toBe(4);
  });
});
