import { describe, expect, test } from "bun:test";
import { buildHookEnv, INJECTED_ENV_NAMES, stripEnv } from "../../src/hooks/shell/env.ts";

const SECRET_NAMES = [
  "OPENAI_API_KEY",
  "anthropic_api_key",
  "APP_SECRET",
  "GITHUB_TOKEN",
  "DB_PASSWORD",
  "SMTP_PASSWD",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "SSH_PRIVATE_KEY",
  "HTTP_AUTHORIZATION",
  "BEARER_VALUE",
  "OAUTH_CLIENT",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "OPENAI_KEY",
  "STRIPE_KEY",
];
const KEPT = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  SAFE_VALUE: "1",
  KEYBOARD_LAYOUT: "us",
  MONKEY_MODE: "on",
  SSH_AUTH_SOCK: "/tmp/agent.sock",
};

describe("env stripping (D18)", () => {
  test("RUN-09 secret-named variables and the provider key variable are stripped; ordinary ones pass", () => {
    const parent: Record<string, string> = { ...KEPT, MY_PROVIDER_CRED_VAR: "provider-value-123" };
    SECRET_NAMES.forEach((name, i) => (parent[name] = `value-${i}-abcdefgh`));
    const { env, strippedValues } = stripEnv(parent, { providerKeyVars: ["MY_PROVIDER_CRED_VAR"] });
    for (const name of [...SECRET_NAMES, "MY_PROVIDER_CRED_VAR"]) expect(env[name]).toBeUndefined();
    expect(env).toEqual(KEPT);
    expect(strippedValues.sort()).toEqual([...SECRET_NAMES.map((_, i) => `value-${i}-abcdefgh`), "provider-value-123"].sort());
  });

  test("RUN-10 PWD, OLDPWD and TOKENIZERS_PARALLELISM are kept", () => {
    const { env } = stripEnv({ PWD: "/x", OLDPWD: "/y", TOKENIZERS_PARALLELISM: "false" }, { providerKeyVars: [] });
    expect(env).toEqual({ PWD: "/x", OLDPWD: "/y", TOKENIZERS_PARALLELISM: "false" });
  });

  test("RUN-11 BASH_ENV, ENV and exported bash functions are removed (and are not secrets)", () => {
    const { env, strippedValues } = stripEnv(
      { BASH_ENV: "/tmp/evil.sh", ENV: "/tmp/evil.sh", "BASH_FUNC_ls%%": "() { touch /tmp/agent-fn-ran; }", PATH: "/bin" },
      { providerKeyVars: [] },
    );
    expect(env).toEqual({ PATH: "/bin" });
    expect(strippedValues).toEqual([]);
  });

  test("RUN-13 every injected dialect name is removed from the parent; other prefixed names pass", () => {
    const parent: Record<string, string> = { CLAUDE_CONFIG_DIR: "/c", AGENT_HOME: "/h", VT_OTHER: "1" };
    for (const name of INJECTED_ENV_NAMES) parent[name] = "stale";
    const { env } = stripEnv(parent, { providerKeyVars: [] });
    expect(env).toEqual({ CLAUDE_CONFIG_DIR: "/c", AGENT_HOME: "/h", VT_OTHER: "1" });
  });
});

describe("hook env (RUN-12, RUN-13, LOOP-41)", () => {
  const vars = { event: "pre_tool" as const, sessionId: "s-1", cwd: "/p/pkg", projectDir: "/p", transcriptPath: "/h/sessions/s-1.jsonl" };
  const agentNames = {
    AGENT_HOOK_EVENT: "pre_tool",
    AGENT_SESSION_ID: "s-1",
    AGENT_CWD: "/p/pkg",
    AGENT_PROJECT_DIR: "/p",
    AGENT_TRANSCRIPT_PATH: "/h/sessions/s-1.jsonl",
  };

  test("RUN-12 list hooks get only the AGENT_* names", () => {
    expect(buildHookEnv({ PATH: "/bin" }, "envelope", vars)).toEqual({ PATH: "/bin", ...agentNames });
  });

  test("RUN-12 claude hooks also get CLAUDE_* and VT_* (VT_HOOK_EVENT is the Claude-style name)", () => {
    expect(buildHookEnv({ PATH: "/bin" }, "claude", vars)).toEqual({
      PATH: "/bin",
      ...agentNames,
      CLAUDE_PROJECT_DIR: "/p",
      CLAUDE_SESSION_ID: "s-1",
      CLAUDE_TRANSCRIPT_PATH: "/h/sessions/s-1.jsonl",
      // Claude Code's own names.
      CLAUDECODE: "1",
      CLAUDE_CODE_SESSION_ID: "s-1",
      VT_PROJECT_DIR: "/p",
      VT_SESSION_ID: "s-1",
      VT_HOOK_EVENT: "PreToolUse",
      VT_TRANSCRIPT_PATH: "/h/sessions/s-1.jsonl",
    });
  });

  test("RUN-12 action hooks also get PHI_* (PHI_CWD is the agent cwd, PHI_PROJECT_DIR the root)", () => {
    expect(buildHookEnv({}, "action", vars)).toEqual({
      ...agentNames,
      PHI_HOOK_EVENT: "pre_tool",
      PHI_SESSION_ID: "s-1",
      PHI_CWD: "/p/pkg",
      PHI_PROJECT_DIR: "/p",
    });
  });

  test("RUN-13 stale names never pass through, whatever the dialect", () => {
    const stale = { AGENT_HOOK_EVENT: "stale", CLAUDE_PROJECT_DIR: "/wrong", VT_SESSION_ID: "old", PHI_CWD: "/wrong" };
    const action = buildHookEnv(stale, "action", vars);
    expect(action.PHI_CWD).toBe("/p/pkg");
    expect(action.AGENT_HOOK_EVENT).toBe("pre_tool");
    expect(Object.keys(action).filter((k) => k.startsWith("CLAUDE_") || k.startsWith("VT_"))).toEqual([]);
    const claude = buildHookEnv(stale, "claude", vars);
    expect(claude.CLAUDE_PROJECT_DIR).toBe("/p");
    expect(claude.VT_SESSION_ID).toBe("s-1");
    expect(Object.keys(claude).filter((k) => k.startsWith("PHI_"))).toEqual([]);
  });

  test("transcript variables are unset without a session file", () => {
    const env = buildHookEnv({ AGENT_TRANSCRIPT_PATH: "/stale" }, "claude", { ...vars, transcriptPath: null });
    expect(Object.keys(env).filter((k) => k.endsWith("TRANSCRIPT_PATH"))).toEqual([]);
  });

  test("SEC-37 a hook env built from a stripped parent holds no secret and no BASH_ENV", () => {
    const { env } = stripEnv({ OPENAI_API_KEY: "sk-canary-0123456789abcdef", BASH_ENV: "/tmp/evil.sh", PWD: "/w" }, { providerKeyVars: [] });
    const hookEnv = buildHookEnv(env, "envelope", vars);
    expect(Object.values(hookEnv)).not.toContain("sk-canary-0123456789abcdef");
    expect(hookEnv.BASH_ENV).toBeUndefined();
    expect(hookEnv.PWD).toBe("/w");
  });
});
