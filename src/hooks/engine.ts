/**
 * One hook engine per command run: the registry snapshot, the stripped environment, the spill
 * directory and the async-hook bookkeeping, wired into a DispatchContext. `agent run`,
 * `agent hooks test` and `agent notify` all fire events through this same path.
 */
import type { Runtime } from "../runtime/types.ts";
import type { HookSpec } from "./types.ts";
import type { HookEventInput } from "./dialects/types.ts";
import { dispatchEvent, settleAsyncHooks, type DispatchContext, type DispatchSinks, type EventOutcome } from "./dispatch.ts";
import { stripEnv } from "./shell/env.ts";
import { createSpiller } from "./spill.ts";
import { createLoginEnvCache } from "./handlers/login-env.ts";
import { createDialects } from "./dialects/index.ts";
import { liveGroups } from "../runtime/process-groups.ts";
import { validateToolInput } from "../tools/schemas.ts";
import type { Provider } from "../providers/types.ts";

/** Env variables the providers read their keys from; always stripped before hooks and bash (D18). */
export const PROVIDER_KEY_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] as const;

/** The default key variables plus every configured `providers.*.api_key_env`: all stripped. */
export function providerKeyVarsFor(providers: Readonly<Record<string, { readonly apiKeyEnv?: string }>>): string[] {
  const names = new Set<string>(PROVIDER_KEY_VARS);
  for (const provider of Object.values(providers)) if (provider.apiKeyEnv) names.add(provider.apiKeyEnv);
  return [...names];
}

/** D15: async hooks get at most this long after the final reply (or after `hooks test`'s sync hooks). */
export const ASYNC_EXIT_GRACE_MS = 2000;

export interface HookEngine {
  readonly context: DispatchContext;
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly strippedValues: readonly string[];
  fire(input: Omit<HookEventInput, "strippedEnvValues">): Promise<EventOutcome>;
  /** Waits for async hooks up to the grace, then kills the rest (D15). */
  close(graceMs?: number): Promise<void>;
  /** Cancels every running hook (SIGINT). */
  cancel(): void;
}

export interface HookEngineOptions {
  readonly hooks: readonly HookSpec[];
  readonly readonlyMode: boolean;
  readonly quietSuccessOutput: boolean;
  readonly sinks: DispatchSinks;
  readonly providerKeyVars?: readonly string[];
  /** The `once` keys of the session: pass the same set to a session's next engine so a fresh engine never reruns them. */
  readonly onceStarted?: Set<string>;
  /** The provider prompt hooks ask, or why there is none; called only when one runs. */
  readonly promptProvider?: () => Provider | string;
  /** http hooks' fetch (tests); default the global one. */
  readonly fetch?: typeof fetch;
}

export function createHookEngine(runtime: Runtime, options: HookEngineOptions): HookEngine {
  const stripped = stripEnv(runtime.env(), { providerKeyVars: options.providerKeyVars ?? PROVIDER_KEY_VARS });
  const controller = new AbortController();
  const context: DispatchContext = {
    runtime,
    baseEnv: stripped.env,
    spill: createSpiller(runtime.fs, runtime.platform, () => runtime.randomId(8)),
    groups: liveGroups,
    loginEnv: createLoginEnvCache(),
    dialectFor: createDialects({ fs: runtime.fs, sha256Hex: (data) => runtime.sha256Hex(data) }),
    signal: controller.signal,
    hooks: options.hooks,
    readonlyMode: options.readonlyMode,
    merge: {
      quietSuccessOutput: options.quietSuccessOutput,
      validateInput: (tool, input) => {
        if (tool === undefined) return null;
        const checked = validateToolInput(tool, input);
        return checked.ok ? null : checked.path || checked.message;
      },
    },
    sinks: options.sinks,
    asyncRuns: new Map(),
    onceStarted: options.onceStarted ?? new Set(),
    ...(options.promptProvider ? { promptProvider: options.promptProvider } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return {
    context,
    baseEnv: stripped.env,
    strippedValues: stripped.strippedValues,
    fire: (input) => dispatchEvent(context, { ...input, strippedEnvValues: stripped.strippedValues }),
    close: (graceMs = ASYNC_EXIT_GRACE_MS) => settleAsyncHooks(context, graceMs),
    cancel: () => controller.abort(),
  };
}
