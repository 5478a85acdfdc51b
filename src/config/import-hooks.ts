/**
 * `agent hooks import --from claude|gemini|codex`: other agents' hook config
 * translated into our `hooks.lifecycle` groups (claude dialect), with one note per thing that could
 * not be translated. Pure: parsed documents in, groups and notes out; the CLI reads and writes files.
 *
 * - claude: `.claude/settings.json` / `settings.local.json` `hooks` — `{Event: [{matcher, hooks:
 *   [{type, command, timeout (s), async, once, statusMessage}]}]}`, our own shape.
 * - gemini: `.gemini/settings.json` `hooks` — `{BeforeTool|AfterTool|BeforeAgent|AfterAgent|
 *   SessionStart|SessionEnd|PreCompress|Notification: [{matcher, sequential, hooks: [{type, command,
 *   name, description, timeout (ms)}]}]}`; Gemini tool names in matchers become ours.
 * - codex: `.codex/config.toml` `[[hooks.Event]]` / `[[hooks.Event.hooks]]` tables and
 *   `.codex/hooks.json` (Claude-shaped events, `timeout` in seconds); `notify` has no equivalent.
 */
import { LIFECYCLE_COMMAND_FIELDS, LIFECYCLE_EVENT_KEYS } from "./schema.ts";
import { isRecord } from "../util/records.ts";

export type ImportSource = "claude" | "gemini" | "codex";
export const IMPORT_SOURCES: readonly ImportSource[] = ["claude", "gemini", "codex"];

export interface ImportNote {
  /** Display name of the source file. */
  readonly file: string;
  readonly field: string;
  readonly message: string;
}

export interface ImportedGroup {
  /** Our `hooks.lifecycle` key (Claude-style event name). */
  readonly event: string;
  readonly group: { matcher?: string; hooks: Record<string, unknown>[] };
}

export interface ImportResult {
  readonly groups: ImportedGroup[];
  readonly notes: ImportNote[];
}

const GEMINI_EVENTS: Readonly<Record<string, string>> = {
  BeforeTool: "PreToolUse",
  AfterTool: "PostToolUse",
  BeforeAgent: "UserPromptSubmit",
  AfterAgent: "Stop",
  SessionStart: "SessionStart",
  SessionEnd: "SessionEnd",
  PreCompress: "PreCompact",
  Notification: "Notification",
};

/** Gemini CLI built-in tool names → the Claude-style names our matchers know. */
const GEMINI_TOOLS: Readonly<Record<string, string>> = {
  run_shell_command: "Bash",
  write_file: "Write",
  replace: "Edit",
  read_file: "Read",
  glob: "Glob",
  search_file_content: "Grep",
  grep_search: "Grep",
};

/** Timeouts here are whole seconds, 1..600 (D23). */
const MAX_TIMEOUT_SECONDS = 600;

/** Keys that only describe a hook; dropped with a note. */
const DESCRIPTIVE = new Set(["name", "description"]);

export function translateHooks(source: ImportSource, file: string, document: Record<string, unknown>): ImportResult {
  const notes: ImportNote[] = [];
  const groups: ImportedGroup[] = [];
  const note = (field: string, message: string): void => {
    notes.push({ file, field, message });
  };
  if (source === "codex" && document.notify !== undefined) {
    note("notify", "not translated: Codex passes its own JSON as the last argument; run it from a stop hook script that reads our Stop payload on stdin");
  }
  const hooks = document.hooks;
  if (hooks === undefined) return { groups, notes };
  if (!isRecord(hooks)) {
    note("hooks", "not translated: must be an object of event names to groups");
    return { groups, notes };
  }
  for (const [key, value] of Object.entries(hooks)) {
    const field = `hooks.${key}`;
    // Gemini's `hooks.enabled`/`hooks.disabled` switches sit beside the events.
    if (source === "gemini" && (key === "enabled" || key === "disabled" || key === "notifications")) continue;
    const event = source === "gemini" ? GEMINI_EVENTS[key] : LIFECYCLE_EVENT_KEYS.includes(key) ? key : undefined;
    if (event === undefined) {
      note(
        field,
        `not translated: no ${key} event here (events: PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, SessionEnd, PermissionRequest, Stop, PreCompact, Notification, SubagentStart, SubagentStop)`,
      );
      continue;
    }
    if (!Array.isArray(value)) {
      note(
        field,
        source === "codex"
          ? "not translated: a flat table; write [[hooks.Event]] groups with [[hooks.Event.hooks]] commands"
          : "not translated: must be an array of groups",
      );
      continue;
    }
    value.forEach((group: unknown, index) => {
      const translated = translateGroup(source, `${field}[${index}]`, group, note);
      if (translated !== undefined) groups.push({ event, group: translated });
    });
  }
  return { groups, notes };
}

function translateGroup(
  source: ImportSource,
  field: string,
  group: unknown,
  note: (field: string, message: string) => void,
): ImportedGroup["group"] | undefined {
  if (!isRecord(group)) {
    note(field, "not translated: a group must be an object with matcher and hooks");
    return undefined;
  }
  for (const key of Object.keys(group)) {
    if (key === "matcher" || key === "hooks") continue;
    if (key === "sequential" && source === "gemini") {
      if (group.sequential === false) note(`${field}.sequential`, "hooks of a group run one after another here, never in parallel");
      continue;
    }
    note(`${field}.${key}`, "not translated: unknown group key");
  }
  const matcher = group.matcher;
  if (matcher !== undefined && typeof matcher !== "string") {
    note(`${field}.matcher`, "not translated: the matcher is not a string; group skipped");
    return undefined;
  }
  const commands: Record<string, unknown>[] = [];
  const list = Array.isArray(group.hooks) ? group.hooks : [];
  if (list.length === 0) note(`${field}.hooks`, "not translated: no hooks array; group skipped");
  list.forEach((entry: unknown, index) => {
    const command = translateCommand(source, `${field}.hooks[${index}]`, entry, note);
    if (command !== undefined) commands.push(command);
  });
  if (commands.length === 0) return undefined;
  const translatedMatcher = matcher === undefined ? undefined : source === "gemini" ? geminiMatcher(`${field}.matcher`, matcher, note) : matcher;
  if (source === "codex" && matcher !== undefined && /apply_patch/.test(matcher)) {
    // Codex's apply_patch creates, edits and deletes files with one patch text; ours are separate tools.
    note(
      `${field}.matcher`,
      `kept as written, but apply_patch is not one tool here: it selects Edit only (Write, which creates files, is not matched; use "Edit|Write"), and tool_input holds file_path/old_string/new_string, not the patch text`,
    );
  }
  return { ...(translatedMatcher !== undefined && translatedMatcher !== "" ? { matcher: translatedMatcher } : {}), hooks: commands };
}

function translateCommand(
  source: ImportSource,
  field: string,
  entry: unknown,
  note: (field: string, message: string) => void,
): Record<string, unknown> | undefined {
  if (!isRecord(entry)) {
    note(field, "not translated: a command must be an object");
    return undefined;
  }
  const type = entry.type ?? "command";
  // Claude Code's http and prompt handlers exist here too; other agents' do not.
  const handler = source === "claude" && (type === "http" || type === "prompt") ? type : undefined;
  if (type !== "command" && handler === undefined) {
    note(field, `not translated: handler type ${JSON.stringify(type)} (only "command"${source === "claude" ? ', "http" and "prompt"' : ""} hooks run here)`);
    return undefined;
  }
  const main = handler === "http" ? "url" : handler === "prompt" ? "prompt" : "command";
  const mainValue = entry[main];
  if (typeof mainValue !== "string" || mainValue.trim() === "") {
    note(`${field}.${main}`, `not translated: missing ${main}`);
    return undefined;
  }
  const out: Record<string, unknown> = handler === undefined ? { command: mainValue } : { type: handler, [main]: mainValue };
  if (handler === undefined && /\$\{?CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])/.test(mainValue)) {
    note(
      `${field}.command`,
      "imported, but names ${CLAUDE_PLUGIN_ROOT}, which is set only for a plugin's own hooks: here it is empty and the hook cannot find its script (install the plugin instead: agent plugin install DIR, or --plugin-dir DIR)",
    );
  }
  if (handler === "http")
    note(`${field}.url`, 'runs only if the URL matches hooks.http_allow in ~/.agent/config.toml; the payload is redacted unless payload = "full"');
  for (const [key, value] of Object.entries(entry)) {
    if (key === "type" || key === main) continue;
    if (handler === "http" && key === "headers" && isRecord(value)) {
      // Claude Code also reads `$NAME` in header values; ours are `${NAME}` only.
      out.headers = Object.fromEntries(
        Object.entries(value).map(([name, text]) => [name, typeof text === "string" ? text.replace(/\$([A-Za-z_][A-Za-z0-9_]*)/g, "${$1}") : text]),
      );
      continue;
    }
    if (handler === "http" && key === "allowedEnvVars") {
      note(`${field}.${key}`, "dropped: header ${NAME} values read the environment here (a project hook never gets a stripped credential)");
      continue;
    }
    if (key === "timeout") {
      const seconds = timeoutSeconds(source, value);
      if (seconds === undefined)
        note(
          `${field}.timeout`,
          `not translated: ${JSON.stringify(value)} is not a number of ${source === "gemini" ? "milliseconds" : "seconds"}; the default 60 s applies`,
        );
      else {
        if (seconds.clamped)
          note(
            `${field}.timeout`,
            `${JSON.stringify(value)}${source === "gemini" ? " ms" : " s"} written as ${seconds.value} s (whole seconds, 1..${MAX_TIMEOUT_SECONDS})`,
          );
        out.timeout_seconds = seconds.value;
      }
    } else if (key in LIFECYCLE_COMMAND_FIELDS && key !== "protocol")
      out[key] = value; // a key our lifecycle commands take too (Claude's `async`, `once`, …)
    else if (DESCRIPTIVE.has(key)) note(`${field}.${key}`, "dropped: descriptive only (the hook's label here is its place in the file)");
    else note(`${field}.${key}`, "not translated: unknown command key");
  }
  if (source === "gemini") note(field, "gets Claude Code's payload here (tool_name Bash, Write, …; tool_input in Claude's field names), not Gemini's");
  return out;
}

function timeoutSeconds(source: ImportSource, value: unknown): { value: number; clamped: boolean } | undefined {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return undefined;
  const exact = source === "gemini" ? value / 1000 : value;
  const bounded = Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, Math.ceil(exact)));
  return { value: bounded, clamped: bounded !== exact };
}

/** `run_shell_command|write_file` → `Bash|Write`; anything but a plain `|` list of names is kept with a note. */
function geminiMatcher(field: string, matcher: string, note: (field: string, message: string) => void): string {
  if (matcher === "" || matcher === "*") return matcher;
  const names = matcher.split("|");
  if (!names.every((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))) {
    note(field, `kept as written: ${JSON.stringify(matcher)} is a regex over Gemini tool names; ours are Bash, Read, Write, Edit, Grep, Glob, Task`);
    return matcher;
  }
  const mapped = names.map((name) => GEMINI_TOOLS[name] ?? name);
  const unknown = names.filter((name) => GEMINI_TOOLS[name] === undefined);
  if (unknown.length > 0) note(field, `matches no tool here: ${unknown.join(", ")}`);
  return mapped.join("|");
}
