// todo_write, multi_edit, apply_patch, read, glob, grep and web_fetch end to end through
// `agent run --provider script` (in-process CLI): each call passes a hook directory (action), a
// lifecycle group (claude, Claude tool names and tool_response) and a tool-call list (envelope,
// redacted, affected_paths), then the gate and the session file.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { makeWorld, readJsonl, type World } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { listenLocal } from "../support/listen.ts";
import { hookDir, toml } from "../hooks/harness.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { ofType, sessionRecords, type Rec } from "./helpers.ts";

setDefaultTimeout(60_000);

interface Logs {
  /** Hook directory (action dialect), pre_tool, every tool. */
  readonly dir: Rec[];
  /** Lifecycle post_tool_use (claude dialect), every tool. */
  readonly claude: Rec[];
  /** Tool-call list before_tool (envelope, redacted). */
  readonly list: Rec[];
}

/** The three hook forms, each logging its stdin as one JSON line. */
function withHooks(w: World): () => Logs {
  const logs = join(w.root, "logs");
  hookDir(
    w,
    "user",
    "log-all",
    { event: "pre_tool", match: "*" },
    `mkdir -p ${logs}; cat >> ${logs}/dir.jsonl; echo >> ${logs}/dir.jsonl; echo '{"action":"allow"}'`,
  );
  w.file("log.sh", `#!/bin/sh\nmkdir -p ${logs}\ncat >> ${logs}/$1.jsonl\necho >> ${logs}/$1.jsonl\n`, { executable: true });
  toml(
    w,
    "user",
    [
      "[hooks]",
      "enabled = true",
      "[[hooks.before_tool]]",
      'label = "log-list"',
      'command = "./log.sh list"',
      "[[hooks.lifecycle.post_tool_use]]",
      `hooks = [{ command = "$CLAUDE_PROJECT_DIR/log.sh claude" }]`,
    ].join("\n"),
  );
  const read = (name: string): Rec[] => (existsSync(join(logs, `${name}.jsonl`)) ? readJsonl(readFileSync(join(logs, `${name}.jsonl`), "utf8")) : []);
  return () => ({ dir: read("dir"), claude: read("claude"), list: read("list") });
}

async function run(w: World, calls: [string, Rec][], mode = "bypass", env: Record<string, string> = {}, extra: string[] = []) {
  const turns: unknown[] = calls.map(([name, args], i) => ({ tool_calls: [{ id: `call_${i + 1}`, name, arguments: args }] }));
  turns.push({ text: "done" });
  w.file("script.json", JSON.stringify({ turns }));
  const result = await runCliInProcess(
    w,
    ["run", "--provider", "script", "--script", "script.json", "--permission-mode", mode, "--output-format", "json", "--trust", ...extra, "go"],
    { env: w.env(env) },
  );
  return { result, records: sessionRecords(w) };
}

function toolResults(records: readonly Rec[]): Rec[] {
  return ofType(records, "tool_result");
}

describe("new tools through agent run, the three hook forms, the gate and the session file", () => {
  test("todo_write (TodoWrite): the plan in the result and its metadata; hooks see it; secrets redacted for the envelope", async () => {
    const w = makeWorld();
    const logs = withHooks(w);
    const todos = [
      { content: "Rotate key AKIAABCDEFGHIJKLMNOP", status: "in_progress", activeForm: "Rotating" },
      { content: "Write tests", status: "pending" },
    ];
    const { result, records } = await run(w, [["TodoWrite", { todos }]]);
    expect(result.code).toBe(0);
    const { dir, claude, list } = logs();
    expect(dir[0]).toMatchObject({ tool: "todo_write", input: { todos } });
    expect(claude[0]).toMatchObject({
      tool_name: "TodoWrite",
      tool_input: { todos },
      tool_response: {
        oldTodos: [],
        newTodos: [
          { id: "1", status: "in_progress" },
          { id: "2", content: "Write tests" },
        ],
        success: true,
      },
    });
    expect(JSON.stringify(list[0])).toContain("todo_write");
    expect(JSON.stringify(list[0])).not.toContain("AKIAABCDEFGHIJKLMNOP");
    expect(list[0]?.affected_paths).toEqual([]);
    const [recorded] = toolResults(records);
    expect(recorded).toMatchObject({ tool_name: "todo_write", success: true, metadata: { counts: { pending: 1, in_progress: 1, completed: 0 } } });
    expect(String(recorded?.content)).toBe("Plan (0/2 completed):\n[>] 1. Rotate key AKIAABCDEFGHIJKLMNOP\n[ ] 2. Write tests");

    // A resumed session starts from the plan the last todo_write left.
    const resumed = await run(w, [["todo_write", { todos: [{ content: "Write tests", status: "completed", id: "2" }] }]], "bypass", {}, ["--continue"]);
    expect(resumed.result.code).toBe(0);
    expect(logs().claude.at(-1)).toMatchObject({
      tool_response: {
        oldTodos: [
          { id: "1", status: "in_progress" },
          { id: "2", status: "pending" },
        ],
        newTodos: [{ id: "2", status: "completed" }],
      },
    });
  });

  test("multi_edit (MultiEdit): all edits or none; accept-edits allows it; affected_paths and structuredPatch", async () => {
    const w = makeWorld();
    const logs = withHooks(w);
    w.file("src/a.ts", "const a = 1;\nconst b = 2;\n");
    const edits = [
      { old_string: "const a = 1", new_string: "const a = 10" },
      { old_string: "const b = 2", new_string: "const b = 20" },
    ];
    const { result, records } = await run(
      w,
      [
        ["MultiEdit", { file_path: "src/a.ts", edits }],
        [
          "multi_edit",
          {
            file_path: "src/a.ts",
            edits: [
              { old_string: "10", new_string: "11" },
              { old_string: "missing", new_string: "x" },
            ],
          },
        ],
      ],
      "accept-edits",
    );
    expect(result.code).toBe(0);
    expect(readFileSync(join(w.project, "src/a.ts"), "utf8")).toBe("const a = 10;\nconst b = 20;\n");
    const { dir, claude, list } = logs();
    expect(dir.map((entry) => entry.tool)).toEqual(["multi_edit", "multi_edit"]);
    expect(claude[0]).toMatchObject({
      tool_name: "MultiEdit",
      tool_response: {
        filePath: join(w.project, "src/a.ts"),
        edits,
        originalFileContents: "const a = 1;\nconst b = 2;\n",
        structuredPatch: [
          { oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: ["-const a = 1;", "-const b = 2;", "+const a = 10;", "+const b = 20;"] },
        ],
        userModified: false,
        success: true,
      },
    });
    expect(list[0]?.affected_paths).toEqual([{ path: join(w.project, "src/a.ts"), kind: "write_target", source: "request.file_path" }]);
    const results = toolResults(records);
    expect(results.map((r) => r.success)).toEqual([true, false]);
    expect(String(results[1]?.content)).toBe(`edits[1]: old_string not found in ${join(w.project, "src/a.ts")}; no edit was applied`);
  });

  test("apply_patch: Codex patch applied; hooks see every file it names; default mode asks, so a non-interactive run is denied", async () => {
    const w = makeWorld();
    const logs = withHooks(w);
    w.file("src/app.py", "def greet():\n    print('Hi')\n");
    const patch = [
      "*** Begin Patch",
      "*** Add File: docs/new.md",
      "+# New",
      "*** Update File: src/app.py",
      "*** Move to: src/main.py",
      "@@ def greet():",
      "-    print('Hi')",
      "+    print('Hello')",
      "*** End Patch",
    ].join("\n");
    const { result, records } = await run(w, [["apply_patch", { input: patch }]]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(w.project, "docs/new.md"), "utf8")).toBe("# New\n");
    expect(readFileSync(join(w.project, "src/main.py"), "utf8")).toBe("def greet():\n    print('Hello')\n");
    const { dir, claude, list } = logs();
    expect(dir[0]).toMatchObject({ tool: "apply_patch", input: { input: patch } });
    expect(list[0]?.affected_paths).toEqual([
      { path: "docs/new.md", kind: "write_target", source: "request.input" },
      { path: "src/app.py", kind: "write_target", source: "request.input" },
      { path: "src/main.py", kind: "write_target", source: "request.input" },
    ]);
    expect(claude[0]).toMatchObject({
      tool_name: "apply_patch",
      tool_response: {
        files: [
          { type: "create", filePath: join(w.project, "docs/new.md"), originalFile: null },
          {
            type: "update",
            filePath: join(w.project, "src/app.py"),
            movePath: join(w.project, "src/main.py"),
            originalFile: "def greet():\n    print('Hi')\n",
          },
        ],
        success: true,
      },
    });
    expect(toolResults(records)[0]).toMatchObject({ success: true, content: "Success. Updated the following files:\nA docs/new.md\nM src/main.py" });

    const again = await run(makeWorldLike(w), [["apply_patch", { input: "*** Begin Patch\n*** Delete File: docs/new.md\n*** End Patch" }]], "default");
    expect(String(toolResults(again.records).at(-1)?.content)).toContain("needs approval");
    expect(existsSync(join(w.project, "docs/new.md"))).toBe(true);
  });

  test("read, glob and grep: line numbers, images refused, .gitignore honoured; hooks see Read/Glob/Grep", async () => {
    const w = makeWorld();
    const logs = withHooks(w);
    w.file(".gitignore", "dist/\n*.log\n");
    w.file("src/a.ts", "one\nneedle two\nthree\n");
    w.file("dist/a.js", "needle\n");
    w.file("debug.log", "needle\n");
    writeFileSync(join(w.project, "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
    const { result, records } = await run(w, [
      ["Read", { file_path: "src/a.ts", offset: 2, limit: 1 }],
      ["read", { file_path: "logo.png" }],
      ["glob", { pattern: "**/*" }],
      ["grep", { pattern: "needle", glob: "*.{ts,js,log}" }],
    ]);
    expect(result.code).toBe(0);
    const contents = toolResults(records).map((r) => String(r.content));
    expect(contents[0]).toBe("     2\tneedle two\n[truncated: showing lines 2-2 of 3; use offset=3 to read more]");
    expect(contents[1]).toContain("logo.png is a PNG image");
    expect(contents[2]).toBe("log.sh\nlogo.png\nscript.json\nsrc/a.ts");
    expect(contents[3]).toBe("src/a.ts");
    const { dir, claude, list } = logs();
    expect(dir.map((entry) => entry.tool)).toEqual(["read", "read", "glob", "grep"]);
    // post_tool_use is for successes (the refused image goes to post_tool_use_failure, as in Claude Code).
    expect(claude.map((entry) => entry.tool_name)).toEqual(["Read", "Glob", "Grep"]);
    expect(list[0]?.affected_paths).toEqual([{ path: join(w.project, "src/a.ts"), kind: "read_target", source: "request.file_path" }]);
  });

  test("web_fetch (WebFetch): not offered without the user's allowlist; with it, a local page as text; project config cannot enable it", async () => {
    const w = makeWorld();
    const logs = withHooks(w);
    const site = await listenLocal(
      createServer((_req, res) => {
        res.setHeader("content-type", "text/html");
        res.end("<html><body><h1>Docs</h1><p>The answer is 42.</p></body></html>");
      }),
    );
    try {
      const url = `${site.url}/docs`;
      const off = await run(w, [["WebFetch", { url }]]);
      expect(String(toolResults(off.records)[0]?.content)).toContain("web_fetch is off");
      toml(w, "project", '[tools.web_fetch]\nallow = ["127.0.0.1"]');
      const projectOnly = await run(makeWorldLike(w), [["web_fetch", { url }]], "bypass", { AGENT_DEBUG: "1" });
      expect(projectOnly.result.stderr).toContain("tools.web_fetch: is read from user config only");
      expect(String(toolResults(projectOnly.records).at(-1)?.content)).toContain("web_fetch is off");

      toml(w, "user", '[tools.web_fetch]\nallow = ["127.0.0.1"]');
      const on = await run(makeWorldLike(w), [["web_fetch", { url, prompt: "find the answer" }]]);
      expect(on.result.code).toBe(0);
      expect(toolResults(on.records).at(-1)).toMatchObject({
        tool_name: "web_fetch",
        success: true,
        content: `URL: ${url}\nStatus: 200 OK\n\n# Docs\n\nThe answer is 42.`,
      });
      const { dir, claude, list } = logs();
      expect(dir.at(-1)).toMatchObject({ tool: "web_fetch", input: { url } });
      expect(claude.at(-1)).toMatchObject({
        tool_name: "WebFetch",
        tool_response: { code: 200, codeText: "OK", url, result: "# Docs\n\nThe answer is 42.", success: true },
      });
      expect(JSON.stringify(list.at(-1))).toContain(url);
    } finally {
      await site.close();
    }
  });
});

describe("which tools a model is offered", () => {
  test("the new tools are offered; web_fetch only once the user's config names a host", async () => {
    const w = makeWorld();
    const offered = async (): Promise<string[]> => {
      const server = await startFakeOpenAI([{ text: "done" }]);
      try {
        const result = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--model", "fake", "--trust", "go"], {
          env: w.env({ OPENAI_API_KEY: "sk-test-not-real" }),
        });
        expect(result.code).toBe(0);
        const first = server.requests[0] as { tools?: { function: { name: string } }[] };
        return (first.tools ?? []).map((tool) => tool.function.name);
      } finally {
        await server.close();
      }
    };
    const before = await offered();
    for (const name of ["read", "todo_write", "multi_edit", "apply_patch", "grep", "glob"]) expect(before).toContain(name);
    expect(before).not.toContain("web_fetch");
    toml(w, "user", '[tools.web_fetch]\nallow = ["docs.example.com"]');
    expect(await offered()).toContain("web_fetch");
  });
});

/** The same world for a second run: its session directory emptied so `sessionRecords` finds one file. */
function makeWorldLike(w: World): World {
  const sessions = join(w.agentHome, "sessions");
  if (existsSync(sessions)) for (const name of readdirSync(sessions)) if (name.endsWith(".jsonl")) rmSync(join(sessions, name));
  return w;
}
