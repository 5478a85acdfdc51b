/**
 * `agent notify [--title T] MESSAGE`: runs notification hooks (filter, modify, suppress), then prints
 * `T: MESSAGE` (or `MESSAGE`) on stderr. Inside a notification hook (`AGENT_HOOK_EVENT=notification`)
 * no hook fires, so a hook that calls `agent notify` cannot recurse (CLI-30).
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { requirePluginsUnchanged } from "../plugin-gate.ts";
import { loadConfig } from "../../config/load.ts";
import { requireParsableConfig } from "../config-gate.ts";
import { createHookEngine, providerKeyVarsFor } from "../../hooks/engine.ts";
import { requireTrust } from "../trust-gate.ts";
import { STANDALONE_ENVELOPE_CONTEXT } from "../../hooks/event-fields.ts";

export async function runNotifyCommand(runtime: Runtime, io: CliIO, options: { cwd: string; title: string | undefined; message: string }): Promise<number> {
  if (options.message.trim() === "") throw new AgentError("usage", "notify needs a MESSAGE", { fix: `agent notify --title Build "tests passed"` });
  let title = options.title ?? "";
  let message = options.message;
  const insideHook = runtime.env().AGENT_HOOK_EVENT === "notification";
  if (!insideHook) {
    requireParsableConfig(runtime, options.cwd);
    const loaded = loadConfig(runtime, { cwd: options.cwd });
    // With hooks off `loaded.hooks` holds only the managed policy's hooks, which still run.
    if (!loaded.hooksOff || loaded.hooks.length > 0) {
      if (!loaded.hooksOff && (!requireTrust(runtime, io, loaded, { once: false }) || !requirePluginsUnchanged(io, loaded))) return 1;
      const engine = createHookEngine(runtime, {
        hooks: loaded.hooks,
        readonlyMode: false,
        quietSuccessOutput: loaded.settings.hooks.quietSuccessOutput,
        providerKeyVars: providerKeyVarsFor(loaded.settings.providers),
        sinks: { failureLine: (line) => io.err(`${line}\n`) },
      });
      const outcome = await engine.fire({
        event: "notification",
        sessionId: `notify-${runtime.randomId(4)}`,
        transcriptPath: null,
        cwd: options.cwd,
        projectDir: loaded.projectRoot,
        permissionMode: "default",
        fields: { notification_type: "custom", title, message },
        context: STANDALONE_ENVELOPE_CONTEXT,
      });
      await engine.close();
      for (const text of outcome.state.systemMessages) io.err(`${text}\n`);
      if (outcome.state.notification.suppress) return 0;
      title = outcome.state.notification.title ?? title;
      message = outcome.state.notification.message ?? message;
    }
  }
  io.err(title ? `${title}: ${message}\n` : `${message}\n`);
  return 0;
}
