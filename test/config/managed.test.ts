// The managed layer's pieces: where the files are per platform, the owner check (with the stat
// injected, as a non-root user would see it), the switches, the restrictions, and the load order.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bypassRefusal, managedDir, managedPolicyOf, managedSettingsFiles, ownershipProblem, providerRefusal } from "../../src/config/managed.ts";
import { loadConfig } from "../../src/config/load.ts";
import { WarningSink } from "../../src/config/warnings.ts";
import { createRuntime } from "../../src/runtime/index.ts";
import type { FileStat, FileSystem, Runtime } from "../../src/runtime/types.ts";
import type { ParsedSettingsFile } from "../../src/config/settings.ts";

const real = createRuntime();

function withStat(fs: FileSystem, override: (path: string, stat: FileStat | undefined) => FileStat | undefined): FileSystem {
  return { ...fs, stat: (path) => override(path, fs.stat(path)) };
}

function parsed(path: string, data: Record<string, unknown>): ParsedSettingsFile {
  return { file: { path, scope: "managed", format: "toml" }, present: true, data };
}

describe("managed files", () => {
  test("the directory per platform; AGENT_MANAGED_FILE adds a file after the system pair", () => {
    expect(managedDir({ os: "linux" }, {})).toBe("/etc/agent");
    expect(managedDir({ os: "darwin" }, {})).toBe("/Library/Application Support/agent");
    expect(managedDir({ os: "win32" }, { ProgramData: "D:\\Data" })).toBe("D:\\Data\\agent");
    expect(managedSettingsFiles({ os: "linux" }, { AGENT_MANAGED_FILE: "/srv/p.json" }).map((f) => [f.path, f.format])).toEqual([
      ["/etc/agent/managed.toml", "toml"],
      ["/etc/agent/managed.json", "json"],
      ["/srv/p.json", "json"],
    ]);
    // Naming a system file again neither duplicates nor replaces it.
    expect(managedSettingsFiles({ os: "linux" }, { AGENT_MANAGED_FILE: "/etc/agent/managed.toml" })).toHaveLength(2);
  });

  test("the owner check: root-owned and not group/other-writable, the directory too (stat injected)", () => {
    const dir = mkdtempSync(join(tmpdir(), "managed-"));
    chmodSync(dir, 0o755);
    const file = join(dir, "managed.toml");
    writeFileSync(file, "");
    chmodSync(file, 0o644);
    expect(ownershipProblem(real.fs, { os: "linux" }, file)).toBeNull();
    const asUser = withStat(real.fs, (path, stat) => (stat && path === file ? { ...stat, uid: 1000 } : stat));
    expect(ownershipProblem(asUser, { os: "linux" }, file)).toBe("the file is owned by uid 1000, not root");
    const groupWritable = withStat(real.fs, (path, stat) => (stat && path === file ? { ...stat, mode: 0o664 } : stat));
    expect(ownershipProblem(groupWritable, { os: "linux" }, file)).toBe("the file is writable by its group (mode 0664)");
    const openDir = withStat(real.fs, (path, stat) => (stat && path === dir ? { ...stat, mode: 0o777 } : stat));
    expect(ownershipProblem(openDir, { os: "linux" }, file)).toBe(`its directory ${dir} is writable by everyone (mode 0777)`);
    const stickyDir = withStat(real.fs, (path, stat) => (stat && path === dir ? { ...stat, mode: 0o1777 } : stat));
    expect(ownershipProblem(stickyDir, { os: "linux" }, file)).toBeNull();
    mkdirSync(join(dir, "sub"));
    expect(ownershipProblem(real.fs, { os: "linux" }, join(dir, "sub"))).toBe("is not a regular file");
    expect(ownershipProblem(asUser, { os: "win32" }, file)).toBeNull();
  });

  test("a refused file loads nothing and is one error; an accepted one leads hooks and deny rules, with hooks off too", () => {
    const dir = mkdtempSync(join(tmpdir(), "managed-load-"));
    chmodSync(dir, 0o755);
    const file = join(dir, "policy.toml");
    writeFileSync(file, `[permissions]\ndeny = ["bash(rm *)"]\n\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "true" }]\n`);
    chmodSync(file, 0o644);
    const home = join(dir, "home");
    mkdirSync(join(home, ".agent"), { recursive: true });
    writeFileSync(
      join(home, ".agent", "config.toml"),
      `[permissions]\ndeny = ["bash(sudo *)"]\nallow = ["bash(rm *)"]\n\n[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "true # user" }]\n`,
    );
    const runtimeWith = (env: Record<string, string>, fs: FileSystem = real.fs): Runtime => ({
      ...real,
      fs,
      env: () => ({ HOME: home, AGENT_HOME: join(home, ".agent"), AGENT_MANAGED_FILE: file, ...env }),
    });
    const on = loadConfig(runtimeWith({}), { cwd: home });
    expect(on.hooks.map((h) => h.scope)).toEqual(["managed", "user"]);
    expect(on.settings.permissions.deny).toEqual(["bash(rm *)", "bash(sudo *)"]);
    const off = loadConfig(runtimeWith({ AGENT_HOOKS: "off" }), { cwd: home });
    expect([off.hooksOff, off.hooks.map((h) => h.scope)]).toEqual(["AGENT_HOOKS=off", ["managed"]]);
    const noHooks = loadConfig(runtimeWith({}), { cwd: home, noHooks: true });
    expect(noHooks.hooks.map((h) => h.scope)).toEqual(["managed"]);
    const refusedFs = withStat(real.fs, (path, stat) => (stat && path === file ? { ...stat, mode: 0o666 } : stat));
    const refused = loadConfig(runtimeWith({}, refusedFs), { cwd: home });
    expect(refused.hooks.map((h) => h.scope)).toEqual(["user"]);
    expect(refused.settings.permissions.deny).toEqual(["bash(sudo *)"]);
    expect(refused.warnings.filter((w) => w.file === file).map((w) => w.message)).toEqual([
      expect.stringContaining("managed policy refused: the file is writable by everyone (mode 0666)"),
    ]);
  });
});

describe("managed switches in the loader", () => {
  test("managed_mcp_only starts only managed servers; a prompt hook's own model outside allowed_models is dropped with an error", () => {
    const dir = mkdtempSync(join(tmpdir(), "managed-mcp-"));
    chmodSync(dir, 0o755);
    const file = join(dir, "policy.toml");
    writeFileSync(file, `managed_mcp_only = true\n\n[provider_policy]\nallowed_models = ["small-*"]\n\n[mcp_servers.corp]\ncommand = "corp-mcp"\n`);
    chmodSync(file, 0o644);
    const home = join(dir, "home");
    mkdirSync(join(home, ".agent"), { recursive: true });
    writeFileSync(
      join(home, ".agent", "settings.json"),
      JSON.stringify({
        mcp_servers: { mine: { command: "my-mcp" } },
        hooks: {
          lifecycle: {
            Stop: [
              {
                hooks: [
                  { type: "prompt", prompt: "ok? $ARGUMENTS", model: "huge-1" },
                  { type: "prompt", prompt: "fine? $ARGUMENTS", model: "small-2" },
                ],
              },
            ],
          },
        },
      }),
    );
    const runtime: Runtime = { ...real, env: () => ({ HOME: home, AGENT_HOME: join(home, ".agent"), AGENT_MANAGED_FILE: file }) };
    const loaded = loadConfig(runtime, { cwd: home });
    expect(loaded.mcpServers.map((server) => [server.name, server.scope])).toEqual([["corp", "managed"]]);
    const models = loaded.hooks.map((spec) => (spec.form === "lifecycle" && spec.handler?.type === "prompt" ? (spec.handler.model ?? null) : "other"));
    expect(models).toEqual([null, "small-2"]);
    expect(loaded.warnings.map((w) => w.message)).toEqual([expect.stringContaining("model huge-1 is not allowed by managed policy")]);
  });
});

describe("managed switches and restrictions", () => {
  test("switches: any file setting one turns it on; a non-boolean is an error and counts as on", () => {
    const sink = new WarningSink();
    const policy = managedPolicyOf([parsed("/a", { disable_bypass_mode: true }), parsed("/b", { managed_mcp_only: "yes" })], sink);
    expect([policy.disableBypassMode, policy.managedMcpOnly, policy.managedHooksOnly]).toEqual([true, true, false]);
    expect(sink.items.map((w) => `${w.file} ${w.field}`)).toEqual(["/b managed_mcp_only"]);
    expect(bypassRefusal("bypass", policy)).toBe("bypass permission mode is disabled by managed policy (/a, /b)");
    expect(bypassRefusal("accept-edits", policy)).toBeNull();
  });

  test("provider restrictions: globs, intersection of files, script exempt from URLs", () => {
    const sink = new WarningSink();
    const policy = managedPolicyOf(
      [
        parsed("/a", { provider_policy: { allowed_base_urls: ["https://llm.corp/*", "http://127.0.0.1:*"], allowed_models: ["gpt-*", "local"] } }),
        parsed("/b", { provider_policy: { allowed_base_urls: ["https://llm.corp/*"] } }),
      ],
      sink,
    );
    expect(policy.allowedBaseUrls).toEqual(["https://llm.corp/*"]);
    expect(providerRefusal(policy, { id: "openai", baseUrl: "https://llm.corp/v1/", model: "gpt-4o" })).toBeNull();
    expect(providerRefusal(policy, { id: "openai", baseUrl: "http://127.0.0.1:11434", model: "local" })).toContain(
      "base URL http://127.0.0.1:11434 is not allowed",
    );
    expect(providerRefusal(policy, { id: "openai", baseUrl: "https://llm.corp/v1", model: "o3" })).toContain("model o3 is not allowed");
    expect(providerRefusal(policy, { id: "script", baseUrl: null, model: "script" })).toBeNull();
    const bad = new WarningSink();
    const broken = managedPolicyOf([parsed("/c", { provider_policy: { allowed_models: "gpt-4o", extra: 1 } })], bad);
    expect(broken.allowedModels).toEqual([]);
    expect(bad.items.map((w) => w.field)).toEqual(["provider_policy.extra", "provider_policy.allowed_models"]);
  });
});
