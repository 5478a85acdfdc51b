/**
 * After a permission_request hook wrote rules to `.agent/settings.json` (LOOP-14): re-pin only those
 * rules, never whatever else is on disk now. A refusal is one line on stderr; the
 * project then asks for trust again at the next start.
 */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import { loadConfig } from "../config/load.ts";
import { repinRuleAdditions } from "../trust/trust.ts";
import type { ApplyPermissionUpdatesResult } from "../permissions/updates.ts";

export function repinAfterRuleWrite(runtime: Runtime, io: CliIO, options: { cwd: string; applied: ApplyPermissionUpdatesResult }): void {
  const reloaded = loadConfig(runtime, { cwd: options.cwd, ignoreHooksOff: true });
  const result = repinRuleAdditions(runtime, {
    home: reloaded.home,
    projectRoot: reloaded.projectRoot,
    material: reloaded.projectScope ? reloaded.projectTrustMaterial : null,
    additions: options.applied.projectRulesAddedBy,
  });
  if (!result.ok) io.err(`agent: ${result.message}\n`);
}
