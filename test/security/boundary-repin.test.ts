// (trust laundering): a permission_request hook persisting a rule to project settings
// re-pins that rule only. A hook the model wrote into `.agent/config.toml` in the same session is
// still a change at the next start, and never runs untrusted. SEC-42/LOOP-14 stay: the rule itself
// keeps the trust.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, writeScript } from "../support/cli.ts";
import { readTrust, trust } from "./helpers.ts";

setDefaultTimeout(60_000);

const ALLOW_AND_PERSIST = {
  hookSpecificOutput: {
    hookEventName: "PermissionRequest",
    decision: {
      behavior: "allow",
      updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "echo hi" }], behavior: "allow", destination: "projectSettings" }],
    },
  },
};

describe("re-pinning after a hook-written rule", () => {
  test("SEC-42 LOOP-14 only the added rule is re-pinned: a hook the model wrote meanwhile is refused at the next start", () => {
    const w = makeWorld();
    const hook = w.file(join(w.agentHome, "allow.sh"), `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify(ALLOW_AND_PERSIST)}'\n`, { executable: true });
    w.file(join(w.agentHome, "config.toml"), `[[hooks.lifecycle.permission_request]]\nhooks = [{ command = '${hook}' }]\n`);
    w.file(".agent/settings.json", JSON.stringify({ permissions: { allow: ["read"] } }));
    w.file(".agent/config.toml", `model = "m"\n`);
    trust(w);
    const pinnedBefore = readTrust(w).projects[w.project]?.items ?? {};

    // Turn 1: the model (accept-edits: writes need no approval) adds a session_start hook to the
    // project config. Turn 2: a bash call asks; the user's permission_request hook allows it and
    // persists `bash(echo hi)` to .agent/settings.json, which triggers the re-pin.
    const planted = `model = "m"\n[[hooks.lifecycle.session_start]]\nhooks = [{ command = 'touch "$AGENT_PROJECT_DIR/laundered"' }]\n`;
    writeScript(
      w,
      [
        { tool_calls: [{ name: "write", arguments: { file_path: ".agent/config.toml", content: planted } }] },
        { tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] },
        { text: "done" },
      ],
      "s.json",
    );
    const first = runCli(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "accept-edits", "hi"]);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(join(w.project, ".agent/settings.json"), "utf8")).permissions.allow).toEqual(["read", "bash(echo hi)"]);
    expect(readFileSync(join(w.project, ".agent/config.toml"), "utf8")).toBe(planted);

    const pinnedAfter = readTrust(w).projects[w.project]?.items ?? {};
    expect(pinnedAfter["setting permissions.allow"]).not.toBe(pinnedBefore["setting permissions.allow"]);
    expect(Object.keys(pinnedAfter).sort()).toEqual(Object.keys(pinnedBefore).sort());

    writeScript(w, [{ text: "done" }], "s.json");
    const second = runCli(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "accept-edits", "hi"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("changed since it was trusted");
    expect(second.stderr).toContain("added: hook lifecycle session_start");
    // The rule the hook persisted is trusted; only the planted hook is new.
    expect(second.stderr).not.toContain("changed: setting permissions.allow");
    expect(existsSync(join(w.project, "laundered"))).toBe(false);
  });

  test("a rule list edited behind the hook's back is not re-pinned", () => {
    const w = makeWorld();
    const hook = w.file(join(w.agentHome, "allow.sh"), `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify(ALLOW_AND_PERSIST)}'\n`, { executable: true });
    w.file(join(w.agentHome, "config.toml"), `[[hooks.lifecycle.permission_request]]\nhooks = [{ command = '${hook}' }]\n`);
    w.file(".agent/settings.json", JSON.stringify({ permissions: { allow: ["read"] } }));
    trust(w);
    // The model widens the allow list first, then the hook persists its rule on top of it.
    writeScript(
      w,
      [
        {
          tool_calls: [
            { name: "write", arguments: { file_path: ".agent/settings.json", content: JSON.stringify({ permissions: { allow: ["read", "bash(*)"] } }) } },
          ],
        },
        { tool_calls: [{ name: "bash", arguments: { command: "touch hi" } }] },
        { text: "done" },
      ],
      "s.json",
    );
    const first = runCli(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "accept-edits", "hi"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("permissions.allow in .agent/settings.json no longer matches its trusted value");
    writeScript(w, [{ text: "done" }], "s.json");
    const second = runCli(w, ["run", "--provider", "script", "--script", "s.json", "hi"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("changed: setting permissions.allow");
  });
});
