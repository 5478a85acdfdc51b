/**
 * Seed 003 tool-call lists: `hooks.before_tool|after_tool|after_assistant|after_reasoning` of one
 * settings file → ListHookSpec, each field being the hook's own value or its scope's global (D26).
 * A hook whose own or inherited value is invalid is not loaded (TOOL-03); `block` is rejected on
 * the after phases (TOOL-04, MERGE-31). `hooks.enabled: false` keeps the hooks listed as disabled.
 */
import type { CanonicalEvent } from "../util/events.ts";
import type { Dialect, FailurePolicy, ListHookSpec, ListPhase, PayloadMode, Scope } from "../hooks/types.ts";
import { canonicalTool, MCP_PREFIX } from "../tools/names.ts";
import { isRecord } from "../util/records.ts";
import { checkField, LIST_ENTRY_FIELDS, LIST_KEYS, showValue } from "./schema.ts";
import type { GlobalChain, ParsedSettingsFile } from "./settings.ts";
import { DEFAULT_LIST_SETTINGS } from "./settings.ts";
import type { WarningSink } from "./warnings.ts";

const PHASE_EVENT: Readonly<Record<ListPhase, CanonicalEvent>> = {
  before_tool: "pre_tool",
  after_tool: "post_tool",
  after_assistant: "after_assistant",
  after_reasoning: "after_reasoning",
};

const MESSAGE_PHASES: ReadonlySet<ListPhase> = new Set(["after_assistant", "after_reasoning"]);

/** Settings a hook may inherit from its scope's globals, with their defaults. */
const INHERITED: Readonly<Record<string, unknown>> = {
  payload: DEFAULT_LIST_SETTINGS.payload,
  failure_policy: DEFAULT_LIST_SETTINGS.failurePolicy,
  timeout_seconds: DEFAULT_LIST_SETTINGS.timeoutSeconds,
  stdout_max_bytes: DEFAULT_LIST_SETTINGS.stdoutMaxBytes,
  stderr_max_bytes: DEFAULT_LIST_SETTINGS.stderrMaxBytes,
  provider_context_injection: DEFAULT_LIST_SETTINGS.providerContextInjection,
  provider_context_max_bytes: DEFAULT_LIST_SETTINGS.providerContextMaxBytes,
};

export function loadListHooks(parsed: ParsedSettingsFile, chain: GlobalChain, options: { absolutePaths: boolean }, sink: WarningSink): ListHookSpec[] {
  const path = parsed.file.path;
  const hooks = parsed.data?.hooks;
  if (!isRecord(hooks)) return [];
  const enabledEntry = chain.get("enabled");
  const enabled = enabledEntry?.valid === true && enabledEntry.value === true;
  const specs: ListHookSpec[] = [];
  for (const phase of LIST_KEYS) {
    const list = hooks[phase];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      sink.error(path, `hooks.${phase}`, `${showValue(list)} is not an array of hook definitions`);
      continue;
    }
    list.forEach((entry: unknown, index) => {
      const spec = loadEntry(entry, { path, phase, index, chain, enabled, absolutePaths: options.absolutePaths, scope: parsed.file.scope }, sink);
      if (spec) specs.push(spec);
    });
  }
  return specs;
}

interface EntryPlace {
  path: string;
  phase: ListPhase;
  index: number;
  chain: GlobalChain;
  enabled: boolean;
  absolutePaths: boolean;
  scope: Scope;
}

/** Where one entry's messages go: its settings file and its field (`hooks.<phase>[<index>]`). */
interface EntryWhere {
  readonly path: string;
  readonly field: string;
  readonly sink: WarningSink;
}

/** Reports every unknown key, invalid field and a missing `command`; false when any of them keeps the hook out. */
function checkEntryFields(entry: Record<string, unknown>, where: EntryWhere): boolean {
  const { path, field, sink } = where;
  let ok = true;
  for (const [key, value] of Object.entries(entry)) {
    if (!(key in LIST_ENTRY_FIELDS)) {
      sink.error(path, `${field}.${key}`, `unknown key (valid: ${Object.keys(LIST_ENTRY_FIELDS).join(", ")})`);
      continue;
    }
    const message = checkField(LIST_ENTRY_FIELDS[key as keyof typeof LIST_ENTRY_FIELDS], value);
    if (message !== undefined) {
      sink.error(path, `${field}.${key}`, `${message}; not loaded`);
      ok = false;
    }
  }
  if (entry.command === undefined) {
    sink.error(path, `${field}.command`, `missing required field "command"; not loaded`);
    ok = false;
  }
  return ok;
}

/** The inheritable settings of one hook; `policyFrom` names where an inherited failure_policy came from. */
interface InheritedValues {
  readonly values: Readonly<Record<string, unknown>>;
  readonly policyFrom: string | undefined;
}

/** Own value, else the scope's global, else the default, per INHERITED key; undefined (after reporting each) when a global it needs is invalid. */
function resolveInherited(entry: Record<string, unknown>, chain: GlobalChain, where: EntryWhere): InheritedValues | undefined {
  const { path, field, sink } = where;
  const effective = (key: string): { value: unknown; inherited: boolean; from?: string } | undefined => {
    if (entry[key] !== undefined) return { value: entry[key], inherited: false };
    const global = chain.get(key);
    if (global === undefined) return { value: INHERITED[key], inherited: true };
    if (!global.valid) {
      sink.error(path, `${field}.${key}`, `inherits the invalid ${global.field} of ${global.file}; not loaded`);
      return undefined;
    }
    return { value: global.value, inherited: true, from: global.field };
  };
  const values: Record<string, unknown> = {};
  let policyFrom: string | undefined;
  let ok = true;
  for (const key of Object.keys(INHERITED)) {
    const resolved = effective(key);
    if (resolved === undefined) ok = false;
    else {
      values[key] = resolved.value;
      if (key === "failure_policy" && resolved.inherited) policyFrom = resolved.from ?? "the default";
    }
  }
  return ok ? { values, policyFrom } : undefined;
}

/** `block` only exists before a tool runs (TOOL-04, MERGE-31); false (after reporting) when it is set or inherited elsewhere. */
function policyAllowedOn(phase: ListPhase, inherited: InheritedValues, where: EntryWhere): boolean {
  if (inherited.values.failure_policy !== "block" || phase === "before_tool") return true;
  const reason =
    inherited.policyFrom === undefined
      ? `"block" is not allowed on ${phase} (use ignore, warn or fail); not loaded`
      : `"block" is inherited from ${inherited.policyFrom} and is not allowed on ${phase} (set ignore, warn or fail on this hook); not loaded`;
  where.sink.error(where.path, `${where.field}.failure_policy`, reason);
  return false;
}

/** Warns about tool lists that select nothing: any on a message phase, unknown names elsewhere. */
function warnToolLists(phase: ListPhase, include: readonly string[], exclude: readonly string[], where: EntryWhere): void {
  const { path, field, sink } = where;
  const lists = [
    ["include_tools", include],
    ["exclude_tools", exclude],
  ] as const;
  if (MESSAGE_PHASES.has(phase)) {
    for (const [key, list] of lists) {
      if (list.length > 0) sink.warning(path, `${field}.${key}`, `${key} has no effect on ${phase} (message phases wrap no tool call)`);
    }
    return;
  }
  for (const [key, list] of lists) {
    list.forEach((name, i) => {
      if (canonicalTool(name) === undefined && !name.startsWith(MCP_PREFIX))
        sink.warning(path, `${field}.${key}[${i}]`, `unknown tool name ${JSON.stringify(name)} (selects nothing)`);
    });
  }
}

function loadEntry(entry: unknown, place: EntryPlace, sink: WarningSink): ListHookSpec | undefined {
  const { path, phase } = place;
  const field = `hooks.${phase}[${place.index}]`;
  if (!isRecord(entry)) {
    sink.error(path, field, `${showValue(entry)} is not a hook definition ({"command": …}); not loaded`);
    return undefined;
  }
  const where: EntryWhere = { path, field, sink };
  if (!checkEntryFields(entry, where)) return undefined;
  const inherited = resolveInherited(entry, place.chain, where);
  if (inherited === undefined || !policyAllowedOn(phase, inherited, where)) return undefined;

  const include = stringList(entry.include_tools);
  const exclude = stringList(entry.exclude_tools);
  warnToolLists(phase, include, exclude, where);

  const { values } = inherited;
  const label = typeof entry.label === "string" && entry.label.trim() !== "" ? entry.label : "hook";
  const dialect: Dialect = entry.protocol === "claude" || entry.protocol === "action" ? entry.protocol : "envelope";
  return {
    label,
    scope: place.scope,
    form: "list",
    dialect,
    event: PHASE_EVENT[phase],
    source: path,
    field,
    disabled: entry.disabled === true || !place.enabled,
    timeoutMs: num(values.timeout_seconds) * 1000,
    command: typeof entry.command === "string" ? entry.command : "",
    phase,
    index: place.index,
    failurePolicy: asPolicy(values.failure_policy),
    payload: values.payload === "full" ? "full" : ("redacted" satisfies PayloadMode),
    stdoutMaxBytes: num(values.stdout_max_bytes),
    stderrMaxBytes: num(values.stderr_max_bytes),
    providerContextInjection: values.provider_context_injection === true,
    providerContextMaxBytes: num(values.provider_context_max_bytes),
    includeTools: include,
    excludeTools: exclude,
    absolutePaths: place.absolutePaths,
  };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function num(value: unknown): number {
  return typeof value === "number" ? value : 0;
}

function asPolicy(value: unknown): FailurePolicy {
  return value === "ignore" || value === "block" || value === "fail" ? value : "warn";
}
