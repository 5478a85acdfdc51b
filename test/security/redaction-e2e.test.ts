// item 10, end to end through `agent run` (D16, D20, TOOL-46, TOOL-51, TOOL-53): a list
// hook in the default redacted mode gets neither a token carried in `affected_paths[].path` nor
// a netrc password nor a Discord bot token, in a tool request or in the assistant's text.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, readJsonl, writeScript } from "../support/cli.ts";
import { runScript } from "../agent/support.ts";

const GITHUB = "ghp_7T7zSAqhEAH8gSLLziAWKPkjXoldIk3n8y8T";
// A made-up Discord-shaped bot token: base64 of the id 812345678901234567, 6 chars, 31 chars.
const DISCORD = `${Buffer.from("812345678901234567").toString("base64")}.GhT3kA.Xk9_a1B2c3D4e5F6g7H8i9J0kLmN-pQ`;
const NETRC = "machine api.example.com login alice password hunter2-Zq";

describe("redacted envelopes", () => {
  test("D20 D16 affected_paths carry request.file_path's redaction; netrc and Discord secrets are replaced", () => {
    const w = makeWorld();
    const log = join(w.root, "stdin.jsonl");
    w.file("log.sh", `#!/bin/sh\ncat >> "${log}"\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "b", command: "./log.sh" }], after_assistant: [{ label: "a", command: "./log.sh" }] } }),
    );
    const path = `dumps/${GITHUB}.txt`;
    writeScript(w, [
      { tool_calls: [{ name: "read", arguments: { file_path: path } }] },
      { tool_calls: [{ name: "grep", arguments: { pattern: `${NETRC} ${DISCORD}`, path: "." } }] },
      { text: `Found: ${NETRC}\nbot token ${DISCORD}` },
    ]);
    const r = runScript(w, "bypass");
    expect(r.code).toBe(0);
    const text = readFileSync(log, "utf8");
    for (const secret of [GITHUB, DISCORD, "hunter2-Zq"]) expect(text).not.toContain(secret);
    const envelopes = readJsonl(text);
    const read = envelopes.find((e) => (e.tool as { name?: string } | undefined)?.name === "read");
    const request = (read?.request ?? {}) as { file_path?: string };
    // D27: hooks see the resolved path, redacted like the rest of the request.
    expect(request.file_path).toBe(`${w.project}/dumps/[REDACTED:github_pat].txt`);
    expect(read?.affected_paths).toEqual([{ path: `${w.project}/dumps/[REDACTED:github_pat].txt`, kind: "read_target", source: "request.file_path" }]);
    const grep = envelopes.find((e) => (e.tool as { name?: string } | undefined)?.name === "grep");
    expect((grep?.request as { pattern?: string }).pattern).toBe(
      "machine api.example.com login alice password [REDACTED:netrc_password] [REDACTED:discord_bot_token]",
    );
    const assistant = envelopes.filter((e) => e.phase === "after_assistant").pop(); // the final message
    expect((assistant?.request as { text?: string }).text).toBe(
      "Found: machine api.example.com login alice password [REDACTED:netrc_password]\nbot token [REDACTED:discord_bot_token]",
    );
  });
});
