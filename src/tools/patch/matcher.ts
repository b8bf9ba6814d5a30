/**
 * Locating a chunk's lines in a file, tolerant of the small differences models introduce.
 *
 * `seekSequence(lines, pattern, start, eof)` finds the first index ≥ `start` where `pattern`
 * occurs in `lines`, trying passes of decreasing strictness and returning the first pass that
 * matches anywhere:
 *   1. exact;
 *   2. ignoring trailing whitespace;
 *   3. ignoring leading and trailing whitespace;
 *   4. as 3, with typographic punctuation folded to ASCII (curly quotes, dashes, non-breaking
 *      and other unicode spaces, ellipsis) on both sides.
 * With `eof`, every pass is first tried at the one position where `pattern` ends the file;
 * only if none matches there does the search run from `start` (a soft anchor: a model's
 * `*** End of File` is a hint, not a guarantee). An empty pattern matches at `start`.
 * Pure and synchronous; O(lines × pattern) per pass.
 */

export const PASSES = ["exact", "trim-end", "trim", "unicode"] as const;
export type MatchPass = (typeof PASSES)[number];

export interface Match {
  index: number;
  pass: MatchPass;
}

/** Typographic characters and the ASCII they fold to in pass 4. */
const FOLD: Record<string, string> = {
  "\u2010": "-", // hyphen
  "\u2011": "-", // non-breaking hyphen
  "\u2012": "-", // figure dash
  "\u2013": "-", // en dash
  "\u2014": "-", // em dash
  "\u2015": "-", // horizontal bar
  "\u2212": "-", // minus sign
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'", // prime
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"', // double prime
  "\u00AB": '"',
  "\u00BB": '"',
  "\u2026": "...",
  "\u00A0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200A": " ",
  "\u202F": " ",
  "\u205F": " ",
  "\u3000": " ",
};
const FOLD_RE = new RegExp(`[${Object.keys(FOLD).join("")}]`, "g");

/** `s` trimmed, with typographic punctuation folded to ASCII. */
export function foldPunctuation(s: string): string {
  return s.replace(FOLD_RE, (c) => FOLD[c]).trim();
}

type Norm = (s: string) => string;
const NORMS: Record<MatchPass, Norm | undefined> = {
  exact: undefined,
  "trim-end": (s) => s.trimEnd(),
  trim: (s) => s.trim(),
  unicode: foldPunctuation,
};

export function seekSequence(
  lines: string[],
  pattern: string[],
  start: number,
  eof: boolean,
): Match | undefined {
  if (pattern.length === 0) return { index: Math.min(start, lines.length), pass: "exact" };
  const last = lines.length - pattern.length;
  if (last < 0) return undefined;
  const from = eof && last >= start ? [last, start] : [start];
  for (const begin of from) {
    const end = begin === last && from.length === 2 ? last : lines.length - pattern.length;
    for (const pass of PASSES) {
      const norm = NORMS[pass];
      const file = norm ? lazyNorm(lines, norm) : (i: number) => lines[i];
      const pat = norm ? pattern.map(norm) : pattern;
      for (let i = begin; i <= end; i++) {
        let k = 0;
        while (k < pat.length && file(i + k) === pat[k]) k++;
        if (k === pat.length) return { index: i, pass };
      }
    }
  }
  return undefined;
}

/** Line accessor that normalises each line at most once. */
function lazyNorm(lines: string[], norm: Norm): (i: number) => string {
  const cache = new Array<string | undefined>(lines.length);
  return (i) => {
    let v = cache[i];
    if (v === undefined) {
      v = norm(lines[i]);
      cache[i] = v;
    }
    return v;
  };
}

/** Rough similarity of two lines in [0, 1]: shared prefix + suffix over the longer length (folded). */
export function lineSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const n = Math.min(a.length, b.length);
  let pre = 0;
  while (pre < n && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < n - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  return (pre + suf) / Math.max(a.length, b.length);
}

/**
 * For error messages: the window (from `start`) most similar to the non-blank pattern lines,
 * compared folded as in pass 4. `identical` counts lines equal after folding. Undefined when
 * nothing is reasonably close (no identical line and average similarity below 0.6).
 */
export function closestMatch(
  lines: string[],
  pattern: string[],
  start: number,
): { index: number; identical: number } | undefined {
  const file = lazyNorm(lines, foldPunctuation);
  const pat = pattern.map(foldPunctuation);
  const counted = pat.filter((l) => l !== "").length;
  if (counted === 0 || lines.length === 0) return undefined;
  let best: { index: number; identical: number; score: number } | undefined;
  const last = Math.max(0, lines.length - pattern.length);
  for (let i = Math.min(start, last); i <= last; i++) {
    let identical = 0;
    let score = 0;
    for (let k = 0; k < pat.length && i + k < lines.length; k++) {
      if (pat[k] === "") continue;
      const sim = lineSimilarity(file(i + k), pat[k]);
      if (sim === 1) identical++;
      score += sim;
    }
    if (!best || score > best.score) best = { index: i, identical, score };
  }
  if (!best || (best.identical === 0 && best.score / counted < 0.6)) return undefined;
  return { index: best.index, identical: best.identical };
}
