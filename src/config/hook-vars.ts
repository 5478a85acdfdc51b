/**
 * Hooks that name a variable we leave empty or unset, found at load time so that `agent hooks
 * validate`, `agent hooks list`, `agent hooks import` and every run say so: a guard whose path
 * expands to `/hooks/guard.py` does not run, and an advisory hook then fails open without a word.
 * `CLAUDE_PLUGIN_ROOT` is set only for plugin hooks and claude-dialect hook directories; the
 * `CLAUDE_*` names only for claude-dialect hooks; a project-dir variable outside a project is the
 * working directory, which rarely holds the script.
 */
import type { HookSpec } from "../hooks/types.ts";
import type { WarningSink } from "./warnings.ts";

const PLUGIN_ROOT = /\$\{?CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])/;
const PROJECT_DIR = /\$\{?(CLAUDE_PROJECT_DIR|AGENT_PROJECT_DIR|VT_PROJECT_DIR)(?![A-Za-z0-9_])/;
const CLAUDE_ONLY = /\$\{?(CLAUDE_PROJECT_DIR|CLAUDE_ENV_FILE|CLAUDE_CODE_SESSION_ID|CLAUDE_TRANSCRIPT_PATH|VT_PROJECT_DIR)(?![A-Za-z0-9_])/;

/** The problem with one command's variables, or undefined. Shared with `agent hooks import`. */
export function unsetVariableProblem(command: string, where: { pluginHook: boolean; claudeDialect: boolean; projectScope: boolean }): string | undefined {
  if (PLUGIN_ROOT.test(command) && !where.pluginHook) {
    return "names ${CLAUDE_PLUGIN_ROOT}, which is set only for a plugin's own hooks: here it is empty, so the script path starts at / and the hook does not do its job (load the plugin with --plugin-dir DIR or agent plugin install DIR instead of copying its hooks.json)";
  }
  const claudeOnly = CLAUDE_ONLY.exec(command);
  if (claudeOnly && !where.claudeDialect)
    return `names $${claudeOnly[1]}, which is set only for claude-dialect hooks: here it is empty (use $AGENT_PROJECT_DIR, or protocol = "claude")`;
  const projectDir = PROJECT_DIR.exec(command);
  if (projectDir && !where.projectScope) {
    return `names $${projectDir[1]}, but there is no project here (no .agent/ or .git above the working directory): it is the working directory, so the script may not exist`;
  }
  return undefined;
}

/** One warning per hook command naming a variable that is empty or unset where it runs. */
export function warnUnsetVariables(hooks: readonly HookSpec[], where: { projectScope: boolean }, sink: WarningSink): void {
  for (const spec of hooks) {
    if (spec.form === "dir" || (spec.form === "lifecycle" && spec.handler !== undefined)) continue;
    const problem = unsetVariableProblem(spec.command, {
      pluginHook: spec.form === "lifecycle" && spec.pluginRoot !== undefined,
      claudeDialect: spec.dialect === "claude",
      projectScope: where.projectScope,
    });
    if (problem !== undefined) sink.warning(spec.source, `${spec.field}.command`, problem);
  }
}
