/**
 * Token usage summed over a session, its cost when prices are configured, and each model's context
 * window (configured, else a default for common models) with the automatic compaction threshold.
 */
import type { ModelSettings } from "../config/settings.ts";

/** Tokens of every provider request of a session. `input` excludes the cached parts. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const emptyUsage = (): UsageTotals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** Adds one request's usage event (whose `inputTokens` includes the cached parts) to `totals`. */
export function addUsage(totals: UsageTotals, event: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number }): void {
  const read = event.cacheReadTokens ?? 0;
  const write = event.cacheWriteTokens ?? 0;
  totals.input += Math.max(0, event.inputTokens - read - write);
  totals.output += event.outputTokens;
  totals.cacheRead += read;
  totals.cacheWrite += write;
}

export type { ModelSettings };

/**
 * Cost in USD, or null when no price is configured for the model. A missing cache price falls back
 * to the input price (what a provider without a cache discount charges).
 */
export function costOf(totals: UsageTotals, model: ModelSettings | undefined): number | null {
  if (model === undefined || (model.inputPrice === undefined && model.outputPrice === undefined)) return null;
  const input = model.inputPrice ?? 0;
  const perToken = (tokens: number, price: number): number => (tokens * price) / 1_000_000;
  const usd =
    perToken(totals.input, input) +
    perToken(totals.output, model.outputPrice ?? 0) +
    perToken(totals.cacheRead, model.cacheReadPrice ?? input) +
    perToken(totals.cacheWrite, model.cacheWritePrice ?? input);
  return Math.round(usd * 1e6) / 1e6;
}

/** Context windows (tokens) of common models, matched by name prefix, longest first wins. */
const DEFAULT_CONTEXT_WINDOWS: readonly (readonly [string, number])[] = [
  ["claude-", 200_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-5", 400_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["qwen2.5-coder", 32_768],
  ["qwen3", 32_768],
  ["llama3.1", 131_072],
  ["llama3.2", 131_072],
  ["llama3", 8_192],
  ["deepseek-coder-v2", 131_072],
  ["mistral", 32_768],
  ["codestral", 32_768],
  ["gemma2", 8_192],
  ["gemma3", 131_072],
  ["phi3", 4_096],
  ["phi4", 16_384],
];

/** Compaction starts once the estimated context passes this share of the model's window. */
export const COMPACTION_THRESHOLD = 0.8;

/** The model's context window: `agent.models."<model>".context_window`, else a default, else undefined. */
export function contextWindowOf(model: string, configured: Readonly<Record<string, ModelSettings>> | undefined): number | undefined {
  const own = configured?.[model]?.contextWindow;
  if (own !== undefined) return own;
  // Ollama tags (`qwen2.5-coder:7b`) and provider prefixes (`openai/gpt-4o`) match by their base name.
  const name = model.toLowerCase().replace(/^.*\//, "");
  let best: readonly [string, number] | undefined;
  for (const entry of DEFAULT_CONTEXT_WINDOWS) if (name.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry;
  return best?.[1];
}

/** The automatic compaction threshold in tokens for `window`. */
export function compactionThresholdOf(window: number | undefined): number | undefined {
  return window === undefined ? undefined : Math.floor(window * COMPACTION_THRESHOLD);
}

/** The usage object of `--output-format json` and the result line (Anthropic's field names). */
export function usageJson(totals: UsageTotals): Record<string, number> {
  return {
    input_tokens: totals.input,
    output_tokens: totals.output,
    cache_read_input_tokens: totals.cacheRead,
    cache_creation_input_tokens: totals.cacheWrite,
  };
}
