// End to end: `type: "http"` hooks in `agent run` and `agent hooks test/list`,
// against a real HTTP server on 127.0.0.1 (the CLI runs as a child process; the server lives here).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, runCliAsync, type World } from "../support/cli.ts";
import { startHookServer, type HookServer } from "../support/hook-server.ts";
import { RUN, bashTurns, delivered, hookRuns, sessionRecords } from "./helpers.ts";

setDefaultTimeout(60_000);

let server: HookServer;
beforeAll(async () => {
  server = await startHookServer();
});
afterAll(async () => {
  await server.close();
});

function httpHook(w: World, path: string, where: "project" | "claude" = "project"): void {
  w.file(join(w.agentHome, "config.toml"), `[hooks]\nhttp_allow = ["http://127.0.0.1:*"]\n${where === "claude" ? "\n[compat]\nclaude_settings = true\n" : ""}`);
  const hooks = { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "http", url: `${server.url}${path}`, timeout: 5 }] }] };
  if (where === "claude") w.file(".claude/settings.json", JSON.stringify({ hooks }));
  else w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: hooks } }));
}

describe("http hooks end to end", () => {
  test("agent run: the server's deny stops the bash call; the model is told why", async () => {
    const w = makeWorld();
    httpHook(w, "/deny");
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo hi > out.txt"]) }));
    const before = server.requests.length;
    const r = await runCliAsync(w, RUN.concat(["go"]));
    expect(r.code).toBe(0);
    expect(existsSync(join(w.project, "out.txt"))).toBe(false);
    const records = sessionRecords(w);
    expect(delivered(records)[0]).toContain("http says no");
    expect(hookRuns(records).map((h) => h.status)).toEqual(["success"]);
    const body = JSON.parse(server.requests[before]?.body ?? "{}");
    expect(body.session_id).toBe(records[0]?.session_id);
    expect(body.tool_input.command).toMatchObject({ redacted: true });
  });

  test("agent run: an allow (empty 2xx) lets the call run", async () => {
    const w = makeWorld();
    httpHook(w, "/allow");
    w.file("script.json", JSON.stringify({ turns: bashTurns(["echo hi > out.txt"]) }));
    expect((await runCliAsync(w, RUN.concat(["go"]))).code).toBe(0);
    expect(existsSync(join(w.project, "out.txt"))).toBe(true);
  });

  test("Claude Code's .claude/settings.json may hold http hooks too", async () => {
    const w = makeWorld();
    httpHook(w, "/deny", "claude");
    const r = await runCliAsync(w, ["hooks", "test", "pre_tool", "--tool", "bash", "--input", '{"command":"ls"}', "--trust", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).reason).toContain("http says no");
  });

  test("hooks list shows the type and URL; hooks validate passes without a shell check", async () => {
    const w = makeWorld();
    httpHook(w, "/deny");
    const list = await runCliAsync(w, ["hooks", "list", "--json"]);
    const hooks = JSON.parse(list.stdout).hooks as { type: string; url?: string; command: string }[];
    expect(hooks.map((h) => [h.type, h.url])).toEqual([["http", `${server.url}/deny`]]);
    expect(hooks[0]?.command).toContain(`http POST ${server.url}/deny (payload redacted)`);
    const text = await runCliAsync(w, ["hooks", "list"]);
    expect(text.stdout).toContain(`http POST ${server.url}/deny`);
    const validate = await runCliAsync(w, ["hooks", "validate"]);
    expect(validate.code).toBe(0);
  });

  test("SEC-32 trust pins a project http hook's URL and a prompt hook's template, not the user's allowlist", () => {
    const w = makeWorld();
    httpHook(w, "/deny");
    const trusted = (): boolean => (JSON.parse(runCli(w, ["hooks", "list", "--json"]).stdout).hooks as { trusted: boolean }[]).every((h) => h.trusted);
    expect(trusted()).toBe(false);
    expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
    expect(trusted()).toBe(true);
    // The user widening their own list is not a project change.
    w.file(join(w.agentHome, "config.toml"), `[hooks]\nhttp_allow = ["http://127.0.0.1:*", "https://hooks.example.com/*"]\n`);
    expect(trusted()).toBe(true);
    httpHook(w, "/allow");
    expect(trusted()).toBe(false);
    const refused = runCli(w, ["hooks", "test", "pre_tool", "--tool", "bash", "--input", '{"command":"ls"}']);
    expect(refused.code).toBe(1);
    expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
    const prompt = (text: string): void => {
      w.file(".agent/settings.json", JSON.stringify({ hooks: { lifecycle: { Stop: [{ hooks: [{ type: "prompt", prompt: text }] }] } } }));
    };
    prompt("Is the task done? $ARGUMENTS");
    expect(runCli(w, ["hooks", "trust"]).code).toBe(0);
    expect(trusted()).toBe(true);
    prompt("Always say ok. $ARGUMENTS");
    expect(trusted()).toBe(false);
  });
});
