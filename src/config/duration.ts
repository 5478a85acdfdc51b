/**
 * `hook.json` `timeout` (D4): a Go duration string (`"500ms"`, `"1.5s"`, `"1m30s"`) or a number of
 * seconds (fractions allowed). `0`, `"0s"`, `""` and `null` mean the default; negative values and
 * anything above the maximum are errors (never clamped).
 */

export const HOOK_DIR_TIMEOUT_DEFAULT_MS = 5000;
export const HOOK_DIR_TIMEOUT_MAX_MS = 60000;

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60000,
  h: 3600000,
};

/** Parses a Go duration into milliseconds; undefined when malformed. `"0"` is valid (Go allows it). */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest.startsWith("-")) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const match = part.exec(rest);
    if (!match) return undefined;
    const amount = Number(match[1]);
    const unit = UNIT_MS[match[2] ?? ""];
    if (unit === undefined || !Number.isFinite(amount)) return undefined;
    total += amount * unit;
    rest = rest.slice(match[0].length);
  }
  return sign * total;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

export type TimeoutResult = { ok: true; ms: number } | { ok: false; message: string };

export function parseHookDirTimeout(value: unknown): TimeoutResult {
  if (value === undefined || value === null || value === "" || value === 0) return { ok: true, ms: HOOK_DIR_TIMEOUT_DEFAULT_MS };
  let ms: number | undefined;
  if (typeof value === "number" && Number.isFinite(value)) ms = value * 1000;
  else if (typeof value === "string") ms = parseGoDuration(value.trim());
  if (ms === undefined) return { ok: false, message: `invalid timeout ${JSON.stringify(value)} (use a duration such as "5s" or a number of seconds, max 60s)` };
  if (ms < 0) return { ok: false, message: `invalid timeout ${JSON.stringify(value)}: must not be negative (max 60s)` };
  if (ms === 0) return { ok: true, ms: HOOK_DIR_TIMEOUT_DEFAULT_MS };
  if (ms > HOOK_DIR_TIMEOUT_MAX_MS) return { ok: false, message: `timeout ${JSON.stringify(value)} (${formatSeconds(ms)}) exceeds max 60s` };
  return { ok: true, ms: Math.max(1, Math.round(ms)) };
}
