/**
 * `agent config path | show | schema` (CLI-19/20/21). `path` and `show` read the settings files
 * only (no hook discovery, nothing created); `schema` prints the JSON Schema of settings.json.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import { isRecord } from "../../util/records.ts";
import { locateConfig } from "../../config/paths.ts";
import { settingsSchema, LIST_KEYS } from "../../config/schema.ts";
import { mergeSettings, readSettingsFile, type EffectiveSettings, type ParsedSettingsFile } from "../../config/settings.ts";
import { formatWarning, WarningSink } from "../../config/warnings.ts";
import type { Runtime } from "../../runtime/types.ts";
import { MANAGED_FILE_ENV, managedPolicyOf, managedSettingsFiles, readManagedFiles, type ManagedPolicy } from "../../config/managed.ts";
import type { CliIO } from "../io.ts";

export async function runConfigPath(runtime: Runtime, io: CliIO, options: { cwd: string }): Promise<number> {
  const location = locateConfig(runtime.fs, { env: runtime.env(), homedir: runtime.platform.homedir, cwd: options.cwd });
  // Managed files are listed when present (or named by AGENT_MANAGED_FILE): most machines have none.
  const env = runtime.env();
  const managed = managedSettingsFiles(runtime.platform, env).filter(
    (file) => runtime.fs.stat(file.path) !== undefined || file.path === env[MANAGED_FILE_ENV]?.trim(),
  );
  const lines = [...managed, ...location.files].map(
    (file) => `${file.path} (${runtime.fs.stat(file.path) !== undefined ? "present" : "missing"})${file.scope === "managed" ? " [managed]" : ""}`,
  );
  io.out(`${lines.join("\n")}\n`);
  return 0;
}

/** Key names whose values are secrets in `agent config show` (CLI-20). */
function isSecretKey(key: string): boolean {
  return /(api_?key|secret|password|passwd|token|credential)$/i.test(key);
}

export function redactSecrets(value: unknown, key = ""): unknown {
  if (key !== "" && isSecretKey(key) && value !== undefined && value !== null && value !== "") return "[REDACTED]";
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [inner, innerValue] of Object.entries(value)) out[inner] = redactSecrets(innerValue, inner);
    return out;
  }
  return value;
}

/** The effective configuration in settings.json spelling: defaults filled, arrays concatenated. */
export function wireSettings(settings: EffectiveSettings, files: readonly ParsedSettingsFile[]): Record<string, unknown> {
  const lists: Record<string, unknown[]> = Object.fromEntries(LIST_KEYS.map((key) => [key, [] as unknown[]]));
  const lifecycle: Record<string, unknown> = { quiet_success_output: settings.hooks.quietSuccessOutput };
  for (const { data } of files) {
    const hooks = data?.hooks;
    if (!isRecord(hooks)) continue;
    for (const key of LIST_KEYS) {
      const list = hooks[key];
      if (Array.isArray(list)) lists[key]?.push(...list);
    }
    if (isRecord(hooks.lifecycle)) {
      for (const [key, groups] of Object.entries(hooks.lifecycle)) {
        if (key === "quiet_success_output" || !Array.isArray(groups)) continue;
        const existing = lifecycle[key];
        lifecycle[key] = [...(Array.isArray(existing) ? existing : []), ...groups];
      }
    }
  }
  const h = settings.hooks;
  const providers: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(settings.providers)) {
    providers[name] = { base_url: p.baseUrl ?? null, model: p.model ?? null, api_key: p.apiKey ?? null, api_key_env: p.apiKeyEnv ?? null };
  }
  return {
    provider: settings.provider ?? null,
    model: settings.model ?? null,
    base_url: settings.baseUrl ?? null,
    providers,
    agent: { max_context_tokens: settings.agent.maxContextTokens ?? null, context_files: settings.agent.contextFiles ?? null, models: settings.agent.models },
    permissions: { mode: settings.permissions.mode, allow: settings.permissions.allow, ask: settings.permissions.ask, deny: settings.permissions.deny },
    tools: { bash: { absolute_paths: settings.tools.bash.absolutePaths }, web_fetch: { allow: settings.tools.webFetch.allow } },
    // Header values may carry credentials: names only.
    ...(settings.audit.otlp.length > 0
      ? { audit: { otlp: settings.audit.otlp.map((d) => ({ endpoint: d.endpoint, scope: d.scope, headers: Object.keys(d.headers) })) } }
      : {}),
    hooks: {
      enabled: h.enabled,
      show_in_tui: h.showInTui,
      injected_content: {
        show_in_transcript: h.injectedContent.showInTranscript,
        show_in_activity_tree: h.injectedContent.showInActivityTree,
        style: h.injectedContent.style,
      },
      payload: h.payload,
      timeout_seconds: h.timeoutSeconds,
      stdout_max_bytes: h.stdoutMaxBytes,
      stderr_max_bytes: h.stderrMaxBytes,
      provider_context_injection: h.providerContextInjection,
      provider_context_max_bytes: h.providerContextMaxBytes,
      failure_policy: h.failurePolicy,
      stop_block_cap: h.stopBlockCap,
      ...lists,
      lifecycle,
    },
  };
}

/**
 * What the managed layer contributes, marked as such: its files, switches and restrictions, and the
 * rules, hooks and servers it adds (they lead the merged lists above and cannot be removed below).
 */
function managedSection(policy: ManagedPolicy, files: readonly ParsedSettingsFile[]): Record<string, unknown> {
  const own = files.filter((file) => file.file.scope === "managed" && file.data !== undefined);
  const permissions = { allow: [] as unknown[], ask: [] as unknown[], deny: [] as unknown[] };
  const hooks: Record<string, unknown[]> = {};
  const servers: string[] = [];
  for (const { data } of own) {
    const p = isRecord(data?.permissions) ? data.permissions : {};
    for (const key of ["allow", "ask", "deny"] as const) if (Array.isArray(p[key])) permissions[key].push(...p[key]);
    const h = isRecord(data?.hooks) ? data.hooks : {};
    for (const [key, value] of Object.entries(h)) if (Array.isArray(value)) (hooks[key] ??= []).push(...value);
    if (isRecord(h.lifecycle))
      for (const [key, value] of Object.entries(h.lifecycle)) if (Array.isArray(value)) (hooks[`lifecycle.${key}`] ??= []).push(...value);
    if (isRecord(data?.mcp_servers)) servers.push(...Object.keys(data.mcp_servers));
  }
  return {
    files: policy.files,
    managed_hooks_only: policy.managedHooksOnly,
    managed_mcp_only: policy.managedMcpOnly,
    disable_bypass_mode: policy.disableBypassMode,
    provider_policy: { allowed_base_urls: policy.allowedBaseUrls, allowed_models: policy.allowedModels },
    permissions,
    hooks,
    mcp_servers: servers,
  };
}

export async function runConfigShow(runtime: Runtime, io: CliIO, options: { cwd: string }): Promise<number> {
  const env = runtime.env();
  const location = locateConfig(runtime.fs, { env, homedir: runtime.platform.homedir, cwd: options.cwd });
  const sink = new WarningSink();
  const managedFiles = readManagedFiles(runtime, sink);
  const policy = managedPolicyOf(managedFiles, sink);
  const files = [...managedFiles, ...location.files.map((file) => readSettingsFile(runtime.fs, file, sink))];
  const merged = mergeSettings(files, sink, { hooksOff: false, projectScope: location.projectScope });
  const shown = { ...wireSettings(merged.settings, files), ...(managedFiles.length > 0 ? { managed: managedSection(policy, files) } : {}) };
  io.out(`${JSON.stringify(redactSecrets(shown), null, 2)}\n`);
  // `"enabled": false` alone reads as "no hooks run"; it gates only the tool-call lists (seed 003).
  const gate = merged.settings.hooks.enabled ? "on" : "off";
  io.err(
    `note: hooks.enabled (${gate}) gates only the tool-call list hooks (hooks.before_tool, after_tool, after_assistant, after_reasoning); ` +
      `hook directories and hooks.lifecycle groups run whatever it says — AGENT_HOOKS=off or --no-hooks turns every hook off; agent hooks list shows what runs\n`,
  );
  const places = { projectRoot: location.projectRoot, userHome: env.HOME ?? runtime.platform.homedir };
  for (const warning of sink.items) io.err(`agent: ${warning.severity}: ${formatWarning(warning, places)}\n`);
  return 0;
}

export async function runConfigSchema(_runtime: Runtime, io: CliIO): Promise<number> {
  const schema = toJsonSchema(settingsSchema, { errorMode: "ignore" });
  const document = {
    ...schema,
    title: "agent settings.json / config.toml",
    description: "Settings of the agent coding agent (TOML and JSON are two spellings of this schema).",
  };
  io.out(`${JSON.stringify(document, null, 2)}\n`);
  return 0;
}
