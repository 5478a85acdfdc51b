/**
 * What `agent run` and the interactive session build the same way once config is loaded and trust
 * is settled: the session to resume, the agent session's common options (hooks, rules, limits,
 * plugins, web_fetch, the audit hook-in, the re-pin after a hook writes a project rule) and the
 * resources those hold (MCP servers started in the background, the OTLP exporter), closed together.
 */
import type { Runtime } from "../runtime/types.ts";
import type { CliIO } from "./io.ts";
import type { LoadedConfig } from "../config/load.ts";
import type { AgentSessionOptions } from "../agent/types.ts";
import type { PermissionMode } from "../permissions/mode.ts";
import type { RuleSet } from "../permissions/rules.ts";
import type { Provider } from "../providers/types.ts";
import type { SessionRecord } from "../session/records.ts";
import type { McpManager } from "../mcp/manager.ts";
import { latestSessionOf } from "../session/store.ts";
import { providerKeyVarsFor } from "../hooks/engine.ts";
import { createMcpManager } from "../mcp/start.ts";
import { AgentError } from "../util/errors.ts";
import { loadResume, startAudit } from "./session-setup.ts";
import { pluginSessionParts } from "./plugin-setup.ts";
import { repinAfterRuleWrite } from "./trust-repin.ts";
import { providerRefusal } from "../config/managed.ts";

/** `--resume ID` or `--continue` (the newest session of this project): its records; undefined for a new session. */
export function resumeOf(
  runtime: Runtime,
  loaded: LoadedConfig,
  flags: { readonly resume?: string | undefined; readonly continue?: boolean | undefined },
): ReturnType<typeof loadResume> | undefined {
  const resumeId = flags.resume ?? (flags.continue === true ? latestSessionOf(runtime, loaded.home, loaded.projectRoot)?.id : undefined);
  if (flags.continue === true && resumeId === undefined) {
    throw new AgentError("config", `--continue: no earlier session in ${loaded.projectRoot}`, {
      fix: "agent sessions list shows every session; use --resume ID for one of another project",
    });
  }
  return resumeId === undefined ? undefined : loadResume(runtime, loaded.home, resumeId);
}

export interface SessionInputs {
  readonly loaded: LoadedConfig;
  readonly cwd: string;
  readonly provider: Provider;
  readonly permissionMode: PermissionMode;
  readonly rules: RuleSet;
  /** `--max-context-tokens`, over `agent.max_context_tokens`. */
  readonly maxContextTokens?: number | undefined;
  /** Whether a project rule a hook writes re-pins trust: only a persisted trust is (D17). */
  readonly repinOnRuleWrite: boolean;
}

/** The options every session of this config shares; each command adds its own (signal, output, resume…). */
export type SharedSessionOptions = Omit<AgentSessionOptions, "signal" | "persist">;

export interface PreparedSession {
  readonly options: SharedSessionOptions;
  readonly mcp: McpManager | undefined;
  /** Stops the MCP servers and flushes the audit export. */
  close(): Promise<void>;
}

export async function prepareSession(runtime: Runtime, io: CliIO, inputs: SessionInputs): Promise<PreparedSession> {
  const { loaded, cwd } = inputs;
  const settings = loaded.settings;
  // MCP servers start now, in the background; the first provider request waits for them (bounded per
  // server). Their groups are in the runtime's live-group registry, so signals and exits reach them.
  const mcp =
    loaded.mcpServers.length > 0 ? createMcpManager(runtime, { servers: loaded.mcpServers, cwd, onNotice: (text) => io.err(`${text}\n`) }) : undefined;
  void mcp?.start();
  const audit = await startAudit(runtime, io, settings);
  const limit = inputs.maxContextTokens ?? settings.agent.maxContextTokens;
  const options: SharedSessionOptions = {
    runtime,
    provider: inputs.provider,
    // With hooks off only the managed layer's hooks were loaded: nothing below can switch them off.
    hooks: loaded.hooks,
    home: loaded.home,
    cwd,
    projectDir: loaded.projectRoot,
    permissionMode: inputs.permissionMode,
    rules: inputs.rules,
    ...(limit !== undefined ? { maxContextTokens: limit } : {}),
    stopBlockCap: settings.hooks.stopBlockCap,
    quietSuccessOutput: settings.hooks.quietSuccessOutput,
    providerKeyVars: providerKeyVarsFor(settings.providers),
    ...(settings.agent.contextFiles !== undefined ? { contextFiles: settings.agent.contextFiles } : {}),
    models: settings.agent.models,
    webFetch: { allow: settings.tools.webFetch.allow },
    ...(mcp ? { mcp } : {}),
    // Skills and agents of the loaded plugins (slash commands: src/plugins/commands.ts expandSlashCommand).
    ...pluginSessionParts(runtime, loaded).sessionOptions,
    // A subagent's `model:` is held to the managed provider policy like `--model`.
    modelRefusal: (model: string) => providerRefusal(loaded.managed, { id: inputs.provider.id, baseUrl: null, model }),
    ...(audit ? { audit: (record: SessionRecord, id: string) => audit.observe(record, id) } : {}),
    onProjectSettingsWritten: (applied) => {
      if (inputs.repinOnRuleWrite) repinAfterRuleWrite(runtime, io, { cwd, applied });
    },
  };
  return {
    options,
    mcp,
    close: async () => {
      await mcp?.close();
      await audit?.close();
    },
  };
}
