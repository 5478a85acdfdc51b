/**
 * Hooks from agent definitions' front matter: `$AGENT_HOME/agents/NAME.md` (user)
 * and `<project>/.agent/agents/NAME.md` (project). As for the system prompt, the user's file of a
 * name wins: a project file of the same name is ignored with a warning, so a cloned repository
 * can never swap the user's `reviewer` (and drop its fail-closed hooks) for its own. A project
 * agent of a new name loads like any project file (pinned by trust). The `hooks:` value (src/config/
 * frontmatter-hooks.ts) has the shape of `hooks.lifecycle` (`{PreToolUse: [{matcher, hooks: [...]}]}`),
 * so it is loaded by the lifecycle loader: same keys, bounds and warnings. Each spec gets
 * `agent: NAME`; `Stop` becomes subagent_stop and subagent_start/subagent_stop hooks are matched
 * to NAME (they fire in the parent, src/hooks/agent-scope.ts). Project ones are project hooks:
 * the agent file is pinned with the rest of `.agent/`, and these specs and the scripts they run are
 * in the trust material like any project hook's (D17).
 */
import { CONFIG_FILE_MAX_BYTES } from "./settings.ts";
import type { FileSystem } from "../runtime/types.ts";
import type { LifecycleHookSpec, Scope } from "../hooks/types.ts";
import { compileMatcher, loadLifecycle, type LifecycleOptions } from "./lifecycle.ts";
import { frontmatterHooks } from "./frontmatter-hooks.ts";
import { claudeHooksAsLifecycle } from "./claude-settings.ts";
import { isRecord } from "../util/records.ts";
import { joinPath } from "../util/path-utils.ts";
import { WarningSink } from "./warnings.ts";

// As in src/agent/task-tool.ts: an agent name is one path segment.
const AGENT_FILE = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.md$/;
/** Events that never fire inside a subagent (its parent fires subagent_start/subagent_stop instead). */
const NEVER_IN_CHILD: ReadonlySet<string> = new Set(["session_start", "session_end", "user_prompt_submit"]);
const STOP_KEYS: ReadonlySet<string> = new Set(["Stop", "stop", "task_completion", "task_completed"]);

export interface AgentHookRoot {
  readonly dir: string;
  readonly scope: Scope;
}

function listAgentFiles(fs: FileSystem, dir: string): Map<string, string> {
  const files = new Map<string, string>();
  let names: string[] = [];
  try {
    names = fs.readdir(dir);
  } catch {
    return files;
  }
  for (const name of [...names].sort()) {
    const match = AGENT_FILE.exec(name);
    if (match?.[1] !== undefined) files.set(match[1], joinPath(dir, name));
  }
  return files;
}

function regexEscape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Every agent file's front-matter hooks, user root first. Problems are warnings; never throws. */
export function loadAgentHooks(fs: FileSystem, roots: readonly AgentHookRoot[], sink: WarningSink, options: LifecycleOptions = {}): LifecycleHookSpec[] {
  const winners = new Map<string, { path: string; scope: Scope }>();
  for (const root of roots) {
    for (const [name, path] of listAgentFiles(fs, root.dir)) {
      const mine = winners.get(name);
      if (mine?.scope === "user" && root.scope === "project") {
        sink.warning(
          path,
          "",
          `ignored: your agent ${name} (${mine.path}) has this name, and a project never replaces a user agent; rename the project's file to use it`,
        );
        continue;
      }
      winners.set(name, { path, scope: root.scope });
    }
  }
  const specs: LifecycleHookSpec[] = [];
  for (const scope of ["user", "project"] as const) {
    for (const [name, file] of winners) if (file.scope === scope) specs.push(...loadOne(fs, name, file, sink, options));
  }
  return specs;
}

/**
 * One agent file's front-matter hooks for the subagent `name`; `alsoCalled` is another name the
 * parent's subagent_start/subagent_stop see it by (a plugin agent is `plugin:name` and `name`).
 */
export function loadAgentFileHooks(
  fs: FileSystem,
  name: string,
  file: { path: string; scope: Scope },
  sink: WarningSink,
  options: LifecycleOptions & { alsoCalled?: string } = {},
): LifecycleHookSpec[] {
  return loadOne(fs, name, file, sink, options);
}

function loadOne(
  fs: FileSystem,
  name: string,
  file: { path: string; scope: Scope },
  sink: WarningSink,
  options: LifecycleOptions & { alsoCalled?: string },
): LifecycleHookSpec[] {
  let text: string | undefined;
  try {
    text = fs.readText(file.path, { maxBytes: CONFIG_FILE_MAX_BYTES });
  } catch (error) {
    sink.error(file.path, "", `could not be read: ${error instanceof Error ? error.message : String(error)}; no hook of this agent is loaded`);
    return [];
  }
  if (text === undefined) return [];
  const parsed = frontmatterHooks(text);
  if (!parsed.ok) {
    sink.syntax(file.path, parsed.line, 1, `front matter hooks: ${parsed.message}; no hook of this agent is loaded`);
    return [];
  }
  if (parsed.hooks === undefined || parsed.hooks === null) return [];
  if (!isRecord(parsed.hooks)) {
    sink.error(file.path, "hooks", "must be a mapping of event names to groups, like hooks.lifecycle (PreToolUse: [{matcher, hooks: [{command}]}])");
    return [];
  }
  const lifecycle: Record<string, unknown> = {};
  for (const [key, groups] of Object.entries(parsed.hooks)) {
    if (NEVER_IN_CHILD.has(key) || ["SessionStart", "SessionEnd", "UserPromptSubmit"].includes(key)) {
      sink.warning(file.path, `hooks.${key}`, `${key} never fires inside a subagent; these hooks are not loaded (declare them in .agent/config.toml)`);
      continue;
    }
    // Claude Code: a Stop hook in an agent's front matter runs when that agent stops (SubagentStop).
    const event = STOP_KEYS.has(key) ? "subagent_stop" : key;
    const existing = lifecycle[event];
    lifecycle[event] = Array.isArray(existing) && Array.isArray(groups) ? [...existing, ...groups] : groups;
  }
  // Field paths name the agent file's own keys (`hooks.PreToolUse[0]…`), not `hooks.lifecycle.…`.
  const local = new WarningSink();
  // Claude Code's `timeout` (seconds) is our `timeout_seconds`, as in its settings files.
  const loaded = loadLifecycle(
    { file: { path: file.path, scope: file.scope, format: "json" }, present: true, data: { hooks: { lifecycle: claudeHooksAsLifecycle(lifecycle) } } },
    local,
    options,
  );
  for (const item of local.items) sink.items.push({ ...item, field: item.field.replace(/^hooks\.lifecycle\./, "hooks.") });
  const names = options.alsoCalled === undefined ? regexEscape(name) : `${regexEscape(name)}|${regexEscape(options.alsoCalled)}`;
  const exact = compileMatcher(names, "subagent_start");
  return loaded.map((spec) => {
    const parentSide = spec.event === "subagent_start" || spec.event === "subagent_stop";
    return {
      ...spec,
      label: `agents/${name}.md:${spec.label}`,
      field: spec.field.replace(/^hooks\.lifecycle\./, "hooks."),
      agent: name,
      ...(parentSide && exact.ok ? { matcher: names, matcherRegex: exact.regex } : {}),
    };
  });
}
