/**
 * Settings files → effective settings. Reads the four files of D26, validates every non-hook key
 * and the seed-003 globals, and merges scalars (later file wins) and arrays (concatenated). List
 * globals are tracked per scope (D26: a project's list settings reach project list hooks only).
 * Hook arrays and `hooks.lifecycle` are left to `list-hooks.ts` and `lifecycle.ts`.
 */
import { canonicalEvent } from "../util/events.ts";
import type { FailurePolicy, PayloadMode, Scope } from "../hooks/types.ts";
import type { FileSystem } from "../runtime/types.ts";
import { parseJson, parseToml } from "./parse.ts";
import { isRecord } from "../util/records.ts";
import type { SettingsFile } from "./paths.ts";
import {
  booleanField,
  checkField,
  INJECTED_CONTENT_FIELDS,
  intRange,
  LIST_GLOBAL_FIELDS,
  LIST_KEYS,
  OTHER_HOOK_FIELDS,
  oneOf,
  PERMISSION_MODES,
  PROVIDER_FIELDS,
  showValue,
  stringField,
  contextFilesField,
  MODEL_FIELDS,
} from "./schema.ts";
import type { WarningSink } from "./warnings.ts";
import { errorMessage } from "../util/errors.ts";
import { allowPatternProblem } from "../hooks/handlers/http-allow.ts";
import { hostPatternProblem } from "../tools/web-fetch.ts";

import type { PermissionMode } from "../permissions/mode.ts";
import { parseRule, ruleNeverMatches } from "../permissions/rules.ts";

/** A rule that does not parse is an error; one that can never match a call is a warning naming why (D27). */
function checkRule(sink: WarningSink, path: string, field: string, text: string): void {
  const parsed = parseRule(text);
  if (!parsed.ok) return sink.error(path, field, `${parsed.error}; the rule is ignored`);
  const never = ruleNeverMatches(parsed.rule);
  if (never !== null) sink.warning(path, field, `${JSON.stringify(text)} can never match: ${never}`);
}
export type { PermissionMode };

/** Seed 003's list settings after defaults (TOOL-01). */
export interface ListSettings {
  readonly enabled: boolean;
  readonly showInTui: boolean;
  readonly injectedContent: { readonly showInTranscript: boolean; readonly showInActivityTree: boolean; readonly style: "content" | "metadata" };
  readonly payload: PayloadMode;
  readonly timeoutSeconds: number;
  readonly stdoutMaxBytes: number;
  readonly stderrMaxBytes: number;
  readonly providerContextInjection: boolean;
  readonly providerContextMaxBytes: number;
  readonly failurePolicy: FailurePolicy;
}

export interface ProviderSettings {
  readonly baseUrl?: string;
  readonly model?: string;
  readonly apiKey?: string;
  readonly apiKeyEnv?: string;
}

/** What the user configured for one model (`agent.models."<model>"`); prices in USD per million tokens. */
export interface ModelSettings {
  readonly contextWindow?: number;
  readonly inputPrice?: number;
  readonly outputPrice?: number;
  readonly cacheReadPrice?: number;
  readonly cacheWritePrice?: number;
}

/** Merged settings with defaults filled in. */
export interface EffectiveSettings {
  /** The list settings of the widest loaded scope (project when present), for display. */
  readonly hooks: ListSettings & {
    readonly stopBlockCap: number;
    readonly quietSuccessOutput: boolean;
    /** User config's `hooks.http_allow`; a project cannot set or widen it. */
    readonly httpAllow: readonly string[];
  };
  /** D26: what managed, user and project list hooks each see. */
  readonly listSettingsByScope: { readonly managed: ListSettings; readonly user: ListSettings; readonly project: ListSettings };
  readonly tools: { readonly bash: { readonly absolutePaths: boolean }; readonly webFetch: { readonly allow: readonly string[] } };
  readonly absolutePathsByScope: { readonly managed: boolean; readonly user: boolean; readonly project: boolean };
  readonly permissions: {
    readonly mode: PermissionMode;
    readonly allow: readonly string[];
    readonly ask: readonly string[];
    readonly deny: readonly string[];
    /** The managed policy's own rules: they lead the lists above and nothing below removes them. */
    readonly managed: { readonly allow: readonly string[]; readonly ask: readonly string[]; readonly deny: readonly string[] };
  };
  readonly agent: {
    readonly maxContextTokens: number | undefined;
    /** Instruction file names per directory, in order; undefined: the default list. */
    readonly contextFiles: readonly string[] | undefined;
    /** Context windows and prices per model name. */
    readonly models: Readonly<Record<string, ModelSettings>>;
  };
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly providers: Readonly<Record<string, ProviderSettings>>;
  /** `[audit.otlp]` of user and managed config, each its own destination (src/audit/otlp.ts). */
  readonly audit: { readonly otlp: readonly OtlpDestination[] };
}

export interface OtlpDestination {
  /** The OTLP/HTTP logs URL, e.g. `http://127.0.0.1:4318/v1/logs`. */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly scope: Scope;
  readonly file: string;
}

export const DEFAULT_LIST_SETTINGS: ListSettings = {
  enabled: false,
  showInTui: false,
  injectedContent: { showInTranscript: false, showInActivityTree: false, style: "content" },
  payload: "redacted",
  timeoutSeconds: 5,
  stdoutMaxBytes: 8192,
  stderrMaxBytes: 8192,
  providerContextInjection: false,
  providerContextMaxBytes: 4096,
  failurePolicy: "warn",
};

export const DEFAULT_STOP_BLOCK_CAP = 8;

export interface ParsedSettingsFile {
  readonly file: SettingsFile;
  readonly present: boolean;
  /** The parsed document; undefined when missing or unparsable. */
  readonly data: Record<string, unknown> | undefined;
}

/** One global list setting as written: where, and whether it passed its bound. */
export interface GlobalValue {
  readonly value: unknown;
  readonly file: string;
  readonly field: string;
  readonly valid: boolean;
}

/** Latest value per global key (`timeout_seconds`, `injected_content.style`, …) for one scope. */
export type GlobalChain = ReadonlyMap<string, GlobalValue>;

/** A config file, hook.json or agent file larger than this is refused with its name (none is near it). */
export const CONFIG_FILE_MAX_BYTES = 4 * 1024 * 1024;

export function readSettingsFile(fs: FileSystem, file: SettingsFile, sink: WarningSink): ParsedSettingsFile {
  let text: string | undefined;
  try {
    text = fs.readText(file.path, { maxBytes: CONFIG_FILE_MAX_BYTES });
  } catch (error) {
    sink.error(file.path, "", `could not be read: ${errorMessage(error)}`);
    return { file, present: true, data: undefined };
  }
  if (text === undefined) return { file, present: false, data: undefined };
  const parsed = file.format === "toml" ? parseToml(text) : parseJson(text);
  if (!parsed.ok) {
    sink.syntax(file.path, parsed.line, parsed.column, `could not parse ${file.format === "toml" ? "TOML" : "JSON"}: ${parsed.message}`);
    return { file, present: true, data: undefined };
  }
  if (!isRecord(parsed.value)) {
    sink.error(file.path, "", "the document must be an object");
    return { file, present: true, data: undefined };
  }
  return { file, present: true, data: parsed.value };
}

/** Never read from project files: they choose which secret (or which env variable) is sent. */
const USER_ONLY_PROVIDER_FIELDS = new Set(["api_key", "api_key_env"]);

const TOP_LEVEL_KEYS = new Set(["hooks", "tools", "permissions", "agent", "provider", "model", "base_url", "providers", "mcp_servers", "compat", "audit"]);
/** The managed file's own switches (src/config/managed.ts reads them); unknown anywhere else. */
export const MANAGED_ONLY_KEYS: ReadonlySet<string> = new Set(["managed_hooks_only", "managed_mcp_only", "disable_bypass_mode", "provider_policy"]);
const HOOK_STRUCTURE_KEYS = new Set<string>([...LIST_KEYS, "lifecycle", "injected_content", "stop_block_cap", "http_allow"]);

function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, ch: string) => ch.toUpperCase());
}

/** Effective list settings from a chain; invalid values fall back to defaults (display only). */
function listSettingsOf(chain: GlobalChain): ListSettings {
  const pick = <T>(key: string, fallback: T, guard: (value: unknown) => value is T): T => {
    const entry = chain.get(key);
    return entry && entry.valid && guard(entry.value) ? entry.value : fallback;
  };
  const isBool = (value: unknown): value is boolean => typeof value === "boolean";
  const isNum = (value: unknown): value is number => typeof value === "number";
  const isPayload = (value: unknown): value is PayloadMode => value === "redacted" || value === "full";
  const isPolicy = (value: unknown): value is FailurePolicy => value === "ignore" || value === "warn" || value === "block" || value === "fail";
  const isStyle = (value: unknown): value is "content" | "metadata" => value === "content" || value === "metadata";
  const d = DEFAULT_LIST_SETTINGS;
  return {
    enabled: pick("enabled", d.enabled, isBool),
    showInTui: pick("show_in_tui", d.showInTui, isBool),
    injectedContent: {
      showInTranscript: pick("injected_content.show_in_transcript", d.injectedContent.showInTranscript, isBool),
      showInActivityTree: pick("injected_content.show_in_activity_tree", d.injectedContent.showInActivityTree, isBool),
      style: pick("injected_content.style", d.injectedContent.style, isStyle),
    },
    payload: pick("payload", d.payload, isPayload),
    timeoutSeconds: pick("timeout_seconds", d.timeoutSeconds, isNum),
    stdoutMaxBytes: pick("stdout_max_bytes", d.stdoutMaxBytes, isNum),
    stderrMaxBytes: pick("stderr_max_bytes", d.stderrMaxBytes, isNum),
    providerContextInjection: pick("provider_context_injection", d.providerContextInjection, isBool),
    providerContextMaxBytes: pick("provider_context_max_bytes", d.providerContextMaxBytes, isNum),
    failurePolicy: pick("failure_policy", d.failurePolicy, isPolicy),
  };
}

export interface MergedSettings {
  readonly settings: EffectiveSettings;
  /** Global list settings as seen by each scope's list hooks (D26). */
  readonly chains: { readonly managed: GlobalChain; readonly user: GlobalChain; readonly project: GlobalChain };
}

/** Strictness of each mode: readonly asks for nothing and writes nothing; bypass asks for nothing at all. */
const MODE_STRICTNESS: Readonly<Record<PermissionMode, number>> = { readonly: 3, default: 2, "accept-edits": 1, bypass: 0 };

function looserThan(mode: PermissionMode, than: PermissionMode): boolean {
  return MODE_STRICTNESS[mode] < MODE_STRICTNESS[than];
}

/**
 * The effective mode: the stricter of the user's (`default` when unset) and the project's. A cloned
 * repository may tighten the mode (`readonly`), never loosen it (`bypass` would run every command
 * the model asks for without a question); `--permission-mode` still decides when given.
 */
export function stricter(user: PermissionMode, project: PermissionMode): PermissionMode {
  return looserThan(project, user) ? user : project;
}

/**
 * Validates and merges the parsed files (in load order). With `hooksOff`, `hooks.*` is not looked
 * at and project `permissions.*` are not loaded (D17). Never throws.
 */
/** What the files set so far, section by section; each reader adds one file's part. */
interface SettingsAccumulator {
  readonly chains: { readonly managed: Map<string, GlobalValue>; readonly user: Map<string, GlobalValue>; readonly project: Map<string, GlobalValue> };
  readonly absolutePaths: Record<Scope, boolean>;
  readonly otlp: OtlpDestination[];
  stopBlockCap: number;
  quietSuccessOutput: boolean;
  readonly httpAllow: string[];
  readonly webFetchAllow: string[];
  absolutePathsMerged: boolean;
  readonly modes: { user: PermissionMode; project: PermissionMode | undefined };
  readonly rules: { allow: string[]; ask: string[]; deny: string[] };
  readonly managedRules: { allow: string[]; ask: string[]; deny: string[] };
  maxContextTokens: number | undefined;
  contextFiles: string[] | undefined;
  readonly models: Record<string, ModelSettings>;
  readonly top: { provider?: string; model?: string; baseUrl?: string };
  readonly providers: Record<string, ProviderSettings>;
}

type Checked = (schema: Parameters<typeof checkField>[0], value: unknown, field: string, severity?: "error" | "warning") => boolean;

/** One file being read: where problems are reported, and how a value is checked and set. */
interface FileReading {
  readonly file: SettingsFile;
  readonly path: string;
  readonly sink: WarningSink;
  readonly checked: Checked;
  readonly setGlobal: (key: string, value: unknown, field: string, valid: boolean) => void;
}

function emptyAccumulator(): SettingsAccumulator {
  return {
    chains: { managed: new Map(), user: new Map(), project: new Map() },
    absolutePaths: { managed: true, user: true, project: true },
    otlp: [],
    stopBlockCap: DEFAULT_STOP_BLOCK_CAP,
    quietSuccessOutput: false,
    httpAllow: [],
    webFetchAllow: [],
    absolutePathsMerged: true,
    modes: { user: "default", project: undefined },
    rules: { allow: [], ask: [], deny: [] },
    managedRules: { allow: [], ask: [], deny: [] },
    maxContextTokens: undefined,
    contextFiles: undefined,
    models: {},
    top: {},
    providers: {},
  };
}

function fileReading(acc: SettingsAccumulator, file: SettingsFile, sink: WarningSink): FileReading {
  const path = file.path;
  const setGlobal = (key: string, value: unknown, field: string, valid: boolean): void => {
    const entry = { value, file: path, field, valid };
    // Managed globals reach every scope's list hooks, as user globals reach the project's (D26).
    if (file.scope === "managed") acc.chains.managed.set(key, entry);
    if (file.scope !== "project") acc.chains.user.set(key, entry);
    acc.chains.project.set(key, entry);
  };
  const checked: Checked = (schema, value, field, severity = "error") => {
    const message = checkField(schema, value);
    if (message === undefined) return true;
    if (severity === "error") sink.error(path, field, message);
    else sink.warning(path, field, message);
    return false;
  };
  return { file, path, sink, checked, setGlobal };
}

/** `hooks.*`: list globals, injected content, the stop cap, http_allow, quiet success output. */
function readHooksSection(acc: SettingsAccumulator, r: FileReading, hooks: Record<string, unknown>): void {
  const { file, path, sink, checked, setGlobal } = r;
  for (const [key, value] of Object.entries(hooks)) {
    const field = `hooks.${key}`;
    if (key in LIST_GLOBAL_FIELDS) {
      const schema = LIST_GLOBAL_FIELDS[key as keyof typeof LIST_GLOBAL_FIELDS];
      setGlobal(key, value, field, checked(schema, value, field));
    } else if (key === "injected_content") {
      if (!isRecord(value)) sink.error(path, field, "must be a table/object");
      else
        for (const [sub, subValue] of Object.entries(value)) {
          const subField = `${field}.${sub}`;
          if (!(sub in INJECTED_CONTENT_FIELDS)) sink.error(path, subField, "unknown key");
          else
            setGlobal(
              `injected_content.${sub}`,
              subValue,
              subField,
              checked(INJECTED_CONTENT_FIELDS[sub as keyof typeof INJECTED_CONTENT_FIELDS], subValue, subField),
            );
        }
    } else if (key === "stop_block_cap") {
      if (checked(OTHER_HOOK_FIELDS.stop_block_cap, value, field) && typeof value === "number") acc.stopBlockCap = value;
    } else if (key === "http_allow") {
      // Where hook payloads may be sent is the user's call, never a cloned repository's.
      if (file.scope === "project")
        sink.error(path, field, "is read from user config only (ignored here); set it in ~/.agent/config.toml ($AGENT_HOME) instead");
      else if (checked(OTHER_HOOK_FIELDS.http_allow, value, field) && Array.isArray(value)) {
        value.forEach((pattern: unknown, index) => {
          if (typeof pattern !== "string") return;
          const problem = allowPatternProblem(pattern);
          if (problem !== null) sink.error(path, `${field}[${index}]`, `${problem}; ignored`);
          else acc.httpAllow.push(pattern);
        });
      }
    } else if (key === "lifecycle") {
      if (isRecord(value) && value.quiet_success_output !== undefined) {
        const qField = "hooks.lifecycle.quiet_success_output";
        if (checked(booleanField, value.quiet_success_output, qField) && typeof value.quiet_success_output === "boolean") {
          acc.quietSuccessOutput = value.quiet_success_output;
        }
      }
    } else if (HOOK_STRUCTURE_KEYS.has(key)) {
      // list arrays: validated by list-hooks.ts
    } else if (canonicalEvent(key) !== undefined) {
      sink.error(path, field, `unknown key: lifecycle groups belong under hooks.lifecycle (hooks.lifecycle.${key}); nothing under ${field} runs`);
    } else sink.error(path, field, "unknown key");
  }
}

/** `tools.bash` and `tools.web_fetch`. */
function readToolsSection(acc: SettingsAccumulator, r: FileReading, tools: Record<string, unknown>): void {
  const { file, path, sink, checked } = r;
  for (const [key, value] of Object.entries(tools)) {
    if (key === "web_fetch") {
      readWebFetch(value, { path, project: file.scope === "project", sink, allow: acc.webFetchAllow });
      continue;
    }
    if (key !== "bash") {
      sink.warning(path, `tools.${key}`, "unknown setting (ignored)");
      continue;
    }
    if (!isRecord(value)) {
      sink.error(path, "tools.bash", "must be a table/object");
      continue;
    }
    for (const [sub, subValue] of Object.entries(value)) {
      const field = `tools.bash.${sub}`;
      if (sub !== "absolute_paths") sink.warning(path, field, "unknown setting (ignored)");
      else if (checked(booleanField, subValue, field) && typeof subValue === "boolean") {
        if (file.scope === "managed") acc.absolutePaths.managed = subValue;
        if (file.scope !== "project") acc.absolutePaths.user = subValue;
        acc.absolutePaths.project = subValue;
        acc.absolutePathsMerged = subValue;
      }
    }
  }
}

/** `permissions.mode` (the stricter of user and project wins) and the rule lists. */
function readPermissionsSection(acc: SettingsAccumulator, r: FileReading, permissions: Record<string, unknown>): void {
  const { file, path, sink, checked } = r;
  for (const [key, value] of Object.entries(permissions)) {
    const field = `permissions.${key}`;
    if (key === "mode") {
      const found = PERMISSION_MODES.find((candidate) => candidate === value);
      if (checked(oneOf(PERMISSION_MODES), value, field) && found) {
        if (file.scope === "project" && looserThan(found, acc.modes.user)) {
          sink.warning(
            path,
            field,
            `"${found}" is looser than your mode "${acc.modes.user}" and is ignored: the stricter of user and project wins; to use it here, pass --permission-mode ${found} or set it in ~/.agent/config.toml`,
          );
        } else if (file.scope === "managed")
          acc.modes.user = found; // a default the user's own files may change
        else acc.modes[file.scope] = found;
      }
    } else if (key === "allow" || key === "ask" || key === "deny") {
      if (!Array.isArray(value)) sink.error(path, field, `${JSON.stringify(value)} is not an array of rules`);
      else
        value.forEach((rule, index) => {
          if (typeof rule !== "string") return sink.error(path, `${field}[${index}]`, `${JSON.stringify(rule)} is not a string`);
          acc.rules[key].push(rule);
          if (file.scope === "managed") acc.managedRules[key].push(rule);
          checkRule(sink, path, `${field}[${index}]`, rule);
        });
    } else sink.error(path, field, "unknown key");
  }
}

/** `agent.*`: context limits, instruction files, per-model settings. */
function readAgentSection(acc: SettingsAccumulator, r: FileReading, agent: Record<string, unknown>): void {
  const { path, sink, checked } = r;
  for (const [key, value] of Object.entries(agent)) {
    if (key === "context_files") {
      if (checked(contextFilesField, value, "agent.context_files") && Array.isArray(value)) acc.contextFiles = value.map(String);
    } else if (key === "models") readModels(value, path, sink, checked, acc.models);
    else if (key !== "max_context_tokens") sink.warning(path, `agent.${key}`, "unknown setting (ignored)");
    else if (checked(intRange(1), value, "agent.max_context_tokens") && typeof value === "number") acc.maxContextTokens = value;
  }
}

/** `providers.<name>.*`; key settings come from the user's files only. */
function readProvidersSection(acc: SettingsAccumulator, r: FileReading, providerTable: Record<string, unknown>): void {
  const { file, path, sink, checked } = r;
  for (const [name, entry] of Object.entries(providerTable)) {
    if (!isRecord(entry)) {
      sink.error(path, `providers.${name}`, "must be a table/object");
      continue;
    }
    const merged: Record<string, string> = { ...(acc.providers[name] ?? {}) };
    for (const [key, value] of Object.entries(entry)) {
      const field = `providers.${name}.${key}`;
      if (!(key in PROVIDER_FIELDS)) sink.warning(path, field, "unknown setting (ignored)");
      else if (file.scope === "project" && USER_ONLY_PROVIDER_FIELDS.has(key)) {
        // Which secret is sent is the user's call, never a cloned repository's.
        sink.error(path, field, `is read from user config only (ignored here); set it in ~/.agent/config.toml ($AGENT_HOME) instead`);
      } else if (checked(stringField, value, field) && typeof value === "string") merged[camel(key)] = value;
    }
    acc.providers[name] = merged;
  }
}

/** Every section of one file, each only where its scope may set it. */
function readFile(acc: SettingsAccumulator, file: SettingsFile, data: Record<string, unknown>, sink: WarningSink, options: { hooksOff: boolean }): void {
  const r = fileReading(acc, file, sink);
  const path = file.path;
  for (const key of Object.keys(data)) {
    if (MANAGED_ONLY_KEYS.has(key)) {
      if (file.scope !== "managed") sink.error(path, key, "is read from the managed policy file only (ignored here); ask your administrator to set it there");
    } else if (!TOP_LEVEL_KEYS.has(key)) sink.warning(path, key, "unknown setting (ignored)");
  }
  const table = (key: string): Record<string, unknown> | undefined => {
    const value = data[key];
    if (value === undefined) return undefined;
    if (isRecord(value)) return value;
    sink.error(path, key, "must be a table/object");
    return undefined;
  };
  // The managed file's hooks settings hold whatever turns the rest off (D17 does not reach it).
  const hooks = !options.hooksOff || file.scope === "managed" ? table("hooks") : undefined;
  if (hooks) readHooksSection(acc, r, hooks);
  const tools = table("tools");
  if (tools) readToolsSection(acc, r, tools);
  const permissions = options.hooksOff && file.scope === "project" ? undefined : table("permissions");
  if (permissions) readPermissionsSection(acc, r, permissions);
  if (data.audit !== undefined) readAudit(data.audit, file, sink, acc.otlp);
  const agent = table("agent");
  if (agent) readAgentSection(acc, r, agent);
  for (const [key, name] of [
    ["provider", "provider"],
    ["model", "model"],
    ["base_url", "baseUrl"],
  ] as const) {
    const value = data[key];
    if (value !== undefined && r.checked(stringField, value, key) && typeof value === "string") acc.top[name] = value;
  }
  const providers = table("providers");
  if (providers) readProvidersSection(acc, r, providers);
}

export function mergeSettings(files: readonly ParsedSettingsFile[], sink: WarningSink, options: { hooksOff: boolean; projectScope: boolean }): MergedSettings {
  const acc = emptyAccumulator();
  for (const { file, data } of files) if (data) readFile(acc, file, data, sink, options);
  const managedList = listSettingsOf(acc.chains.managed);
  const userList = listSettingsOf(acc.chains.user);
  const projectList = listSettingsOf(acc.chains.project);
  return {
    chains: acc.chains,
    settings: {
      hooks: {
        ...(options.projectScope ? projectList : userList),
        stopBlockCap: acc.stopBlockCap,
        quietSuccessOutput: acc.quietSuccessOutput,
        httpAllow: acc.httpAllow,
      },
      listSettingsByScope: { managed: managedList, user: userList, project: projectList },
      tools: { bash: { absolutePaths: acc.absolutePathsMerged }, webFetch: { allow: acc.webFetchAllow } },
      absolutePathsByScope: acc.absolutePaths,
      permissions: {
        mode: stricter(acc.modes.user, acc.modes.project ?? acc.modes.user),
        allow: acc.rules.allow,
        ask: acc.rules.ask,
        deny: acc.rules.deny,
        managed: acc.managedRules,
      },
      agent: { maxContextTokens: acc.maxContextTokens, contextFiles: acc.contextFiles, models: acc.models },
      provider: acc.top.provider,
      model: acc.top.model,
      baseUrl: acc.top.baseUrl,
      providers: acc.providers,
      audit: { otlp: acc.otlp },
    },
  };
}

const MODEL_KEYS: Readonly<Record<keyof typeof MODEL_FIELDS, keyof ModelSettings>> = {
  context_window: "contextWindow",
  input_price: "inputPrice",
  output_price: "outputPrice",
  cache_read_price: "cacheReadPrice",
  cache_write_price: "cacheWritePrice",
};

/** `agent.models."<model>"` tables into `models` (a later file's field wins). */
function readModels(
  value: unknown,
  path: string,
  sink: WarningSink,
  checked: (schema: Parameters<typeof checkField>[0], value: unknown, field: string) => boolean,
  models: Record<string, ModelSettings>,
): void {
  if (!isRecord(value)) {
    sink.error(path, "agent.models", "must be a table/object of model names");
    return;
  }
  for (const [model, entry] of Object.entries(value)) {
    const at = `agent.models.${JSON.stringify(model)}`;
    if (!isRecord(entry)) {
      sink.error(path, at, "must be a table/object");
      continue;
    }
    const merged: Record<string, number> = { ...(models[model] ?? {}) };
    for (const [key, field] of Object.entries(entry)) {
      const name = MODEL_KEYS[key as keyof typeof MODEL_FIELDS];
      if (name === undefined) sink.warning(path, `${at}.${key}`, `unknown setting (ignored); known: ${Object.keys(MODEL_KEYS).join(", ")}`);
      else if (checked(MODEL_FIELDS[key as keyof typeof MODEL_FIELDS], field, `${at}.${key}`) && typeof field === "number") merged[name] = field;
    }
    models[model] = merged;
  }
}

/**
 * `tools.web_fetch.allow`: hosts the `web_fetch` tool may reach. Whether the agent goes on the
 * network, and where, is the user's call: a project file cannot set or widen it.
 */
function readWebFetch(value: unknown, place: { path: string; project: boolean; sink: WarningSink; allow: string[] }): void {
  const { path, sink } = place;
  if (place.project) {
    sink.error(path, "tools.web_fetch", "is read from user config only (ignored here); set it in ~/.agent/config.toml ($AGENT_HOME) instead");
    return;
  }
  if (!isRecord(value)) {
    sink.error(path, "tools.web_fetch", "must be a table/object");
    return;
  }
  for (const [key, entry] of Object.entries(value)) {
    const field = `tools.web_fetch.${key}`;
    if (key !== "allow") sink.error(path, field, "unknown key (expected allow)");
    else if (!Array.isArray(entry)) sink.error(path, field, `${showValue(entry)} is not an array of hosts (e.g. ["docs.example.com"])`);
    else
      entry.forEach((host: unknown, index) => {
        const problem = typeof host === "string" ? hostPatternProblem(host) : `${showValue(host)} is not a string`;
        if (problem !== null) sink.error(path, `${field}[${index}]`, `${problem}; ignored`);
        else if (typeof host === "string" && !place.allow.includes(host)) place.allow.push(host);
      });
  }
}

/**
 * `[audit.otlp]` (`endpoint`, `headers`): where hook decisions and tool calls are exported. Where
 * a session's activity is sent is the user's or the administrator's call, never a cloned repository's.
 */
function readAudit(audit: unknown, file: SettingsFile, sink: WarningSink, out: OtlpDestination[]): void {
  const path = file.path;
  if (file.scope === "project") {
    sink.error(path, "audit", "is read from user or managed config only (ignored here); set it in ~/.agent/config.toml ($AGENT_HOME) instead");
    return;
  }
  if (!isRecord(audit)) return sink.error(path, "audit", "must be a table/object");
  for (const [key, value] of Object.entries(audit)) {
    if (key !== "otlp") {
      sink.warning(path, `audit.${key}`, "unknown setting (ignored)");
      continue;
    }
    if (!isRecord(value)) {
      sink.error(path, "audit.otlp", "must be a table/object");
      continue;
    }
    const endpoint = value.endpoint;
    if (typeof endpoint !== "string" || !/^https?:\/\/[^/\s]+/.test(endpoint)) {
      sink.error(
        path,
        "audit.otlp.endpoint",
        `${JSON.stringify(endpoint ?? null)} is not an http(s) URL; write e.g. endpoint = "http://127.0.0.1:4318/v1/logs"`,
      );
      continue;
    }
    const headers: Record<string, string> = {};
    const rawHeaders = value.headers ?? {};
    if (!isRecord(rawHeaders)) sink.error(path, "audit.otlp.headers", "must be a table of strings");
    else
      for (const [name, headerValue] of Object.entries(rawHeaders)) {
        if (typeof headerValue === "string") headers[name] = headerValue;
        else sink.error(path, `audit.otlp.headers.${name}`, "must be a string");
      }
    for (const extra of Object.keys(value))
      if (extra !== "endpoint" && extra !== "headers") sink.warning(path, `audit.otlp.${extra}`, "unknown setting (ignored)");
    out.push({ endpoint, headers, scope: file.scope, file: path });
  }
}
