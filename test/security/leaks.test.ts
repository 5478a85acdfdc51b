// What must never leak: provider keys and BASH_ENV into the bash tool (D18), hook commands, output,
// tool data and env values into local-only records or failure lines (SEC-38, SEC-39), and raw
// control characters or tokens into a hook dir's failure line (SEC-20).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, runCliAsync, writeScript } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { allRecords, RUN, trust } from "./helpers.ts";

// Each test runs the real CLI several times; two shared cores can make that slow.
setDefaultTimeout(60_000);

const KEY = "sk-canary-0123456789abcdef";

const LIFECYCLE_FIELDS = [
  "phase",
  "label",
  "target_tool",
  "status",
  "policy",
  "category",
  "target_ran",
  "tool_call_id",
  "activity_id",
  "hook_index",
  "elapsed_ms",
  "message",
];
const INJECTION_FIELDS = ["schema_version", "phase", "label", "target_tool", "status", "item_count", "byte_count", "max_bytes", "hook_index"];

describe("secrets and local-only data", () => {
  test("SEC-37 the bash tool sees no provider key and no BASH_ENV, keeps PWD, and the provider still authenticates", async () => {
    const w = makeWorld();
    const evil = w.file(join(w.root, "evil.sh"), `touch "${w.root}/bash-env-ran"\n`);
    const server = await startFakeOpenAI([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "env" } }] }, { text: "done" }]);
    try {
      const r = await runCliAsync(w, ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "hi"], {
        env: w.env({ OPENAI_API_KEY: KEY, BASH_ENV: evil }),
      });
      expect(r.code).toBe(0);
      expect(server.headers).toHaveLength(2);
      for (const headers of server.headers) expect(headers.authorization).toBe(`Bearer ${KEY}`);
      const result = allRecords(w).find((rec) => rec.type === "tool_result");
      const output = String(result?.content);
      expect(output).toContain(`PWD=${w.project}`);
      for (const needle of ["OPENAI_API_KEY", KEY, "BASH_ENV", evil]) expect(output).not.toContain(needle);
      // The model's next request carries the same output: no key in the body either.
      expect(JSON.stringify(server.requests[1])).toContain("PWD=");
      expect(JSON.stringify(server.requests[1])).not.toContain(KEY);
      expect(existsSync(join(w.root, "bash-env-ran"))).toBe(false);
    } finally {
      await server.close();
    }
  });

  test("SEC-38 SEC-39 canaries never reach hook records or failure lines; hook records carry only the allowlisted fields", () => {
    const w = makeWorld();
    w.file("scripts/canary-cmd-7f3a.sh", "#!/bin/sh\ncat >/dev/null\necho canary-out-7f3a\necho canary-err-7f3a >&2\nexit 1\n", { executable: true });
    w.file("scripts/inject.sh", `#!/bin/sh\ncat >/dev/null\necho '{"context_items":[{"role":"user","content":"canary-item-7f3a"}]}'\n`, { executable: true });
    w.file(
      ".agent/settings.json",
      JSON.stringify({
        hooks: {
          enabled: true,
          before_tool: [{ command: "./scripts/canary-cmd-7f3a.sh" }],
          after_tool: [{ command: "./scripts/canary-cmd-7f3a.sh" }, { label: "inject", command: "./scripts/inject.sh", provider_context_injection: true }],
        },
      }),
    );
    // The other forms write records too (SEC-39 covers every form).
    w.file(".agent/hooks/d/hook.json", JSON.stringify({ event: "post_tool", run: "./run.sh" }));
    w.file(".agent/hooks/d/run.sh", "#!/bin/sh\ncat >/dev/null\necho canary-dirout-7f3a >&2\nexit 1\n", { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "echo canary-life-7f3a; echo canary-life-err-7f3a >&2; exit 1" }]\n`);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo canary-arg-7f3a | sed s/arg/res/" } }] }, { text: "done" }], "s.json");
    trust(w);
    const r = runCli(w, RUN, { env: w.env({ CANARY_TOKEN: "canary-env-7f3a" }) });
    expect(r.code).toBe(0);
    const records = allRecords(w);
    expect(records.find((rec) => rec.type === "tool_result")?.content).toBe("canary-res-7f3a\n");
    // The injection happened (so its record exists) and reached the provider-facing record only.
    expect(records.some((rec) => rec.type === "provider_context_item" && String(rec.content).includes("canary-item-7f3a"))).toBe(true);
    const hookRecords = records.filter((rec) => rec.type === "hook_lifecycle" || rec.type === "hook_diagnostic" || rec.type === "hook_context_injection");
    expect(new Set(hookRecords.map((rec) => rec.type))).toEqual(new Set(["hook_lifecycle", "hook_diagnostic", "hook_context_injection"]));
    for (const rec of hookRecords) expect(JSON.stringify(rec)).not.toContain("canary-");
    const failureLines = r.stderr.split("\n").filter((line) => line.startsWith("agent: hook "));
    expect(failureLines.length).toBeGreaterThanOrEqual(3);
    for (const line of failureLines) for (const needle of ["canary-cmd", "canary-out", "canary-err", "canary-env"]) expect(line).not.toContain(needle);

    // SEC-39: exactly the allowlists, besides type and timestamp.
    const allowed = (fields: readonly string[]) => new Set(["type", "timestamp", ...fields]);
    const forms = new Set<string>();
    for (const rec of hookRecords) {
      const keys = Object.keys(rec);
      const allow = rec.type === "hook_context_injection" ? allowed(INJECTION_FIELDS) : allowed(LIFECYCLE_FIELDS);
      for (const key of keys) expect(allow.has(key) ? key : `unexpected ${String(rec.type)} field ${key}`).toBe(key);
      if (rec.type === "hook_lifecycle") forms.add(String(rec.phase));
    }
    expect(forms).toEqual(new Set(["pre_tool", "before_tool", "post_tool", "after_tool"]));
  });

  test("SEC-20 a hook dir's failure line shows its first stderr line redacted, without control characters, at most 200 characters; a list hook's shows no output", () => {
    const w = makeWorld();
    const token = `ghp_${"A1b2C3d4E5".repeat(3)}f6G7h8`;
    expect(token).toHaveLength(40);
    const script = `#!/bin/sh\ncat >/dev/null\nprintf 'token ${token}\\033[2J\\001\\177 %s\\nsecond line\\n' "$(printf 'x%.0s' $(seq 1 300))" >&2\nexit 1\n`;
    w.file(join(w.agentHome, "hooks/d/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(join(w.agentHome, "hooks/d/run.sh"), script, { executable: true });
    const list = w.file(join(w.agentHome, "l.sh"), script, { executable: true });
    w.file(join(w.agentHome, "settings.json"), JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "l", command: list }] } }));
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }], "s.json");
    const r = runCli(w, RUN);
    expect(r.code).toBe(0);
    const dirLine = r.stderr.split("\n").find((line) => line.startsWith("agent: hook d "));
    const listLine = r.stderr.split("\n").find((line) => line.startsWith("agent: hook l "));
    expect(dirLine).toBeDefined();
    expect(listLine).toBeDefined();
    const shown = /\(stderr: (.*)\) — /.exec(dirLine ?? "")?.[1] ?? "";
    expect(shown.startsWith("token [REDACTED:")).toBe(true);
    expect(shown).toContain("[2J xxx");
    expect(shown).not.toContain(token.slice(4));
    expect(shown.length).toBeLessThanOrEqual(200);
    expect(shown.length).toBeGreaterThan(150);
    expect(/[\u0000-\u0008\u000a-\u001f\u007f]/.test(dirLine ?? "")).toBe(false);
    expect(dirLine).not.toContain("second line");
    expect(listLine).toBe("agent: hook l (pre_tool) failed: exit: exited 1 — tool ran anyway");
    for (const text of [listLine ?? "", JSON.stringify(allRecords(w))]) {
      expect(text).not.toContain("token");
      expect(text).not.toContain("xxx");
    }
    expect(readFileSync(list, "utf8")).toContain(token); // the script really printed it
  });
});
