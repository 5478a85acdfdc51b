/**
 * Writes the test corpora the suite reads: test/fixtures/secrets.jsonl (text lines holding one
 * secret, or none) and test/fixtures/preflight.jsonl (hook commands with their expected verdict).
 * Our own cases, generated from a seeded PRNG so every run writes the same bytes: the suite checks
 * that the committed files equal this output (test/hooks/fixtures.test.ts), so edit the templates
 * here and run `bun scripts/gen-fixtures.ts`, never the JSONL by hand.
 *
 * Positive secret lines name in `kind` the detector rule (src/hooks/secrets/rules.ts RULES id) that
 * must redact them; the expectation is written here from the rule's documented shape, never by
 * running the detector. Negative lines (`secret: null`) must come back byte-identical.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SecretCase {
  id: string;
  text: string;
  secret: string | null;
  kind: string;
}

export interface PreflightCase {
  id: string;
  cmd: string;
  expect: "accept" | "reject";
  /** The rule a rejection names (src/hooks/shell/preflight.ts PreflightRule). */
  rule?: string;
  why: string;
  absolute_paths: boolean;
}

/** mulberry32: tiny, seedable, and the same on every runtime. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";
const B64 = ALNUM + "+/";
const TOKEN = ALNUM + "_-";

class Gen {
  constructor(private readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  /** `n` characters of `alphabet`, with at least one digit and one letter when the alphabet has both. */
  chars(alphabet: string, n: number): string {
    for (;;) {
      let out = "";
      for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)]!;
      const mixed = /[0-9]/.test(out) && /[A-Za-z]/.test(out);
      if (mixed || !/[0-9]/.test(alphabet) || !/[A-Za-z]/.test(alphabet)) return out;
    }
  }
  word(): string {
    return this.pick(["build", "deploy", "notify", "audit", "sync", "report", "check", "lint", "format", "release", "backup", "index"]);
  }
}

// ---------------------------------------------------------------------------------------------
// secrets: positives, one family per detector rule

type Positive = (g: Gen) => { name: string; text: string; secret: string }[];

const pem = (g: Gen, label: string): string => {
  const lines = Array.from({ length: 4 }, () => g.chars(B64, 64));
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n${g.chars(B64, 20)}==\n-----END ${label}-----`;
};

const POSITIVES: Record<string, Positive> = {
  private_key: (g) => {
    const rsa = pem(g, "RSA PRIVATE KEY");
    const ossh = pem(g, "OPENSSH PRIVATE KEY");
    const ec = pem(g, "EC PRIVATE KEY");
    return [
      { name: "rsa-file", text: `$ cat deploy/id_rsa\n${rsa}\n$ `, secret: rsa },
      { name: "openssh-yaml", text: `ssh_key: |\n${ossh}`, secret: ossh },
      { name: "ec-log", text: `loaded signing material ${ec} from vault`, secret: ec },
    ];
  },
  anthropic_api_key: (g) => {
    const a = `sk-ant-api03-${g.chars(TOKEN, 80)}AA`;
    const b = `sk-ant-admin01-${g.chars(TOKEN, 60)}`;
    const c = `sk-ant-api03-${g.chars(TOKEN, 90)}`;
    return [
      { name: "env", text: `ANTHROPIC_API_KEY=${a}`, secret: a },
      { name: "header", text: `curl -H "x-api-key: ${b}" https://api.anthropic.com/v1/messages`, secret: b },
      { name: "json", text: JSON.stringify({ provider: "anthropic", settings: { api_key: c, model: "claude" } }), secret: c },
    ];
  },
  openrouter_api_key: (g) => {
    const a = `sk-or-v1-${g.chars(HEX, 64)}`;
    const b = `sk-or-v1-${g.chars(HEX, 64)}`;
    return [
      { name: "env", text: `export OPENROUTER_API_KEY="${a}"`, secret: a },
      { name: "prose", text: `the router rejected ${b} with 401`, secret: b },
    ];
  },
  openai_api_key: (g) => {
    const a = `sk-proj-${g.chars(TOKEN, 120)}`;
    const b = `sk-svcacct-${g.chars(TOKEN, 80)}`;
    const c = `sk-${g.chars(ALNUM, 48)}`;
    return [
      { name: "dotenv", text: `OPENAI_API_KEY=${a}`, secret: a },
      { name: "python", text: `client = OpenAI(api_key="${b}")`, secret: b },
      { name: "legacy", text: `Incorrect API key provided: ${c}. You can find your key at the dashboard.`, secret: c },
    ];
  },
  stripe_api_key: (g) => {
    const a = `sk_live_${g.chars(ALNUM, 40)}`;
    const b = `rk_test_${g.chars(ALNUM, 32)}`;
    return [
      { name: "js", text: `const stripe = new Stripe('${a}');`, secret: a },
      { name: "yaml", text: `stripe:\n  restricted: ${b}`, secret: b },
    ];
  },
  github_pat: (g) => {
    const a = `ghp_${g.chars(ALNUM, 36)}`;
    const b = `ghp_${g.chars(ALNUM, 36)}`;
    return [
      { name: "remote", text: `git remote set-url origin https://x-access-token@github.com/acme/app.git # ${a}`, secret: a },
      { name: "env", text: `GH_TOKEN=${b} gh pr list`, secret: b },
    ];
  },
  github_oauth: (g) => {
    const a = `gho_${g.chars(ALNUM, 36)}`;
    return [{ name: "hosts", text: `github.com:\n    oauth_token: ${a}\n    user: octo`, secret: a }];
  },
  github_app_token: (g) => {
    const a = `ghs_${g.chars(ALNUM, 36)}`;
    const b = `ghu_${g.chars(ALNUM, 36)}`;
    return [
      { name: "installation", text: `installation token ${a} expires in 1h`, secret: a },
      { name: "user", text: `{"access_token":"${b}","token_type":"bearer"}`, secret: b },
    ];
  },
  github_refresh_token: (g) => {
    const a = `ghr_${g.chars(ALNUM, 76)}`;
    return [{ name: "query", text: `refresh_token=${a}&grant_type=refresh_token`, secret: a }];
  },
  github_fine_grained_pat: (g) => {
    const a = `github_pat_${g.chars(ALNUM, 22)}_${g.chars(ALNUM, 59)}`;
    return [{ name: "action", text: `      GITHUB_TOKEN: ${a}`, secret: a }];
  },
  gitlab_token: (g) => {
    const a = `glpat-${g.chars(TOKEN, 20)}`;
    const b = `glrt-${g.chars(TOKEN, 24)}`;
    return [
      { name: "header", text: `PRIVATE-TOKEN: ${a}`, secret: a },
      { name: "runner", text: `gitlab-runner register --url https://gitlab.example.org ${b}`, secret: b },
    ];
  },
  aws_access_key_id: (g) => {
    const a = `AKIA${g.chars(UPPER + DIGITS, 16)}`;
    const b = `ASIA${g.chars(UPPER + DIGITS, 16)}`;
    return [
      { name: "ini", text: `[default]\naws_access_key_id = ${a}`, secret: a },
      { name: "sts", text: `Credentials: {"AccessKeyId": "${b}"}`, secret: b },
    ];
  },
  discord_bot_token: (g) => {
    // The first part is a base64 Discord id (17–20 digits, no leading 0).
    const id = `${1 + g.int(9)}${g.chars(DIGITS, 17)}`;
    const head = Buffer.from(id).toString("base64").replace(/=+$/, "");
    const a = `${head}.${g.chars(TOKEN, 6)}.${g.chars(TOKEN, 30)}`;
    return [{ name: "env", text: `client.login("${a}")`, secret: a }];
  },
  netrc_password: (g) => {
    const a = g.chars(ALNUM, 14);
    const b = g.chars(ALNUM, 12);
    return [
      { name: "one-line", text: `machine api.example.org login ci password ${a}`, secret: a },
      { name: "multi-line", text: `machine git.example.org\n  login deploy\n  password ${b}`, secret: b },
    ];
  },
  google_api_key: (g) => {
    const a = `AIza${g.chars(TOKEN, 35)}`;
    return [{ name: "url", text: `GET https://maps.example.com/api/geocode/json?address=Paris&key=${a} 200`, secret: a }];
  },
  google_oauth_client_secret: (g) => {
    const a = `GOCSPX-${g.chars(TOKEN, 28)}`;
    return [{ name: "json", text: `{"installed":{"client_id":"1234.apps.example.com","client_secret":"${a}"}}`, secret: a }];
  },
  slack_token: (g) => {
    const a = `xoxb-${g.chars(DIGITS, 12)}-${g.chars(DIGITS, 13)}-${g.chars(ALNUM, 24)}`;
    const b = `xapp-1-A${g.chars(UPPER + DIGITS, 10)}-${g.chars(DIGITS, 13)}-${g.chars(HEX, 64)}`;
    return [
      { name: "bot", text: `SLACK_BOT_TOKEN=${a}`, secret: a },
      { name: "app", text: `socket mode with ${b} connected`, secret: b },
    ];
  },
  slack_webhook: (g) => {
    const a = `https://hooks.slack.com/services/T${g.chars(UPPER + DIGITS, 8)}/B${g.chars(UPPER + DIGITS, 10)}/${g.chars(ALNUM, 24)}`;
    return [{ name: "curl", text: `curl -X POST -d '{"text":"done"}' ${a}`, secret: a }];
  },
  discord_webhook: (g) => {
    const a = `https://discord.com/api/webhooks/${g.chars(DIGITS, 18)}/${g.chars(TOKEN, 68)}`;
    return [{ name: "config", text: `webhook = "${a}"`, secret: a }];
  },
  npm_token: (g) => {
    const a = `npm_${g.chars(ALNUM, 36)}`;
    return [{ name: "npmrc", text: `//registry.npmjs.org/:_authToken=${a}`, secret: a }];
  },
  pypi_token: (g) => {
    const a = `pypi-AgEIcHlwaS5vcmc${g.chars(TOKEN, 70)}`;
    return [{ name: "pypirc", text: `[pypi]\n  username = __token__\n  password = ${a}`, secret: a }];
  },
  huggingface_token: (g) => {
    const a = `hf_${g.chars(ALNUM, 34)}`;
    return [{ name: "cli", text: `huggingface-cli login --token ${a}`, secret: a }];
  },
  sendgrid_api_key: (g) => {
    const a = `SG.${g.chars(TOKEN, 22)}.${g.chars(TOKEN, 43)}`;
    return [{ name: "env", text: `SENDGRID_API_KEY=${a}`, secret: a }];
  },
  twilio_api_key: (g) => {
    const a = `SK${g.chars(HEX, 32)}`;
    return [{ name: "log", text: `twilio: authenticating with key sid ${a}`, secret: a }];
  },
  digitalocean_token: (g) => {
    const a = `dop_v1_${g.chars(HEX, 64)}`;
    return [{ name: "doctl", text: `doctl auth init --context ci <<< ${a}`, secret: a }];
  },
  shopify_token: (g) => {
    const a = `shpat_${g.chars(HEX, 32)}`;
    return [{ name: "header", text: `X-Shopify-Access-Token: ${a}`, secret: a }];
  },
  docker_hub_pat: (g) => {
    const a = `dckr_pat_${g.chars(TOKEN, 27)}`;
    return [{ name: "login", text: `echo ${a} | docker login -u ci --password-stdin`, secret: a }];
  },
  vault_token: (g) => {
    const a = `hvs.${g.chars(TOKEN, 90)}`;
    return [{ name: "env", text: `VAULT_TOKEN=${a} vault kv get secret/app`, secret: a }];
  },
  google_oauth_access_token: (g) => {
    const a = `ya29.${g.chars(TOKEN, 120)}`;
    return [{ name: "gcloud", text: `access token: ${a}`, secret: a }];
  },
  age_secret_key: (g) => {
    const a = `AGE-SECRET-KEY-1${g.chars(UPPER + DIGITS, 58)}`;
    return [{ name: "keyfile", text: `# created: 2024-01-01T10:00:00Z\n${a}`, secret: a }];
  },
  jwt: (g) => {
    const seg = (n: number): string => g.chars(TOKEN, n);
    const a = `eyJhbGciOiJIUzI1NiJ9.eyJ${seg(40)}.${seg(43)}`;
    const b = `eyJ0eXAiOiJKV1QifQ.eyJ${seg(60)}.${seg(86)}`;
    return [
      { name: "cookie-less", text: `id_token=${a}`, secret: a },
      { name: "prose", text: `decoded ${b} and found exp in the past`, secret: b },
    ];
  },
  telegram_bot_token: (g) => {
    const a = `${g.chars(DIGITS, 10)}:AA${g.chars(TOKEN, 33)}`;
    return [{ name: "url", text: `POST https://api.telegram.org/bot${a}/sendMessage`, secret: a }];
  },
  bearer_token: (g) => {
    const a = g.chars(ALNUM + "-._~+/", 40);
    const b = g.chars(ALNUM, 32);
    return [
      { name: "header", text: `Authorization: Bearer ${a}`, secret: a },
      { name: "curl", text: `curl -H 'authorization: bearer ${b}' https://internal.example.net/api`, secret: b },
    ];
  },
  basic_auth: (g) => {
    const a = `${g.chars(ALNUM, 30)}==`;
    return [{ name: "header", text: `> Authorization: Basic ${a}`, secret: a }];
  },
  url_credentials: (g) => {
    const a = g.chars(ALNUM, 14);
    const b = g.chars(ALNUM + "!*", 18);
    return [
      { name: "postgres", text: `DATABASE_URL=postgres://app:${a}@db.internal:5432/app`, secret: a },
      { name: "amqp", text: `connecting to amqp://worker:${b}@mq.local/vhost`, secret: b },
    ];
  },
  cookie: (g) => {
    const a = g.chars(ALNUM, 32);
    const b = g.chars(HEX + UPPER, 40);
    return [
      { name: "request", text: `Cookie: theme=dark; sessionid=${a}`, secret: a },
      { name: "response", text: `set-cookie: __Host-sid=${b}; Path=/; Secure; HttpOnly`, secret: b },
    ];
  },
  cli_credential: (g) => {
    const a = g.chars(ALNUM, 16);
    const b = g.chars(ALNUM, 20);
    const c = g.chars(ALNUM, 12);
    return [
      { name: "long-flag", text: `mysqladmin --user=root --password=${a} status`, secret: a },
      { name: "token-flag", text: `deployctl push --token ${b} --env staging`, secret: b },
      { name: "short-p", text: `mysql -u admin -p${c} -h db.local`, secret: c },
    ];
  },
  generic_assignment: (g) => {
    const a = g.chars(ALNUM + "/+", 40);
    const b = g.chars(ALNUM, 20);
    const c = g.chars(ALNUM + "!#%", 16);
    const d = g.chars(B64, 86) + "==";
    const e = g.chars(ALNUM, 24);
    return [
      { name: "aws-secret", text: `aws_secret_access_key = ${a}`, secret: a },
      { name: "yaml", text: `database:\n  password: "${b}"\n  pool: 5`, secret: b },
      { name: "ts", text: `const clientSecret = '${c}';`, secret: c },
      { name: "azure", text: `AccountName=acme;AccountKey=${d};EndpointSuffix=core.windows.net`, secret: d },
      { name: "header", text: `X-Api-Key: ${e}`, secret: e },
    ];
  },
};

// ---------------------------------------------------------------------------------------------
// secrets: negatives, text that looks busy but holds no credential

const NEGATIVES: Record<string, (g: Gen) => string[]> = {
  identifier: (g) => [
    `function resolve${g.word()}TokenBudget(maxTokens: number) {`,
    "const passwordMinLength = 12;",
    `export class SecretStoreProvider${g.int(9)} implements KeyValueStore {}`,
    "if (token_type === 'bearer') refresh();",
  ],
  digest: (g) => [
    `commit ${g.chars(HEX, 40)}`,
    `sha256:${g.chars(HEX, 64)}  dist/agent`,
    `"integrity": "sha512-${g.chars(B64, 86)}=="`,
    `Merge: ${g.chars(HEX, 7)} ${g.chars(HEX, 7)}`,
  ],
  uuid: (g) => [`request ${g.chars(HEX, 8)}-${g.chars(HEX, 4)}-4${g.chars(HEX, 3)}-a${g.chars(HEX, 3)}-${g.chars(HEX, 12)} finished`],
  base64_blob: (g) => [`data:image/png;base64,${g.chars(B64, 120)}`, `  "icon": "${g.chars(B64, 64)}="`],
  placeholder: () => [
    "OPENAI_API_KEY=<your-api-key>",
    "password: ${DB_PASSWORD}",
    'token = "changeme"',
    "api_key: YOUR_API_KEY_HERE",
    "export GITHUB_TOKEN=$(gh auth token)",
    "secret = '[REDACTED]'",
    "Authorization: Bearer <token>",
  ],
  key_metadata: (g) => [
    `token_url = https://auth.example.com/oauth/${g.word()}`,
    "secret_length=64",
    "max_tokens: 4096",
    "api_key_file: ./config/keys.json",
    "password_expiry_days = 90",
  ],
  weak_value: () => ["password=hunter", "token: short1", "passphrase = correct horse battery staple"],
  url: (g) => [`https://docs.example.com/guide/${g.word()}?page=${g.int(90) + 10}#section-${g.int(9)}`, "git clone https://github.com/acme/widgets.git"],
  number: (g) => [`took ${g.int(9000) + 1000} ms, ${g.int(900) + 100} tokens, cost 0.0${g.int(90) + 10}`],
  path: (g) => [`src/${g.word()}/token-counter.ts:${g.int(400) + 1}:${g.int(80) + 1}`, "~/.ssh/id_ed25519.pub"],
  prose: () => [
    "Rotate the API key in the dashboard, then update the secret in CI.",
    "The bearer scheme is described in RFC 6750.",
    "Basic authentication sends the credentials base64-encoded.",
  ],
  agent_ids: (g) => [
    `{"session_id":"${g.chars(HEX, 8)}-${g.chars(HEX, 4)}","tool_use_id":"toolu_${g.chars(ALNUM, 24)}"}`,
    `call_id=call_${g.chars(ALNUM, 24)}`,
  ],
};

export function secretsCorpus(seed = 20240611): SecretCase[] {
  const g = new Gen(prng(seed));
  const lines: SecretCase[] = [];
  for (const [kind, make] of Object.entries(POSITIVES)) {
    for (const { name, text, secret } of make(g)) lines.push({ id: `pos-${kind}-${name}`, text, secret, kind });
  }
  for (const [kind, make] of Object.entries(NEGATIVES)) {
    make(g).forEach((text, i) => lines.push({ id: `neg-${kind}-${i + 1}`, text, secret: null, kind }));
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// preflight: every rule, rejected and accepted look-alikes, both absolute_paths settings

export function preflightCorpus(seed = 20240612): PreflightCase[] {
  const g = new Gen(prng(seed));
  const lines: PreflightCase[] = [];
  const add = (cmd: string, expect: "accept" | "reject", why: string, absolute_paths: boolean, rule?: string): void => {
    lines.push({ id: `pf-${String(lines.length + 1).padStart(3, "0")}`, cmd, expect, ...(rule === undefined ? {} : { rule }), why, absolute_paths });
  };
  const script = (): string => `scripts/${g.word()}-${g.int(90) + 10}.sh`;
  for (const abs of [false, true]) {
    add(script(), "accept", "relative script", abs);
    add(`./${script()}`, "accept", "./ relative script", abs);
    add(`python3 ${script().replace(/\.sh$/, ".py")} --mode ${g.word()}`, "accept", "interpreter, script and flags", abs);
    add(`bun run hooks/${g.word()}.ts`, "accept", "bun run with a relative file", abs);
    add(`${script()} | tee hook.log`, "accept", "shell operators are allowed", abs);
    add(`${script()} && ${script()}`, "accept", "&& is allowed", abs);
    add(`node hooks/${g.word()}.mjs "two words"`, "accept", "double-quoted argument", abs);
    add(`${script()}\t--verbose`, "accept", "TAB is a separator, not a control character", abs);
    add(`./hooks/abcd-${g.word()}.sh`, "accept", "cd inside a word is not cd", abs);
    add(`${script()} --flag=cd`, "accept", "cd after = is not the word cd", abs);
    add(`${script()} v1..v2`, "accept", ".. inside a component is not ..", abs);
    add(`./hooks/..${g.word()}/run.sh`, "accept", "..name is not ..", abs);
    add(`${script()} https://example.com/${g.word()}`, "accept", "a URL is not an absolute path", abs);
    add(`${script()} 50%`, "accept", "% is an ordinary character", abs);
    add(`$HOME/${script()}`, "reject", "$ expands", abs, "$");
    add(`${script()} '$PATH'`, "reject", "$ is rejected even single-quoted", abs, "$");
    add(`${script()} \\$USER`, "reject", "$ is rejected even escaped", abs, "$");
    add(`~/${script()}`, "reject", "~ expands", abs, "~");
    add(`${script()} --out=~/x`, "reject", "~ anywhere", abs, "~");
    add(`${script()} \`whoami\``, "reject", "backquote substitution", abs, "`");
    add(`hooks/{${g.word()},${g.word()}}.sh`, "reject", "brace expansion", abs, "{");
    add(`${script()} }`, "reject", "a lone closing brace", abs, "}");
    add(`${script()}\n${script()}`, "reject", "newline", abs, "control character");
    add(`${script()}\r`, "reject", "carriage return", abs, "control character");
    add(`${script()}\u001b[0m`, "reject", "escape character", abs, "control character");
    add(`cd hooks && ./${g.word()}.sh`, "reject", "cd as a word", abs, "cd");
    add(`${script()};cd ..`, "reject", "cd after ;", abs, "cd");
    add(`(cd hooks)`, "reject", "cd after (", abs, "cd");
    add(`"cd" hooks`, "reject", "quoted cd is cd", abs, "cd");
    add(`c\\d hooks`, "reject", "escaped cd is cd", abs, "cd");
    add(`../hooks/${g.word()}.sh`, "reject", ".. leading component", abs, "..");
    add(`hooks/../../${g.word()}.sh`, "reject", ".. inner component", abs, "..");
    add(`${script()} --config=../outside.toml`, "reject", ".. after =", abs, "..");
    add(`..\\hooks\\${g.word()}.ps1`, "reject", ".. with backslashes", abs, "..");
  }
  const absolute = [
    [`/usr/local/bin/${g.word()}-hook`, "absolute program"],
    [`python3 /opt/hooks/${g.word()}.py`, "absolute script argument"],
    [`${script()} > /dev/null`, "absolute redirect target"],
    [`${script()} --log=/var/log/${g.word()}.log`, "absolute path after ="],
    [`C:\\hooks\\${g.word()}.exe`, "drive path"],
    [`D:/hooks/${g.word()}.exe`, "drive path with slash"],
    [`\\\\server\\share\\${g.word()}.ps1`, "UNC path"],
  ] as const;
  for (const [cmd, why] of absolute) {
    add(cmd, "reject", `${why} with absolute_paths false`, false, "absolute path");
    add(cmd, "accept", `${why} with absolute_paths true`, true);
  }
  add(`${script()} C:x`, "accept", "drive letter without a slash is relative", false);
  add(`/opt/hooks/../etc/${g.word()}.sh`, "reject", ".. wins over the absolute_paths setting", true, "..");
  return lines;
}

function jsonl(rows: readonly object[]): string {
  return rows.map((row) => JSON.stringify(row)).join("\n") + "\n";
}

export const FIXTURES_DIR = join(import.meta.dir, "..", "test", "fixtures");

export function renderFixtures(): { "secrets.jsonl": string; "preflight.jsonl": string } {
  return { "secrets.jsonl": jsonl(secretsCorpus()), "preflight.jsonl": jsonl(preflightCorpus()) };
}

if (import.meta.main) {
  for (const [name, text] of Object.entries(renderFixtures())) {
    writeFileSync(join(FIXTURES_DIR, name), text);
    console.log(`wrote test/fixtures/${name} (${text.split("\n").length - 1} lines)`);
  }
}
