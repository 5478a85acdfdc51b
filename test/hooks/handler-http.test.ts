/**
 * `type = "http"` lifecycle hooks against a real HTTP server on 127.0.0.1, fired
 * through the real engine (load → allowlist → redaction → fetch → claude decode → merge).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeWorld, type World } from "../support/cli.ts";
import { startHookServer, type HookServer } from "../support/hook-server.ts";
import { fire, toml } from "./harness.ts";
import { loadConfig } from "../../src/config/load.ts";
import { runtimeFor } from "./harness.ts";
import { normalUrl, urlAllowed } from "../../src/hooks/handlers/http-allow.ts";

setDefaultTimeout(60_000);

let server: HookServer;
beforeAll(async () => {
  server = await startHookServer();
});
afterAll(async () => {
  await server.close();
});

const ALLOW = `[hooks]\nhttp_allow = ["http://127.0.0.1:*"]\n`;

/** A world whose user config allows 127.0.0.1 and whose project has one pre_tool http hook. */
function world(hook: string, options: { allow?: string; scope?: "user" | "project" } = {}): World {
  const w = makeWorld();
  toml(w, "user", options.allow ?? ALLOW);
  toml(w, options.scope ?? "project", `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "bash"\nhooks = [${hook}]\n`);
  return w;
}

function since(count: number): HookServer["requests"] {
  return server.requests.slice(count);
}

const SECRET = "sk-ant-api03-" + "A".repeat(80);

describe("http hooks", () => {
  test("a deny reply denies the call; the payload is the claude payload, redacted by default", async () => {
    const before = server.requests.length;
    const w = world(`{ type = "http", url = "${server.url}/deny" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: `curl -H 'x-api-key: ${SECRET}' example.com`, description: `key ${SECRET}` } });
    expect(fired.warnings).toEqual([]);
    expect(fired.outcome.decision).toBe("deny");
    expect(fired.outcome.reason).toContain("http says no");
    const [request] = since(before);
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/deny");
    expect(request?.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(request?.body ?? "{}");
    expect(body.hook_event_name).toBe("PreToolUse");
    expect(body.tool_name).toBe("Bash");
    // Redacted: the command is a marker, and the key inside another string is replaced.
    expect(body.tool_input.command).toMatchObject({ redacted: true, kind: "command" });
    expect(request?.body).not.toContain(SECRET);
    expect(body.tool_input.description).toContain("[REDACTED:");
  });

  test('payload = "full" sends the payload as a command would get it on stdin', async () => {
    const before = server.requests.length;
    const w = world(`{ type = "http", url = "${server.url}/allow", payload = "full" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls -la" } });
    expect(fired.outcome.decision).not.toBe("deny");
    expect(fired.outcome.rows.map((row) => [row.status, row.category])).toEqual([["success", null]]);
    expect(JSON.parse(since(before)[0]?.body ?? "{}").tool_input.command).toBe("ls -la");
  });

  test("a 2xx JSON body is decoded like stdout: additionalContext reaches the model", async () => {
    const w = world(`{ type = "http", url = "${server.url}/context" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(fired.context).toContain("from-http");
  });

  test("garbage (non-JSON 2xx body) is plain output, not a decision", async () => {
    const w = world(`{ type = "http", url = "${server.url}/garbage" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(fired.outcome.decision).not.toBe("deny");
    expect(fired.outcome.rows.map((row) => row.status)).toEqual(["success"]);
  });

  test("a non-2xx status is a failure of category exit and never denies by itself, even with a deny body", async () => {
    const w = world(`{ type = "http", url = "${server.url}/status/403" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(fired.outcome.decision).not.toBe("deny");
    expect(fired.outcome.rows.map((row) => [row.status, row.category])).toEqual([["failed", "exit"]]);
    expect(fired.lines.join("\n")).toContain("HTTP 403");
  });

  test('failure_policy = "block": a 500 blocks the call', async () => {
    const w = world(`{ type = "http", url = "${server.url}/status/500", failure_policy = "block" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(fired.outcome.decision).toBe("deny");
    expect(fired.outcome.rows.map((row) => row.category)).toEqual(["exit"]);
  });

  test("a server that never answers is ended by the timeout (category timeout) and fails open", async () => {
    const w = world(`{ type = "http", url = "${server.url}/hang", timeout = 1 }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" } });
    await server.hung;
    expect(fired.outcome.decision).not.toBe("deny");
    expect(fired.outcome.rows.map((row) => [row.status, row.category])).toEqual([["failed", "timeout"]]);
    expect(fired.lines.join("\n")).toContain("timed out after 1s");
  });

  test("a body over 1 MiB is category output-limit", async () => {
    const w = world(`{ type = "http", url = "${server.url}/huge" }`);
    const fired = await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(fired.outcome.rows.map((row) => [row.status, row.category])).toEqual([["failed", "output-limit"]]);
  });

  test("a redirect to an allowed URL is followed (the POST repeated); one outside the allowlist is refused and never requested", async () => {
    const before = server.requests.length;
    const inside = world(`{ type = "http", url = "${server.url}/redirect?to=/deny" }`);
    const followed = await fire(inside, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(followed.outcome.decision).toBe("deny");
    expect(since(before).map((r) => [r.method, r.path])).toEqual([
      ["POST", "/redirect?to=/deny"],
      ["POST", "/deny"],
    ]);

    const middle = server.requests.length;
    const port = new URL(server.url).port;
    const outsideUrl = `http://localhost:${port}/deny`;
    const outside = world(`{ type = "http", url = "${server.url}/redirect?to=${encodeURIComponent(outsideUrl)}" }`);
    const refused = await fire(outside, "pre_tool", { tool: "bash", input: { command: "ls" } });
    expect(refused.outcome.decision).not.toBe("deny");
    expect(refused.outcome.rows.map((row) => [row.status, row.category])).toEqual([["failed", "runner"]]);
    expect(refused.lines.join("\n")).toContain("not allowed by hooks.http_allow");
    expect(since(middle).map((r) => r.path)).toEqual([`/redirect?to=${encodeURIComponent(outsideUrl)}`]);
  });

  test("allowlist: a project http hook to a URL not on the user's list is a load error naming file, field and fix; a project http_allow is ignored", () => {
    const w = world(`{ type = "http", url = "https://hooks.example.com/x" }`);
    toml(w, "project", `[hooks]\nhttp_allow = ["https://hooks.example.com/*"]\n`);
    const loaded = loadConfig(runtimeFor(w), { cwd: w.project });
    expect(loaded.hooks).toEqual([]);
    const urlError = loaded.warnings.find((item) => item.field === "hooks.lifecycle.pre_tool_use[0].hooks[0].url");
    expect(urlError?.severity).toBe("error");
    expect(urlError?.file).toBe(`${w.project}/.agent/config.toml`);
    expect(urlError?.message).toContain("is not allowed");
    expect(urlError?.message).toContain("a project cannot widen");
    expect(urlError?.message).toContain('"https://hooks.example.com/*" to hooks.http_allow in ~/.agent/config.toml');
    const allowError = loaded.warnings.find((item) => item.field === "hooks.http_allow");
    expect(allowError?.message).toContain("user config only");
  });

  test("no allowlist: even a user http hook does not load; keys of another type are errors", () => {
    const w = world(`{ type = "http", url = "${server.url}/deny" }`, { allow: "", scope: "user" });
    toml(w, "user", `[[hooks.lifecycle.stop]]\nhooks = [{ type = "http", url = "${server.url}/x", command = "echo" }, { prompt = "ok?" }]\n`);
    const loaded = loadConfig(runtimeFor(w), { cwd: w.project });
    expect(loaded.hooks).toEqual([]);
    const fields = loaded.warnings.map((item) => item.field);
    expect(fields).toContain("hooks.lifecycle.pre_tool_use[0].hooks[0].url");
    expect(fields).toContain("hooks.lifecycle.stop[0].hooks[0].command");
    expect(fields).toContain("hooks.lifecycle.stop[0].hooks[1].prompt");
    expect(loaded.warnings.find((item) => item.field === "hooks.lifecycle.pre_tool_use[0].hooks[0].url")?.message).toContain("hooks.http_allow is empty");
  });

  test("headers: ${NAME} comes from the environment; a project hook can never send a stripped credential, a user hook may", async () => {
    const before = server.requests.length;
    const w = world(`{ type = "http", url = "${server.url}/allow", headers = { "X-Team" = "team \${HOOK_TEAM}" } }`);
    await fire(w, "pre_tool", { tool: "bash", input: { command: "ls" }, env: { HOOK_TEAM: "blue" } });
    expect(since(before)[0]?.headers["x-team"]).toBe("team blue");

    const middle = server.requests.length;
    // HOOK_TOKEN looks like a credential, so hooks never get it (D18), and neither does a project's header.
    const project = world(`{ type = "http", url = "${server.url}/allow", headers = { "X-Key" = "\${HOOK_TOKEN}" } }`);
    const refused = await fire(project, "pre_tool", { tool: "bash", input: { command: "ls" }, env: { HOOK_TOKEN: "t0ken-value-123" } });
    expect(refused.outcome.rows.map((row) => [row.status, row.category])).toEqual([["failed", "runner"]]);
    expect(refused.lines.join("\n")).toContain("only an http hook in user config may send it");
    expect(server.requests.length).toBe(middle);

    const user = world(`{ type = "http", url = "${server.url}/allow", headers = { "X-Key" = "\${ANTHROPIC_API_KEY}" } }`, { scope: "user" });
    const sent = await fire(user, "pre_tool", { tool: "bash", input: { command: "ls" }, env: { ANTHROPIC_API_KEY: SECRET } });
    expect(sent.outcome.rows.map((row) => row.status)).toEqual(["success"]);
    expect(since(middle)[0]?.headers["x-key"]).toBe(SECRET);
  });
});

describe("hooks.http_allow patterns", () => {
  test("host and port stars stay inside their part; user info never matches; default ports are explicit", () => {
    expect(urlAllowed("http://127.0.0.1:8080/hook", ["http://127.0.0.1:*"])).toBe(true);
    expect(urlAllowed("http://127.0.0.1:x@evil.example/", ["http://127.0.0.1:*"])).toBe(false);
    expect(urlAllowed("http://127.0.0.1.evil.example:80/", ["http://127.0.0.1:*"])).toBe(false);
    expect(urlAllowed("https://hooks.example.com/a/b", ["https://hooks.example.com/*"])).toBe(true);
    expect(urlAllowed("https://hooks.example.com:443/a", ["https://hooks.example.com/*"])).toBe(true);
    expect(urlAllowed("https://hooks.example.com:8443/a", ["https://hooks.example.com/*"])).toBe(false);
    expect(urlAllowed("http://hooks.example.com/a", ["https://hooks.example.com/*"])).toBe(false);
    expect(urlAllowed("https://evil.com/.example.com/x", ["https://*.example.com/*"])).toBe(false);
    expect(urlAllowed("https://a.example.com/x", ["https://*.example.com/*"])).toBe(true);
    expect(urlAllowed("https://hooks.example.com/other", ["https://hooks.example.com/only"])).toBe(false);
    expect(normalUrl("HTTPS://Hooks.Example.com/P?q=1")).toBe("https://hooks.example.com:443/P?q=1");
  });
});
