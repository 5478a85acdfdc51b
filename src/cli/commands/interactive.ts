/**
 * `agent` with no command: the interactive session. Loads config, asks before trusting an untrusted
 * or changed project (SEC-41: yes pins trust, no exits 1 before any hook or provider request),
 * builds the provider, then hands over to the terminal UI (src/ui/interactive.ts): the raw-mode
 * editor on a terminal, line input from a pipe (AGENT_INTERACTIVE=1). Exit codes as `agent run`.
 */
import type { Runtime } from "../../runtime/types.ts";
import { hooksOffByEnv } from "../../config/paths.ts";
import type { CliIO } from "../io.ts";
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import { formatWarning } from "../../config/warnings.ts";
import { pinTrust } from "../../trust/trust.ts";
import { trustDecision } from "../../trust/decision.ts";
import { projectInstructionLines } from "../trust-gate.ts";
import { cleanStaleSpills, spillRefusalLine } from "../../hooks/spill.ts";
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
import { buildProvider, configuredRules, loadResume, parsePermissionMode, resolvePermissionMode } from "../session-setup.ts";
import { requireParsableConfig, requireScriptFile } from "../config-gate.ts";
import { AgentError } from "../../util/errors.ts";
import { askChangedPlugins } from "../plugin-gate.ts";
import { prepareSession, resumeOf } from "../prepare-session.ts";

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

/** y/N as a menu: only a key pressed after the question answers it (type-ahead never does). */
async function yesNo(input: PromptIO, question: string, yes = "yes", no = "no"): Promise<boolean> {
  return (
    (await input.choose(question, [
      { key: "y", label: yes, value: "yes" },
      { key: "n", label: no, value: "no" },
    ])) === "yes"
  );
}

/**
 * SEC-41: ask before anything of the project runs, and again for an installed plugin that changed;
 * the answers are read from the terminal. With hooks off the project's request-routing settings
 * still need trust (D17). Null: refused, nothing runs.
 */
async function askTrust(runtime: Runtime, io: CliIO, first: LoadedConfig, input: PromptIO, options: InteractiveCommandOptions): Promise<LoadedConfig | null> {
  let loaded = first;
  const reload = (): LoadedConfig => loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [] });
  const decision = trustDecision(runtime, loaded, { instructions: () => projectInstructionLines(runtime, loaded, options.cwd) });
  if (!decision.ok) {
    io.err(`${decision.message}\n`);
    if (!decision.askable) return null;
    if (!(await yesNo(input, "trust this project and run its hooks?", "yes, trust it", "no, exit"))) {
      io.err("agent: project not trusted; nothing ran\n");
      return null;
    }
    pinTrust(runtime, loaded.home, loaded.projectRoot, decision.material);
    io.err("agent: project trusted\n");
    loaded = reload();
  }
  if (loaded.changedPlugins.length === 0) return loaded;
  const ask = async (question: string): Promise<string> => ((await yesNo(input, question.replace(/ \[y\/N\] $/, "?"))) ? "y" : "n");
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
  const terminal = openTerminalInput();
  const style = chooseStyle(env, terminal !== null && runtime.isTTY("stderr"));
  const input: PromptIO = terminal !== null ? createTerminalPromptIO(io, terminal, style) : createPromptIO(io);
  let handedOver = false;
  try {
    let loaded = loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [] });
    if (hooksOff) io.err("agent: hooks disabled (AGENT_HOOKS=off)\n");
    else if (loaded.warnings.length > 0) io.err(`agent: ${loaded.warnings.length} hook load warning(s); /hooks lists them\n`);
    for (const w of (env.AGENT_DEBUG ?? "") === "1" ? loaded.warnings : [])
      io.err(`agent: hook load warning: ${formatWarning(w, { projectRoot: loaded.projectRoot })}\n`);

    const gated = await askTrust(runtime, io, loaded, input, options);
    if (gated === null) return 1;
    loaded = gated;
    const spillProblem = cleanStaleSpills(runtime.fs, runtime.platform);
    if (spillProblem !== null) io.err(spillRefusalLine(spillProblem));

    const resume = resumeOf(runtime, loaded, options);
    const settings = loaded.settings;
    requireScriptFile(settings.provider, options);
    const permissionMode = resolvePermissionMode(permissionFlag, settings, loaded.managed);
    const usage = new UsageMeter();
    const built = buildProvider(runtime, settings, options, loaded.managed);
    // The script provider is kept as built: its subagent children are derived from it.
    const provider = built.id === "script" ? built : usage.wrap(built);

    const rules = configuredRules(io, settings);

    handedOver = true;
    // The project's trust was pinned above (or the project has none to pin), so a rule a hook writes re-pins it.
    const shared = await prepareSession(runtime, io, { loaded, cwd: options.cwd, provider, permissionMode, rules, repinOnRuleWrite: !hooksOff });
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
      info: sessionInfo(runtime, loaded.home, provider, permissionMode, usage, shared.mcp),
      ...(resume !== undefined ? { resume } : {}),
      agent: { ...shared.options, persist: true },
    }).finally(() => shared.close());
    return exitCodeForStop(result.stopReason);
  } finally {
    if (!handedOver) input.close();
  }
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
