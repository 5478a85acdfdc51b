// End to end: `agent run --provider script` calls every tool once; a lifecycle
// post_tool_use command (claude dialect) logs its stdin, and Claude Code style jq scripts that read
// `.tool_response.stdout`, `.tool_response.file.content` and `.tool_response.structuredPatch` feed
// what they read back as additionalContext (LIFE-24, PLUS-12).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { makeWorld, runCli, readJsonl } from "../support/cli.ts";
import { RUN, delivered, sessionRecords, ofType, type Rec } from "./helpers.ts";
import { readFileSync } from "node:fs";

setDefaultTimeout(60_000);

describe("claude tool_response end to end", () => {
  test("LIFE-24 PLUS-12 each tool's post_tool_use payload has Claude Code's tool_response; jq scripts read it", () => {
    const w = makeWorld();
    const log = join(w.root, "post.log");
    w.file("log.sh", `#!/bin/sh\ncat >> '${log}'\n`, { executable: true });
    // Claude Code style: jq pulls one field of tool_response and hands it back as context.
    w.file(
      "bash-out.sh",
      `#!/bin/sh\nout=$(jq -r '.tool_response.stdout + "|" + .tool_response.stderr')\njq -n --arg c "bash said $out" '{hookSpecificOutput:{hookEventName:"PostToolUse",additionalContext:$c}}'\n`,
      { executable: true },
    );
    w.file(
      "read-content.sh",
      `#!/bin/sh\nc=$(jq -r '.tool_response.file.content')\njq -n --arg c "file holds [$c]" '{hookSpecificOutput:{hookEventName:"PostToolUse",additionalContext:$c}}'\n`,
      { executable: true },
    );
    w.file(
      "edit-patch.sh",
      `#!/bin/sh\nadded=$(jq -r '[.tool_response.structuredPatch[].lines[] | select(startswith("+"))] | join(",")')\njq -n --arg c "added $added" '{hookSpecificOutput:{hookEventName:"PostToolUse",additionalContext:$c}}'\n`,
      { executable: true },
    );
    w.file(
      ".agent/config.toml",
      [
        `[[hooks.lifecycle.post_tool_use]]`,
        `hooks = [{ command = "$CLAUDE_PROJECT_DIR/log.sh" }]`,
        `[[hooks.lifecycle.post_tool_use]]`,
        `matcher = "Bash"`,
        `hooks = [{ command = "$CLAUDE_PROJECT_DIR/bash-out.sh" }]`,
        `[[hooks.lifecycle.post_tool_use]]`,
        `matcher = "Read"`,
        `hooks = [{ command = "$CLAUDE_PROJECT_DIR/read-content.sh" }]`,
        `[[hooks.lifecycle.post_tool_use]]`,
        `matcher = "Edit|Write"`,
        `hooks = [{ command = "$CLAUDE_PROJECT_DIR/edit-patch.sh" }]`,
      ].join("\n"),
    );
    const calls: [string, Rec][] = [
      ["bash", { command: "echo out; echo err >&2" }],
      ["write", { file_path: "src/a.txt", content: "one\ntwo\n" }],
      ["write", { file_path: "src/a.txt", content: "one\ntwo\nthree\n" }],
      ["edit", { file_path: "src/a.txt", old_string: "two", new_string: "TWO" }],
      ["read", { file_path: "src/a.txt", offset: 2 }],
      ["grep", { pattern: "TWO", path: "src", output_mode: "content" }],
      ["glob", { pattern: "src/*.txt" }],
    ];
    const turns: unknown[] = calls.map(([name, args], i) => ({ tool_calls: [{ id: `call_${i + 1}`, name, arguments: args }] }));
    turns.push({ text: "done" });
    w.file("script.json", JSON.stringify({ turns }));
    const r = runCli(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);

    const payloads = readJsonl(readFileSync(log, "utf8"));
    expect(payloads.map((p) => p.tool_name)).toEqual(["Bash", "Write", "Write", "Edit", "Read", "Grep", "Glob"]);
    const file = join(w.project, "src", "a.txt");
    const responses = payloads.map((p) => p.tool_response);
    expect(responses[0]).toEqual({ stdout: "out", stderr: "err", interrupted: false, isImage: false, success: true });
    expect(responses[1]).toEqual({ type: "create", filePath: file, content: "one\ntwo\n", structuredPatch: [], originalFile: null, success: true });
    expect(responses[2]).toEqual({
      type: "update",
      filePath: file,
      content: "one\ntwo\nthree\n",
      structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 3, lines: [" one", " two", "+three"] }],
      originalFile: "one\ntwo\n",
      success: true,
    });
    expect(responses[3]).toEqual({
      filePath: file,
      oldString: "two",
      newString: "TWO",
      originalFile: "one\ntwo\nthree\n",
      structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" one", "-two", "+TWO", " three"] }],
      userModified: false,
      replaceAll: false,
      success: true,
    });
    expect(responses[4]).toEqual({ type: "text", file: { filePath: file, content: "TWO\nthree", numLines: 2, startLine: 2, totalLines: 3 }, success: true });
    expect(responses[5]).toEqual({ mode: "content", numFiles: 0, filenames: [], content: "src/a.txt:2:TWO", numLines: 1, success: true });
    expect(responses[6]).toMatchObject({ filenames: [file], numFiles: 1, truncated: false, success: true });

    const results = delivered(sessionRecords(w));
    expect(results[0]).toContain("bash said out|err");
    expect(results[2]).toContain("added +three");
    expect(results[3]).toContain("added +TWO");
    expect(results[4]).toContain("file holds [TWO\nthree]");
    // The session keeps our raw result; file contents of details are not written to it.
    const recorded = ofType(sessionRecords(w), "tool_result");
    expect(JSON.stringify(recorded[3])).not.toContain("originalFile");
  });
});
