/**
 * Through the real CLI: a refused call is printed once and whole,
 * Ctrl-C during a hook ends with one line, `hooks init` installs all eight ready-made hooks (user
 * hooks in `$HOME`), `config show` names what `hooks.enabled` gates, and a provider that accepts
 * the connection but never answers fails within the stated bound, once.
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { HOOK_TEMPLATES } from "../../src/hooks/templates.ts";
import { clipAtWord } from "../../src/ui/renderer.ts";
import { REPO, makeWorld, writeScript, type World } from "../support/cli.ts";
import { waitForFile } from "../support/procs.ts";
import { runCliInProcess } from "../support/in-process.ts";

describe("a refused permission is printed once and whole", () => {
  test("the non-interactive denial appears once on stderr, ending with how to allow it", async () => {
    const w = makeWorld();
    const long = `rm -rf ${"build-output-directory-".repeat(12)}end`;
    writeScript(w, [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: long } }] }, { text: "ok" }]);
    const r = await runCliInProcess(w, ["run", "--provider", "script", "--script", "script.json", "refuse me"]);
    expect(r.code).toBe(0);
    const mentions = r.stderr.split("needs approval, but this run is non-interactive").length - 1;
    expect(mentions).toBe(1);
    const rejected = r.stderr.split("\n").find((line) => line.includes("⎿ rejected")) ?? "";
    expect(rejected).toContain(`${long})' or add it to permissions.allow`);
  });

  test("previews are cut at a word boundary, never inside a word", async () => {
    expect(clipAtWord("short", 160)).toBe("short");
    const text = `${"word ".repeat(40)}end`;
    const clipped = clipAtWord(text, 160);
    expect(clipped.endsWith("word…")).toBe(true);
    expect(clipped.length).toBeLessThanOrEqual(161);
  });
});

describe("Ctrl-C during a hook", () => {
  test("LOOP-36 one line says the run was interrupted and which hook was stopped; no 'tool ran anyway'", async () => {
    const w = makeWorld();
    const started = join(w.root, "started");
    const ran = join(w.root, "ran");
    w.file(join(w.agentHome, "hooks", "slow", "hook.json"), JSON.stringify({ name: "slow", event: "pre_tool", match: "*", run: "./run.sh", timeout: "30s" }));
    w.file(join(w.agentHome, "hooks", "slow", "run.sh"), `#!/bin/sh\ncat >/dev/null\ntouch '${started}'\nexec sleep 30\n`, { executable: true });
    writeScript(w, [{ tool_calls: [{ id: "c1", name: "bash", arguments: { command: `touch '${ran}'` } }] }, { text: "never" }]);
    for (const format of ["text", "json"]) {
      const child = spawn(
        process.execPath,
        [
          join(REPO, "src", "main.ts"),
          "run",
          "--provider",
          "script",
          "--script",
          "script.json",
          "--permission-mode",
          "bypass",
          "--output-format",
          format,
          "go",
        ],
        {
          cwd: w.project,
          env: w.env(),
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk.toString()));
      const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      child.stdin.end("");
      await waitForFile(started);
      child.kill("SIGINT");
      expect(await done).toBe(130);
      const lines = stderr.split("\n").filter((line) => line.startsWith("agent: "));
      expect(lines).toEqual(["agent: interrupted; stopped hook slow (pre_tool)"]);
      expect(stderr).not.toContain("tool ran anyway");
      expect(existsSync(ran)).toBe(false);
      Bun.spawnSync(["rm", "-f", started]);
    }
  }, 60_000);
});

async function installAll(w: World, cwd: string): Promise<void> {
  for (const name of Object.keys(HOOK_TEMPLATES)) {
    const r = await runCliInProcess(w, ["hooks", "init", name], { cwd });
    if (r.code !== 0) throw new Error(`hooks init ${name} exited ${r.code}: ${r.stderr}`);
  }
}

describe("agent hooks init installs all eight ready-made hooks", () => {
  test("CLI-18 in a project: hook dirs, scripts and merged config; validate is clean; a second init refuses and changes nothing", async () => {
    const w = makeWorld();
    w.file(".agent/config.toml", "# mine\n[hooks]\ntimeout_seconds = 7\n");
    await installAll(w, w.project);
    for (const dir of ["guard-bash", "protect-secrets"]) expect(statSync(join(w.project, ".agent", "hooks", dir, "run.sh")).mode & 0o111).toBe(0o111);
    for (const script of ["audit-jsonl.sh", "format-on-write.sh", "session-context.sh", "keep-going-until-tests-pass.sh", "prompt-guard.sh", "notify.sh"]) {
      expect(statSync(join(w.project, ".agent", "scripts", script)).mode & 0o111).toBe(0o111);
    }
    const toml = readFileSync(join(w.project, ".agent", "config.toml"), "utf8");
    expect(toml).toStartWith("# mine\n[hooks]\ntimeout_seconds = 7\n");
    const settings = JSON.parse(readFileSync(join(w.project, ".agent", "settings.json"), "utf8"));
    expect(settings.hooks.enabled).toBe(true);
    expect(settings.hooks.before_tool).toEqual([{ label: "audit-before", command: "./.agent/scripts/audit-jsonl.sh" }]);

    expect((await runCliInProcess(w, ["hooks", "validate"])).stdout).toMatch(/^ok: /m);
    const listed = JSON.parse((await runCliInProcess(w, ["hooks", "list", "--json"])).stdout) as { hooks: { label: string; scope: string }[] };
    const labels = listed.hooks.map((hook) => hook.label);
    expect(labels).toEqual(expect.arrayContaining(["guard-bash", "protect-secrets", "audit-before", "audit-after"]));
    expect(listed.hooks.length).toBe(2 + 2 + 6); // 2 dirs, 2 list hooks, 6 lifecycle commands (notify has two groups)
    expect(listed.hooks.every((hook) => hook.scope === "project")).toBe(true);

    const again = await runCliInProcess(w, ["hooks", "init", "session-context"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect(readFileSync(join(w.project, ".agent", "config.toml"), "utf8")).toBe(toml);
  });

  test("a config.toml that does not parse is not appended to", async () => {
    const w = makeWorld();
    const broken = "[hooks\n";
    w.file(".agent/config.toml", broken);
    const r = await runCliInProcess(w, ["hooks", "init", "prompt-guard"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/config\.toml:1:\d+: could not parse TOML/);
    expect(readFileSync(join(w.project, ".agent", "config.toml"), "utf8")).toBe(broken);
    expect(existsSync(join(w.project, ".agent", "scripts", "prompt-guard.sh"))).toBe(false);
  });

  test("in $HOME it says it made a user hook, writes under $AGENT_HOME with absolute script paths, and needs no trust", async () => {
    const w = makeWorld();
    const dir = await runCliInProcess(w, ["hooks", "init", "guard-bash"], { cwd: w.home });
    expect(dir.code).toBe(0);
    expect(dir.stdout).toContain("created user hook guard-bash");
    expect(dir.stdout).not.toContain("agent hooks trust");
    expect(existsSync(join(w.agentHome, "hooks", "guard-bash", "run.sh"))).toBe(true);

    const config = await runCliInProcess(w, ["hooks", "init", "prompt-guard"], { cwd: w.home });
    expect(config.code).toBe(0);
    expect(config.stdout).toContain("user hook");
    expect(readFileSync(join(w.agentHome, "config.toml"), "utf8")).toContain(`'${join(w.agentHome, "scripts", "prompt-guard.sh")}'`);

    // From a project: both are user hooks and act without trust.
    const test = await runCliInProcess(w, ["hooks", "test", "user_prompt_submit", "--prompt", "my password is hunter2", "--json"]);
    expect(test.code).toBe(2);
    expect(JSON.parse(test.stdout).decision).toBe("block");
    const listed = JSON.parse((await runCliInProcess(w, ["hooks", "list", "--json"])).stdout) as { hooks: { label: string; scope: string }[] };
    expect(listed.hooks.map((hook) => hook.scope)).toEqual(["user", "user"]);
  });
});

describe("agent config show", () => {
  test("TOOL-01 says what hooks.enabled gates while hook directories run", async () => {
    const w = makeWorld();
    w.file(join(w.agentHome, "hooks", "g", "hook.json"), JSON.stringify({ name: "g", event: "pre_tool", run: "./run.sh" }));
    const r = await runCliInProcess(w, ["config", "show"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hooks.enabled).toBe(false);
    expect(r.stderr).toContain("hooks.enabled (off) gates only the tool-call list hooks");
    expect(r.stderr).toContain("hook directories and hooks.lifecycle groups run");
  });
});

describe("a provider that accepts the connection and never answers", () => {
  test("fails within AGENT_PROVIDER_TIMEOUT, with the bound in the error, and is not retried", async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket); // accept, read, never answer
      socket.on("data", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const w = makeWorld();
      const r = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", `http://127.0.0.1:${port}`, "--model", "m", "hi"], {
        env: w.env({ AGENT_PROVIDER_TIMEOUT: "1" }),
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`request to http://127.0.0.1:${port}/v1/chat/completions got no response for 1 s (timeout, not retried)`);
      expect(r.stderr).toContain("AGENT_PROVIDER_TIMEOUT");
      expect(sockets.length).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  }, 60_000);

  test("a bad AGENT_PROVIDER_TIMEOUT is named with its bound before any request", async () => {
    const w = makeWorld();
    const r = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", "http://127.0.0.1:9", "hi"], {
      env: w.env({ AGENT_PROVIDER_TIMEOUT: "soon" }),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('AGENT_PROVIDER_TIMEOUT: "soon" is not a number of seconds in 1..3600');
  });
});
