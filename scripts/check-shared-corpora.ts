/**
 * Extra check, not part of `npm test`: runs the suite's corpus checks (test/support/corpus-checks.ts)
 * over the workplace corpora in ../shared/corpora, which a plain clone does not have. `.ci/run`
 * calls it when that directory exists. Usage: bun scripts/check-shared-corpora.ts [corpora-dir]
 * Exits 0 when every line gets its expected result, 1 with the failing ids otherwise.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { bareMisses, insertionMisses, preflightMisses, redactionMisses, spanMisses } from "../test/support/corpus-checks.ts";
import { readJsonl, type PreflightLine, type SecretLine } from "../test/support/fixtures.ts";

const dir = resolve(process.argv[2] ?? join(import.meta.dir, "..", "..", "shared", "corpora"));
const secretsPath = join(dir, "secrets.jsonl");
const preflightPath = join(dir, "preflight.jsonl");
if (!existsSync(secretsPath) || !existsSync(preflightPath)) {
  console.error(`check-shared-corpora: ${dir} lacks secrets.jsonl or preflight.jsonl; pass the corpora directory as the first argument`);
  process.exit(2);
}

/** Shared lines that hold a second, different secret the detector rightly removes too. */
const MULTI_SECRET = new Set(["pos-148-aws_secret_key"]);
/** The shared corpus's names for the families found by token shape alone, with no key around them. */
const BARE_KINDS = new Set([
  "github_pat",
  "github_oauth",
  "github_app_token",
  "github_refresh_token",
  "github_fine_grained_pat",
  "gitlab_pat",
  "openai_api_key",
  "anthropic_api_key",
  "openrouter_key",
  "generic_sk_key",
  "stripe_key",
  "aws_access_key",
  "google_api_key",
  "google_oauth_client_secret",
  "slack_bot_token",
  "slack_user_token",
  "slack_app_token",
  "slack_webhook",
  "discord_webhook",
  "npm_token",
  "pypi_token",
  "huggingface_token",
  "sendgrid_key",
  "twilio_api_key",
  "digitalocean_token",
  "telegram_bot_token",
  "jwt",
  "private_key",
]);

const secrets = readJsonl<SecretLine>(secretsPath);
const preflight = readJsonl<PreflightLine>(preflightPath);
const checks: [string, () => string[]][] = [
  ["TOOL-46 redaction", () => redactionMisses(secrets)],
  ["SEC-15 exact spans", () => spanMisses(secrets, { kindIsRule: false, multiSecret: MULTI_SECRET })],
  ["SEC-15 inserted into negatives", () => insertionMisses(secrets, MULTI_SECRET)],
  ["SEC-15 bare inside negatives", () => bareMisses(secrets, (line) => BARE_KINDS.has(line.kind))],
  ["SEC-01 preflight verdicts", () => preflightMisses(preflight)],
];
let failed = 0;
for (const [name, run] of checks) {
  const wrong = run();
  failed += wrong.length;
  console.log(`${wrong.length === 0 ? "ok  " : "FAIL"} ${name}${wrong.length === 0 ? "" : `: ${wrong.length} line(s)`}`);
  for (const line of wrong.slice(0, 20)) console.log(`     ${line}`);
}
console.log(`shared corpora (${dir}): ${secrets.length} secret lines, ${preflight.length} preflight lines, ${failed} failure(s)`);
process.exit(failed === 0 ? 0 : 1);
