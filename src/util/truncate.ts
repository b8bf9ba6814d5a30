/**
 * Token-budgeted middle truncation for tool output (requirements T1). Pure functions, no I/O.
 *
 * Tokens are approximated at 4 UTF-8 bytes per token, the same rough rule on both sides of
 * the cut so the numbers a model sees are consistent. Cuts never split a UTF-8 sequence (so
 * never a surrogate pair either): the head ends and the tail starts on a character boundary.
 */

export const BYTES_PER_TOKEN = 4;

/** Approximate token count of `text` (ceil of UTF-8 bytes / 4). */
export function approxTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN);
}

export interface Truncated {
  /** The text as given, or head + marker + tail when it was over budget. */
  text: string;
  truncated: boolean;
  /** Approximate tokens of the original text, including `omittedBytes`. */
  originalTokens: number;
}

export interface TruncateOptions {
  /**
   * Bytes already dropped from the exact middle of `text` before it got here (a bounded
   * head+tail buffer). They count towards `originalTokens` and the marker, and force a marker
   * even when the remaining text fits the budget.
   */
  omittedBytes?: number;
}

/** The marker placed where text was cut. */
export function truncationMarker(tokens: number): string {
  return `…${tokens} tokens truncated…`;
}

/**
 * Keeps the first and last halves of a `maxTokens` budget and replaces the middle with a
 * marker saying how many tokens were cut. `maxTokens` below 0 is treated as 0.
 */
export function truncateMiddle(text: string, maxTokens: number, opts: TruncateOptions = {}): Truncated {
  const omitted = Math.max(0, opts.omittedBytes ?? 0);
  const buf = Buffer.from(text, "utf8");
  const originalTokens = Math.ceil((buf.length + omitted) / BYTES_PER_TOKEN);
  const budget = Math.max(0, Math.floor(maxTokens)) * BYTES_PER_TOKEN;
  if (buf.length <= budget && omitted === 0) return { text, truncated: false, originalTokens };

  // Head and tail windows; when the text itself fits (only `omitted` forced us here) the
  // windows meet in the middle and nothing further is dropped.
  let headEnd: number;
  let tailStart: number;
  if (budget >= buf.length) {
    headEnd = tailStart = charBoundaryAtOrBefore(buf, Math.floor(buf.length / 2));
  } else {
    headEnd = charBoundaryAtOrBefore(buf, Math.floor(budget / 2));
    tailStart = charBoundaryAtOrAfter(buf, buf.length - (budget - Math.floor(budget / 2)));
  }

  const cutBytes = tailStart - headEnd + omitted;
  const head = buf.subarray(0, headEnd).toString("utf8");
  const tail = buf.subarray(tailStart).toString("utf8");
  const marker = truncationMarker(Math.ceil(cutBytes / BYTES_PER_TOKEN));
  return { text: head + marker + tail, truncated: true, originalTokens };
}

/** UTF-8 continuation bytes look like 10xxxxxx; a character starts anywhere else. */
const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

function charBoundaryAtOrBefore(buf: Buffer, i: number): number {
  while (i > 0 && i < buf.length && isContinuation(buf[i])) i--;
  return i;
}

function charBoundaryAtOrAfter(buf: Buffer, i: number): number {
  while (i < buf.length && isContinuation(buf[i])) i++;
  return i;
}
