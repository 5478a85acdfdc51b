/**
 * `agent` with no command: the interactive session. Loads config, asks before trusting an untrusted
 * or changed project (SEC-41: yes pins trust, no exits 1 before any hook or provider request),
 * builds the provider, then hands over to the terminal UI (src/ui/interactive.ts): the raw-mode
 * editor on a terminal, line input from a pipe (AGENT_INTERACTIVE=1). Exit codes as `agent run`.
 */
import type { Runtime } from "../../runtime/types.ts";
import { hooksOffByEnv } from "../../config/paths.ts";
import type { CliIO } from "../io.ts";
import { loadConfig } from "../../config/load.ts";
import { formatWarning } from "../../config/warnings.ts";
import { pinTrust } from "../../trust/trust.ts";
import { trustDecision } from "../../trust/decision.ts";
import { repinAfterRuleWrite } from "../trust-repin.ts";
import { cleanStaleSpills, spillRefusalLine } from "../../hooks/spill.ts";
import { providerKeyVarsFor } from "../../hooks/engine.ts";
import { createMcpManager } from "../../mcp/start.ts";
import { createPromptIO, type PromptIO } from "../../ui/prompt-io.ts";
import { createTerminalPromptIO } from "../../ui/terminal-input.ts";
import { openTerminalInput } from "../../runtime/terminal.ts";
import { chooseStyle } from "../../ui/style.ts";
import { openHistory } from "../../ui/history.ts";
import { complete, SLASH_COMMANDS } from "../../ui/complete.ts";
import { runInteractive } from "../../ui/interactive.ts";
import type { SessionInfo, UsageView } from "../../ui/repl.ts";
import type { Provider } from "../../providers/types.ts";
import type { McpManager } from "../../mcp/manager.ts";
import { exitCodeForStop } from "../exit-codes.ts";
import { buildProvider, configuredRules, loadResume, parsePermissionMode } from "../session-setup.ts";
import { requireParsableConfig, requireScriptFile } from "../config-gate.ts";
import { latestSessionOf } from "../../session/store.ts";
import { AgentError } from "../../util/errors.ts";

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
}

const DEFAULT_IDLE_MS = 60_000;

export async function runInteractiveCommand(runtime: Runtime, io: CliIO, options: InteractiveCommandOptions): Promise<number> {
  const permissionFlag = parsePermissionMode(options.permissionMode);
  if (options.resume !== undefined && options.continue === true) throw new AgentError("usage", "--resume and --continue cannot be combined");
  requireParsableConfig(runtime, options.cwd);
  const env = runtime.env();
  const hooksOff = hooksOffByEnv(env);
  const idleRaw = env.AGENT_IDLE_PROMPT_MS ?? "";
  const idleMs = /^\d+$/.test(idleRaw) ? Number(idleRaw) : DEFAULT_IDLE_MS;
  const terminal = openTerminalInput();
  const style = chooseStyle(env, terminal !== null && runtime.isTTY("stderr"));
  const input: PromptIO = terminal !== null ? createTerminalPromptIO(io, terminal, style) : createPromptIO(io);
  let handedOver = false;
  try {
    let loaded = loadConfig(runtime, { cwd: options.cwd });
    if (hooksOff) io.err("agent: hooks disabled (AGENT_HOOKS=off)\n");
    else if (loaded.warnings.length > 0) io.err(`agent: ${loaded.warnings.length} hook load warning(s); /hooks lists them\n`);
    for (const w of (env.AGENT_DEBUG ?? "") === "1" ? loaded.warnings : []) io.err(`agent: hook load warning: ${formatWarning(w, { projectRoot: loaded.projectRoot })}\n`);

    // SEC-41: ask before anything of the project runs; the answer is read from the terminal. With
    // hooks off the project's request-routing settings still need trust.
    const trust = await trustedOrAsked(runtime, io, input, loaded);
    if (trust === "refused") return 1;
    if (trust === "pinned") loaded = loadConfig(runtime, { cwd: options.cwd });
    const spillProblem = cleanStaleSpills(runtime.fs, runtime.platform);
    if (spillProblem !== null) io.err(spillRefusalLine(spillProblem));

    const resumeId = options.resume ?? (options.continue === true ? latestSessionOf(runtime, loaded.home, loaded.projectRoot)?.id : undefined);
    if (options.continue === true && resumeId === undefined) throw new AgentError("config", `--continue: no earlier session in ${loaded.projectRoot}`, { fix: "agent sessions list shows every session; use --resume ID for one of another project" });
    const resume = resumeId === undefined ? undefined : loadResume(runtime, loaded.home, resumeId);
    const settings = loaded.settings;
    requireScriptFile(settings.provider, options);
    const usage = new UsageMeter();
    const built = buildProvider(runtime, settings, options);
    // The script provider is kept as built: its subagent children are derived from it.
    const provider = built.id === "script" ? built : usage.wrap(built);

    const permissionMode = permissionFlag ?? settings.permissions.mode;
    const rules = configuredRules(io, settings);

    handedOver = true;
    // MCP servers start in the background, as in `agent run`; the first provider request waits for them.
    const mcp = loaded.mcpServers.length > 0 ? createMcpManager(runtime, { servers: loaded.mcpServers, cwd: options.cwd, onNotice: (text) => io.err(`${text}\n`) }) : undefined;
    void mcp?.start();
    input.setContext({
      history: openHistory(runtime, loaded.home, loaded.projectRoot),
      complete: (text, cursor) => complete(runtime.fs, options.cwd, text, cursor),
      palette: SLASH_COMMANDS.map((command, index) => ({ key: String(index + 1), label: `${command.name} — ${command.help}`, value: command.name })),
    });
    const result = await runInteractive(runtime, input, {
      loaded,
      hooksOff,
      idleMs,
      style,
      info: sessionInfo(runtime, loaded.home, provider, permissionMode, usage, mcp),
      ...(resume !== undefined ? { resume } : {}),
      agent: {
        runtime,
        provider,
        hooks: hooksOff ? [] : loaded.hooks,
        home: loaded.home,
        cwd: options.cwd,
        projectDir: loaded.projectRoot,
        permissionMode,
        rules,
        ...(settings.agent.maxContextTokens !== undefined ? { maxContextTokens: settings.agent.maxContextTokens } : {}),
        stopBlockCap: settings.hooks.stopBlockCap,
        quietSuccessOutput: settings.hooks.quietSuccessOutput,
        providerKeyVars: providerKeyVarsFor(settings.providers),
        persist: true,
        ...(mcp ? { mcp } : {}),
        onProjectSettingsWritten: (applied: Parameters<typeof repinAfterRuleWrite>[2]["applied"]) => repinAfterRuleWrite(runtime, io, { cwd: options.cwd, applied }),
      },
    }).finally(() => mcp?.close());
    return exitCodeForStop(result.stopReason);
  } finally {
    if (!handedOver) input.close();
  }
}

/** `trusted` already, `pinned` now by the person's yes, or `refused` (nothing of the project runs). */
async function trustedOrAsked(runtime: Runtime, io: CliIO, input: PromptIO, loaded: ReturnType<typeof loadConfig>): Promise<"trusted" | "pinned" | "refused"> {
  const decision = trustDecision(runtime, loaded);
  if (decision.ok) return "trusted";
  io.err(`${decision.message}\n`);
  if (!decision.askable) return "refused";
  const answer = await input.choose("trust this project and run its hooks?", [
    { key: "y", label: "yes, trust it", value: "yes" },
    { key: "n", label: "no, exit", value: "no" },
  ]);
  if (answer !== "yes") {
    io.err("agent: project not trusted; nothing ran\n");
    return "refused";
  }
  pinTrust(runtime, loaded.home, loaded.projectRoot, decision.material);
  io.err("agent: project trusted\n");
  return "pinned";
}

/** Sums the usage each provider response reports; /cost and the status row read it. */
class UsageMeter {
  private view: UsageView | null = null;

  get(): UsageView | null {
    return this.view;
  }

  wrap(provider: Provider): Provider {
    const add = (inputTokens: number, outputTokens: number): void => {
      const last = this.view ?? { requests: 0, inputTokens: 0, outputTokens: 0 };
      this.view = { requests: last.requests + 1, inputTokens: last.inputTokens + inputTokens, outputTokens: last.outputTokens + outputTokens };
    };
    return {
      id: provider.id,
      model: provider.model,
      async *stream(request) {
        for await (const event of provider.stream(request)) {
          if (event.type === "usage") add(event.inputTokens, event.outputTokens);
          yield event;
        }
      },
    };
  }
}

function sessionInfo(runtime: Runtime, home: string, provider: Provider, permissionMode: string, usage: UsageMeter, mcp: McpManager | undefined): SessionInfo {
  return {
    provider: provider.id,
    model: provider.model,
    permissionMode,
    usage: () => usage.get(),
    mcp: () => (mcp?.statuses() ?? []).map((s) => ({ name: s.name, state: s.state, tools: s.tools.length, error: s.error })),
    loadSession(id) {
      try {
        return loadResume(runtime, home, id);
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  };
}
