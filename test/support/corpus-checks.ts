/**
 * The corpus checks, as functions returning the ids (or descriptions) of the lines that fail: the
 * tests assert `[]` over test/fixtures/, and scripts/check-shared-corpora.ts runs the same checks
 * over ../shared/corpora. Pure: they call the detector and the preflight, nothing else.
 */
import { redactText, RULES } from "../../src/hooks/secrets/redact.ts";
import { preflight } from "../../src/hooks/shell/preflight.ts";
import type { PreflightLine, SecretLine } from "./fixtures.ts";

type Positive = SecretLine & { secret: string };

const MARKER = /\[REDACTED:([a-z0-9_]+)\]/g;
const RULE_IDS: ReadonlySet<string> = new Set(RULES.map((rule) => rule.id));

export function positivesOf(lines: readonly SecretLine[]): Positive[] {
  return lines.filter((line): line is Positive => line.secret !== null);
}

export function negativesOf(lines: readonly SecretLine[]): SecretLine[] {
  return lines.filter((line) => line.secret === null);
}

export function markersOf(text: string): string[] {
  return [...text.matchAll(MARKER)].map((m) => m[1]!);
}

/** True when no 8-character run of `secret` survives in `haystack`. */
export function noEightCharRun(haystack: string, secret: string): boolean {
  for (let i = 0; i + 8 <= secret.length; i++) if (haystack.includes(secret.slice(i, i + 8))) return false;
  return true;
}

/** TOOL-46: positives whose secret survives, negatives that change. */
export function redactionMisses(lines: readonly SecretLine[]): string[] {
  return [
    ...positivesOf(lines)
      .filter((line) => redactText(line.text).includes(line.secret))
      .map((l) => `kept secret: ${l.id}`),
    ...negativesOf(lines)
      .filter((line) => redactText(line.text) !== line.text)
      .map((l) => `changed negative: ${l.id}`),
  ];
}

/**
 * SEC-15: only the secret's span changes, to a known `[REDACTED:<rule>]` (the line's `kind` when
 * `kindIsRule`), and redaction is idempotent. `multiSecret` lines hold a second secret and skip
 * the exact-span check.
 */
export function spanMisses(lines: readonly SecretLine[], options: { kindIsRule: boolean; multiSecret?: ReadonlySet<string> }): string[] {
  const wrong: string[] = [];
  for (const line of positivesOf(lines)) {
    const out = redactText(line.text);
    if (redactText(out) !== out) wrong.push(`not idempotent: ${line.id}`);
    const markers = markersOf(out);
    if (markers.some((id) => !RULE_IDS.has(id))) wrong.push(`unknown rule marker: ${line.id}`);
    if (options.multiSecret?.has(line.id) === true) continue;
    const rule = options.kindIsRule ? line.kind : markers[0];
    if (line.text.split(line.secret).join(`[REDACTED:${rule}]`) !== out) wrong.push(`${line.id}: ${JSON.stringify(out).slice(0, 300)}`);
  }
  return wrong;
}

/** SEC-15: a positive between two copies of a negative changes only the secret. */
export function insertionMisses(lines: readonly SecretLine[], multiSecret: ReadonlySet<string> = new Set()): string[] {
  const wrong: string[] = [];
  for (const negative of negativesOf(lines)) {
    for (const positive of positivesOf(lines)) {
      if (multiSecret.has(positive.id)) continue;
      const out = redactText(`${negative.text}\n${positive.text}\n${negative.text}`);
      const expectedPositive = redactText(positive.text);
      const middle = out.slice(negative.text.length + 1, out.length - negative.text.length - 1);
      const ok =
        out === `${negative.text}\n${expectedPositive}\n${negative.text}` &&
        noEightCharRun(middle.split(positive.secret).join(""), positive.secret) &&
        !middle.includes(positive.secret) &&
        noEightCharRun(expectedPositive, positive.secret) &&
        redactText(out) === out;
      if (!ok) wrong.push(`${positive.id} inside ${negative.id}: ${JSON.stringify(out).slice(0, 300)}`);
    }
  }
  return wrong;
}

/** SEC-15: bare secrets of `isBare` lines, space-separated inside negative text, become one marker. */
export function bareMisses(lines: readonly SecretLine[], isBare: (line: SecretLine) => boolean): string[] {
  const wrong: string[] = [];
  for (const negative of negativesOf(lines)) {
    for (const positive of positivesOf(lines).filter(isBare)) {
      const out = redactText(`${negative.text} ${positive.secret} ${negative.text}`);
      const expected = `${negative.text} [REDACTED:${markersOf(out)[0]}] ${negative.text}`;
      const ok = out === expected && noEightCharRun(out.slice(negative.text.length, out.length - negative.text.length), positive.secret);
      if (!ok) wrong.push(`${positive.id} bare inside ${negative.id}: ${JSON.stringify(out).slice(0, 300)}`);
    }
  }
  return wrong;
}

/** SEC-01 TOOL-37: lines whose verdict (or, when the line names one, rule) differs, or is impure. */
export function preflightMisses(lines: readonly PreflightLine[]): string[] {
  const wrong: string[] = [];
  for (const line of lines) {
    const result = preflight(line.cmd, { absolutePaths: line.absolute_paths });
    const verdict = result.ok ? "accept" : "reject";
    if (verdict !== line.expect) wrong.push(`${line.id}: ${verdict}, expected ${line.expect} (${line.why})`);
    else if (!result.ok && line.rule !== undefined && result.rule !== line.rule) wrong.push(`${line.id}: rule ${result.rule}, expected ${line.rule}`);
    if (JSON.stringify(preflight(line.cmd, { absolutePaths: line.absolute_paths })) !== JSON.stringify(result)) wrong.push(`${line.id}: impure`);
  }
  return wrong;
}
