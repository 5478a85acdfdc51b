/**
 * What `agent run` and the interactive session both build before a session starts: the provider
 * (flags over per-provider settings over top-level settings), the configured permission rules, and
 * an earlier session's records for `--resume`. Throws AgentError with the flag or file to fix.
 */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import { AgentError } from "../util/errors.ts";
import type { EffectiveSettings } from "../config/load.ts";
import { createProvider } from "../providers/index.ts";
import { OPENAI_DEFAULT_BASE_URL } from "../providers/openai.ts";
import { ANTHROPIC_DEFAULT_BASE_URL } from "../providers/anthropic.ts";
import type { Provider, ProviderId } from "../providers/types.ts";
import { parseRules, type Rule } from "../permissions/rules.ts";
import type { RuleSet } from "../permissions/rules.ts";
import { PERMISSION_MODES, type PermissionMode } from "../permissions/mode.ts";
import { readSession, resolveSession } from "../session/store.ts";
import type { SessionRecord } from "../session/records.ts";
import { resolvePath } from "../util/path-utils.ts";
import type { AuditExporter } from "../hooks/otlp.ts";
import { stripEnv } from "../hooks/shell/env.ts";
import { providerKeyVarsFor } from "../hooks/engine.ts";
import { bypassRefusal, NO_MANAGED_POLICY, providerRefusal, type ManagedPolicy } from "../config/managed.ts";

export { PERMISSION_MODES };
export const PROVIDER_IDS: readonly ProviderId[] = ["openai", "anthropic", "script"];

/** `--permission-mode`, checked; undefined when the flag was not given. */
export function parsePermissionMode(raw: string | undefined): PermissionMode | undefined {
  if (raw === undefined) return undefined;
  const mode = PERMISSION_MODES.find((candidate) => candidate === raw);
  if (mode === undefined) throw new AgentError("usage", `--permission-mode: "${raw}" is not one of ${PERMISSION_MODES.join(", ")}`);
  return mode;
}

export interface ProviderFlags {
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly script: string | undefined;
  /** Relative `--script` paths resolve against this directory. */
  readonly cwd: string;
}

/** The session's permission mode: the flag, else the config; `bypass` is refused under a managed `disable_bypass_mode`. */
export function resolvePermissionMode(flag: PermissionMode | undefined, settings: EffectiveSettings, policy: ManagedPolicy): PermissionMode {
  const mode = flag ?? settings.permissions.mode;
  const refusal = bypassRefusal(mode, policy);
  if (refusal !== null) {
    throw new AgentError("config", refusal, {
      fix: flag !== undefined ? "drop --permission-mode bypass" : "set permissions.mode to default, accept-edits or readonly in your config",
    });
  }
  return mode;
}

export function buildProvider(runtime: Runtime, settings: EffectiveSettings, flags: ProviderFlags, policy: ManagedPolicy = NO_MANAGED_POLICY): Provider {
  const name = flags.provider ?? (flags.script !== undefined ? "script" : settings.provider) ?? "openai";
  const id = PROVIDER_IDS.find((candidate) => candidate === name);
  if (id === undefined) throw new AgentError("usage", `--provider: "${name}" is not one of ${PROVIDER_IDS.join(", ")}`);
  const perProvider = settings.providers[id];
  const baseUrl = flags.baseUrl ?? perProvider?.baseUrl ?? settings.baseUrl;
  const model = flags.model ?? perProvider?.model ?? settings.model;
  const keyEnv = perProvider?.apiKeyEnv;
  const apiKey = perProvider?.apiKey ?? (keyEnv ? runtime.env()[keyEnv] : undefined);
  const created = createProvider({
    id,
    runtime,
    ...(model ? { model } : {}),
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(flags.script ? { scriptPath: resolvePath(flags.cwd, flags.script) } : {}),
  });
  if (!created.ok) throw new AgentError("config", created.error);
  const effectiveBase = id === "script" ? null : (baseUrl ?? (id === "openai" ? OPENAI_DEFAULT_BASE_URL : ANTHROPIC_DEFAULT_BASE_URL));
  const refusal = providerRefusal(policy, { id, baseUrl: effectiveBase, model: created.provider.model });
  if (refusal !== null) throw new AgentError("config", refusal, { fix: "use --base-url/--model (or provider settings) that the managed policy allows" });
  return created.provider;
}

/** `permissions.allow|ask|deny` of the config plus extra allow rules (`--allow`); bad config rules are reported and skipped. */
export function configuredRules(io: CliIO, settings: EffectiveSettings, extraAllow: readonly Rule[] = []): RuleSet {
  // A managed deny rule that does not parse cannot be enforced: nothing starts rather than run without it.
  const managedDeny = parseRules(settings.permissions.managed.deny);
  if (managedDeny.errors.length > 0) {
    throw new AgentError("config", `managed policy: ${managedDeny.errors[0]}`, {
      fix: "the administrator fixes permissions.deny in the managed file (agent hooks validate names it); nothing ran",
    });
  }
  const allow = parseRules(settings.permissions.allow);
  const ask = parseRules(settings.permissions.ask);
  const deny = parseRules(settings.permissions.deny);
  for (const list of [allow, ask, deny]) for (const error of list.errors) io.err(`agent: permissions: ${error} (rule ignored)\n`);
  return { allow: [...allow.rules, ...extraAllow], ask: ask.rules, deny: deny.rules };
}

/**
 * The OTLP audit exporter when `[audit.otlp]` names an endpoint (user or managed config); its
 * packages load only then. Stripped env values (D18) are what it redacts besides the secret rules.
 */
export async function startAudit(runtime: Runtime, io: CliIO, settings: EffectiveSettings): Promise<AuditExporter | undefined> {
  if (settings.audit.otlp.length === 0) return undefined;
  const { createAuditExporter } = await import("../hooks/otlp.ts");
  const stripped = stripEnv(runtime.env(), { providerKeyVars: providerKeyVarsFor(settings.providers) }).strippedValues;
  const exporter = await createAuditExporter(runtime, {
    targets: settings.audit.otlp,
    strippedEnvValues: stripped,
    onProblem: (message) => io.err(`agent: ${message}\n`),
  });
  return exporter ?? undefined;
}

/** The records of session `id` (its uuid or a unique prefix) under `home`, for `--resume`. */
export function loadResume(runtime: Runtime, home: string, id: string): { sessionId: string; records: SessionRecord[] } {
  const found = resolveSession(runtime, home, id);
  if (!found.ok) throw new AgentError("config", `--resume: ${found.message}`, { fix: "see agent sessions list" });
  const read = readSession(runtime, found.path);
  if (!read.ok) throw new AgentError("config", `--resume: ${read.error}`);
  return { sessionId: found.id, records: read.records };
}
