/**
 * `mcp_servers` config: TOML and JSON, user and project scope, one error per bad field naming the
 * file, the field and the fix, and project servers inside the trust material (D17).
 */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load.ts";
import { checkTrust, EMPTY_MATERIAL, pinTrust } from "../../src/trust/trust.ts";
import { formatWarning } from "../../src/config/warnings.ts";
import { sandbox } from "../config/fixture.ts";

describe("mcp_servers config", () => {
  test("stdio and http servers from user TOML and project JSON; project replaces a same-named user server", () => {
    const box = sandbox();
    box.write(
      `${box.agentHome}/config.toml`,
      [
        "[mcp_servers.fs]",
        'command = "node"',
        'args = ["server.js", "/tmp"]',
        'env = { TOKEN = "${MY_TOKEN}" }',
        "startup_timeout_ms = 5000",
        "",
        "[mcp_servers.shared]",
        'command = "user-version"',
      ].join("\n"),
    );
    box.write(
      `${box.project}/.agent/settings.json`,
      JSON.stringify({
        mcp_servers: {
          remote: { url: "https://example.test/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
          shared: { command: "project-version", cwd: "sub" },
        },
      }),
    );
    const loaded = loadConfig(box.runtime, { cwd: box.project });
    expect(loaded.warnings).toEqual([]);
    const byName = Object.fromEntries(loaded.mcpServers.map((spec) => [spec.name, spec]));
    expect(byName.fs).toMatchObject({
      transport: "stdio",
      scope: "user",
      command: "node",
      args: ["server.js", "/tmp"],
      env: { TOKEN: "${MY_TOKEN}" },
      startupTimeoutMs: 5000,
      cwd: null,
    });
    expect(byName.remote).toMatchObject({
      transport: "http",
      scope: "project",
      url: "https://example.test/mcp",
      headers: { Authorization: "Bearer ${API_TOKEN}" },
      startupTimeoutMs: 10_000,
    });
    expect(byName.shared).toMatchObject({ transport: "stdio", scope: "project", command: "project-version", cwd: "sub" });
  });

  test("bad entries: one error each naming file, field and fix; the server is skipped", () => {
    const box = sandbox();
    const path = box.write(
      `${box.agentHome}/config.toml`,
      [
        "[mcp_servers.both]",
        'command = "x"',
        'url = "https://x.test"',
        "[mcp_servers.neither]",
        "args = []",
        "[mcp_servers.badtimeout]",
        'command = "x"',
        "startup_timeout_ms = 5",
        "[mcp_servers.typo]",
        'command = "x"',
        'argz = ["a"]',
        "[mcp_servers.wrongkind]",
        'url = "ftp://x"',
        "[mcp_servers.good]",
        'command = "ok"',
        '[mcp_servers."a__b"]',
        'command = "x"',
      ].join("\n"),
    );
    const loaded = loadConfig(box.runtime, { cwd: box.project });
    expect(loaded.mcpServers.map((spec) => spec.name)).toEqual(["good"]);
    const lines = loaded.warnings.map((w) => formatWarning(w));
    expect(lines).toContain(`${path}: mcp_servers.both: set either \`command\` (stdio) or \`url\` (streamable HTTP), not both`);
    expect(lines).toContain(`${path}: mcp_servers.neither: needs \`command\` (a stdio server) or \`url\` (a streamable HTTP server)`);
    expect(lines).toContain(`${path}: mcp_servers.badtimeout.startup_timeout_ms: 5 is out of range 100..600000`);
    expect(lines.some((line) => line.startsWith(`${path}: mcp_servers.typo.argz: unknown key (use command, args,`))).toBe(true);
    expect(lines).toContain(`${path}: mcp_servers.wrongkind.url: must start with http:// or https://`);
    expect(lines.some((line) => line.startsWith(`${path}: mcp_servers.a__b: server names use letters`))).toBe(true);
    expect(loaded.warnings.every((w) => w.severity === "error")).toBe(true);
  });

  test("a project server needs trust like a hook; changing it names the server; hooks off drops project servers", () => {
    const box = sandbox();
    box.write(`${box.project}/server.js`, "// a project MCP server\n");
    box.write(`${box.project}/.agent/config.toml`, '[mcp_servers.local]\ncommand = "node"\nargs = ["server.js"]\n');
    const loaded = loadConfig(box.runtime, { cwd: box.project });
    expect(loaded.projectTrustMaterial).not.toBeNull();
    expect(Object.keys(loaded.projectTrustMaterial?.settings ?? {})).toEqual(["mcp_servers.local"]);
    expect(loaded.projectTrustMaterial?.scripts).toEqual([`${box.project}/server.js`]);
    const state = checkTrust(box.runtime, box.agentHome, box.project, loaded.projectTrustMaterial);
    expect(state.status).toBe("untrusted");

    pinTrust(box.runtime, box.agentHome, box.project, loaded.projectTrustMaterial ?? EMPTY_MATERIAL);
    expect(checkTrust(box.runtime, box.agentHome, box.project, loaded.projectTrustMaterial).status).toBe("trusted");
    box.write(`${box.project}/.agent/config.toml`, '[mcp_servers.local]\ncommand = "node"\nargs = ["server.js", "--evil"]\n');
    const changed = checkTrust(box.runtime, box.agentHome, box.project, loadConfig(box.runtime, { cwd: box.project }).projectTrustMaterial);
    expect(changed).toMatchObject({ status: "changed", changes: ["changed: setting mcp_servers.local"] });

    const off = loadConfig(box.withEnv({ AGENT_HOOKS: "off" }), { cwd: box.project });
    expect(off.mcpServers).toEqual([]);
  });
});
