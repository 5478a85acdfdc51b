/**
 * Builds the provider named by `--provider`. Configuration problems (no key for a hosted API, a bad
 * base URL, an invalid script) are returned as one-line errors before any request is made.
 */
import { ANTHROPIC_WIRE, ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_DEFAULT_MODEL, ANTHROPIC_KEY_VARIABLE } from "./anthropic.ts";
import { OPENAI_WIRE, OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL, OPENAI_KEY_VARIABLE } from "./openai.ts";
import { HttpProvider } from "./http-provider.ts";
import { loadScript, ScriptProvider } from "./script.ts";
import type { CreateProviderOptions, CreateProviderResult, Provider } from "./types.ts";
import { providerTimeoutFromEnv } from "./http.ts";

export type * from "./types.ts";
export { createChildScriptProvider, ScriptProvider, parseScript, loadScript, COMPACT_REPLY } from "./script.ts";
export { OPENAI_KEY_VARIABLE } from "./openai.ts";
export { ANTHROPIC_KEY_VARIABLE } from "./anthropic.ts";
export { HttpProvider } from "./http-provider.ts";

/** Environment variables the providers read keys from (for D18 stripping). */
export const PROVIDER_KEY_VARIABLES = [OPENAI_KEY_VARIABLE, ANTHROPIC_KEY_VARIABLE] as const;

function checkBaseUrl(baseUrl: string): { ok: true; host: string } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { ok: false, error: `invalid --base-url ${baseUrl}: not a URL (expected e.g. http://127.0.0.1:11434)` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: `invalid --base-url ${baseUrl}: use http:// or https://` };
  }
  return { ok: true, host: url.hostname.toLowerCase() };
}

/** Never throws. */
export function createProvider(options: CreateProviderOptions): CreateProviderResult {
  if (options.id === "script") {
    if (!options.scriptPath) return { ok: false, error: "the script provider needs --script FILE" };
    const loaded = loadScript(options.runtime, options.scriptPath);
    if (!loaded.ok) return loaded;
    const provider = new ScriptProvider(loaded.script, options.model === undefined ? {} : { model: options.model });
    return { ok: true, provider };
  }

  const isOpenAI = options.id === "openai";
  const defaultBase = isOpenAI ? OPENAI_DEFAULT_BASE_URL : ANTHROPIC_DEFAULT_BASE_URL;
  const baseUrl = options.baseUrl ?? defaultBase;
  const checked = checkBaseUrl(baseUrl);
  if (!checked.ok) return checked;
  const hosted = checked.host === new URL(defaultBase).hostname;
  const keyVariable = isOpenAI ? OPENAI_KEY_VARIABLE : ANTHROPIC_KEY_VARIABLE;
  const envKey = options.runtime.env()[keyVariable];
  const apiKey = options.apiKey ?? (envKey === "" ? undefined : envKey);
  // Local servers (Ollama, llama.cpp, vLLM, LM Studio) need no key; the hosted API does.
  if (hosted && !apiKey) {
    return { ok: false, error: `${keyVariable} is not set (export it, or use --base-url for a local server)` };
  }
  const timeout = providerTimeoutFromEnv(options.runtime.env());
  if (!timeout.ok) return timeout;
  const requestTimeoutMs = options.requestTimeoutMs ?? timeout.ms;
  const common = {
    baseUrl,
    apiKey,
    hosted,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  const provider: Provider = isOpenAI
    ? new HttpProvider(OPENAI_WIRE, { ...common, model: options.model ?? OPENAI_DEFAULT_MODEL })
    : new HttpProvider(ANTHROPIC_WIRE, { ...common, model: options.model ?? ANTHROPIC_DEFAULT_MODEL });
  return { ok: true, provider };
}

/**
 * The provider a child agent named `agentName` uses: a script child replaying `agents.<name>`
 * (sharing the call counter), else the parent itself (HTTP providers keep no per-session state
 * beyond generated ids).
 */
export function providerForChild(parent: Provider, agentName: string): Provider {
  return parent instanceof ScriptProvider ? parent.child(agentName) : parent;
}
