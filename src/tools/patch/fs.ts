/**
 * The file operations apply_patch needs, behind a small interface so tests can inject faults
 * (STYLE habit 8). Synchronous on purpose: a patch is planned and committed without yielding
 * to the event loop, so parallel tool calls in this process never see (or interleave with) a
 * half-applied patch. Patches touch a few small files; the blocking is negligible.
 */
import {
  chmodSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { readRegular } from "../../host/files.js";

/** Largest file apply_patch reads. */
export const MAX_PATCH_FILE_BYTES = 64 << 20;

export interface PatchFs {
  /**
   * The file's UTF-8 text and permission bits, or undefined when nothing exists at `path`.
   * Throws when `path` is a directory, not a regular file (a FIFO or device is refused at
   * once, never waited on), larger than MAX_PATCH_FILE_BYTES, or cannot be read.
   */
  read(path: string): { text: string; mode: number } | undefined;
  /** `path` with symbolic links resolved, or undefined when it does not exist. */
  realpath(path: string): string | undefined;
  /** Creates `dir` and its missing parents; returns the directories it created, outermost first. */
  mkdirp(dir: string): string[];
  /**
   * Replaces `path` with `text` atomically: a temp file in the same directory, then rename.
   * `mode` sets the permission bits (default: the process umask's). The parent must exist.
   */
  write(path: string, text: string, mode?: number): void;
  /** Removes the file (or symbolic link) at `path`. */
  remove(path: string): void;
  /** Removes `dir` if it is empty; never throws. */
  rmdirIfEmpty(dir: string): void;
}

let tempSeq = 0;

export const nodePatchFs: PatchFs = {
  read(path) {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
    if (st.isDirectory()) throw new Error(`${path} is a directory`);
    const r = readRegular(path, { maxBytes: MAX_PATCH_FILE_BYTES });
    if (!r.ok) throw new Error(r.message);
    return { text: r.data.toString("utf8"), mode: r.stat.mode & 0o7777 };
  },
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
  mkdirp(dir) {
    const first = mkdirSync(dir, { recursive: true });
    if (first === undefined) return [];
    const created = [dir];
    for (let d = dirname(dir); d.length >= first.length && d !== dirname(d); d = dirname(d))
      created.unshift(d);
    return created;
  },
  write(path, text, mode) {
    const temp = join(dirname(path), `.${basename(path)}.tandem-${process.pid}-${++tempSeq}.tmp`);
    try {
      writeFileSync(temp, text, { encoding: "utf8", flag: "wx", ...(mode === undefined ? {} : { mode }) });
      if (mode !== undefined) chmodSync(temp, mode);
      renameSync(temp, path);
    } catch (err) {
      try {
        unlinkSync(temp);
      } catch {
        /* never created, or already renamed */
      }
      throw err;
    }
  },
  remove(path) {
    unlinkSync(path);
  },
  rmdirIfEmpty(dir) {
    try {
      rmdirSync(dir);
    } catch {
      /* not empty or already gone */
    }
  },
};
