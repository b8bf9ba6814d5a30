/** "Did you mean" for names a person typed: the closest known name by edit distance. */

/** Levenshtein distance (insert, delete, substitute; a swap of neighbours counts as one). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/**
 * The known name closest to `name` (case-insensitive), if it is close enough to be a typo: at
 * most a third of the longer name's length, and at most 3 edits. Ties go to the first in `known`.
 * A known name that starts with `name` (3+ characters: `include` → `include_only`) comes first.
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  if (lower.length >= 3) {
    const prefixed = known.find((k) => k.toLowerCase().startsWith(lower));
    if (prefixed) return prefixed;
  }
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const dist = editDistance(name.toLowerCase(), k.toLowerCase());
    if (dist < bestD) {
      best = k;
      bestD = dist;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(name.length, best.length) / 3)));
  return bestD <= limit ? best : undefined;
}
