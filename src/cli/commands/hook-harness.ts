/**
 * Fires events through the hooks that would run in a directory, with no model and no tools: the
 * engine `agent hooks test`, its case suites (`--cases`) and `agent hooks replay` share. The
 * config is loaded once and checked as a session would (parsable, managed files accepted, project
 * trusted); managed hooks run even with hooks off, as in a session.
 */
import type { Runtime } from "../../runtime/types.ts";
import type { CliIO } from "../io.ts";
import type { CanonicalEvent } from "../../util/events.ts";
import type { ToolId } from "../../tools/names.ts";
import type { PermissionMode } from "../../permissions/mode.ts";
import { loadConfig, type LoadedConfig } from "../../config/load.ts";
import { requireParsableConfig } from "../config-gate.ts";
import { createHookEngine, providerKeyVarsFor, type HookEngine } from "../../hooks/engine.ts";
import { activeHooks } from "../../hooks/agent-scope.ts";
import { joinContexts } from "../../hooks/merge/context.ts";
import { verdictOf, type Verdict } from "../../hooks/merge/merge.ts";
import { requireTrust } from "../trust-gate.ts";
import { requirePluginsUnchanged } from "../plugin-gate.ts";
import { cleanStaleSpills, spillRefusalLine } from "../../hooks/spill.ts";
import { STANDALONE_ENVELOPE_CONTEXT } from "../../hooks/event-fields.ts";
import type { EventOutcome, HookRow } from "../../hooks/dispatch.ts";
import type { ToolResultInfo } from "../../hooks/dialects/types.ts";
import type { Provider } from "../../providers/types.ts";
import { buildProvider } from "../session-setup.ts";

export interface HarnessOptions {
  readonly cwd: string;
  readonly trust: boolean;
  readonly provider?: string | undefined;
  readonly script?: string | undefined;
  readonly model?: string | undefined;
  readonly baseUrl?: string | undefined;
  readonly pluginDirs?: readonly string[] | undefined;
  /** Readonly permission mode runs only fail-closed hooks on tool events, as a session in it does. */
  readonly readonlyMode?: boolean;
}

/** One event to fire; `named` may be `post_tool_failure` (fired as post_tool with a failed result). */
export interface HarnessEvent {
  readonly named: CanonicalEvent;
  readonly tool?: ToolId | undefined;
  readonly input?: Readonly<Record<string, unknown>> | undefined;
  readonly result?: ToolResultInfo | undefined;
  readonly fields: Readonly<Record<string, unknown>>;
  /** Hooks keyed on the session (`once`) see one id per value. */
  readonly sessionId: string;
  readonly callId?: string;
  /** The payload's `permission_mode` (replay: the mode the call is judged in); default `default`. */
  readonly permissionMode?: PermissionMode;
}

export interface HarnessResult {
  readonly outcome: EventOutcome;
  /** The rows of the hooks that ran in line; async hooks (D15) never decide, their rows come with `outcome.asyncRows`. */
  readonly rows: readonly HookRow[];
  readonly verdict: Verdict;
  readonly reason: string | null;
  readonly decidedBy: { readonly label: string; readonly scope: string } | null;
  readonly context: string;
  /** The tool input after the hooks (tool events), else null. */
  readonly input: Readonly<Record<string, unknown>> | null;
}

export interface Harness {
  readonly loaded: LoadedConfig;
  fire(event: HarnessEvent): Promise<HarnessResult>;
  /** Failure lines the hooks printed so far (each once). */
  takeFailureLines(): string[];
  close(): Promise<void>;
}

/** Null when the project's hooks are untrusted (the trust gate already said why). */
export function openHarness(runtime: Runtime, io: CliIO, options: HarnessOptions): Harness | null {
  requireParsableConfig(runtime, options.cwd); // a config that does not parse is never half-applied
  const loaded = loadConfig(runtime, { cwd: options.cwd, pluginDirs: options.pluginDirs ?? [] });
  // As a top-level session would: agent front-matter hooks only where they fire in the parent.
  const hooks = activeHooks(loaded.hooks, undefined);
  if (!loaded.hooksOff && (!requireTrust(runtime, io, loaded, { once: options.trust }) || !requirePluginsUnchanged(io, loaded))) return null;
  const spillProblem = cleanStaleSpills(runtime.fs, runtime.platform); // leftovers of a crashed run (D14)
  if (spillProblem !== null) io.err(spillRefusalLine(spillProblem));
  let failureLines: string[] = [];
  const engine = createHookEngine(runtime, {
    promptProvider: promptProviderFor(runtime, loaded, options),
    hooks,
    readonlyMode: options.readonlyMode === true,
    quietSuccessOutput: loaded.settings.hooks.quietSuccessOutput,
    providerKeyVars: providerKeyVarsFor(loaded.settings.providers),
    sinks: { failureLine: (line) => failureLines.push(line) },
  });
  return {
    loaded,
    fire: (event) => fireOne(engine, loaded, options.cwd, event),
    takeFailureLines: () => {
      const taken = failureLines;
      failureLines = [];
      return taken;
    },
    close: () => engine.close(),
  };
}

/**
 * Bad provider flags are a usage error at once; without flags the configured provider is built
 * only when a prompt hook actually runs, so testing other hooks never needs a model or a key.
 */
function promptProviderFor(runtime: Runtime, loaded: LoadedConfig, options: HarnessOptions): () => Provider | string {
  const flags = { provider: options.provider, model: options.model, baseUrl: options.baseUrl, script: options.script, cwd: options.cwd };
  const providerNamed = options.provider !== undefined || options.script !== undefined;
  let provider: Provider | string | undefined = providerNamed ? buildProvider(runtime, loaded.settings, flags, loaded.managed) : undefined;
  return () => {
    if (provider !== undefined) return provider;
    if (loaded.settings.provider === undefined) {
      provider =
        'a prompt hook matched but no provider is set: pass --provider script --script FILE (replies in its "hooks" table) or --provider openai|anthropic';
      return provider;
    }
    try {
      provider = buildProvider(runtime, loaded.settings, flags, loaded.managed);
    } catch (error) {
      provider = error instanceof Error ? error.message : String(error);
    }
    return provider;
  };
}

async function fireOne(engine: HookEngine, loaded: LoadedConfig, cwd: string, event: HarnessEvent): Promise<HarnessResult> {
  const fired = await engine.fire({
    event: event.named === "post_tool_failure" ? "post_tool" : event.named,
    sessionId: event.sessionId,
    transcriptPath: null,
    cwd,
    projectDir: loaded.projectRoot,
    permissionMode: event.permissionMode ?? "default",
    ...(event.tool ? { tool: { name: event.tool, callId: event.callId ?? "call_test", input: { ...(event.input ?? {}) } } } : {}),
    ...(event.result ? { result: event.result } : {}),
    fields: event.fields,
    context: STANDALONE_ENVELOPE_CONTEXT,
  });
  const state = fired.state;
  return {
    outcome: fired,
    rows: fired.rows,
    verdict: verdictOf(state),
    reason: fired.reason,
    decidedBy: state.decidedBy ?? null,
    context: joinContexts([...state.contexts, ...state.hidden]),
    input: event.tool ? (state.toolInput ?? event.input ?? {}) : null,
  };
}
