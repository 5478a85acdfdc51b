// Trust of each hook form and of trust-relevant settings, and the trust-related commands
// (`agent hooks validate`, `trust`, `init`), through the CLI (in-process, test/support/in-process.ts) in a temp world.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, REPO, writeScript } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { allRecords, canaries, readTrust, RUN, sec29World, trustInProcess } from "./helpers.ts";

// Each test runs the CLI several times; two shared cores can make that slow.
setDefaultTimeout(60_000);

const BASH_CALL = [{ tool_calls: [{ name: "bash", arguments: { command: "touch hi" } }] }, { text: "done" }];

describe("trust of forms and settings (D17)", () => {
  test("SEC-42 project hook settings need trust and never weaken a user gate; a hook-written projectSettings rule keeps the trust", async () => {
    const w = makeWorld();
    const gate = w.file(join(w.agentHome, "g.sh"), `#!/bin/sh\ncat > "${w.root}/g.json"\n`, { executable: true });
    w.file(
      join(w.agentHome, "settings.json"),
      JSON.stringify({ hooks: { enabled: true, failure_policy: "block", before_tool: [{ label: "g", command: gate }] } }),
    );
    w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: false, failure_policy: "ignore", payload: "full" } }));
    writeScript(w, BASH_CALL, "s.json");
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(1);
    for (const setting of ["hooks.enabled = false", 'hooks.failure_policy = "ignore"', 'hooks.payload = "full"']) expect(r.stderr).toContain(setting);
    expect(existsSync(join(w.root, "g.json"))).toBe(false);

    await trustInProcess(w);
    const ok = await runCliInProcess(w, RUN);
    expect(ok.code).toBe(0);
    const envelope = JSON.parse(readFileSync(join(w.root, "g.json"), "utf8"));
    expect(envelope.hook).toMatchObject({ label: "g", failure_policy: "block", payload_mode: "redacted" });
    const started = allRecords(w).find((rec) => rec.type === "hook_lifecycle" && rec.label === "g");
    expect(started?.policy).toBe("block");

    // Permissions alone need trust too.
    const p = makeWorld();
    p.file(".agent/settings.json", JSON.stringify({ permissions: { allow: ["bash(*)"] } }));
    writeScript(p, BASH_CALL, "s.json");
    const refused = await runCliInProcess(p, RUN);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('setting permissions.allow = ["bash(*)"]');
    await trustInProcess(p);
    expect((await runCliInProcess(p, RUN)).code).toBe(0);
  });

  test("SEC-42 LOOP-14 a projectSettings rule written by a permission_request hook re-pins the digest", async () => {
    const w = makeWorld();
    const reply = {
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: {
          behavior: "allow",
          updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch hi" }], behavior: "allow", destination: "projectSettings" }],
        },
      },
    };
    const hook = w.file(join(w.agentHome, "allow.sh"), `#!/bin/sh\ncat >/dev/null\necho '${JSON.stringify(reply)}'\n`, { executable: true });
    w.file(join(w.agentHome, "config.toml"), `[[hooks.lifecycle.permission_request]]\nhooks = [{ command = '${hook}' }]\n`);
    w.file(".agent/settings.json", JSON.stringify({ permissions: { allow: ["read"] } }));
    writeScript(w, BASH_CALL, "s.json");
    await trustInProcess(w);
    const args = ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "default", "hi"];
    const first = await runCliInProcess(w, args);
    expect(first.code).toBe(0);
    expect(JSON.parse(readFileSync(join(w.project, ".agent/settings.json"), "utf8")).permissions.allow).toEqual(["read", "bash(touch hi)"]);
    const second = await runCliInProcess(w, args);
    expect(second.stderr).not.toContain("changed since it was trusted");
    expect(second.code).toBe(0);
  });

  test("DIR-15 an untrusted hook dir is listed by path; trust, edit, --trust once; user hooks alone need no trust", async () => {
    const w = makeWorld();
    const run = w.file(".agent/hooks/guard/run.sh", `#!/bin/sh\ncat >/dev/null\ntouch "${w.root}/guard-ran"\n`, { executable: true });
    w.file(".agent/hooks/guard/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    writeScript(w, BASH_CALL, "s.json");
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(w.project, ".agent/hooks/guard/run.sh"));
    expect(r.stderr).toContain("agent hooks list");
    expect(r.stderr).toContain("agent hooks trust");
    expect(existsSync(join(w.root, "guard-ran"))).toBe(false);
    await trustInProcess(w);
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
    expect(existsSync(join(w.root, "guard-ran"))).toBe(true);
    writeFileSync(run, `#!/bin/sh\ncat >/dev/null\necho edited > "${w.root}/guard-ran"\n`);
    expect((await runCliInProcess(w, RUN)).code).toBe(1);
    const before = readFileSync(join(w.agentHome, "trust.json"));
    expect((await runCliInProcess(w, [...RUN.slice(0, -1), "--trust", "hi"])).code).toBe(0);
    expect(readFileSync(join(w.root, "guard-ran"), "utf8")).toBe("edited\n");
    expect(readFileSync(join(w.agentHome, "trust.json")).equals(before)).toBe(true);

    const u = makeWorld();
    u.file(join(u.agentHome, "hooks/guard/hook.json"), JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    u.file(join(u.agentHome, "hooks/guard/run.sh"), `#!/bin/sh\ncat >/dev/null\ntouch "${u.root}/guard-ran"\n`, { executable: true });
    writeScript(u, BASH_CALL, "s.json");
    expect((await runCliInProcess(u, RUN)).code).toBe(0);
    expect(existsSync(join(u.root, "guard-ran"))).toBe(true);
  });

  test("LIFE-10 project lifecycle groups run only when trusted; command, matcher or timeout edits invalidate; user groups and empty tables need none", async () => {
    const w = makeWorld();
    const toml = (command: string, matcher: string, timeout: number): string =>
      `[[hooks.lifecycle.pre_tool_use]]\nmatcher = "${matcher}"\nhooks = [{ command = '${command}', timeout_seconds = ${timeout} }]\n`;
    const base = `touch "${w.root}/life-ran"`;
    w.file(".agent/config.toml", toml(base, "Bash", 5));
    writeScript(w, BASH_CALL, "s.json");
    expect((await runCliInProcess(w, RUN)).code).toBe(1);
    expect(existsSync(join(w.root, "life-ran"))).toBe(false);
    await trustInProcess(w);
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
    expect(existsSync(join(w.root, "life-ran"))).toBe(true);
    for (const changed of [toml(`${base} # edited`, "Bash", 5), toml(base, "Bash|Read", 5), toml(base, "Bash", 6)]) {
      writeFileSync(join(w.project, ".agent/config.toml"), changed);
      const r = await runCliInProcess(w, RUN);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("changed since it was trusted");
      await trustInProcess(w);
      expect((await runCliInProcess(w, RUN)).code).toBe(0);
    }

    const u = makeWorld();
    u.file(join(u.agentHome, "config.toml"), toml(`touch "${u.root}/life-ran"`, "Bash", 5));
    u.file(".agent/config.toml", "[hooks.lifecycle]\npre_tool_use = []\n");
    writeScript(u, BASH_CALL, "s.json");
    const r = await runCliInProcess(u, RUN);
    expect(r.code).toBe(0);
    expect(existsSync(join(u.root, "life-ran"))).toBe(true);
    expect(existsSync(join(u.agentHome, "trust.json"))).toBe(false);
  });

  test("PLUS-09 disabled hooks do not run, siblings do, list shows them disabled, and toggling disabled changes the digest", async () => {
    const w = makeWorld();
    const touch = (name: string): string => `#!/bin/sh\ncat >/dev/null\ntouch "${w.root}/${name}"\n`;
    w.file(".agent/hooks/off/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh", disabled: true }));
    w.file(".agent/hooks/off/run.sh", touch("dir-off"), { executable: true });
    w.file(".agent/hooks/on/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    w.file(".agent/hooks/on/run.sh", touch("dir-on"), { executable: true });
    w.file("x.sh", touch("life-off"), { executable: true });
    w.file("y.sh", touch("life-on"), { executable: true });
    w.file("a.sh", touch("list-off"), { executable: true });
    w.file("b.sh", touch("list-on"), { executable: true });
    w.file(".agent/config.toml", `[[hooks.lifecycle.pre_tool_use]]\nhooks = [{ command = "./x.sh", disabled = true }, { command = "./y.sh" }]\n`);
    const list = (disabled: boolean) => ({
      hooks: {
        enabled: true,
        before_tool: [
          { label: "a", command: "./a.sh", disabled },
          { label: "b", command: "./b.sh" },
        ],
      },
    });
    w.file(".agent/settings.json", JSON.stringify(list(true)));
    writeScript(w, BASH_CALL, "s.json");
    await trustInProcess(w);
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("warning");
    const ran = readdirSync(w.root)
      .filter((name) => /-(on|off)$/.test(name))
      .sort();
    expect(ran).toEqual(["dir-on", "life-on", "list-on"]);
    const rows = (await runCliInProcess(w, ["hooks", "list"])).stdout.split("\n").filter((line) => line.includes("disabled"));
    expect(rows).toHaveLength(3);
    writeFileSync(join(w.project, ".agent/settings.json"), JSON.stringify(list(false)));
    const changed = await runCliInProcess(w, RUN);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain("changed: hook list pre_tool a: ./a.sh");
  });
});

describe("trust-related commands", () => {
  test("CLI-16 `agent hooks validate` checks an untrusted project's hooks and runs nothing", async () => {
    const w = sec29World();
    const r = await runCliInProcess(w, ["hooks", "validate"]);
    expect(r.code).toBe(0);
    expect(canaries(w)).toEqual([]);
  });

  test("CLI-17 `agent hooks trust` in a project without hooks or such settings changes nothing", async () => {
    const w = makeWorld();
    w.file(".agent/settings.json", JSON.stringify({ model: "m", hooks: {}, permissions: { allow: [] } }));
    const r = await runCliInProcess(w, ["hooks", "trust"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no project hooks to trust");
    expect(existsSync(join(w.agentHome, "trust.json"))).toBe(false);
    // With a trust.json present (another project pinned) it stays byte-identical.
    const other = sec29World();
    const otherHome = { AGENT_HOME: w.agentHome };
    expect((await runCliInProcess(other, ["hooks", "trust"], { env: other.env(otherHome) })).code).toBe(0);
    const before = readFileSync(join(w.agentHome, "trust.json"));
    expect((await runCliInProcess(w, ["hooks", "trust"])).code).toBe(0);
    expect(readFileSync(join(w.agentHome, "trust.json")).equals(before)).toBe(true);
    expect(Object.keys(readTrust(w).projects)).toEqual([other.project]);
  });

  test("CLI-18 `agent hooks init guard-bash` copies the template once, keeps exec bits and stays untrusted", async () => {
    const w = makeWorld();
    const r = await runCliInProcess(w, ["hooks", "init", "guard-bash"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("agent hooks trust");
    const source = join(REPO, "hooks-examples/guard-bash");
    const target = join(w.project, ".agent/hooks/guard-bash");
    for (const name of readdirSync(source)) {
      expect(readFileSync(join(target, name), "utf8")).toBe(readFileSync(join(source, name), "utf8"));
      expect(statSync(join(target, name)).mode & 0o111).toBe(statSync(join(source, name)).mode & 0o111);
    }
    writeFileSync(join(target, "run.sh"), "#!/bin/sh\necho mine\n");
    const again = await runCliInProcess(w, ["hooks", "init", "guard-bash"]);
    expect(again.code).toBe(1);
    expect(readFileSync(join(target, "run.sh"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    const nope = await runCliInProcess(w, ["hooks", "init", "nope"]);
    expect(nope.code).toBe(1);
    const templates = readdirSync(join(REPO, "hooks-examples")).filter((name) => existsSync(join(REPO, "hooks-examples", name, "hook.json")));
    expect(templates.length).toBeGreaterThan(0);
    for (const name of templates) expect(nope.stderr).toContain(name);
    writeScript(w, BASH_CALL, "s.json");
    const run = await runCliInProcess(w, RUN);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(join(target, "run.sh"));
  });
});
