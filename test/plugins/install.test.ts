/**
 * `agent plugin install|list|enable|disable|remove|marketplace`: installed offline from a folder, a
 * .tar.gz and a local marketplace folder, then run by `agent run` with no flag; a changed plugin is
 * not loaded until it is enabled again; an archive that climbs out of its folder is refused.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { createServer } from "node:http";
import { makeWorld, type World } from "../support/cli.ts";
import { listenLocal } from "../support/listen.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { writePlugin } from "./support.ts";

setDefaultTimeout(120_000);

const RESET_SCRIPT = { turns: [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: "git reset --hard" } }] }, { text: "end" }] };

async function runReset(world: World, log: string) {
  world.file("script.json", JSON.stringify(RESET_SCRIPT));
  return runCliInProcess(world, ["run", "--provider", "script", "--script", "script.json", "--permission-mode", "bypass", "--no-session", "go"], {
    env: world.env({ PLUGIN_TEST_LOG: log }),
  });
}

describe("agent plugin", () => {
  test("install from a folder: runs in every session; list, disable, enable and remove", async () => {
    const world = makeWorld();
    const source = writePlugin(world, join(world.root, "src/guardkit"));
    const log = join(world.root, "guard.log");
    const installed = await runCliInProcess(world, ["plugin", "install", source]);
    expect(installed.code).toBe(0);
    const root = join(world.agentHome, "plugins/guardkit");
    expect(installed.stdout).toContain(`installed plugin guardkit in ${root}`);

    const list = await runCliInProcess(world, ["plugin", "list", "--json"], { env: world.env({ PLUGIN_TEST_LOG: log }) });
    const row = (JSON.parse(list.stdout) as { plugins: Record<string, unknown>[] }).plugins[0];
    expect(row).toMatchObject({
      name: "guardkit",
      origin: "installed",
      version: "1.2.0",
      root,
      hooks: 1,
      commands: ["greet"],
      agents: ["reviewer"],
      skills: ["haiku"],
      mcp_servers: ["plugin_guardkit_fix"],
    });

    // The installed copy's guard runs with no flag, from the installed root.
    const blocked = await runReset(world, log);
    expect(blocked.code).toBe(0);
    expect(readFileSync(log, "utf8").trim()).toBe(root);

    // Disabled: nothing of it loads.
    expect((await runCliInProcess(world, ["plugin", "disable", "guardkit"])).code).toBe(0);
    const hooksOff = await runCliInProcess(world, ["hooks", "list", "--json"]);
    expect((JSON.parse(hooksOff.stdout) as { hooks: unknown[] }).hooks).toEqual([]);
    expect((await runCliInProcess(world, ["plugin", "enable", "guardkit"])).code).toBe(0);
    const hooksOn = await runCliInProcess(world, ["hooks", "list", "--json"]);
    const hookRow = (JSON.parse(hooksOn.stdout) as { hooks: Record<string, unknown>[] }).hooks[0];
    expect(hookRow).toMatchObject({
      label: "plugin:guardkit:PreToolUse[0].hooks[0]",
      scope: "user",
      dialect: "claude",
      event: "pre_tool",
      matcher: "Bash",
      plugin: "guardkit",
      source: join(root, "hooks/hooks.json"),
    });

    expect((await runCliInProcess(world, ["plugin", "remove", "guardkit"])).code).toBe(0);
    expect(existsSync(root)).toBe(false);
    const empty = await runCliInProcess(world, ["plugin", "list"]);
    expect(empty.stdout).toContain("no plugins");
    const unknown = await runCliInProcess(world, ["plugin", "enable", "guardkit"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`no installed plugin named "guardkit"`);
  });

  test("a plugin whose files change is not loaded until it is enabled again", async () => {
    const world = makeWorld();
    const log = join(world.root, "guard.log");
    await runCliInProcess(world, ["plugin", "install", writePlugin(world, join(world.root, "src/guardkit"))]);
    const guard = join(world.agentHome, "plugins/guardkit/hooks/guard.sh");
    appendFileSync(guard, "# changed after install\n");
    const validate = await runCliInProcess(world, ["hooks", "validate"]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      "plugin guardkit changed since it was enabled (its files differ from the pinned digest); it is not loaded: review it, then run agent plugin enable guardkit",
    );
    // agent run refuses, like an untrusted project: the plugin's guard must not silently go missing.
    const run = await runReset(world, log);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `agent: plugin guardkit changed since it was enabled (its files differ from the pinned digest): review ${join(world.agentHome, "plugins/guardkit")}, then run agent plugin enable guardkit (or agent plugin disable guardkit)\nagent: nothing ran`,
    );
    expect(existsSync(log)).toBe(false);
    // Disabled, it no longer asks.
    await runCliInProcess(world, ["plugin", "disable", "guardkit"]);
    expect((await runReset(world, log)).code).toBe(0);
    expect(existsSync(log)).toBe(false);
    await runCliInProcess(world, ["plugin", "enable", "guardkit"]);
    await runReset(world, log);
    expect(readFileSync(log, "utf8").trim()).toBe(join(world.agentHome, "plugins/guardkit"));
  });

  test("install from a .tar.gz and from a local marketplace folder", async () => {
    const world = makeWorld();
    const parent = join(world.root, "build");
    writePlugin(world, join(parent, "guardkit"));
    const archive = join(world.root, "guardkit-1.2.0.tgz");
    const tar = spawnSync("tar", ["-czf", archive, "-C", parent, "guardkit"]);
    expect(tar.status).toBe(0);
    const fromArchive = await runCliInProcess(world, ["plugin", "install", archive]);
    expect(fromArchive.stderr).toBe("");
    expect(fromArchive.code).toBe(0);
    expect(readFileSync(join(world.agentHome, "plugins/guardkit/hooks/guard.sh"), "utf8")).toContain("blocked by guardkit");
    const log = join(world.root, "guard.log");
    await runReset(world, log);
    expect(readFileSync(log, "utf8").trim()).toBe(join(world.agentHome, "plugins/guardkit"));

    const market = join(world.root, "market");
    writePlugin(world, join(market, "plugins/other"), { name: "other" });
    world.file(
      join(market, ".claude-plugin/marketplace.json"),
      JSON.stringify({ name: "local-market", owner: { name: "Test" }, plugins: [{ name: "other", source: "./plugins/other", description: "x" }] }),
    );
    const added = await runCliInProcess(world, ["plugin", "marketplace", "add", market]);
    expect(added.stdout).toContain("added marketplace local-market: other");
    const fromMarket = await runCliInProcess(world, ["plugin", "install", "other@local-market"]);
    expect(fromMarket.code).toBe(0);
    const list = JSON.parse((await runCliInProcess(world, ["plugin", "list", "--json"], { env: world.env({ PLUGIN_TEST_LOG: log }) })).stdout) as {
      plugins: { name: string }[];
    };
    expect(list.plugins.map((plugin) => plugin.name).sort()).toEqual(["guardkit", "other"]);
  });

  test("a plugin folder without a manifest installs under its folder's name", async () => {
    const world = makeWorld();
    const dir = join(world.root, "src/bare-guard");
    world.file(
      join(dir, "hooks/hooks.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh" }] }] } }),
    );
    world.file(join(dir, "hooks/guard.sh"), "#!/bin/sh\nexit 0\n", { executable: true });
    const installed = await runCliInProcess(world, ["plugin", "install", dir]);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`installed plugin bare-guard in ${join(world.agentHome, "plugins/bare-guard")}`);
    const notPlugin = await runCliInProcess(world, ["plugin", "install", join(world.root, "src")]);
    expect(notPlugin.code).toBe(2);
    expect(notPlugin.stderr).toContain("not a Claude Code plugin (no .claude-plugin/plugin.json, hooks/hooks.json, commands/, agents/, skills/ or .mcp.json)");
  });

  test("install from an http URL of an archive, only when given one; a URL that is not an archive is refused before any request", async () => {
    const world = makeWorld();
    const parent = join(world.root, "build");
    writePlugin(world, join(parent, "guardkit"));
    const archive = join(world.root, "guardkit.tgz");
    expect(spawnSync("tar", ["-czf", archive, "-C", parent, "guardkit"]).status).toBe(0);
    const requests: string[] = [];
    const server = await listenLocal(
      createServer((request, response) => {
        requests.push(request.url ?? "");
        if (request.url === "/guardkit.tgz") response.end(readFileSync(archive));
        else response.writeHead(404).end();
      }),
    );
    try {
      const notArchive = await runCliInProcess(world, ["plugin", "install", `${server.url}/guardkit`]);
      expect(notArchive.code).toBe(2);
      expect(notArchive.stderr).toContain("is not a .tar.gz/.tgz URL");
      const missing = await runCliInProcess(world, ["plugin", "install", `${server.url}/nope.tgz`]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("HTTP 404");
      const installed = await runCliInProcess(world, ["plugin", "install", `${server.url}/guardkit.tgz`]);
      expect(installed.code).toBe(0);
      expect(installed.stdout).toContain("installed plugin guardkit");
    } finally {
      await server.close();
    }
    expect(requests).toEqual(["/nope.tgz", "/guardkit.tgz"]);
    const registry = JSON.parse(readFileSync(join(world.agentHome, "plugins/installed.json"), "utf8")) as { plugins: Record<string, { source: string }> };
    expect(registry.plugins.guardkit?.source).toBe(`${server.url}/guardkit.tgz`);
  });

  test("an archive entry that climbs out of the folder, or a link, is refused and nothing is installed", async () => {
    const world = makeWorld();
    const header = (name: string, size: number, type: string): Uint8Array => {
      const block = new Uint8Array(512);
      const put = (text: string, at: number): void => block.set(new TextEncoder().encode(text), at);
      put(name, 0);
      put("0000644\0", 100);
      put(`${size.toString(8).padStart(11, "0")}\0`, 124);
      put(type, 156);
      put("ustar\0", 257);
      return block;
    };
    const body = new TextEncoder().encode("owned\n");
    const padded = new Uint8Array(512);
    padded.set(body);
    const evil = join(world.root, "evil.tgz");
    writeFileSync(evil, gzipSync(Buffer.concat([header("../escape.txt", body.length, "0"), padded, new Uint8Array(1024)])));
    const refused = await runCliInProcess(world, ["plugin", "install", evil]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`plugin archive: path climbing out of the archive: "../escape.txt"`);
    expect(existsSync(join(world.agentHome, "escape.txt"))).toBe(false);
    expect(existsSync(join(world.agentHome, "plugins", "escape.txt"))).toBe(false);

    const link = join(world.root, "link.tgz");
    writeFileSync(link, gzipSync(Buffer.concat([header("p/x", 0, "2"), new Uint8Array(1024)])));
    const linkRefused = await runCliInProcess(world, ["plugin", "install", link]);
    expect(linkRefused.code).toBe(2);
    expect(linkRefused.stderr).toContain("is a link; a plugin archive may hold only files and directories");
    expect((await runCliInProcess(world, ["plugin", "list"])).stdout).toContain("no plugins");
  });
});
