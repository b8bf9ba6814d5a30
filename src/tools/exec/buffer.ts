/**
 * Bounded output retained between two reads of one process, so a chatty command cannot eat
 * memory while nobody polls it. Keeps the first half of the limit (head) and the most recent
 * half (tail); what falls out in between is only counted, in UTF-8 bytes.
 *
 * Contract: while fewer than `limit` UTF-16 units arrive between two `take()`s, `take()`
 * returns them exactly, in arrival order. Past that, `text` is head + tail (dropped bytes sit
 * exactly between the two) and `omittedBytes` says how much is missing. Slices never split a
 * surrogate pair.
 */

export const DEFAULT_BUFFER_LIMIT = 1 << 20;

export interface Taken {
  text: string;
  omittedBytes: number;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

export class OutputBuffer {
  private head = "";
  private tail: string[] = [];
  private tailLength = 0;
  private omitted = 0;
  private readonly half: number;

  constructor(limit = DEFAULT_BUFFER_LIMIT) {
    this.half = Math.max(2, Math.floor(limit / 2));
  }

  /** True when nothing arrived since the last `take()`. */
  get empty(): boolean {
    return this.head.length === 0 && this.tailLength === 0 && this.omitted === 0;
  }

  append(text: string): void {
    if (text.length === 0) return;
    if (this.tailLength === 0 && this.omitted === 0 && this.head.length < this.half) {
      let room = this.half - this.head.length;
      if (room < text.length && isHighSurrogate(text.charCodeAt(room - 1))) room--;
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text.length === 0) return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    if (this.tailLength > this.half) this.trimTail();
  }

  /** Returns everything retained since the last call and starts over. */
  take(): Taken {
    const taken = { text: this.head + this.tail.join(""), omittedBytes: this.omitted };
    this.head = "";
    this.tail = [];
    this.tailLength = 0;
    this.omitted = 0;
    return taken;
  }

  private trimTail(): void {
    const joined = this.tail.join("");
    let cut = joined.length - this.half;
    if (isLowSurrogate(joined.charCodeAt(cut))) cut++;
    this.omitted += Buffer.byteLength(joined.slice(0, cut), "utf8");
    const kept = joined.slice(cut);
    this.tail = [kept];
    this.tailLength = kept.length;
  }
}
