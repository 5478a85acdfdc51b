/**
 * Claude Code's own settings files as a hook source: `~/.claude/settings.json`
 * (`$CLAUDE_CONFIG_DIR/settings.json` when set; user scope), `<project>/.claude/settings.json` and
 * `<project>/.claude/settings.local.json` (project scope, so trusted like our own project files:
 * their hooks and the scripts those run are pinned, D17). Read only with `compat.claude_settings =
 * true` in a user config file (a cloned repository cannot switch it on). Only their `hooks` key is
 * read: `{"PreToolUse": [{matcher, hooks: [{type, command, timeout}]}]}` is the shape of our
 * `hooks.lifecycle`, so the lifecycle loader takes it, with Claude's `timeout` (seconds) as our
 * `timeout_seconds`. Every other key of those files (permissions, env, model, …) is ignored.
 */
import type { FileSystem } from "../runtime/types.ts";
import type { LifecycleHookSpec, Scope } from "../hooks/types.ts";
import { loadLifecycle, type LifecycleOptions } from "./lifecycle.ts";
import { isRecord } from "../util/records.ts";
import { joinPath } from "../util/path-utils.ts";
import { readSettingsFile, type ParsedSettingsFile } from "./settings.ts";
import type { SettingsFile } from "./paths.ts";
import { WarningSink } from "./warnings.ts";

/** `compat.claude_settings` from the user files; a project file setting it gets a warning. */
export function claudeSettingsEnabled(files: readonly ParsedSettingsFile[], sink: WarningSink): boolean {
  let enabled = false;
  for (const { file, data } of files) {
    const compat = data?.compat;
    if (compat === undefined) continue;
    if (!isRecord(compat)) {
      sink.error(file.path, "compat", "must be a table/object");
      continue;
    }
    for (const [key, value] of Object.entries(compat)) {
      const field = `compat.${key}`;
      if (key !== "claude_settings") sink.warning(file.path, field, "unknown setting (ignored; valid: claude_settings)");
      else if (file.scope === "project")
        sink.error(file.path, field, "is read from user config only (ignored here); set it in ~/.agent/config.toml ($AGENT_HOME) instead");
      else if (typeof value !== "boolean") sink.error(file.path, field, `${JSON.stringify(value)} is not a boolean`);
      else enabled = value;
    }
  }
  return enabled;
}

/** The Claude Code settings files for a user home and (when there is one) a project root. */
export function claudeSettingsFiles(options: { env: Readonly<Record<string, string>>; home: string; projectRoot: string | null }): SettingsFile[] {
  const configDir = options.env.CLAUDE_CONFIG_DIR?.trim() || joinPath(options.home, ".claude");
  const files: SettingsFile[] = [{ path: joinPath(configDir, "settings.json"), scope: "user", format: "json" }];
  if (options.projectRoot !== null) {
    for (const name of ["settings.json", "settings.local.json"])
      files.push({ path: joinPath(options.projectRoot, `.claude/${name}`), scope: "project", format: "json" });
  }
  return files;
}

/** Claude's command keys in ours: `timeout` (seconds) is `timeout_seconds`; the rest pass as written. */
export function claudeCommandEntry(entry: unknown): unknown {
  if (!isRecord(entry) || entry.timeout === undefined || entry.timeout_seconds !== undefined) return entry;
  const { timeout, ...rest } = entry;
  return { ...rest, timeout_seconds: timeout };
}

/** A Claude-shaped `hooks` object (`{Event: [{matcher, hooks: [...]}]}`) as our `hooks.lifecycle` table. */
export function claudeHooksAsLifecycle(hooks: Record<string, unknown>): Record<string, unknown> {
  const lifecycle: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(hooks)) {
    lifecycle[event] = Array.isArray(groups)
      ? groups.map((group) => (isRecord(group) && Array.isArray(group.hooks) ? { ...group, hooks: group.hooks.map(claudeCommandEntry) } : group))
      : groups;
  }
  return lifecycle;
}

function displayName(file: SettingsFile): string {
  return file.scope === "user" ? "~/.claude/settings.json" : `.claude/${file.path.slice(file.path.lastIndexOf("/") + 1)}`;
}

/** The hooks of every present Claude settings file of `scope`, as lifecycle specs. Never throws. */
export function loadClaudeHooks(
  fs: FileSystem,
  files: readonly SettingsFile[],
  scope: Scope,
  sink: WarningSink,
  options: LifecycleOptions = {},
): LifecycleHookSpec[] {
  const specs: LifecycleHookSpec[] = [];
  for (const file of files) {
    if (file.scope !== scope) continue;
    const parsed = readSettingsFile(fs, file, sink);
    const hooks = parsed.data?.hooks;
    if (hooks === undefined) continue;
    if (!isRecord(hooks)) {
      sink.error(file.path, "hooks", "must be an object of event names (PreToolUse, …) to groups");
      continue;
    }
    // Field paths name the file's own keys (`hooks.PreToolUse[0]…`), not `hooks.lifecycle.…`.
    const local = new WarningSink();
    const loaded = loadLifecycle(
      { file: { ...file, path: file.path }, present: true, data: { hooks: { lifecycle: claudeHooksAsLifecycle(hooks) } } },
      local,
      options,
    );
    for (const item of local.items) sink.items.push({ ...item, field: item.field.replace(/^hooks\.lifecycle\./, "hooks.") });
    const prefix = displayName(file);
    for (const spec of loaded) {
      const label = spec.label.replace(/^settings\.json:/, "");
      specs.push({ ...spec, label: `${prefix}:${label}`, field: spec.field.replace(/^hooks\.lifecycle\./, "hooks.") });
    }
  }
  return specs;
}
