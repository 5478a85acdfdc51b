import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { hooksOffByEnv } from "../../src/config/paths.ts";
import { normalizePath, resolvePath } from "../../src/util/path-utils.ts";
import { loadConfig } from "../../src/config/load.ts";
import { runConfigPath } from "../../src/cli/commands/config.ts";
import { captureIO, sandbox, SCRIPT } from "./fixture.ts";

describe("project root and scopes (D26)", () => {
  test("DIR-02 project root from a nested cwd, else the cwd", () => {
    const s = sandbox({ git: false });
    mkdirSync(join(s.project, ".agent"), { recursive: true });
    mkdirSync(join(s.project, "src", "lib"), { recursive: true });
    s.write(join(s.project, ".agent/hooks/guard/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    const nested = loadConfig(s.runtime, { cwd: join(s.project, "src", "lib") });
    expect(nested.projectRoot).toBe(s.project);
    expect(nested.hooks.map((h) => [h.label, h.scope])).toEqual([["guard", "project"]]);

    const bare = join(s.root, "bare", "dir");
    mkdirSync(bare, { recursive: true });
    const loose = loadConfig(s.runtime, { cwd: bare });
    expect(loose.projectRoot).toBe(bare);
    expect(loose.projectScope).toBe(true);
    expect(loose.files.map((f) => f.path)).toContain(join(bare, ".agent", "settings.json"));
  });

  test("DIR-72 neither $HOME nor a dir whose .agent is $AGENT_HOME counts as project root", () => {
    const s = sandbox({ git: false });
    s.write(join(s.agentHome, "hooks/audit/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    const notes = join(s.home, "work", "notes");
    mkdirSync(notes, { recursive: true });
    const fromNotes = loadConfig(s.runtime, { cwd: notes });
    expect(fromNotes.projectRoot).toBe(notes);
    expect(fromNotes.hooks.map((h) => [h.label, h.scope])).toEqual([["audit", "user"]]);
    expect(fromNotes.projectTrustMaterial).toBeNull();

    const fromHome = loadConfig(s.runtime, { cwd: s.home });
    expect(fromHome.projectScope).toBe(false);
    expect(fromHome.files.map((f) => f.scope)).toEqual(["user", "user"]);
    expect(fromHome.hooks.map((h) => [h.label, h.scope])).toEqual([["audit", "user"]]);

    const x = join(s.root, "x");
    mkdirSync(x);
    symlinkSync(s.agentHome, join(x, ".agent"));
    const fromX = loadConfig(s.runtime, { cwd: x });
    expect(fromX.projectScope).toBe(false);
    expect(fromX.hooks.map((h) => [h.label, h.scope])).toEqual([["audit", "user"]]);
  });

  test("DIR-11 AGENT_HOOKS=off is trimmed and case-insensitive; --no-hooks", () => {
    for (const value of ["off", "Off", " OFF ", "oFf\n"]) expect(hooksOffByEnv({ AGENT_HOOKS: value })).toBe(true);
    for (const value of ["on", "0", "", "offf"]) expect(hooksOffByEnv({ AGENT_HOOKS: value })).toBe(false);
    expect(hooksOffByEnv({})).toBe(false);
    const s = sandbox();
    expect(loadConfig(s.withEnv({ AGENT_HOOKS: " OFF " }), { cwd: s.project }).hooksOff).toBe("AGENT_HOOKS=off");
    expect(loadConfig(s.runtime, { cwd: s.project, noHooks: true }).hooksOff).toBe("--no-hooks");
    expect(loadConfig(s.withEnv({ AGENT_HOOKS: "on" }), { cwd: s.project }).hooksOff).toBeNull();
  });

  test("DIR-10 hooks off: no hook file read, no hooks, no warnings (CLI-22)", () => {
    const s = sandbox();
    s.write(join(s.project, ".agent/hooks/guard/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    s.write(join(s.project, ".agent/hooks/broken/hook.json"), `{"event":`);
    s.write(join(s.project, ".agent/config.toml"), `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "x" }]\n[[hooks.before_tool]]\ncommand = "y"\n`);
    s.write(
      join(s.project, ".agent/settings.json"),
      JSON.stringify({ hooks: { enabled: true, after_tool: [{ command: "z" }] }, permissions: { allow: ["bash"] }, model: "m1" }),
    );
    const loaded = loadConfig(s.withEnv({ AGENT_HOOKS: "OFF" }), { cwd: s.project });
    expect(loaded.hooks).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.settings.permissions.allow).toEqual([]);
    expect(loaded.settings.model).toBe("m1");
    expect(loaded.projectTrustMaterial).toBeNull();
  });

  test("DIR-05 CLI-24 $AGENT_HOME/hooks is created empty, no warning", () => {
    const s = sandbox();
    expect(existsSync(join(s.agentHome, "hooks"))).toBe(false);
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(readdirSync(join(s.agentHome, "hooks"))).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.home).toBe(s.agentHome);
  });

  test("DIR-06 plain files and dirs without hook.json are skipped silently", () => {
    const s = sandbox();
    s.write(join(s.agentHome, "hooks/notes.txt"), "hi");
    mkdirSync(join(s.agentHome, "hooks/empty"), { recursive: true });
    s.write(join(s.agentHome, "hooks/empty/run.sh"), SCRIPT, 0o755);
    const loaded = loadConfig(s.runtime, { cwd: s.project });
    expect(loaded.hooks).toEqual([]);
    expect(loaded.warnings).toEqual([]);
  });

  test("CLI-19 agent config path prints the four files in load order, present or missing", async () => {
    const s = sandbox();
    mkdirSync(join(s.project, "src"));
    s.write(join(s.agentHome, "settings.json"), "{}");
    s.write(join(s.project, ".agent/config.toml"), "");
    const io = captureIO();
    expect(await runConfigPath(s.runtime, io, { cwd: join(s.project, "src") })).toBe(0);
    expect(io.stdout().trim().split("\n")).toEqual([
      `${s.agentHome}/config.toml (missing)`,
      `${s.agentHome}/settings.json (present)`,
      `${s.project}/.agent/config.toml (present)`,
      `${s.project}/.agent/settings.json (missing)`,
    ]);
  });

  test("path helpers normalise", () => {
    expect(normalizePath("/opt/hooks/../hooks/g.sh")).toBe("/opt/hooks/g.sh");
    expect(resolvePath("/a/b", "./run.sh --strict")).toBe("/a/b/run.sh --strict");
    expect(normalizePath("/../x")).toBe("/x");
  });
});
