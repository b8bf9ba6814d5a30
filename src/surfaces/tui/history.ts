/**
 * The composer's ↑/↓ history, kept across restarts in `$TANDEM_HOME/history.jsonl`.
 *
 * File: append-only JSON lines `{ts, cwd, text}` (ts in Unix seconds), mode 0600. When it grows
 * past `maxLines` it is rewritten (temp file + rename) with the newest `keep` entries. Lines that
 * do not parse are skipped. Only composer submissions are recorded (never question answers).
 *
 * In memory: the newest `keep` texts, consecutive duplicates stored once. A resumed thread's user
 * messages join the list (`addThread`), newest last, without being written to the file. When the
 * home is not writable the store silently stays in memory.
 */
import {
  chmodSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

export interface HistoryEntry {
  ts: number;
  cwd: string;
  text: string;
}

export interface HistoryOptions {
  /** Entries kept in memory and after a trim. */
  keep?: number;
  /** The file is trimmed once it has more lines than this. */
  maxLines?: number;
}

export const HISTORY_FILE = "history.jsonl";

function parseLine(line: string): HistoryEntry | undefined {
  try {
    const v = JSON.parse(line);
    if (v && typeof v === "object" && typeof v.text === "string" && v.text.trim())
      return { ts: Number(v.ts) || 0, cwd: typeof v.cwd === "string" ? v.cwd : "", text: v.text };
  } catch {
    // a torn or foreign line
  }
  return undefined;
}

export class ComposerHistory {
  readonly file: string | undefined;
  private texts: string[] = [];
  private lines = 0;
  private writable: boolean;
  private readonly keep: number;
  private readonly maxLines: number;
  private readonly listeners = new Set<() => void>();

  /** `home` undefined: memory only. */
  constructor(home: string | undefined, opts: HistoryOptions = {}) {
    this.keep = opts.keep ?? 500;
    this.maxLines = opts.maxLines ?? 1000;
    this.file = home ? join(home, HISTORY_FILE) : undefined;
    this.writable = !!this.file;
    if (!this.file) return;
    let raw = "";
    try {
      raw = readFileSync(this.file, "utf8");
    } catch {
      return;
    }
    const all = raw.split("\n").filter((l) => l.trim());
    this.lines = all.length;
    for (const line of all) {
      const e = parseLine(line);
      if (e) this.push(e.text);
    }
  }

  /** The texts, oldest first. */
  entries(): string[] {
    return [...this.texts];
  }

  /** Whether records reach the file (false after a write failed). */
  get persistent(): boolean {
    return this.writable;
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private push(text: string): void {
    if (this.texts[this.texts.length - 1] === text) return;
    this.texts.push(text);
    if (this.texts.length > this.keep) this.texts = this.texts.slice(-this.keep);
  }

  /** Records one composer submission (memory always; the file when writable). */
  record(text: string, cwd: string): void {
    const t = text.trim();
    if (!t) return;
    const repeat = this.texts[this.texts.length - 1] === t;
    this.push(t);
    if (repeat || !this.writable || !this.file) return;
    const line = `${JSON.stringify({ ts: Math.floor(Date.now() / 1000), cwd, text: t } satisfies HistoryEntry)}\n`;
    try {
      mkdirSync(join(this.file, ".."), { recursive: true, mode: 0o700 });
      const fd = openSync(this.file, "a", 0o600);
      try {
        writeSync(fd, line);
      } finally {
        closeSync(fd);
      }
      if (this.lines === 0) chmodSync(this.file, 0o600);
      this.lines++;
      if (this.lines > this.maxLines) this.trim();
    } catch {
      // Not writable: keep it in memory and say nothing.
      this.writable = false;
    }
  }

  /** Rewrites the file with its newest `keep` entries. */
  private trim(): void {
    const file = this.file!;
    const entries = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() && parseLine(l))
      .slice(-this.keep);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, entries.map((l) => `${l}\n`).join(""), { mode: 0o600 });
    renameSync(tmp, file);
    this.lines = entries.length;
  }

  /** A resumed thread's user messages join the in-memory history (newest last); not written. */
  addThread(texts: string[]): void {
    const incoming = texts.map((t) => t.trim()).filter(Boolean);
    if (!incoming.length) return;
    const set = new Set(incoming);
    const kept = this.texts.filter((t) => !set.has(t));
    this.texts = [];
    for (const t of [...kept, ...incoming]) this.push(t);
    for (const fn of this.listeners) fn();
  }
}
