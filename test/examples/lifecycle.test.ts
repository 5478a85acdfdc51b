/**
 * The lifecycle examples run directly: the claude-dialect stdin line the agent sends, cwd = the
 * agent cwd (seed 002), and the reply D6/D7 read (exit code, stderr, plain or JSON stdout).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeStdin, EXAMPLES, fakeCommand, onlyJsonLine, runScript, tempDir } from "./helpers.ts";

const script = (name: string, file = `${name}.sh`) => join(EXAMPLES, name, file);

/** The example installed in the project (`.agent/scripts/`), as `agent hooks init` does at project scope. */
function inProject(project: string, name: string): string {
  const target = join(project, ".agent", "scripts", `${name}.sh`);
  mkdirSync(join(project, ".agent", "scripts"), { recursive: true });
  copyFileSync(script(name), target);
  return target;
}

/** A PATH holding only the tools the scripts are allowed to need, plus `extra` first. */
function minimalPath(extra?: string): string {
  const bin = tempDir("agent-examples-bin-");
  for (const tool of ["sh", "cat", "awk", "grep", "sed", "tr", "head", "tail", "wc", "uname", "dirname", "mkdir", "git"]) {
    const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim();
    if (found !== "") spawnSync("ln", ["-s", found, join(bin, tool)]);
  }
  return extra === undefined ? bin : `${extra}:${bin}`;
}

describe("format-on-write", () => {
  const payload = (cwd: string, file: string) =>
    claudeStdin("post_tool", {
      cwd,
      tool: { name: "write", input: { file_path: file, content: "x" } },
      result: { success: true, content: "wrote 1 bytes", metadata: { path: join(cwd, file) } },
    });

  test("D7 runs the installed formatter on tool_input.file_path only, silently", () => {
    const project = tempDir();
    writeFileSync(join(project, "main.go"), "package main\n");
    writeFileSync(join(project, "notes.txt"), "x\n");
    const bin = fakeCommand(join(tempDir(), "fake-bin"), "gofmt", `printf '%s\\n' "$*" >> "${project}/gofmt.calls"`);
    const go = runScript(script("format-on-write"), payload(project, "main.go"), { cwd: project, env: { PATH: minimalPath(bin) } });
    expect(go).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(project, "gofmt.calls"), "utf8")).toBe("-w main.go\n");
    const txt = runScript(script("format-on-write"), payload(project, "notes.txt"), { cwd: project, env: { PATH: minimalPath(bin) } });
    expect(txt).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(project, "gofmt.calls"), "utf8")).toBe("-w main.go\n");
  });

  test("D7 is silent without a formatter and prints one info line when the formatter fails", () => {
    const project = tempDir();
    writeFileSync(join(project, "app.py"), "x=1\n");
    const none = runScript(script("format-on-write"), payload(project, "app.py"), { cwd: project, env: { PATH: minimalPath() } });
    expect(none).toEqual({ code: 0, stdout: "", stderr: "" });
    const bin = fakeCommand(join(tempDir(), "fake-bin"), "black", "echo 'cannot parse' >&2; exit 123");
    const failing = runScript(script("format-on-write"), payload(project, "app.py"), { cwd: project, env: { PATH: minimalPath(bin) } });
    expect(failing.code).toBe(0);
    expect(failing.stdout).toBe("format-on-write: black could not format app.py\n");
  });

  test("D7 installed in the project, it finds prettier in the project's node_modules/.bin", () => {
    const project = tempDir();
    writeFileSync(join(project, "a.ts"), "let x=1\n");
    fakeCommand(join(project, "node_modules", ".bin"), "prettier", `printf '%s\\n' "$*" > "${project}/prettier.calls"`);
    const run = runScript(inProject(project, "format-on-write"), payload(project, "a.ts"), { cwd: project, env: { PATH: minimalPath() } });
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(project, "prettier.calls"), "utf8")).toBe("--write a.ts\n");
  });

  test("installed at user scope, it never runs the project's prettier (node_modules/.bin, a PATH entry inside the project, a relative one); one on PATH runs with --no-config", () => {
    const project = tempDir();
    writeFileSync(join(project, "a.ts"), "let x=1\n");
    const projectBin = fakeCommand(join(project, "node_modules", ".bin"), "prettier", `touch "${project}/project-prettier-ran"`);
    for (const path of [minimalPath(), minimalPath(projectBin), minimalPath("node_modules/.bin")]) {
      expect(runScript(script("format-on-write"), payload(project, "a.ts"), { cwd: project, env: { PATH: path } })).toEqual({
        code: 0,
        stdout: "",
        stderr: "",
      });
    }
    expect(existsSync(join(project, "project-prettier-ran"))).toBe(false);
    const userBin = fakeCommand(join(tempDir(), "bin"), "prettier", `printf '%s\\n' "$*" > "${project}/prettier.calls"`);
    expect(runScript(script("format-on-write"), payload(project, "a.ts"), { cwd: project, env: { PATH: minimalPath(userBin) } }).code).toBe(0);
    expect(readFileSync(join(project, "prettier.calls"), "utf8")).toBe("--no-config --write a.ts\n");
  });
});

describe("session-context", () => {
  const stdin = (cwd: string) => claudeStdin("session_start", { cwd, fields: { source: "startup" } });

  test("D7 prints the branch and short status as plain stdout in a git repo", () => {
    const repo = tempDir();
    spawnSync("git", ["init", "-q", "-b", "trunk", repo]);
    writeFileSync(join(repo, "new.txt"), "x");
    const run = runScript(script("session-context"), stdin(repo), { cwd: repo });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("git branch: trunk\ngit status (1 changed):\n?? new.txt\n");
    expect(run.stdout.trimStart().startsWith("{")).toBe(false);
  });

  test("D7 caps the status at 20 files", () => {
    const repo = tempDir();
    spawnSync("git", ["init", "-q", "-b", "main", repo]);
    for (let i = 0; i < 25; i++) writeFileSync(join(repo, `f${String(i).padStart(2, "0")}.txt`), "x");
    const lines = runScript(script("session-context"), stdin(repo), { cwd: repo }).stdout.trimEnd().split("\n");
    expect(lines[1]).toBe("git status (25 changed):");
    expect(lines.length).toBe(2 + 20 + 1);
    expect(lines.at(-1)).toBe("… and 5 more");
  });

  test("D7 prints nothing outside a git repository", () => {
    const plain = tempDir();
    expect(runScript(script("session-context"), stdin(plain), { cwd: plain, env: { GIT_CEILING_DIRECTORIES: plain } })).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
  });
});

describe("keep-going-until-tests-pass", () => {
  const stop = (cwd: string, active: boolean) => claudeStdin("stop", { cwd, fields: { stop_hook_active: active, last_assistant_message: "done" } });
  const run = (cwd: string, active: boolean, env: Record<string, string> = {}) =>
    runScript(script("keep-going-until-tests-pass"), stop(cwd, active), { cwd, env });

  test("LIFE-59 blocks with the failing output as the reason when tests fail", () => {
    const project = tempDir();
    const result = run(project, false, { AGENT_TEST_COMMAND: 'echo "1 test failed: \\"parse\\"" >&2; exit 3' });
    expect(result.code).toBe(0);
    const reply = onlyJsonLine(result.stdout);
    expect(reply.decision).toBe("block");
    expect(String(reply.reason)).toStartWith("tests are failing");
    expect(String(reply.reason)).toContain("exited 3");
    expect(String(reply.reason)).toEndWith('\n1 test failed: "parse"');
  });

  test("LIFE-59 allows the stop when stop_hook_active is true, without running the tests", () => {
    const project = tempDir();
    const marker = join(project, "ran");
    const result = run(project, true, { AGENT_TEST_COMMAND: `touch ${marker}; exit 1` });
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(existsSync(marker)).toBe(false);
  });

  test("LIFE-59 allows the stop when tests pass or there is nothing to run", () => {
    const project = tempDir();
    expect(run(project, false, { AGENT_TEST_COMMAND: "echo all good" })).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(run(project, false)).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  test("LIFE-59 installed in the project, it defaults to npm test --silent when package.json exists", () => {
    const project = tempDir();
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "t", private: true, scripts: { test: "echo boom; exit 1" } }));
    const bin = fakeCommand(join(tempDir(), "fake-bin"), "npm", `printf '%s\\n' "$*" > "${project}/npm.calls"; echo 'boom'; exit 1`);
    const result = runScript(inProject(project, "keep-going-until-tests-pass"), stop(project, false), {
      cwd: project,
      env: { PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    expect(readFileSync(join(project, "npm.calls"), "utf8")).toBe("test --silent\n");
    expect(onlyJsonLine(result.stdout)).toEqual({ decision: "block", reason: "tests are failing (npm test --silent exited 1):\nboom" });
  });

  test("installed at user scope, it never runs the project's npm test by itself; $AGENT_TEST_COMMAND still runs", () => {
    const project = tempDir();
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "t", private: true, scripts: { test: "exit 1" } }));
    const bin = fakeCommand(join(tempDir(), "fake-bin"), "npm", `touch "${project}/npm-ran"; exit 1`);
    expect(run(project, false, { PATH: `${bin}:${process.env.PATH ?? ""}` })).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(existsSync(join(project, "npm-ran"))).toBe(false);
    const chosen = run(project, false, { PATH: `${bin}:${process.env.PATH ?? ""}`, AGENT_TEST_COMMAND: "npm test" });
    expect(existsSync(join(project, "npm-ran"))).toBe(true);
    expect(onlyJsonLine(chosen.stdout).decision).toBe("block");
  });
});

describe("prompt-guard", () => {
  const submit = (prompt: string) => {
    const cwd = tempDir();
    return runScript(script("prompt-guard"), claudeStdin("user_prompt_submit", { cwd, fields: { prompt } }), { cwd });
  };
  const blocked: Array<[string, string]> = [
    ["my password is hunter2", "a password"],
    ["Password is: correct-horse", "a password"],
    ["use sk-proj-abcdefghijklmnopqrstuvwx for the call", "an API key"],
    ["key AKIAIOSFODNN7EXAMPLE please", "an AWS access key id"],
    ["token ghp_0123456789abcdefghijABCDEFGHIJ012345", "a GitHub token"],
    ["here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n", "a private key"],
  ];
  for (const [prompt, kind] of blocked) {
    test(`D6 exits 2 with a stderr reason for ${kind}: ${JSON.stringify(prompt.slice(0, 24))}`, () => {
      const run = submit(prompt);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toStartWith(`prompt-guard: the prompt seems to contain ${kind}`);
      expect(run.stderr).not.toContain("hunter2");
      expect(run.stderr.trimEnd().split("\n").length).toBe(1);
    });
  }
  for (const prompt of [
    "fix the login form",
    "the password is required.",
    "pip install sk-learn",
    "what does the AKIA prefix mean?",
    "-----BEGIN PUBLIC KEY-----",
  ]) {
    test(`D6 lets through ${JSON.stringify(prompt)}`, () => {
      expect(submit(prompt)).toEqual({ code: 0, stdout: "", stderr: "" });
    });
  }
});

describe("notify", () => {
  test("D6 calls notify-send with the title and message and prints nothing", () => {
    const dir = tempDir();
    const bin = fakeCommand(join(dir, "bin"), "notify-send", `for a in "$@"; do printf '[%s]' "$a"; done >> "${dir}/calls"; echo >> "${dir}/calls"`);
    const note = claudeStdin("notification", { cwd: dir, fields: { notification_type: "custom", title: "Build", message: 'done "ok"' } });
    expect(runScript(script("notify"), note, { cwd: dir, env: { PATH: minimalPath(bin) } })).toEqual({ code: 0, stdout: "", stderr: "" });
    const stop = claudeStdin("stop", { cwd: dir, fields: { stop_hook_active: false, last_assistant_message: "x" } });
    expect(runScript(script("notify"), stop, { cwd: dir, env: { PATH: minimalPath(bin) } })).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(join(dir, "calls"), "utf8")).toBe('[--][Build][done "ok"]\n[--][agent][finished its reply]\n');
  });

  test("D6 never fails without any notifier (no tty either)", () => {
    const dir = tempDir();
    const note = claudeStdin("notification", { cwd: dir, fields: { notification_type: "idle_prompt", title: "", message: "waiting" } });
    // Without a controlling terminal (setsid, where available) /dev/tty cannot be opened either.
    const setsid = spawnSync("sh", ["-c", "command -v setsid"], { encoding: "utf8" }).stdout.trim();
    const argv = setsid === "" ? [script("notify")] : [setsid, script("notify")];
    const ran = spawnSync(argv[0] ?? "", argv.slice(1), { cwd: dir, env: { PATH: minimalPath() }, input: note, encoding: "utf8" });
    expect(ran.status).toBe(0);
    expect(ran.stdout).toBe("");
  });
});
