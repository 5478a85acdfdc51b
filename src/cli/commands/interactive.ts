/**
 * `agent` with no command: the interactive session. Loads config, asks before trusting an untrusted
 * or changed project (SEC-41: yes pins trust, no exits 1 before any hook or provider request),
 * builds the provider, then hands over to the line UI (src/ui/interactive.ts). Exit codes as `agent run`.
 */
import type { Runtime } from "../../runtime/types.ts";
import { hooksOffByEnv } from "../../config/paths.ts";
import type { CliIO } from "../io.ts";
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import { formatWarning } from "../../config/warnings.ts";
import { pinTrust } from "../../trust/trust.ts";
import { trustDecision } from "../../trust/decision.ts";
import { repinAfterRuleWrite } from "../trust-repin.ts";
import { cleanStaleSpills, spillRefusalLine } from "../../hooks/spill.ts";
import { providerKeyVarsFor } from "../../hooks/engine.ts";
import { createMcpManager } from "../../mcp/start.ts";
import { createPromptIO } from "../../ui/prompt-io.ts";
import { runInteractive } from "../../ui/interactive.ts";
import { exitCodeForStop } from "../exit-codes.ts";
import { buildProvider, configuredRules, loadResume, parsePermissionMode, resolvePermissionMode, startAudit } from "../session-setup.ts";
import type { SessionRecord } from "../../session/records.ts";
import { requireParsableConfig, requireScriptFile } from "../config-gate.ts";
import { latestSessionOf } from "../../session/store.ts";
import { AgentError } from "../../util/errors.ts";
import { pluginSessionParts } from "../plugin-setup.ts";
import { askChangedPlugins } from "../plugin-gate.ts";

export interface InteractiveCommandOptions {
  readonly cwd: string;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly script: string | undefined;
  readonly permissionMode: string | undefined;
  /** `agent --resume ID`: continue that session; its history is shown from the JSONL (TOOL-64, TOOL-65). */
  readonly resume?: string | undefined;
  /** `agent --continue`: the newest session of this project. */
  readonly continue?: boolean;
  /** `--plugin-dir` values (absolute). */
  readonly pluginDirs?: readonly string[];
}

const DEFAULT_IDLE_MS = 60_000;

/**
 * SEC-41: ask before anything of the project runs; the answer is read from the terminal. With hooks
 * off the project's request-routing settings still need trust (D17). An installed plugin
 * that changed since it was enabled asks again the same way. Null: refused, nothing runs.
 */
async function askTrust(runtime: Runtime, io: CliIO, first: LoadedConfig, ask: (question: string) => Promise<string | null>, options: InteractiveCommandOptions): Promise<LoadedConfig | null> {
  let loaded = first;
  const reload = (): LoadedConfig => loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [] });
  const decision = trustDecision(runtime, loaded);
  if (!decision.ok) {
    io.err(`${decision.message}\n`);
    if (!decision.askable) return null;
    const answer = ((await ask("trust this project and run its hooks? [y/N] ")) ?? "").trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      io.err("agent: project not trusted; nothing ran\n");
      return null;
    }
    pinTrust(runtime, loaded.home, loaded.projectRoot, decision.material);
    io.err("agent: project trusted\n");
    loaded = reload();
  }
  if (loaded.changedPlugins.length === 0) return loaded;
  return (await askChangedPlugins(runtime, io, loaded, ask)) ? reload() : null;
}

export async function runInteractiveCommand(runtime: Runtime, io: CliIO, options: InteractiveCommandOptions): Promise<number> {
  const permissionFlag = parsePermissionMode(options.permissionMode);
  if (options.resume !== undefined && options.continue === true) throw new AgentError("usage", "--resume and --continue cannot be combined");
  requireParsableConfig(runtime, options.cwd);
  const env = runtime.env();
  const hooksOff = hooksOffByEnv(env);
  const idleRaw = env.AGENT_IDLE_PROMPT_MS ?? "";
  const idleMs = /^\d+$/.test(idleRaw) ? Number(idleRaw) : DEFAULT_IDLE_MS;
  const input = createPromptIO(io);
  let handedOver = false;
  try {
    let loaded = loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [] });
    if (hooksOff) io.err("agent: hooks disabled (AGENT_HOOKS=off)\n");
    else if (loaded.warnings.length > 0) io.err(`agent: ${loaded.warnings.length} hook load warning(s); /hooks lists them\n`);
    for (const w of (env.AGENT_DEBUG ?? "") === "1" ? loaded.warnings : []) io.err(`agent: hook load warning: ${formatWarning(w, { projectRoot: loaded.projectRoot })}\n`);

    const gated = await askTrust(runtime, io, loaded, (question) => input.read(question), options);
    if (gated === null) return 1;
    loaded = gated;
    const spillProblem = cleanStaleSpills(runtime.fs, runtime.platform);
    if (spillProblem !== null) io.err(spillRefusalLine(spillProblem));

    const resumeId = options.resume ?? (options.continue === true ? latestSessionOf(runtime, loaded.home, loaded.projectRoot)?.id : undefined);
    if (options.continue === true && resumeId === undefined) throw new AgentError("config", `--continue: no earlier session in ${loaded.projectRoot}`, { fix: "agent sessions list shows every session; use --resume ID for one of another project" });
    const resume = resumeId === undefined ? undefined : loadResume(runtime, loaded.home, resumeId);
    const settings = loaded.settings;
    requireScriptFile(settings.provider, options);
    const permissionMode = resolvePermissionMode(permissionFlag, settings, loaded.managed);
    const provider = buildProvider(runtime, settings, options, loaded.managed);

    const rules = configuredRules(io, settings);

    handedOver = true;
    // MCP servers start in the background, as in `agent run`; the first provider request waits for them.
    const mcp = loaded.mcpServers.length > 0 ? createMcpManager(runtime, { servers: loaded.mcpServers, cwd: options.cwd, onNotice: (text) => io.err(`${text}\n`) }) : undefined;
    void mcp?.start();
    const audit = await startAudit(runtime, io, settings);
    const result = await runInteractive(runtime, io, input, {
      loaded,
      hooksOff,
      idleMs,
      ...(resume !== undefined ? { resume } : {}),
      agent: {
        runtime,
        provider,
        // With hooks off only the managed layer's hooks were loaded: nothing below can switch them off.
        hooks: loaded.hooks,
        home: loaded.home,
        cwd: options.cwd,
        projectDir: loaded.projectRoot,
        permissionMode,
        rules,
        ...(settings.agent.maxContextTokens !== undefined ? { maxContextTokens: settings.agent.maxContextTokens } : {}),
        ...(settings.agent.contextFiles !== undefined ? { contextFiles: settings.agent.contextFiles } : {}),
        models: settings.agent.models,
        stopBlockCap: settings.hooks.stopBlockCap,
        quietSuccessOutput: settings.hooks.quietSuccessOutput,
        providerKeyVars: providerKeyVarsFor(settings.providers),
        webFetch: { allow: settings.tools.webFetch.allow },
        persist: true,
        ...(mcp ? { mcp } : {}),
        // Skills and agents of the loaded plugins (slash commands: src/plugins/commands.ts expandSlashCommand).
        ...pluginSessionParts(runtime, loaded).sessionOptions,
        ...(audit ? { audit: (record: SessionRecord, id: string) => audit.observe(record, id) } : {}),
        onProjectSettingsWritten: (applied) => repinAfterRuleWrite(runtime, io, { cwd: options.cwd, applied }),
      },
    }).finally(async () => {
      await mcp?.close();
      await audit?.close();
    });
    return exitCodeForStop(result.stopReason);
  } finally {
    if (!handedOver) input.close();
  }
}
