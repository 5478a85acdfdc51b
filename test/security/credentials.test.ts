// Env leaks. Hooks of all three forms and the bash tool must not get the variable
// named by `api_key_env`, the default provider key variables, or credentials recognised by name or
// by value shape (DATABASE_URL with a password, MYSQL_PWD, SLACK_WEBHOOK_URL, SENTRY_DSN,
// npm_config__auth, AccountKey=/Password= connection strings) (D18, RUN-09, DIR-36, LIFE-29). And
// no child may read them from /proc/<agent pid>/environ or any ancestor's: the agent re-execs
// itself without them at start. A plain variable is the control that the dumps do see things.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeWorld, runCliAsync, writeScript, type World } from "../support/cli.ts";
import { startFakeOpenAI } from "../support/fake-openai.ts";

setDefaultTimeout(60_000);

/** name → a unique canary value; every one of these must stay away from every child. */
const SECRETS: Record<string, string> = {
  OPENAI_API_KEY: "sk-canary-openai-0a1b2c3d4e5f",
  ANTHROPIC_API_KEY: "sk-ant-canary-9f8e7d6c5b4a",
  LLM_CRED: "canary-configured-key-7d7d7d",
  DATABASE_URL: "postgres://app:canary-db-pass-31@db.internal:5432/app",
  MYSQL_PWD: "canary-mysql-pwd-41",
  SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T0000/B0000/canaryslack51",
  SENTRY_DSN: "https://canarysentry0123456789abcdef@o1.ingest.sentry.io/61",
  npm_config__auth: "Y2FuYXJ5LW5wbS1hdXRoLTcx",
  AZURE_STORAGE: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=canaryazure81==;EndpointSuffix=core.windows.net",
  SQLSERVER: "Server=db;Database=app;User Id=sa;Password=canary-sql-91;",
};
/** Reaches children (not a credential): proves the env dumps and the /proc walk work. */
const PLAIN = { PLAIN_CANARY: "plain-canary-value-101" };

/**
 * Dumps its env to `$OUT/<name>.env` and the environ of every ancestor (parent, grandparent, … up
 * to PID 1) to `$OUT/<name>.proc`. Field 4 of /proc/<pid>/stat (after the `(comm)`) is the ppid.
 */
const DUMP = `#!/bin/sh
cat >/dev/null 2>&1
env > "$OUT/$1.env"
: > "$OUT/$1.proc"
p=$PPID
while [ "$p" -gt 1 ]; do
  echo "== $p" >> "$OUT/$1.proc"
  tr '\\0' '\\n' < /proc/$p/environ >> "$OUT/$1.proc" 2>/dev/null
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
`;

function setUp(w: World): string {
  const dump = w.file("scripts/dump.sh", DUMP, { executable: true });
  w.file(join(w.agentHome, "config.toml"), `[providers.openai]\napi_key_env = "LLM_CRED"\n`);
  w.file(".agent/hooks/x/hook.json", JSON.stringify({ event: "pre_tool", run: "./run.sh" }));
  w.file(".agent/hooks/x/run.sh", `#!/bin/sh\nexec "${dump}" dir\n`, { executable: true });
  w.file(
    ".agent/settings.json",
    JSON.stringify({
      hooks: {
        enabled: true,
        before_tool: [{ label: "list", command: `${dump} list` }],
        lifecycle: { pre_tool_use: [{ hooks: [{ command: `${dump} lifecycle` }] }] },
      },
    }),
  );
  return dump;
}

function read(w: World, name: string): string {
  return readFileSync(join(w.root, name), "utf8");
}

function expectClean(w: World, forms: readonly string[]): void {
  for (const form of forms) {
    const env = read(w, `${form}.env`);
    const proc = read(w, `${form}.proc`);
    expect(env).toContain(`PLAIN_CANARY=${PLAIN.PLAIN_CANARY}`);
    // The walk reached the agent and beyond: several ancestors, the agent's own environ among them.
    expect(proc.split("\n").filter((line) => line.startsWith("== ")).length).toBeGreaterThanOrEqual(2);
    expect(proc).toContain(`PLAIN_CANARY=${PLAIN.PLAIN_CANARY}`);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect({ form, name, inEnv: env.includes(value) }).toEqual({ form, name, inEnv: false });
      // LLM_CRED has no secret-looking name: the user's config names it as a key, and main.ts reads
      // those names before the hand-over, so it leaves the agent's initial environment too.
      expect({ form, name, inProc: proc.includes(value) }).toEqual({ form, name, inProc: false });
    }
    expect(env).not.toContain("AGENT_CREDENTIAL_FD");
  }
}

describe("credentials never reach a child", () => {
  test("RUN-09 DIR-36 LIFE-29 hook dir, lifecycle and list hooks and the bash tool: no key in their env or in any ancestor's /proc environ", async () => {
    const w = makeWorld();
    const dump = setUp(w);
    writeScript(w, [{ tool_calls: [{ name: "bash", arguments: { command: `${dump} bash` } }] }, { text: "done" }], "s.json");
    const r = await runCliAsync(w, ["run", "--provider", "script", "--script", "s.json", "--permission-mode", "bypass", "--trust", "--no-session", "hi"], {
      env: w.env({ ...SECRETS, ...PLAIN, OUT: w.root }),
    });
    expect(r.stderr).not.toContain("failed");
    expect(r.code).toBe(0);
    expectClean(w, ["dir", "lifecycle", "list", "bash"]);
  });

  test("SEC-37 after the re-exec the provider still authenticates with the key from the hand-over, and bash sees none", async () => {
    const w = makeWorld();
    const dump = setUp(w);
    const server = await startFakeOpenAI([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: `${dump} bash` } }] }, { text: "done" }]);
    try {
      // The configured api_key_env is the one the openai provider reads.
      const r = await runCliAsync(
        w,
        ["run", "--provider", "openai", "--base-url", server.url, "--permission-mode", "bypass", "--trust", "--no-session", "hi"],
        {
          env: w.env({ ...SECRETS, ...PLAIN, OUT: w.root }),
        },
      );
      expect(r.code).toBe(0);
      expect(server.headers.map((headers) => headers.authorization)).toEqual([`Bearer ${SECRETS.LLM_CRED}`, `Bearer ${SECRETS.LLM_CRED}`]);
      expectClean(w, ["dir", "lifecycle", "list", "bash"]);
      for (const value of Object.values(SECRETS)) expect(JSON.stringify(server.requests)).not.toContain(value);
    } finally {
      await server.close();
    }
  });

  test("`agent --version` answers before the credential hand-over, and `--help` works through it", async () => {
    const w = makeWorld();
    const version = await runCliAsync(w, ["--version"], { env: w.env(SECRETS) });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^agent \d+\.\d+\.\d+\n$/);
    const help = await runCliAsync(w, ["--help"], { env: w.env(SECRETS) });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage");
  });
});
