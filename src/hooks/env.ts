/**
 * Environment for every hook (and `bash` tool) spawn, D18: secrets and shell start-up hooks are
 * stripped from the inherited environment, stale dialect variables are removed, then the hook's
 * own names are set. Pure functions over plain records; the caller passes `runtime.env()`.
 */
import { CLAUDE_EVENT_NAMES, type CanonicalEvent } from "./events.ts";

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
  if (upper.endsWith("_KEY")) return true;
  return SECRET_NAME_PARTS.some((part) => upper.includes(part));
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
 * Removes secrets, the provider key variables, `BASH_ENV`, `ENV`, `BASH_FUNC_*` and every injected
 * dialect name. Only secret values are reported (not `BASH_ENV` paths or stale dialect values).
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
    if (isSecretEnvName(name) || providerKeys.has(name)) {
      strippedValues.push(value);
      continue;
    }
    if (isShellStartupName(name) || INJECTED.has(name)) continue;
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
}

/**
 * The complete child environment: `stripped` (from `stripEnv`) plus `AGENT_*` for every dialect,
 * `CLAUDE_*`/`VT_*` for claude, `PHI_*` for action, nothing more for envelope.
 */
export function buildHookEnv(
  stripped: Readonly<Record<string, string>>,
  dialect: "action" | "claude" | "envelope",
  vars: HookEnvVars,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(stripped)) if (!INJECTED.has(name)) env[name] = value;
  env.AGENT_HOOK_EVENT = vars.event;
  env.AGENT_SESSION_ID = vars.sessionId;
  env.AGENT_CWD = vars.cwd;
  env.AGENT_PROJECT_DIR = vars.projectDir;
  if (vars.transcriptPath !== null) env.AGENT_TRANSCRIPT_PATH = vars.transcriptPath;
  if (dialect === "claude") {
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
