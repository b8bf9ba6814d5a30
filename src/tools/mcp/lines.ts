/**
 * Splits a byte stream into lines with a bound on what it holds (used by stdio-transport.ts).
 *
 * Contract of `LineSplitter.push(chunk)`: returns the lines the chunk completed, in order.
 * - `{line}`: the text before a `\n` (UTF-8, a trailing `\r` removed); blank lines are skipped.
 * - `{dropped}`: a line longer than `maxBytes`. Once a line passes the bound its bytes are no
 *   longer kept, only counted, up to its `\n`; `head` and `tail` are its first and last
 *   EDGE_BYTES (as text) so the caller can still find the message's id.
 * At most `maxBytes` of one line plus EDGE_BYTES are held at any time.
 */

export const EDGE_BYTES = 256;

export type Frame = { line: string } | { dropped: { bytes: number; head: string; tail: string } };

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | null = null;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return out;
      const frame = this.end();
      if (frame) out.push(frame);
      start = nl + 1;
    }
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      this.dropping.tail = lastBytes(this.dropping.tail, piece);
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const all = [...this.parts, piece];
    let tail: Buffer = Buffer.alloc(0);
    for (const p of all) tail = lastBytes(tail, p);
    this.dropping = { bytes: this.size + piece.length, head: firstBytes(all), tail };
    this.parts = [];
    this.size = 0;
  }

  private end(): Frame | undefined {
    if (this.dropping) {
      const { bytes, head, tail } = this.dropping;
      this.dropping = null;
      return { dropped: { bytes, head: head.toString("utf8"), tail: tail.toString("utf8") } };
    }
    const line = Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.size = 0;
    return line.trim() === "" ? undefined : { line };
  }
}

/** The first EDGE_BYTES of `parts` joined, copied. */
function firstBytes(parts: Buffer[]): Buffer {
  const out: Buffer[] = [];
  let n = 0;
  for (const p of parts) {
    if (n >= EDGE_BYTES) break;
    out.push(p.subarray(0, EDGE_BYTES - n));
    n += out[out.length - 1].length;
  }
  return Buffer.concat(out);
}

/** The last EDGE_BYTES of `kept` followed by `piece`, copied (never a view that pins `piece`). */
function lastBytes(kept: Buffer, piece: Buffer): Buffer {
  if (piece.length >= EDGE_BYTES) return Buffer.from(piece.subarray(piece.length - EDGE_BYTES));
  const both = Buffer.concat([kept, piece]);
  return Buffer.from(both.subarray(Math.max(0, both.length - EDGE_BYTES)));
}
