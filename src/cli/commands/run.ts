/**
 * `agent run`: one non-interactive session. Validates flags (exit 2 before anything runs), loads
 * config and hooks, enforces project trust, builds the provider, runs the loop and renders its
 * events as text, json or stream-json. Exit: 0 ok, 1 error or max turns, 2 usage, 3 hook ended the
 * session, 130 interrupted.
 */
import type { Runtime } from "../../runtime/types.ts";
import { hooksOffByEnv } from "../../config/paths.ts";
import type { CliIO } from "../io.ts";
import { AgentError } from "../../util/errors.ts";
import { loadConfig } from "../../config/load.ts";
import { formatWarning } from "../../config/warnings.ts";
import { isProjectTrusted, requireTrust } from "../trust-gate.ts";
import { parseRules, type Rule, type RuleSet } from "../../permissions/rules.ts";
import { requireParsableConfig, requireScriptFile } from "../config-gate.ts";
import { buildProvider, configuredRules, parsePermissionMode, resolvePermissionMode } from "../session-setup.ts";
import { AgentSession } from "../../agent/agent-session.ts";
import type { EventStream } from "../../agent/event-queue.ts";
import { createRenderer, type Renderer } from "../../ui/renderer.ts";
import { STOP_SIGNALS, watchStopSignals } from "../../runtime/signals.ts";
import { cleanStaleSpills, spillRefusalLine } from "../../hooks/spill.ts";
import { exitCodeForStop } from "../exit-codes.ts";
import { createHeadlessOutput } from "../headless.ts";
import { prepareSession, resumeOf } from "../prepare-session.ts";
import { expandPromptCommand, pluginSessionParts, type PluginSessionParts } from "../plugin-setup.ts";
import { requirePluginsUnchanged } from "../plugin-gate.ts";
import type { PreparedCommand } from "../../plugins/commands.ts";
import type { AgentEvent, SessionResult } from "../../agent/types.ts";
import type { LoadedConfig } from "../../config/load.ts";
import type { PermissionMode } from "../../permissions/mode.ts";
import type { Provider } from "../../providers/types.ts";

/** One prompt, one turn; whatever ended the turn ends the session. Every event is rendered. */
async function runOnePrompt(session: AgentSession, renderer: Renderer, prompt: { text: string; command?: PreparedCommand }): Promise<SessionResult> {
  const render = async <R>(stream: EventStream<R>): Promise<R> => {
    for await (const event of stream) renderer.event(event);
    return stream.result;
  };
  const stop = (await render(session.start())) ?? (await render(session.prompt(prompt.text, prompt.command ? { command: prompt.command } : {})));
  return render(session.end({ stop }));
}

/** One line that hooks are off, else the load warnings (each with AGENT_DEBUG=1, else their count). */
function reportLoad(io: CliIO, env: Readonly<Record<string, string>>, loaded: ReturnType<typeof loadConfig>, hooksOff: string | null): void {
  if (hooksOff !== null) {
    io.err(`agent: hooks disabled (${hooksOff})\n`);
  } else if (loaded.warnings.length > 0) {
    if ((env.AGENT_DEBUG ?? "") === "1") {
      for (const w of loaded.warnings)
        io.err(`agent: ${w.severity === "error" ? "hook load error" : "hook load warning"}: ${formatWarning(w, { projectRoot: loaded.projectRoot })}\n`);
    } else {
      const n = loaded.warnings.length;
      io.err(
        n === 1
          ? "agent: 1 hook load warning (set AGENT_DEBUG=1 or run agent hooks list to see it)\n"
          : `agent: ${n} hook load warnings (set AGENT_DEBUG=1 or run agent hooks list to see them)\n`,
      );
    }
  }
}

/**
 * The prompt: the words given, `-` for stdin, and stdin too when no words are given and stdin is
 * not a terminal (`echo "fix it" | agent run`).
 */
async function readPrompt(runtime: Runtime, words: readonly string[]): Promise<string> {
  let prompt = words.join(" ");
  if (prompt === "-" || (prompt === "" && !runtime.isTTY("stdin"))) prompt = (await runtime.readStdin()).replace(/\r?\n$/, "");
  if (prompt.trim() === "") throw new AgentError("usage", "no prompt given", { fix: `agent run "what to do" (or pipe it: echo "what to do" | agent run)` });
  return prompt;
}

export interface RunOptions {
  readonly prompt: readonly string[];
  readonly cwd: string;
  readonly provider: string | undefined;
  readonly model: string | undefined;
  readonly baseUrl: string | undefined;
  readonly script: string | undefined;
  readonly outputFormat: string;
  readonly maxTurns: string | undefined;
  readonly maxContextTokens: string | undefined;
  readonly allow: readonly string[];
  readonly permissionMode: string | undefined;
  readonly resume: string | undefined;
  readonly continue: boolean;
  readonly trust: boolean;
  readonly hooks: boolean;
  readonly session: boolean;
  /** `--plugin-dir` values (absolute). */
  readonly pluginDirs?: readonly string[];
}

const FORMATS = ["text", "json", "stream-json"] as const;

function positiveInt(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw new AgentError("usage", `${flag}: "${raw}" is not a positive integer`, { fix: `e.g. ${flag} 10` });
  return Number(raw);
}

/** The flags, each checked before any hook can run (LOOP-35): a bad one is a usage error. */
interface RunFlags {
  readonly format: (typeof FORMATS)[number];
  readonly permissionMode: PermissionMode | undefined;
  readonly maxTurns: number | undefined;
  readonly maxContextTokens: number | undefined;
  readonly allow: readonly Rule[];
}

function checkRunFlags(options: RunOptions): RunFlags {
  const format = FORMATS.find((f) => f === options.outputFormat);
  if (format === undefined) throw new AgentError("usage", `--output-format: "${options.outputFormat}" is not one of ${FORMATS.join(", ")}`);
  const permissionMode = parsePermissionMode(options.permissionMode);
  const maxTurns = positiveInt("--max-turns", options.maxTurns);
  const maxContextTokens = positiveInt("--max-context-tokens", options.maxContextTokens);
  const allowParsed = parseRules(options.allow);
  if (allowParsed.errors.length > 0) throw new AgentError("usage", `--allow: ${allowParsed.errors[0]}`, { fix: "e.g. --allow 'bash(git status*)'" });
  if (options.resume !== undefined && options.continue) throw new AgentError("usage", "--resume and --continue cannot be combined");
  return { format, permissionMode, maxTurns, maxContextTokens, allow: allowParsed.rules };
}

/** What config, trust, the prompt and the flags decide before the session starts. */
interface PreparedRun {
  readonly loaded: LoadedConfig;
  /** Why hooks are off (`--no-hooks`, `AGENT_HOOKS=off`), or null. */
  readonly hooksOff: string | null;
  readonly trustPersisted: boolean;
  readonly plugins: PluginSessionParts;
  readonly prompt: { readonly text: string; readonly command?: PreparedCommand };
  readonly provider: Provider;
  readonly permissionMode: PermissionMode;
  readonly rules: RuleSet;
  readonly resume: ReturnType<typeof resumeOf>;
}

/** Loads config, reports it, enforces trust, reads the prompt and builds the provider; null: a trust gate refused (exit 1). */
async function prepareRun(runtime: Runtime, io: CliIO, options: RunOptions, flags: RunFlags): Promise<PreparedRun | null> {
  const env = runtime.env();
  const offByEnv = hooksOffByEnv(env);
  const hooksOff = !options.hooks ? "--no-hooks" : offByEnv ? "AGENT_HOOKS=off" : null;
  const loaded = loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [], ...(hooksOff === "--no-hooks" ? { noHooks: true } : {}) });
  reportLoad(io, env, loaded, hooksOff);
  // With hooks off the gate still covers the project's request-routing settings.
  if (!requireTrust(runtime, io, loaded, { once: options.trust }) || !requirePluginsUnchanged(io, loaded)) return null;
  // Only a persisted trust is re-pinned after the agent writes a project rule (D17): `--trust` is for
  // one run and must not turn into lasting trust of everything else the project ships.
  const trustPersisted = hooksOff === null && isProjectTrusted(runtime, loaded);
  const spillProblem = cleanStaleSpills(runtime.fs, runtime.platform); // leftovers of a crashed run (D14)
  if (spillProblem !== null) io.err(spillRefusalLine(spillProblem));

  const plugins = pluginSessionParts(runtime, loaded);
  const prompt = expandPromptCommand(runtime, plugins.catalog, await readPrompt(runtime, options.prompt));

  const settings = loaded.settings;
  requireScriptFile(settings.provider, options);
  const permissionMode = resolvePermissionMode(flags.permissionMode, settings, loaded.managed);
  const provider = buildProvider(runtime, settings, options, loaded.managed);

  const rules = configuredRules(io, settings, flags.allow);

  const resume = resumeOf(runtime, loaded, options);
  return { loaded, hooksOff, trustPersisted, plugins, prompt, provider, permissionMode, rules, resume };
}

export async function runRunCommand(runtime: Runtime, io: CliIO, options: RunOptions): Promise<number> {
  const startedAt = runtime.now();
  // Every flag is checked before any hook can run (LOOP-35).
  const flags = checkRunFlags(options);
  requireParsableConfig(runtime, options.cwd);
  const prepared = await prepareRun(runtime, io, options, flags);
  if (prepared === null) return 1;
  const { loaded, trustPersisted, provider, resume } = prepared;

  const controller = new AbortController();
  const renderer = createRenderer(runtime, io, { format: flags.format });
  const headless = flags.format === "text" ? undefined : createHeadlessOutput(io, flags.format);
  // Ctrl-C, SIGTERM and SIGHUP: stop the session (session_end runs, stop reason interrupted) and
  // kill every hook and bash group; a second one exits at once (main.ts maps TERM/HUP to 143/129).
  const offSignal = watchStopSignals(runtime, STOP_SIGNALS, () => {
    renderer.interrupted?.();
    controller.abort();
  });
  const shared = await prepareSession(runtime, io, {
    loaded,
    cwd: options.cwd,
    provider,
    permissionMode: prepared.permissionMode,
    rules: prepared.rules,
    maxContextTokens: flags.maxContextTokens,
    repinOnRuleWrite: trustPersisted,
  });
  try {
    const session = new AgentSession({
      ...shared.options,
      ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
      persist: options.session,
      ...(headless ? { onLine: (line: string) => headless.onLine(line), onEvent: (event: AgentEvent) => headless.onEvent(event) } : {}),
      ...(resume ? { resume } : {}),
      signal: controller.signal,
    });
    const result = await runOnePrompt(session, renderer, prepared.prompt);
    offSignal();
    renderer.finish(result);
    headless?.finish(result, { wallMs: Math.max(0, runtime.now() - startedAt), model: provider.model });
    return exitCodeForStop(result.stopReason);
  } finally {
    await shared.close();
  }
}
