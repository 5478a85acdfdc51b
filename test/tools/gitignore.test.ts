// .gitignore rules for grep and glob (gitignore.ts), and ripgrep as the lister when it is on the
// PATH (ripgrep.ts): both engines must give the same output for the same tree.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { createRuntime } from "../../src/runtime/index.ts";
import { IgnoreRules } from "../../src/tools/gitignore.ts";
import { ripgrepFor, walkOrder } from "../../src/tools/ripgrep.ts";
import { globTool } from "../../src/tools/glob.ts";
import { grepTool } from "../../src/tools/grep.ts";
import { makeContext, makeWorkspace, putFile, spyRuntime, type Workspace } from "./helpers.ts";

let ws: Workspace | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

const RG = createRuntime().which("rg", process.env.PATH);

/** A tree exercising every rule form: negation, dir-only, anchoring, `**`, nesting, the exclude file. */
function ignoredTree(root: string): void {
  putFile(
    root,
    ".gitignore",
    ["# build output", "*.log", "!keep.log", "build/", "/only-top.txt", "**/gen/*.ts", "\\#hash.txt", "trailing.txt   ", ""].join("\n"),
  );
  putFile(root, ".git/info/exclude", "secret-local.txt\n");
  putFile(root, ".git/HEAD", "ref: refs/heads/main\n");
  for (const path of [
    "a.log",
    "keep.log",
    "build/out.txt",
    "src/build",
    "only-top.txt",
    "src/only-top.txt",
    "src/gen/x.ts",
    "src/gen/x.js",
    "#hash.txt",
    "trailing.txt",
    "secret-local.txt",
    "src/main.ts",
    ".hidden/h.txt",
  ]) {
    putFile(root, path, `needle in ${path}\n`);
  }
  // A nested .gitignore wins over its parent; an ignored directory cannot be re-included from inside.
  putFile(root, "sub/.gitignore", "!*.log\nlocal.txt\n");
  putFile(root, "sub/x.log", "needle\n");
  putFile(root, "sub/local.txt", "needle\n");
  putFile(root, "build/.gitignore", "!out.txt\n");
  putFile(root, "node_modules/pkg/index.js", "needle\n");
}

const VISIBLE = [".gitignore", ".hidden/h.txt", "keep.log", "src/build", "src/gen/x.js", "src/main.ts", "src/only-top.txt", "sub/.gitignore", "sub/x.log"];

describe("IgnoreRules", () => {
  test("gitignore semantics: negation, dir-only, anchoring, **, escapes, trailing spaces, nesting, exclude file", async () => {
    ws = makeWorkspace();
    ignoredTree(ws.root);
    const fs = createRuntime().fs;
    const root = await IgnoreRules.at(fs, ws.root, ws.root);
    const at = (path: string, dir = false) => root.ignores(join(ws?.root ?? "", path), dir);
    expect(at("a.log")).toBe(true);
    expect(at("keep.log")).toBe(false);
    expect(at("build", true)).toBe(true);
    expect(at("src/build", false)).toBe(false);
    expect(at("only-top.txt")).toBe(true);
    expect(at("src/only-top.txt")).toBe(false);
    expect(at("src/gen/x.ts")).toBe(true);
    expect(at("src/gen/x.js")).toBe(false);
    expect(at("#hash.txt")).toBe(true);
    expect(at("trailing.txt")).toBe(true);
    expect(at("secret-local.txt")).toBe(true);
    const sub = await root.enter(join(ws.root, "sub"));
    expect(sub.ignores(join(ws.root, "sub/x.log"), false)).toBe(false);
    expect(sub.ignores(join(ws.root, "sub/local.txt"), false)).toBe(true);
    expect(root.ignores(join(ws.root, "sub/local.txt"), false)).toBe(false);
    // Rules for a walk that starts below the root include every .gitignore above it.
    const fromSub = await IgnoreRules.at(fs, ws.root, join(ws.root, "sub"));
    expect(fromSub.ignores(join(ws.root, "sub/local.txt"), false)).toBe(true);
    expect(fromSub.ignores(join(ws.root, "sub/x.log"), false)).toBe(false);
  });

  test("no ignore files: no rules, and the matcher is not needed", async () => {
    ws = makeWorkspace();
    putFile(ws.root, "a.txt", "x");
    const rules = await IgnoreRules.at(createRuntime().fs, ws.root, ws.root);
    expect(rules.empty).toBe(true);
    expect(rules.ignores(join(ws.root, "a.txt"), false)).toBe(false);
  });
});

describe("glob and grep honour .gitignore (built-in walk)", () => {
  test("ignored files are neither listed nor searched; node_modules and .git stay skipped", async () => {
    ws = makeWorkspace();
    ignoredTree(ws.root);
    const ctx = makeContext(ws.root);
    const globbed = await globTool.execute({ pattern: "**/*" }, ctx);
    expect(globbed.content.split("\n")).toEqual(VISIBLE.filter((path) => !path.split("/").some((part) => part.startsWith("."))));
    const hidden = await globTool.execute({ pattern: "**/.*" }, ctx);
    expect(hidden.content.split("\n")).toEqual([".gitignore", "sub/.gitignore"]);
    const grepped = await grepTool.execute({ pattern: "needle" }, ctx);
    expect(grepped.content.split("\n")).toEqual([".hidden/h.txt", "keep.log", "src/build", "src/gen/x.js", "src/main.ts", "src/only-top.txt", "sub/x.log"]);
    // From a subdirectory the parent's rules still hold.
    const fromSub = await grepTool.execute({ pattern: "needle", path: "sub" }, ctx);
    expect(fromSub.content).toBe("sub/x.log");
  });
});

describe("ripgrep as the lister", () => {
  test("walkOrder sorts like the depth-first walk", () => {
    expect(["/r/a-c", "/r/a/b", "/r/a.txt", "/r/b"].sort(walkOrder)).toEqual(["/r/a/b", "/r/a-c", "/r/a.txt", "/r/b"]);
  });

  test("ripgrepFor: null when disabled, when rg is not on the PATH, or when a .gitignore above the search root would be missed", () => {
    ws = makeWorkspace();
    putFile(ws.root, "sub/a.txt", "x");
    const base = makeContext(ws.root, { ripgrep: undefined });
    const plan = (parents: boolean) => (RG === null ? null : { binary: RG, parents });
    expect(ripgrepFor({ ...base, ripgrep: null }, ws.root)).toBeNull();
    expect(ripgrepFor({ ...base, env: { PATH: ws.outside } }, ws.root)).toBeNull();
    expect(ripgrepFor(base, ws.root)).toEqual(plan(false));
    expect(ripgrepFor(base, join(ws.root, "sub"))).toEqual(plan(false));
    putFile(ws.root, ".gitignore", "*.tmp\n");
    expect(ripgrepFor(base, ws.root)).toEqual(plan(false));
    // Not a repository: rg would read .gitignore files above the workspace too, so the walk runs.
    expect(ripgrepFor(base, join(ws.root, "sub"))).toBeNull();
    // A repository rooted at the workspace: rg reads parents' rules up to it, as the walk does.
    mkdirSync(join(ws.root, ".git"));
    expect(ripgrepFor(base, join(ws.root, "sub"))).toEqual(plan(true));
  });

  // Runs only where rg is installed (the built-in walk is the fallback everywhere else); without rg
  // the previous test already shows the walk is chosen.
  test("with rg on the PATH: the same output as the walk for glob, grep (every mode) and a subdirectory; rg really runs", async () => {
    if (RG === null) {
      expect(ripgrepFor(makeContext("/", { ripgrep: undefined }), "/")).toBeNull();
      return;
    }
    ws = makeWorkspace();
    ignoredTree(ws.root);
    putFile(ws.root, "deep/a-b/z.txt", "needle Needle\nother\nneedle\n");
    putFile(ws.root, "deep/a/z.txt", "NEEDLE\n");
    mkdirSync(join(ws.root, "empty"));
    const spy = spyRuntime();
    const viaRg = makeContext(ws.root, { runtime: spy.runtime, ripgrep: RG });
    const viaWalk = makeContext(ws.root);
    const calls: [typeof globTool, Record<string, unknown>][] = [
      [globTool, { pattern: "**/*" }],
      [globTool, { pattern: "**/*.txt", path: "deep" }],
      [grepTool, { pattern: "needle" }],
      [grepTool, { pattern: "needle", "-i": true, output_mode: "content", "-C": 1 }],
      [grepTool, { pattern: "need(le)", output_mode: "count", glob: "*.txt" }],
      [grepTool, { pattern: "needle", path: "deep", output_mode: "content" }],
      [grepTool, { pattern: "no-such-text" }],
      // Below the root: the root's rules (`**/gen/*.ts`, `*.log`) and the nested ones still apply.
      [globTool, { pattern: "**/*", path: "src" }],
      [grepTool, { pattern: "needle", path: "sub" }],
    ];
    for (const [tool, input] of calls) {
      const rg = await tool.execute(input, viaRg);
      const walk = await tool.execute(input, viaWalk);
      expect({ input, content: rg.content, success: rg.success }).toEqual({ input, content: walk.content, success: walk.success });
    }
    expect(spy.spawns.filter((request) => request.argv[0] === RG).length).toBe(calls.length);
    // A pattern rg cannot parse (lookahead) falls back to the walk and still answers.
    const lookahead = await grepTool.execute({ pattern: "needle(?= in)" }, viaRg);
    expect(lookahead.content.split("\n")).toContain("src/main.ts");
  });

  test("with rg: a cancelled call kills rg and says so, like the walk", async () => {
    if (RG === null) return expect(RG).toBeNull();
    ws = makeWorkspace();
    putFile(ws.root, "a.txt", "needle\n");
    const controller = new AbortController();
    controller.abort();
    const grep = await grepTool.execute({ pattern: "needle" }, makeContext(ws.root, { ripgrep: RG, signal: controller.signal }));
    expect(grep).toMatchObject({ success: false, content: "[grep cancelled]" });
    const glob = await globTool.execute({ pattern: "**/*" }, makeContext(ws.root, { ripgrep: RG, signal: controller.signal }));
    expect(glob).toMatchObject({ success: false, content: "[glob cancelled]" });
  });

  test("with rg: symlinked files are not followed (the documented difference from the walk)", async () => {
    if (RG === null) return expect(RG).toBeNull();
    ws = makeWorkspace();
    putFile(ws.root, "real.txt", "needle\n");
    symlinkSync(join(ws.root, "real.txt"), join(ws.root, "link.txt"));
    const rg = await grepTool.execute({ pattern: "needle" }, makeContext(ws.root, { ripgrep: RG }));
    const walk = await grepTool.execute({ pattern: "needle" }, makeContext(ws.root));
    expect(rg.content).toBe("real.txt");
    expect(walk.content).toBe("link.txt\nreal.txt");
  });
});
