/**
 * The one valibot schema family for settings (`config.toml` and `settings.json` are two spellings of
 * it) and for `hook.json` fields. Loaders check field by field with `checkField`, so one bad value
 * costs only its hook (D21); `settingsSchema` composes the same field schemas for `agent config
 * schema` (CLI-21). Messages name the bound, e.g. `61 is out of range 1..60`.
 */
import * as v from "valibot";
import { allEventNames } from "../util/events.ts";
import { PERMISSION_MODES } from "../permissions/mode.ts";

export function showValue(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function intRange(min: number, max?: number) {
  const bound = max === undefined ? `>= ${min}` : `${min}..${max}`;
  const notInt = (issue: { input: unknown }) => `${showValue(issue.input)} is not an integer (allowed ${bound})`;
  const out = (issue: { input: unknown }) => `${showValue(issue.input)} is out of range ${bound}`;
  return max === undefined
    ? v.pipe(v.number(notInt), v.integer(notInt), v.minValue(min, out))
    : v.pipe(v.number(notInt), v.integer(notInt), v.minValue(min, out), v.maxValue(max, out));
}

export const booleanField = v.boolean((issue) => `${showValue(issue.input)} is not a boolean`);

export const stringField = v.string((issue) => `${showValue(issue.input)} is not a string`);

export function oneOf<const T extends readonly string[]>(values: T) {
  return v.picklist(values, (issue) => `${showValue(issue.input)} is not one of ${values.join(", ")}`);
}

export const nonBlankString = v.pipe(
  stringField,
  v.check((value) => value.trim().length > 0, "must not be blank"),
);

export const toolList = v.array(stringField, (issue) => `${showValue(issue.input)} is not an array of tool names`);

export const FAILURE_POLICIES = ["ignore", "warn", "block", "fail"] as const;
export const PAYLOAD_MODES = ["redacted", "full"] as const;
export { PERMISSION_MODES };
export const LIST_KEYS = ["before_tool", "after_tool", "after_assistant", "after_reasoning"] as const;
export type ListKey = (typeof LIST_KEYS)[number];

/** Seed 003's global list settings and their bounds. */
export const LIST_GLOBAL_FIELDS = {
  enabled: booleanField,
  show_in_tui: booleanField,
  payload: oneOf(PAYLOAD_MODES),
  timeout_seconds: intRange(1, 60),
  stdout_max_bytes: intRange(1, 65536),
  stderr_max_bytes: intRange(1, 65536),
  provider_context_injection: booleanField,
  provider_context_max_bytes: intRange(1, 16384),
  failure_policy: oneOf(FAILURE_POLICIES),
} as const;

export const INJECTED_CONTENT_FIELDS = {
  show_in_transcript: booleanField,
  show_in_activity_tree: booleanField,
  style: oneOf(["content", "metadata"] as const),
} as const;

/** One entry of `hooks.before_tool|after_tool|after_assistant|after_reasoning`. */
export const LIST_ENTRY_FIELDS = {
  label: stringField,
  command: nonBlankString,
  payload: LIST_GLOBAL_FIELDS.payload,
  failure_policy: LIST_GLOBAL_FIELDS.failure_policy,
  timeout_seconds: LIST_GLOBAL_FIELDS.timeout_seconds,
  stdout_max_bytes: LIST_GLOBAL_FIELDS.stdout_max_bytes,
  stderr_max_bytes: LIST_GLOBAL_FIELDS.stderr_max_bytes,
  provider_context_injection: booleanField,
  provider_context_max_bytes: LIST_GLOBAL_FIELDS.provider_context_max_bytes,
  include_tools: toolList,
  exclude_tools: toolList,
  protocol: oneOf(["envelope", "claude", "action"] as const),
  disabled: booleanField,
} as const;

export const HANDLER_TYPES = ["command", "http", "prompt"] as const;

/**
 * One command of a lifecycle group (D23), plus Claude Code's command-hook keys:
 * `timeout` (seconds, alias of `timeout_seconds`), `async`, `once` and `statusMessage`, and the
 * keys of its `http` (`url`, `headers`, our `payload`) and `prompt` (`prompt`, `model`) handlers.
 */
export const LIFECYCLE_COMMAND_FIELDS = {
  command: nonBlankString,
  timeout_seconds: intRange(1, 600),
  timeout: intRange(1, 600),
  type: oneOf(HANDLER_TYPES),
  url: v.pipe(
    nonBlankString,
    v.check((value) => /^https?:\/\//.test(value), "must start with http:// or https://"),
  ),
  headers: v.record(v.string(), stringField, (issue) => `${showValue(issue.input)} is not a table of strings`),
  payload: oneOf(PAYLOAD_MODES),
  prompt: nonBlankString,
  model: nonBlankString,
  failure_policy: oneOf(FAILURE_POLICIES),
  protocol: oneOf(["claude", "action"] as const),
  disabled: booleanField,
  async: booleanField,
  once: booleanField,
  statusMessage: stringField,
} as const;

/** Lifecycle keys (D23): every event spelling except the four list keys. */
export const LIFECYCLE_EVENT_KEYS: readonly string[] = allEventNames().filter((name) => !(LIST_KEYS as readonly string[]).includes(name));

export const OTHER_HOOK_FIELDS = {
  stop_block_cap: intRange(1),
  /** User config only: the URL patterns http hooks may POST to (src/hooks/handlers/http-allow.ts). */
  http_allow: v.array(stringField, (issue) => `${showValue(issue.input)} is not an array of URL patterns`),
} as const;

export const HOOK_JSON_KEYS = ["name", "event", "match", "run", "timeout", "fail_closed", "async", "disabled", "protocol"] as const;

/** First issue message of `schema` for `value`, or undefined when valid. */
export function checkField(schema: v.GenericSchema, value: unknown): string | undefined {
  const result = v.safeParse(schema, value);
  return result.success ? undefined : (result.issues[0]?.message ?? "invalid value");
}

function optionalFields<T extends Record<string, v.GenericSchema>>(fields: T): { [K in keyof T]: v.OptionalSchema<T[K], undefined> } {
  const out: Record<string, v.GenericSchema> = {};
  for (const [key, schema] of Object.entries(fields)) out[key] = v.optional(schema);
  return out as { [K in keyof T]: v.OptionalSchema<T[K], undefined> };
}

const listEntrySchema = v.strictObject({ ...optionalFields(LIST_ENTRY_FIELDS), command: LIST_ENTRY_FIELDS.command });
const lifecycleCommandSchema = v.strictObject(optionalFields(LIFECYCLE_COMMAND_FIELDS));
const lifecycleGroupSchema = v.strictObject({
  matcher: v.optional(stringField),
  hooks: v.pipe(v.array(lifecycleCommandSchema), v.minLength(1, "a group needs at least one command")),
});

const lifecycleSchema = v.strictObject({
  quiet_success_output: v.optional(booleanField),
  ...Object.fromEntries(LIFECYCLE_EVENT_KEYS.map((key) => [key, v.optional(v.array(lifecycleGroupSchema))])),
});

const providerSchema = v.strictObject({
  base_url: v.optional(stringField),
  model: v.optional(stringField),
  api_key: v.optional(stringField),
  api_key_env: v.optional(stringField),
});

export const PROVIDER_FIELDS = { base_url: stringField, model: stringField, api_key: stringField, api_key_env: stringField } as const;

const stringTable = v.record(v.string(), stringField, (issue) => `${showValue(issue.input)} is not a table of strings`);

/** One `mcp_servers.<name>` entry (src/config/mcp-servers.ts reads them); `${NAME}` in env/header values comes from the environment. */
export const MCP_SERVER_FIELDS = {
  command: nonBlankString,
  args: v.array(stringField, (issue) => `${showValue(issue.input)} is not an array of strings`),
  env: stringTable,
  cwd: nonBlankString,
  url: v.pipe(
    nonBlankString,
    v.check((value) => /^https?:\/\//.test(value), "must start with http:// or https://"),
  ),
  headers: stringTable,
  startup_timeout_ms: intRange(100, 600_000),
  tool_timeout_ms: intRange(100, 3_600_000),
  disabled: booleanField,
} as const;

const mcpServerSchema = v.strictObject(optionalFields(MCP_SERVER_FIELDS));

/** `agent.context_files`: instruction file names read in each directory, in order (a name, not a path). */
export const contextFilesField = v.array(
  v.pipe(
    nonBlankString,
    v.check((value) => !/[\\/]/.test(value) && value !== "." && value !== "..", "must be a file name, not a path"),
  ),
  (issue) => `${showValue(issue.input)} is not an array of file names`,
);

const priceField = v.pipe(
  v.number((issue) => `${showValue(issue.input)} is not a number (USD per million tokens)`),
  v.minValue(0, (issue) => `${showValue(issue.input)} is negative`),
);

/** One `agent.models."<model>"` entry: its context window (tokens) and prices (USD per million tokens). */
export const MODEL_FIELDS = {
  context_window: intRange(1024),
  input_price: priceField,
  output_price: priceField,
  cache_read_price: priceField,
  cache_write_price: priceField,
} as const;

/** The whole settings document, as `agent config schema` publishes it. */
export const settingsSchema = v.object({
  hooks: v.optional(
    v.strictObject({
      ...optionalFields(LIST_GLOBAL_FIELDS),
      injected_content: v.optional(v.strictObject(optionalFields(INJECTED_CONTENT_FIELDS))),
      stop_block_cap: v.optional(OTHER_HOOK_FIELDS.stop_block_cap),
      http_allow: v.optional(OTHER_HOOK_FIELDS.http_allow),
      before_tool: v.optional(v.array(listEntrySchema)),
      after_tool: v.optional(v.array(listEntrySchema)),
      after_assistant: v.optional(v.array(listEntrySchema)),
      after_reasoning: v.optional(v.array(listEntrySchema)),
      lifecycle: v.optional(lifecycleSchema),
    }),
  ),
  tools: v.optional(
    v.object({
      bash: v.optional(v.object({ absolute_paths: v.optional(booleanField) })),
      /** User config only: the hosts `web_fetch` may fetch; absent or empty, the tool is off. */
      web_fetch: v.optional(v.strictObject({ allow: v.optional(v.array(stringField)) })),
    }),
  ),
  permissions: v.optional(
    v.strictObject({
      mode: v.optional(oneOf(PERMISSION_MODES)),
      allow: v.optional(v.array(stringField)),
      ask: v.optional(v.array(stringField)),
      deny: v.optional(v.array(stringField)),
    }),
  ),
  agent: v.optional(
    v.object({
      max_context_tokens: v.optional(intRange(1)),
      context_files: v.optional(contextFilesField),
      models: v.optional(v.record(v.string(), v.strictObject(optionalFields(MODEL_FIELDS)))),
    }),
  ),
  provider: v.optional(stringField),
  model: v.optional(stringField),
  base_url: v.optional(stringField),
  providers: v.optional(v.record(v.string(), providerSchema)),
  mcp_servers: v.optional(v.record(v.string(), mcpServerSchema)),
});
