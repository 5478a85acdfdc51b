/**
 * Applies `updatedPermissions` from a permission_request hook (LIFE-57, LOOP-14). `session` entries
 * become in-memory rules for the rest of the session; `projectSettings` entries are appended to
 * `permissions.<behavior>` of `<project>/.agent/settings.json` (created or merged; the caller then
 * re-pins exactly those rules in the trust digest, D17: `projectRulesAddedBy`). `userSettings` and `localSettings` are warnings and ignored: the
 * agent never edits the user's own configuration behind their back.
 */
import * as v from "valibot";
import type { PermissionRuleUpdate } from "./rule-update.ts";
import type { FileSystem } from "../runtime/types.ts";
import { canonicalToolLoose, MCP_PREFIX } from "../tools/names.ts";
import { formatRule, parseRule, type Rule, type RuleSet } from "./rules.ts";

export interface ApplyPermissionUpdatesOptions {
  readonly runtime: { readonly fs: FileSystem };
  /** Project root (D26); the settings file is `<projectDir>/.agent/settings.json`. */
  readonly projectDir: string;
  /** The session's current in-memory rules; never mutated. */
  readonly session: RuleSet;
  readonly updates: readonly PermissionRuleUpdate[];
}

export interface ApplyPermissionUpdatesResult {
  /** A new rule set: `session` plus the session-destination rules (duplicates skipped). */
  readonly session: RuleSet;
  /** Rule texts newly written to the project settings file, e.g. `bash(git status*)`. */
  readonly projectRulesAdded: readonly string[];
  /** The same rules per list, in the order appended: what the trust re-pin may accept and nothing more. */
  readonly projectRulesAddedBy: readonly { readonly behavior: Behavior; readonly rules: readonly string[] }[];
  /** The settings file when it was written; the caller re-pins project trust then (D17). */
  readonly projectSettingsPath: string | null;
  readonly warnings: readonly string[];
}

type Behavior = PermissionRuleUpdate["behavior"];

const JsonObject = v.record(v.string(), v.unknown());
const RuleArray = v.array(v.unknown());

/** Never throws: unreadable/invalid settings files and write errors become warnings. */
export function applyPermissionUpdates(options: ApplyPermissionUpdatesOptions): ApplyPermissionUpdatesResult {
  const warnings: string[] = [];
  const session = { allow: [...options.session.allow], ask: [...options.session.ask], deny: [...options.session.deny] };
  const project: { behavior: Behavior; rule: Rule }[] = [];

  for (const update of options.updates) {
    if (update.type !== "addRules") {
      warnings.push(`permission update type ${JSON.stringify(update.type)} is not supported; ignored (use "addRules")`);
      continue;
    }
    if (update.destination === "userSettings" || update.destination === "localSettings") {
      warnings.push(`permission update destination ${JSON.stringify(update.destination)} is not supported; ignored (use "session" or "projectSettings")`);
      continue;
    }
    for (const entry of update.rules) {
      const rule = toRule(entry);
      if (typeof rule === "string") {
        warnings.push(rule);
        continue;
      }
      if (update.destination === "session") {
        const list = session[update.behavior];
        if (!list.some((existing) => existing.text === rule.text)) list.push(rule);
      } else {
        project.push({ behavior: update.behavior, rule });
      }
    }
  }

  let projectSettingsPath: string | null = null;
  let projectRulesAdded: string[] = [];
  let projectRulesAddedBy: { behavior: Behavior; rules: string[] }[] = [];
  if (project.length > 0) {
    const written = writeProjectRules(options.runtime.fs, options.projectDir, project);
    if (written.ok) {
      projectRulesAdded = written.added.map((entry) => entry.rule);
      projectRulesAddedBy = (["allow", "ask", "deny"] as const)
        .map((behavior) => ({ behavior, rules: written.added.filter((entry) => entry.behavior === behavior).map((entry) => entry.rule) }))
        .filter((entry) => entry.rules.length > 0);
      if (written.added.length > 0) projectSettingsPath = written.path;
    } else {
      warnings.push(written.error);
    }
  }
  return { session, projectRulesAdded, projectRulesAddedBy, projectSettingsPath, warnings };
}

function toRule(entry: { readonly toolName: string; readonly ruleContent?: string }): Rule | string {
  if (entry.toolName.startsWith(MCP_PREFIX)) {
    const parsed = parseRule(entry.ruleContent === undefined ? entry.toolName : `${entry.toolName}(${entry.ruleContent})`);
    return parsed.ok ? parsed.rule : `permission update ignored: ${parsed.error}`;
  }
  const tool = canonicalToolLoose(entry.toolName);
  if (tool === undefined) return `permission update names unknown tool ${JSON.stringify(entry.toolName)}; ignored`;
  const parsed = parseRule(formatRule(tool, entry.ruleContent ?? null));
  return parsed.ok ? parsed.rule : `permission update ignored: ${parsed.error}`;
}

type WriteOutcome = { ok: true; path: string; added: { behavior: Behavior; rule: string }[] } | { ok: false; error: string };

function writeProjectRules(fs: FileSystem, projectDir: string, entries: readonly { behavior: Behavior; rule: Rule }[]): WriteOutcome {
  return writeSettingsRules(fs, `${trimSlash(projectDir)}/.agent`, entries);
}

/**
 * A person's own "always for me" answer: the rules go into `$AGENT_HOME/settings.json`. Only the
 * interactive question calls this; a hook's `userSettings` destination stays refused above.
 */
export function saveUserRules(fs: FileSystem, agentHome: string, update: PermissionRuleUpdate): { ok: true; path: string } | { ok: false; error: string } {
  if (update.type !== "addRules") return { ok: false, error: "only rules can be saved" };
  const entries: { behavior: Behavior; rule: Rule }[] = [];
  for (const entry of update.rules) {
    const rule = toRule(entry);
    if (typeof rule === "string") return { ok: false, error: rule };
    entries.push({ behavior: update.behavior, rule });
  }
  const written = writeSettingsRules(fs, trimSlash(agentHome), entries);
  return written.ok ? { ok: true, path: written.path } : written;
}

/** Appends rules to `<dir>/settings.json` (created when missing), keeping every other key. */
function writeSettingsRules(fs: FileSystem, dir: string, entries: readonly { behavior: Behavior; rule: Rule }[]): WriteOutcome {
  const path = `${dir}/settings.json`;
  const fail = (why: string): WriteOutcome => ({ ok: false, error: `${path}: could not add permission rules: ${why}; the rules apply to this session only` });

  let root: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = fs.readText(path);
  } catch (error) {
    return fail(errorText(error));
  }
  if (text !== undefined && text.trim().length > 0) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return fail(`invalid JSON (${errorText(error)})`);
    }
    const parsed = v.safeParse(JsonObject, json);
    if (!parsed.success) return fail("the file is not a JSON object");
    root = parsed.output;
  }

  let permissions: Record<string, unknown> = {};
  if (root.permissions !== undefined) {
    const parsed = v.safeParse(JsonObject, root.permissions);
    if (!parsed.success) return fail("`permissions` is not an object");
    permissions = { ...parsed.output };
  }

  const added: { behavior: Behavior; rule: string }[] = [];
  for (const { behavior, rule } of entries) {
    const current = permissions[behavior];
    let list: unknown[] = [];
    if (current !== undefined) {
      const parsed = v.safeParse(RuleArray, current);
      if (!parsed.success) return fail(`\`permissions.${behavior}\` is not an array`);
      list = parsed.output;
    }
    if (list.includes(rule.text)) continue;
    permissions[behavior] = [...list, rule.text];
    added.push({ behavior, rule: rule.text });
  }
  if (added.length === 0) return { ok: true, path, added };

  try {
    fs.mkdir(dir, { recursive: true });
    fs.writeText(path, `${JSON.stringify({ ...root, permissions }, null, 2)}\n`);
  } catch (error) {
    return fail(errorText(error));
  }
  return { ok: true, path, added };
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
