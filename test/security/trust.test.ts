// Project trust (D17) end to end through the CLI (in-process; boundary-guard, -repin and -trust-file
// use the real process): refusal before anything runs, `agent hooks trust`, what invalidates a pin
// and what does not, `--trust`, hooks off, and where pins live.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, writeScript } from "../support/cli.ts";
import { runCliInProcess } from "../support/in-process.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";
import { canaries, CANARIES, LIFECYCLE_COMMAND, LIST_COMMAND, lifecycleToml, readTrust, RUN, sec29Settings, sec29World, trustInProcess } from "./helpers.ts";

// Each test runs the CLI several times; two shared cores can make that slow.
setDefaultTimeout(60_000);

/** The D17 refusal: exact commands/paths and both follow-up commands. */
function expectRefusal(stderr: string, lines: readonly string[]): void {
  for (const line of lines) expect(stderr).toContain(line);
  expect(stderr).toContain("agent hooks list");
  expect(stderr).toContain("agent hooks trust");
}

describe("project trust (D17)", () => {
  test("SEC-29 an untrusted project exits 1 before any spawn or provider request and lists every project hook", async () => {
    const w = sec29World();
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(1);
    expect(canaries(w)).toEqual([]);
    expectRefusal(r.stderr, [LIFECYCLE_COMMAND, join(w.project, ".agent/hooks/x/run.sh"), LIST_COMMAND]);
    // The user hook is not listed: it needs no trust.
    expect(r.stderr).not.toContain("canary-user");
    expect(existsSync(join(w.agentHome, "sessions"))).toBe(false);

    // Same refusal with a real provider: the fake server never sees a request.
    const server = await startFakeOpenAI([{ text: "should not be asked" }]);
    try {
      const o = await runCliInProcess(w, ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "hi"], {
        env: w.env({ OPENAI_API_KEY: "sk-test" }),
      });
      expect(o.code).toBe(1);
      expect(server.requests).toHaveLength(0);
      expect(canaries(w)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test("SEC-30 CLI-17 `agent hooks trust` pins a sha256 under the real root path, then every hook runs", async () => {
    const w = sec29World();
    const t = await trustInProcess(w);
    expect(t.stdout).toContain(LIFECYCLE_COMMAND);
    expect(t.stdout).toContain(join(w.project, ".agent/hooks/x/run.sh"));
    expect(t.stdout).toContain(LIST_COMMAND);
    expect(t.stdout).toContain("hooks.enabled");
    const file = readTrust(w);
    const entry = file.projects[realpathSync(w.project)];
    expect(entry?.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(t.stdout).toContain(entry?.digest ?? "no digest");
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(0);
    expect(canaries(w)).toEqual([...CANARIES]);
    // Running it again stays trusted: the canaries the hooks wrote are outputs, not scripts.
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
  });

  const changes: {
    name: string;
    options?: Parameters<typeof sec29World>[0];
    change: (w: ReturnType<typeof sec29World>) => void;
    names: (w: ReturnType<typeof sec29World>) => string;
  }[] = [
    {
      name: "a byte appended to scripts/h.sh",
      change: (w) => appendFileSync(join(w.project, "scripts/h.sh"), "\n"),
      names: (w) => `changed: file ${join(w.project, "scripts/h.sh")}`,
    },
    {
      name: "a byte appended to the hook dir's run.sh",
      change: (w) => appendFileSync(join(w.project, ".agent/hooks/x/run.sh"), "\n"),
      names: (w) => `changed: file ${join(w.project, ".agent/hooks/x/run.sh")}`,
    },
    {
      name: "a byte appended to a script a lifecycle command names",
      options: { extraToml: `[[hooks.lifecycle.session_start]]\nhooks = [{ command = 'sh "$AGENT_PROJECT_DIR/scripts/ss.sh"' }]\n` },
      change: (w) => appendFileSync(join(w.project, "scripts/ss.sh"), "\n"),
      names: (w) => `changed: file ${join(w.project, "scripts/ss.sh")}`,
    },
    {
      name: "timeout_seconds 5 → 6",
      change: (w) => writeFileSync(join(w.project, ".agent/config.toml"), lifecycleToml(6)),
      names: () => `changed: hook lifecycle session_start session_start[0].hooks[0]: ${LIFECYCLE_COMMAND}`,
    },
    {
      name: "a hook added",
      change: (w) =>
        writeFileSync(join(w.project, ".agent/settings.json"), JSON.stringify(sec29Settings([{ label: "added", command: "./scripts/h.sh --again" }]))),
      names: () => "added: hook list pre_tool added: ./scripts/h.sh --again",
    },
    {
      name: "a rule added to permissions.allow",
      change: (w) => writeFileSync(join(w.project, ".agent/settings.json"), JSON.stringify({ ...sec29Settings(), permissions: { allow: ["bash(ls)"] } })),
      names: () => "added: setting permissions.allow",
    },
  ];
  for (const { name, options, change, names } of changes) {
    test(`SEC-31 ${name} invalidates the trust and the refusal names it`, async () => {
      const w = sec29World(options);
      if (options?.extraToml) w.file("scripts/ss.sh", 'touch "$AGENT_PROJECT_DIR/canary-ss2"\n');
      await trustInProcess(w);
      expect((await runCliInProcess(w, RUN)).code).toBe(0);
      change(w);
      const r = await runCliInProcess(w, RUN);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("changed since it was trusted");
      expect(r.stderr).toContain(names(w));
      expectRefusal(r.stderr, []);
    });
  }

  test("SEC-31 README.md, a non-hook setting and an unreferenced script keep the trust", async () => {
    const w = sec29World();
    w.file("scripts/other.sh", "#!/bin/sh\necho other\n", { executable: true });
    await trustInProcess(w);
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
    appendFileSync(join(w.project, "README.md"), "more\n");
    writeFileSync(join(w.project, ".agent/settings.json"), JSON.stringify({ ...sec29Settings(), model: "some-model" }));
    appendFileSync(join(w.project, "scripts/other.sh"), "echo changed\n");
    const r = await runCliInProcess(w, RUN);
    expect(r.stderr).not.toContain("trust");
    expect(r.code).toBe(0);
  });

  test("SEC-32 the digest covers every file the hooks name: quoted and variable paths, interpreter arguments, run targets", async () => {
    const w = makeWorld();
    w.file(
      ".agent/config.toml",
      `[[hooks.lifecycle.session_start]]\nhooks = [\n  { command = '"$AGENT_PROJECT_DIR"/.agent/hooks/check.sh' },\n  { command = '$CLAUDE_PROJECT_DIR/.agent/hooks/c2.sh' },\n]\n`,
    );
    w.file(".agent/settings.json", JSON.stringify({ hooks: { enabled: true, before_tool: [{ label: "audit", command: "python3 scripts/audit.py" }] } }));
    w.file(".agent/hooks/d/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
    const files = [".agent/hooks/check.sh", ".agent/hooks/c2.sh", "scripts/audit.py", ".agent/hooks/d/run.sh"].map((f) =>
      w.file(f, "#!/bin/sh\nexit 0\n", { executable: true }),
    );
    writeScript(w, [{ text: "done" }], "s.json");
    const t = await trustInProcess(w);
    for (const path of files) expect(t.stdout).toContain(`file ${path}`);
    expect(Object.keys(readTrust(w).projects[realpathSync(w.project)]?.items ?? {})).toEqual(expect.arrayContaining(files.map((f) => `file ${f}`)));
    for (const path of files) {
      expect((await runCliInProcess(w, RUN)).code).toBe(0);
      appendFileSync(path, "# one more line\n");
      const r = await runCliInProcess(w, RUN);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`changed: file ${path}`);
      await trustInProcess(w);
    }
  });

  test("SEC-33 `agent run --trust` runs every hook once and writes nothing; the next run refuses", async () => {
    const w = sec29World();
    const once = await runCliInProcess(w, [...RUN.slice(0, -1), "--trust", "hi"]);
    expect(once.code).toBe(0);
    expect(canaries(w)).toEqual([...CANARIES]);
    expect(existsSync(join(w.agentHome, "trust.json"))).toBe(false);
    expect((await runCliInProcess(w, RUN)).code).toBe(1);

    // With an existing trust.json (another project pinned), it stays byte-identical.
    const other = join(w.root, "other");
    mkdirSync(join(other, ".agent"), { recursive: true });
    writeFileSync(join(other, ".agent/settings.json"), JSON.stringify({ permissions: { allow: ["read"] } }));
    await trustInProcess(w, { cwd: other });
    const before = readFileSync(join(w.agentHome, "trust.json"));
    expect((await runCliInProcess(w, [...RUN.slice(0, -1), "--trust", "hi"])).code).toBe(0);
    expect(readFileSync(join(w.agentHome, "trust.json")).equals(before)).toBe(true);
    expect((await runCliInProcess(w, RUN)).code).toBe(1);
  });

  test("SEC-34 `agent hooks test` refuses with the same listing; `agent hooks list` shows the hooks untrusted and runs nothing", async () => {
    const w = sec29World();
    const run = await runCliInProcess(w, RUN);
    const t = await runCliInProcess(w, ["hooks", "test", "session_start"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toBe(run.stderr);
    expect(canaries(w)).toEqual([]);
    const l = await runCliInProcess(w, ["hooks", "list"]);
    expect(l.code).toBe(0);
    for (const what of [LIFECYCLE_COMMAND, join(w.project, ".agent/hooks/x/run.sh"), LIST_COMMAND]) expect(l.stdout).toContain(what);
    const projectRows = l.stdout.split("\n").filter((line) => / project /.test(line));
    expect(projectRows).toHaveLength(3);
    for (const row of projectRows) expect(row).toContain("untrusted");
    expect(canaries(w)).toEqual([]);
  });

  test("SEC-35 user-only hooks and a project without hook settings need no trust", async () => {
    const w = sec29World();
    // Only the user hook: remove every project hook and setting, keep a project `.agent/`.
    writeFileSync(join(w.project, ".agent/config.toml"), "[hooks.lifecycle]\n");
    writeFileSync(join(w.project, ".agent/settings.json"), JSON.stringify({ model: "m", hooks: {}, permissions: { allow: [] }, tools: { bash: {} } }));
    expect((await runCliInProcess(w, RUN)).code).toBe(1); // the hook dir still needs trust
    rmSync(join(w.project, ".agent/hooks/x"), { recursive: true });
    const r = await runCliInProcess(w, RUN);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("trust");
    expect(canaries(w)).toEqual(["canary-user"]);
    expect(existsSync(join(w.agentHome, "trust.json"))).toBe(false);
  });

  for (const [how, env, args] of [
    ["AGENT_HOOKS=off", { AGENT_HOOKS: "off" }, RUN],
    ["--no-hooks", {}, [...RUN.slice(0, -1), "--no-hooks", "hi"]],
  ] as const) {
    test(`SEC-35 with ${how} the untrusted project runs with no hooks of any scope and one line about hooks`, async () => {
      const w = sec29World();
      const r = await runCliInProcess(w, args, { env: w.env(env) });
      expect(r.code).toBe(0);
      expect(canaries(w)).toEqual([]);
      const hookLines = r.stderr.split("\n").filter((line) => /hook/i.test(line));
      expect(hookLines).toEqual([`agent: hooks disabled (${how})`]);
    });
  }

  test("SEC-36 trust lives only in $AGENT_HOME/trust.json under the real root: a copy and a self-trusting project are untrusted", async () => {
    const w = sec29World();
    await trustInProcess(w);
    expect((await runCliInProcess(w, RUN)).code).toBe(0);
    const copy = join(w.root, "copy");
    cpSync(w.project, copy, { recursive: true });
    for (const name of ["canary-ss", "canary-dir", "canary-list"]) rmSync(join(copy, name), { force: true });
    const r = await runCliInProcess(w, RUN, { cwd: copy });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not trusted yet");
    expect(["canary-ss", "canary-dir", "canary-list"].filter((name) => existsSync(join(copy, name)))).toEqual([]);

    // A project shipping its own .agent/trust.json with a correct pin for itself is still untrusted.
    const v = sec29World();
    const otherHome = join(v.root, "other-home");
    const pinned = await runCliInProcess(v, ["hooks", "trust"], { env: v.env({ AGENT_HOME: otherHome }) });
    expect(pinned.code).toBe(0);
    cpSync(join(otherHome, "trust.json"), join(v.project, ".agent/trust.json"));
    const s = await runCliInProcess(v, RUN);
    expect(s.code).toBe(1);
    expect(canaries(v)).toEqual([]);
  });
});
