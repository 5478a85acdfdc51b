/**
 * Environment for every hook (and `bash` tool) spawn, D18: secrets and shell start-up hooks are
 * stripped from the inherited environment, stale dialect variables are removed, then the hook's
 * own names are set. Pure functions over plain records; the caller passes `runtime.env()`.
 */
import { CLAUDE_EVENT_NAMES, type CanonicalEvent } from "../../util/events.ts";
import { findSecrets } from "../secrets/rules.ts";

/** Substrings of the upper-cased name that mark a secret (D18). */
const SECRET_NAME_PARTS = [
  "API_KEY",
  "SECRET",
  "TOKEN",
  "PASSWORD",
  "PASSWD",
  "CREDENTIAL",
  "PRIVATE_KEY",
  "AUTHORIZATION",
  "BEARER",
  "OAUTH",
  "AWS_ACCESS_KEY",
  "AWS_SECRET",
  "AWS_SESSION_TOKEN",
] as const;

/**
 * Name endings that mark a secret beyond D18's list: `MYSQL_PWD`, `SENTRY_DSN`,
 * `NPM_CONFIG__AUTH` (npm's `_auth`, any case). `SSH_AUTH_SOCK` does not end so and passes.
 */
const SECRET_NAME_ENDINGS = ["_KEY", "_PWD", "_DSN", "_AUTH"] as const;
/** Further substrings: webhook URLs post as their owner; connection strings carry passwords. */
const MORE_SECRET_NAME_PARTS = ["WEBHOOK", "CONNECTION_STRING", "CONN_STR"] as const;

/**
 * Value shapes that are credentials whatever the name: a URL with a password in
 * its userinfo (`postgres://u:p@h/db` in DATABASE_URL, REDIS_URL, …), a URL whose userinfo is a
 * long key (Sentry DSN `https://<key>@o1.ingest.sentry.io/1`), Slack/Discord webhook URLs, and
 * `;`-separated connection strings with `AccountKey=`, `SharedAccessKey=`, `Password=` or `Pwd=`.
 */
const SECRET_VALUE_SHAPES: readonly RegExp[] = [
  /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]+@/i,
  /[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9_-]{16,}@/i,
  /hooks\.slack\.com\/(services|workflows|triggers)\//i,
  /discord(app)?\.com\/api\/webhooks\//i,
  /(^|;)\s*(AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)\s*=/i,
];

/**
 * Names whose values are never judged by shape: stripping them would break every child, and what
 * they hold is the user's own setup, not a token (a token-shaped PATH entry is a directory name).
 */
const NEVER_BY_VALUE: ReadonlySet<string> = new Set(["PATH", "HOME", "PWD", "OLDPWD", "SHELL", "TERM", "TMPDIR", "LANG", "LS_COLORS"]);

/**
 * True when `value` has the shape of a credential (D18 extended by value): one of the shapes above,
 * or a span any redaction rule finds (src/hooks/secrets/rules.ts), so a vendor token under a plain
 * name (`GITHUB_PAT=ghp_…`, `glpat-…`, `sk_live_…`, `xoxb-…`, `hf_…`, a JWT, a PEM key) is one too.
 */
export function isSecretEnvValue(value: string): boolean {
  return SECRET_VALUE_SHAPES.some((shape) => shape.test(value)) || findSecrets(value).length > 0;
}

/**
 * Session tokens of password-manager CLIs, by name: Bitwarden's `BW_SESSION` and 1Password's
 * `OP_SESSION_<account>` unlock the whole vault, and their values have no recognisable shape.
 */
function isVaultSessionName(upper: string): boolean {
  return upper === "BW_SESSION" || upper.startsWith("OP_SESSION_");
}

/** The agent's own marker for the credential hand-over (src/runtime/credentials.ts); never passed on. */
const AGENT_PRIVATE_NAMES: ReadonlySet<string> = new Set(["AGENT_CREDENTIAL_FD"]);

/** Never stripped although they may look like secrets (`TOKENIZERS_PARALLELISM` holds `TOKEN`). */
const ALWAYS_KEPT: ReadonlySet<string> = new Set(["PWD", "OLDPWD", "TOKENIZERS_PARALLELISM"]);

/** Every name any dialect injects (DESIGN.md, RUN-12); removed from the parent env (RUN-13). */
export const INJECTED_ENV_NAMES: readonly string[] = [
  "AGENT_HOOK_EVENT",
  "AGENT_SESSION_ID",
  "AGENT_CWD",
  "AGENT_PROJECT_DIR",
  "AGENT_TRANSCRIPT_PATH",
  "CLAUDE_PROJECT_DIR",
  "CLAUDE_SESSION_ID",
  "CLAUDE_TRANSCRIPT_PATH",
  "CLAUDE_CODE_SESSION_ID",
  "CLAUDECODE",
  "CLAUDE_PLUGIN_ROOT",
  "CLAUDE_ENV_FILE",
  "AGENT_ENV_FILE",
  "VT_PROJECT_DIR",
  "VT_SESSION_ID",
  "VT_HOOK_EVENT",
  "VT_TRANSCRIPT_PATH",
  "PHI_HOOK_EVENT",
  "PHI_SESSION_ID",
  "PHI_CWD",
  "PHI_PROJECT_DIR",
];
const INJECTED: ReadonlySet<string> = new Set(INJECTED_ENV_NAMES);

/** True when D18 treats `name` as a secret-bearing variable. */
export function isSecretEnvName(name: string): boolean {
  if (ALWAYS_KEPT.has(name)) return false;
  const upper = name.toUpperCase();
  if (isVaultSessionName(upper)) return true;
  if (SECRET_NAME_ENDINGS.some((ending) => upper.endsWith(ending))) return true;
  return SECRET_NAME_PARTS.some((part) => upper.includes(part)) || MORE_SECRET_NAME_PARTS.some((part) => upper.includes(part));
}

const EMPTY: ReadonlySet<string> = new Set();

/** A variable to keep away from every child: a secret by name, by value shape, or a provider key variable. */
export function isCredentialEnv(name: string, value: string, providerKeyVars: ReadonlySet<string> = EMPTY): boolean {
  if (ALWAYS_KEPT.has(name)) return false;
  return isSecretEnvName(name) || providerKeyVars.has(name) || (!NEVER_BY_VALUE.has(name) && isSecretEnvValue(value));
}

function isShellStartupName(name: string): boolean {
  return name === "BASH_ENV" || name === "ENV" || name.startsWith("BASH_FUNC_");
}

export interface StrippedEnv {
  readonly env: Record<string, string>;
  /** Values of the secret variables removed, for `[REDACTED:env]` in redacted payloads. */
  readonly strippedValues: string[];
}

/**
 * Removes secrets (by name and by value shape), the provider key variables (the defaults and every
 * configured `api_key_env`), `BASH_ENV`, `ENV`, `BASH_FUNC_*` and every injected dialect name. Only secret values are reported (not `BASH_ENV` paths or stale dialect values).
 */
export function stripEnv(parent: Readonly<Record<string, string>>, options: { providerKeyVars: readonly string[] }): StrippedEnv {
  const providerKeys = new Set(options.providerKeyVars);
  const env: Record<string, string> = {};
  const strippedValues: string[] = [];
  for (const [name, value] of Object.entries(parent)) {
    if (ALWAYS_KEPT.has(name)) {
      env[name] = value;
      continue;
    }
    if (isCredentialEnv(name, value, providerKeys)) {
      strippedValues.push(value);
      continue;
    }
    if (isShellStartupName(name) || INJECTED.has(name) || AGENT_PRIVATE_NAMES.has(name)) continue;
    env[name] = value;
  }
  return { env, strippedValues };
}

export interface HookEnvVars {
  readonly event: CanonicalEvent;
  readonly sessionId: string;
  readonly cwd: string;
  readonly projectDir: string;
  /** Session JSONL path; null with `--no-session`, and then every `*_TRANSCRIPT_PATH` is unset (LOOP-41). */
  readonly transcriptPath: string | null;
  /** session_start only: the file the hook may append `export NAME=value` lines to. */
  readonly envFile?: string | null;
  /** A claude-dialect hook dir's own directory, Claude Code's `CLAUDE_PLUGIN_ROOT`. */
  readonly pluginRoot?: string | null;
}

/**
 * The complete child environment: `stripped` (from `stripEnv`) plus `AGENT_*` for every dialect,
 * `CLAUDE_*`/`VT_*` for claude (with Claude Code's `CLAUDECODE=1` and `CLAUDE_CODE_SESSION_ID`),
 * `PHI_*` for action, nothing more for envelope. session_start hooks also get `AGENT_ENV_FILE`
 * (claude: also `CLAUDE_ENV_FILE`); a claude-dialect hook dir gets `CLAUDE_PLUGIN_ROOT`.
 */
export function buildHookEnv(stripped: Readonly<Record<string, string>>, dialect: "action" | "claude" | "envelope", vars: HookEnvVars): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(stripped)) if (!INJECTED.has(name)) env[name] = value;
  env.AGENT_HOOK_EVENT = vars.event;
  env.AGENT_SESSION_ID = vars.sessionId;
  env.AGENT_CWD = vars.cwd;
  env.AGENT_PROJECT_DIR = vars.projectDir;
  if (vars.transcriptPath !== null) env.AGENT_TRANSCRIPT_PATH = vars.transcriptPath;
  const envFile = vars.envFile ?? null;
  if (envFile !== null) env.AGENT_ENV_FILE = envFile;
  if (dialect === "claude") {
    env.CLAUDECODE = "1";
    env.CLAUDE_CODE_SESSION_ID = vars.sessionId;
    if (envFile !== null) env.CLAUDE_ENV_FILE = envFile;
    if (vars.pluginRoot !== undefined && vars.pluginRoot !== null) env.CLAUDE_PLUGIN_ROOT = vars.pluginRoot;
    env.CLAUDE_PROJECT_DIR = vars.projectDir;
    env.CLAUDE_SESSION_ID = vars.sessionId;
    env.VT_PROJECT_DIR = vars.projectDir;
    env.VT_SESSION_ID = vars.sessionId;
    env.VT_HOOK_EVENT = CLAUDE_EVENT_NAMES[vars.event];
    if (vars.transcriptPath !== null) {
      env.CLAUDE_TRANSCRIPT_PATH = vars.transcriptPath;
      env.VT_TRANSCRIPT_PATH = vars.transcriptPath;
    }
  } else if (dialect === "action") {
    env.PHI_HOOK_EVENT = vars.event;
    env.PHI_SESSION_ID = vars.sessionId;
    env.PHI_CWD = vars.cwd;
    env.PHI_PROJECT_DIR = vars.projectDir;
  }
  return env;
}
