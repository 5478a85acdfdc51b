/**
 * "did you mean …?" for unknown config keys: the known key nearest to a misspelling by optimal
 * string alignment distance (Levenshtein plus adjacent swaps), compared without case and without
 * `_`/`-`, so `timout_seconds`, `timeoutSeconds` and `status_message` all find their key.
 */

function normalise(key: string): string {
  return key.toLowerCase().replace(/[_-]/g, "");
}

/** Edit distance with adjacent transpositions; O(a·b) time, O(b) memory per row. */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known key closest to `unknown`, or undefined when none is close: at most 2 edits, or a third
 * of the key's length for long keys. Ties go to the earlier key of `known`.
 */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const target = normalise(unknown);
  const limit = Math.max(2, Math.floor(target.length / 3));
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(target, normalise(key));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

/** `unknown key (did you mean timeout_seconds? valid: …)`, or without the question when nothing is close. */
export function unknownKeyMessage(unknown: string, known: readonly string[]): string {
  const near = closestKey(unknown, known);
  return near === undefined ? `unknown key (valid: ${known.join(", ")})` : `unknown key (did you mean ${near}? valid: ${known.join(", ")})`;
}
