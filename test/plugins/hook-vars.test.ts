/** Which hook commands name a variable that is empty or unset where they run (src/config/hook-vars.ts). */
import { describe, expect, test } from "bun:test";
import { unsetVariableProblem } from "../../src/config/hook-vars.ts";

const at = (where: Partial<{ pluginHook: boolean; claudeDialect: boolean; projectScope: boolean }>) => ({
  pluginHook: false,
  claudeDialect: true,
  projectScope: true,
  ...where,
});

describe("unset variables in hook commands", () => {
  test("CLAUDE_PLUGIN_ROOT outside a plugin, both spellings; inside one, none", () => {
    expect(unsetVariableProblem("python3 ${CLAUDE_PLUGIN_ROOT}/x.py", at({}))).toContain("set only for a plugin's own hooks");
    expect(unsetVariableProblem("$CLAUDE_PLUGIN_ROOT/x.sh", at({}))).toContain("set only for a plugin's own hooks");
    expect(unsetVariableProblem("$CLAUDE_PLUGIN_ROOTS/x.sh", at({}))).toBeUndefined();
    expect(unsetVariableProblem("${CLAUDE_PLUGIN_ROOT}/x.sh", at({ pluginHook: true }))).toBeUndefined();
  });

  test("CLAUDE_* in an action or envelope hook; project dirs with no project", () => {
    expect(unsetVariableProblem("$CLAUDE_PROJECT_DIR/x.sh", at({ claudeDialect: false }))).toContain("set only for claude-dialect hooks");
    expect(unsetVariableProblem("$AGENT_PROJECT_DIR/x.sh", at({ claudeDialect: false }))).toBeUndefined();
    expect(unsetVariableProblem("${AGENT_PROJECT_DIR}/x.sh", at({ projectScope: false }))).toContain("there is no project here");
    expect(unsetVariableProblem("echo hi", at({ projectScope: false }))).toBeUndefined();
  });
});
