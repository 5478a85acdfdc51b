// Claude Code's hook env — CLAUDE_ENV_FILE (alias AGENT_ENV_FILE) written by a real
// session_start hook persists into later bash calls and hooks, across --resume, compaction and a
// subagent; CLAUDECODE, CLAUDE_CODE_SESSION_ID and CLAUDE_PLUGIN_ROOT reach the hooks they apply to.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCli, sessionFileOf, type World } from "../support/cli.ts";
import { RUN, delivered, lastJson, lines, ofType, sessionRecords } from "./helpers.ts";
import { parseEnvFile } from "../../src/hooks/shell/env-file.ts";

setDefaultTimeout(90_000);

/** A session_start hook (lifecycle, claude dialect) that logs what it gets and writes the env file. */
function setUp(w: World): { log: string } {
  const log = join(w.root, "hooks.log");
  w.file(
    "session.sh",
    [
      "#!/bin/bash",
      "input=$(cat)",
      'source=$(jq -r .source <<<"$input")',
      `{`,
      '  echo "start source=$source foo=${FOO-unset}"',
      '  echo "start file=$CLAUDE_ENV_FILE agentfile=$AGENT_ENV_FILE"',
      '  echo "start claudecode=$CLAUDECODE sid=$CLAUDE_CODE_SESSION_ID payload=$(jq -r .session_id <<<"$input")"',
      '  echo "start modes file=$(stat -c %a "$CLAUDE_ENV_FILE") dir=$(stat -c %a "$(dirname "$CLAUDE_ENV_FILE")")"',
      `} >> '${log}'`,
      'if [ "$source" = startup ]; then',
      "  cat >> \"$CLAUDE_ENV_FILE\" <<'EOF'",
      "export FOO=bar",
      'export GREETING="hello world"',
      "SINGLE='a $b `c`'",
      'export PATH="$HOME/envbin:$PATH"',
      "# a comment",
      "export OPENAI_API_KEY=sk-from-hook",
      "export AGENT_SESSION_ID=evil",
      "export BASH_ENV=/tmp/evil",
      "rm -rf /",
      "export CMD=$(id)",
      "EOF",
      "fi",
      'if [ "$source" = compact ]; then echo "export BAZ=after-compact" >> "$AGENT_ENV_FILE"; fi',
      "exit 0",
      "",
    ].join("\n"),
    { executable: true },
  );
  w.file(
    "pre.sh",
    [
      "#!/bin/bash",
      "cat > /dev/null",
      `echo "pre foo=\${FOO-unset} file=\${CLAUDE_ENV_FILE-unset} agentfile=\${AGENT_ENV_FILE-unset}" >> '${log}'`,
      "exit 0",
      "",
    ].join("\n"),
    {
      executable: true,
    },
  );
  w.file(
    ".agent/config.toml",
    [
      "[[hooks.lifecycle.session_start]]",
      'hooks = [{ command = "$CLAUDE_PROJECT_DIR/session.sh" }]',
      "[[hooks.lifecycle.pre_tool_use]]",
      'matcher = "Bash"',
      'hooks = [{ command = "$CLAUDE_PROJECT_DIR/pre.sh" }]',
      "",
    ].join("\n"),
  );
  // A claude-protocol hook dir: CLAUDE_PLUGIN_ROOT is its own directory.
  w.file(".agent/hooks/plug/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh", protocol: "claude" }));
  w.file(
    ".agent/hooks/plug/run.sh",
    ["#!/bin/bash", "cat > /dev/null", `echo "dir foo=\${FOO-unset} root=\${CLAUDE_PLUGIN_ROOT-unset}" >> '${log}'`, "exit 0", ""].join("\n"),
    { executable: true },
  );
  w.file(join(w.home, "envbin", "hello-from-path"), "#!/bin/sh\necho found-on-path\n", { executable: true });
  return { log };
}

describe("CLAUDE_ENV_FILE", () => {
  test("a session_start hook's exports reach later bash calls, hooks and a subagent, and survive --resume", () => {
    const w = makeWorld();
    const { log } = setUp(w);
    const probe =
      'echo "FOO=$FOO GREETING=$GREETING SINGLE=$SINGLE KEY=${OPENAI_API_KEY-unset} AGENT_SESSION_ID=${AGENT_SESSION_ID-unset} BASH_ENV=${BASH_ENV-unset} CMD=${CMD-unset}"; hello-from-path';
    const turns = [
      { tool_calls: [{ id: "call_1", name: "bash", arguments: { command: probe } }] },
      { tool_calls: [{ id: "call_2", name: "task", arguments: { description: "child", prompt: "p" } }] },
      { text: "done" },
    ];
    const agents = {
      general: { turns: [{ tool_calls: [{ id: "k1", name: "bash", arguments: { command: 'echo "child FOO=$FOO"' } }] }, { text: "child done" }] },
    };
    w.file("script.json", JSON.stringify({ turns, agents }));
    const env = w.env({ OPENAI_API_KEY: "sk-parent-secret" });
    const r = runCli(w, RUN.concat(["go"]), { env });
    expect(r.code).toBe(0);

    const records = sessionRecords(w);
    const results = delivered(records);
    expect(results[0]).toBe("FOO=bar GREETING=hello world SINGLE=a $b `c` KEY=unset AGENT_SESSION_ID=unset BASH_ENV=unset CMD=unset\nfound-on-path\n");
    expect(results[1]).toBe("child done");
    // The child's own file: its bash call saw FOO too.
    const childDir = join(w.agentHome, "sessions", "subagents");
    const childId = String((ofType(records, "tool_result")[1]?.metadata as Record<string, unknown>).child_session_id);
    const childFile = readFileSync(sessionFileOf(childDir, childId), "utf8");
    expect(childFile).toContain("child FOO=bar");

    // Each refused line is one warning naming the file's line and the reason; nothing else leaked.
    const warnings = r.stderr.split("\n").filter((line) => line.includes("CLAUDE_ENV_FILE:"));
    expect(warnings).toHaveLength(5);
    expect(r.stderr).toContain("CLAUDE_ENV_FILE:6: ignored OPENAI_API_KEY: credentials are stripped from every child and cannot be set here");
    expect(r.stderr).toContain("CLAUDE_ENV_FILE:7: ignored AGENT_SESSION_ID: the agent sets this name itself");
    expect(r.stderr).toContain("CLAUDE_ENV_FILE:8: ignored BASH_ENV: shell start-up variables are never passed on");
    expect(r.stderr).toContain("CLAUDE_ENV_FILE:9: ignored: not an `export NAME=value` line");
    expect(r.stderr).toContain("CLAUDE_ENV_FILE:10: ignored CMD:");

    // The session file keeps the set as a typed record; no refused name is in it.
    const envRecords = ofType(records, "session_env");
    expect(envRecords).toHaveLength(1);
    const saved = envRecords[0]?.env as Record<string, string>;
    expect(Object.keys(saved).sort()).toEqual(["FOO", "GREETING", "PATH", "SINGLE"]);
    expect(saved.PATH?.startsWith(`${w.home}/envbin:`)).toBe(true);

    const first = lines(log);
    const sessionId = String(lastJson(r.stdout).session_id);
    expect(first[0]).toBe("start source=startup foo=unset");
    const fileLine = first[1] ?? "";
    const envFile = /file=(\S+) /.exec(fileLine)?.[1] ?? "";
    expect(fileLine).toBe(`start file=${envFile} agentfile=${envFile}`);
    expect(envFile.endsWith("/env")).toBe(true);
    expect(first[2]).toBe(`start claudecode=1 sid=${sessionId} payload=${sessionId}`);
    expect(first[3]).toBe("start modes file=600 dir=700");
    // The private directory is gone once session_start is over.
    expect(existsSync(envFile)).toBe(false);
    // Later hooks (lifecycle and a claude hook dir, in D13 order) see FOO, the child's hooks too; only
    // session_start gets the file. Calls: the parent's bash, its task (the dir hook matches every
    // tool), the child's bash.
    const dirLine = `dir foo=bar root=${join(w.project, ".agent", "hooks", "plug")}`;
    const preLine = "pre foo=bar file=unset agentfile=unset";
    expect(first.slice(4)).toEqual([dirLine, preLine, dirLine, dirLine, preLine]);

    // --resume: the recorded variables are back without the hook writing them again.
    w.file(
      "script.json",
      JSON.stringify({ turns: [{ tool_calls: [{ id: "call_9", name: "bash", arguments: { command: 'echo "resumed FOO=$FOO"' } }] }, { text: "done" }] }),
    );
    const resumed = runCli(w, RUN.concat(["--resume", sessionId, "again"]), { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).not.toContain("CLAUDE_ENV_FILE:");
    const after = delivered(sessionRecords(w));
    expect(after[after.length - 1]).toBe("resumed FOO=bar\n");
    const second = lines(log).slice(first.length);
    expect(second[0]).toBe("start source=resume foo=bar");
    expect(second).toContain("pre foo=bar file=unset agentfile=unset");
  });

  test("compaction keeps the variables and its session_start `compact` may add more", () => {
    const w = makeWorld();
    setUp(w);
    const turns = [
      { tool_calls: [{ id: "call_1", name: "bash", arguments: { command: "echo one two three four five six seven eight nine ten" } }] },
      { tool_calls: [{ id: "call_2", name: "bash", arguments: { command: 'echo "FOO=$FOO BAZ=${BAZ-unset}"' } }] },
      { text: "done" },
    ];
    w.file("script.json", JSON.stringify({ turns }));
    const r = runCli(w, RUN.concat(["--max-context-tokens", "5", "go"]));
    expect(r.code).toBe(0);
    const records = sessionRecords(w);
    expect(ofType(records, "compaction").length).toBeGreaterThan(0);
    const results = delivered(records);
    expect(results[1]).toBe("FOO=bar BAZ=after-compact\n");
    const last = ofType(records, "session_env").at(-1)?.env as Record<string, string>;
    expect(last.FOO).toBe("bar");
    expect(last.BAZ).toBe("after-compact");
  });
});

describe("env file grammar", () => {
  const parse = (text: string, env: Record<string, string> = {}) => parseEnvFile(text, { label: "F", providerKeyVars: new Set(["MY_PROVIDER_VAR"]), env });

  test("quoting, expansion of plain names only, and refusals", () => {
    const parsed = parse(
      [
        "export A=plain",
        "B='single $X `y`'",
        'C="dq \\"x\\" \\$HOME $HOME ${HOME}/b"',
        "D=$A-x",
        "E=a'b c'\"d\"",
        "F=x # trailing comment",
        "G=two words",
        'H="$(id)"',
        "I=`id`",
        'J="unterminated',
        "MY_PROVIDER_VAR=x",
        "URL=postgres://u:pw@h/db",
        "1BAD=x",
        "CLAUDE_PROJECT_DIR=/x",
        "K=$((1+1))",
        "export LD_PRELOAD=/tmp/evil.so",
        "DYLD_INSERT_LIBRARIES=/tmp/evil.dylib",
      ].join("\n"),
      { HOME: "/home/u" },
    );
    expect(parsed.vars).toEqual({ A: "plain", B: "single $X `y`", C: 'dq "x" $HOME /home/u /home/u/b', D: "plain-x", E: "ab cd", F: "x" });
    expect(parsed.warnings).toEqual([
      "F:7: ignored G: more than one word after = (quote the value)",
      "F:8: ignored H: only $NAME and ${NAME} expand; quote a literal $ with '...'",
      "F:9: ignored I: command substitution (`) is not supported",
      "F:10: ignored J: unterminated double quote",
      "F:11: ignored MY_PROVIDER_VAR: credentials are stripped from every child and cannot be set here",
      "F:12: ignored URL: credentials are stripped from every child and cannot be set here",
      "F:13: ignored line: not a variable name",
      "F:14: ignored CLAUDE_PROJECT_DIR: the agent sets this name itself",
      "F:15: ignored K: only $NAME and ${NAME} expand; quote a literal $ with '...'",
      "F:16: ignored LD_PRELOAD: dynamic loader variables are never passed on",
      "F:17: ignored DYLD_INSERT_LIBRARIES: dynamic loader variables are never passed on",
    ]);
  });
});
