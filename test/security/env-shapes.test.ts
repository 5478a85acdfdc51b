// item 6, unit part: D18 stripping extended by name (MYSQL_PWD, SENTRY_DSN,
// NPM_CONFIG__AUTH in any case, *WEBHOOK*, connection strings) and by value shape (URLs with a
// password or a key in their userinfo, Slack/Discord webhooks, AccountKey=/Password= strings),
// plus every configured `api_key_env`; ordinary look-alikes pass.
import { describe, expect, test } from "bun:test";
import { isCredentialEnv, isSecretEnvValue, stripEnv } from "../../src/hooks/shell/env.ts";
import { providerKeyVarsFor, PROVIDER_KEY_VARS } from "../../src/hooks/engine.ts";

describe("credential names and value shapes (D18 extended)", () => {
  test("RUN-09 the issue's variables are stripped by name", () => {
    const parent = {
      MYSQL_PWD: "x1",
      SENTRY_DSN: "x2",
      NPM_CONFIG__AUTH: "x3",
      npm_config__auth: "x4",
      Npm_Config__Auth: "x5",
      SLACK_WEBHOOK_URL: "x6",
      AZURE_CONNECTION_STRING: "x7",
      PATH: "/bin",
    };
    const { env, strippedValues } = stripEnv(parent, { providerKeyVars: [] });
    expect(env).toEqual({ PATH: "/bin" });
    expect(strippedValues.sort()).toEqual(["x1", "x2", "x3", "x4", "x5", "x6", "x7"]);
  });

  test("RUN-09 credentials are stripped by value shape whatever the name", () => {
    const shaped = [
      "postgres://app:s3cret@db:5432/app",
      "mysql://root:pw@localhost/x",
      "redis://:onlypass@cache:6379/0",
      "https://0123456789abcdef0123@o1.ingest.sentry.io/1",
      "https://hooks.slack.com/services/T000/B000/XXXX",
      "https://discord.com/api/webhooks/1/abc",
      "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==;EndpointSuffix=core.windows.net",
      "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=abc=",
      "Server=db;Database=app;User Id=sa;Password=pw;",
      "Data Source=db;Pwd=pw",
    ];
    for (const value of shaped) expect({ value, secret: isSecretEnvValue(value) }).toEqual({ value, secret: true });
    const parent: Record<string, string> = { PATH: "/bin" };
    shaped.forEach((value, i) => (parent[`CONFIG_${i}`] = value));
    expect(stripEnv(parent, { providerKeyVars: [] }).env).toEqual({ PATH: "/bin" });
  });

  test("RUN-09 look-alikes pass: plain URLs, SSH_AUTH_SOCK, GIT_AUTHOR_NAME, PWD, short userinfo", () => {
    const kept = {
      PATH: "/usr/bin:/bin",
      SSH_AUTH_SOCK: "/tmp/ssh.sock",
      GIT_AUTHOR_NAME: "A B",
      PWD: "/p",
      OLDPWD: "/q",
      HTTP_PROXY: "http://proxy.internal:3128",
      REPO_URL: "https://github.com/org/repo.git",
      GIT_SSH_URL: "ssh://git@github.com/org/repo.git",
      DATABASE_URL: "postgres://db:5432/app",
      EDITOR: "vim",
    };
    expect(stripEnv(kept, { providerKeyVars: [] }).env).toEqual(kept);
    for (const [name, value] of Object.entries(kept)) expect(isCredentialEnv(name, value)).toBe(false);
  });

  test("RUN-09 every configured api_key_env is a provider key variable, besides the defaults", () => {
    const names = providerKeyVarsFor({ openai: { apiKeyEnv: "LLM_CRED" }, anthropic: { apiKeyEnv: "CLAUDE_CRED" }, script: {} });
    expect(names.sort()).toEqual([...PROVIDER_KEY_VARS, "LLM_CRED", "CLAUDE_CRED"].sort());
    const { env } = stripEnv({ LLM_CRED: "k1", CLAUDE_CRED: "k2", PATH: "/bin" }, { providerKeyVars: names });
    expect(env).toEqual({ PATH: "/bin" });
  });

  test("RUN-09 vendor tokens under plain names go by the redaction rules; vault sessions by name", () => {
    const tokens = {
      GITHUB_PAT: `ghp_${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}`,
      GL: `glpat-${"xY9zA8bC7dE6fG5hI4jK"}`,
      PAYMENTS: `sk_live_${"51HxYz2AbCdEfGhIjKlMnOpQr"}`,
      BOT: `xoxb-${"123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"}`,
      HF: `hf_${"AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"}`,
      BW_SESSION: "short",
      OP_SESSION_my: "abc",
    };
    const kept = {
      PATH: "/usr/bin:/bin",
      GIT_COMMIT: "3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
      RUN_ID: "123e4567-e89b-12d3-a456-426614174000",
      IMAGE: "ghcr.io/org/image:sha-3f2a9c1",
      NODE_OPTIONS: "--max-old-space-size=4096",
      SESSION_NAME: "work",
    };
    const { env, strippedValues } = stripEnv({ ...tokens, ...kept }, { providerKeyVars: [] });
    expect(env).toEqual(kept);
    expect(strippedValues.sort()).toEqual(Object.values(tokens).sort());
  });

  test("the hand-over marker AGENT_CREDENTIAL_FD never reaches a child", () => {
    expect(stripEnv({ AGENT_CREDENTIAL_FD: "3", PATH: "/bin" }, { providerKeyVars: [] }).env).toEqual({ PATH: "/bin" });
  });
});
