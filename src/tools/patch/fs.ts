/**
 * The file operations apply_patch needs, behind a small interface so tests can inject faults
 * (STYLE habit 8). Synchronous on purpose: a patch is planned and committed without yielding
 * to the event loop, so parallel tool calls in this process never see (or interleave with) a
 * half-applied patch. Patches touch a few small files; the blocking is negligible.
 *
 * Paths given to read, write, remove, mkdirp and rmdirIfEmpty name their entry in a directory
 * whose path has its links resolved (paths.ts resolves them when the patch is checked). Each
 * operation opens that directory with `openDirExact` and acts through it, so a directory a
 * command swaps for a link after the check (to Tandem's home, say) is never followed: the
 * operation refuses instead. The entry itself is never followed either.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { type DirHandle, openDirExact, readRegular } from "../../host/files.js";

/** Largest file apply_patch reads. */
export const MAX_PATCH_FILE_BYTES = 64 << 20;

export interface PatchFs {
  /**
   * The file's UTF-8 text and permission bits, or undefined when nothing exists at `path`.
   * Throws when `path` is a directory, not a regular file (a FIFO or device is refused at
   * once, never waited on), a link, larger than MAX_PATCH_FILE_BYTES, or cannot be read.
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

/** Runs `fn` with the directory of `path` opened as checked (see the header); throws if it is not. */
function inDir<T>(path: string, fn: (dir: DirHandle, name: string) => T): T {
  const h = openDirExact(dirname(path));
  if (!h)
    throw new Error(
      `${dirname(path)} is no longer the directory that was checked (a symbolic link, or it changed while the patch was applied)`,
    );
  try {
    return fn(h, basename(path));
  } finally {
    h.close();
  }
}

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

export const nodePatchFs: PatchFs = {
  read(path) {
    try {
      lstatSync(dirname(path));
    } catch (err) {
      if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return undefined;
      throw err;
    }
    return inDir(path, (dir, name) => {
      const at = join(dir.path, name);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(at);
      } catch (err) {
        if (code(err) === "ENOENT") return undefined;
        throw err;
      }
      if (st.isDirectory()) throw new Error(`${path} is a directory`);
      const r = readRegular(at, { maxBytes: MAX_PATCH_FILE_BYTES, noFollow: true });
      if (!r.ok) throw new Error(r.message.split(at).join(path));
      return { text: r.data.toString("utf8"), mode: r.stat.mode & 0o7777 };
    });
  },
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
  mkdirp(dir) {
    const missing: string[] = [];
    for (let d = dir; d !== dirname(d); d = dirname(d)) {
      try {
        if (lstatSync(d).isDirectory()) break;
      } catch (err) {
        if (code(err) !== "ENOENT") throw err;
      }
      missing.unshift(d);
    }
    const created: string[] = [];
    for (const d of missing) {
      inDir(d, (parent, name) => mkdirSync(join(parent.path, name)));
      created.push(d);
    }
    return created;
  },
  write(path, text, mode) {
    inDir(path, (dir, name) => {
      const temp = join(dir.path, `.${name}.tandem-${process.pid}-${++tempSeq}.tmp`);
      try {
        writeFileSync(temp, text, { encoding: "utf8", flag: "wx", ...(mode === undefined ? {} : { mode }) });
        if (mode !== undefined) chmodSync(temp, mode);
        renameSync(temp, join(dir.path, name));
      } catch (err) {
        try {
          unlinkSync(temp);
        } catch {
          /* never created, or already renamed */
        }
        throw err;
      }
    });
  },
  remove(path) {
    inDir(path, (dir, name) => unlinkSync(join(dir.path, name)));
  },
  rmdirIfEmpty(dir) {
    try {
      inDir(dir, (parent, name) => rmdirSync(join(parent.path, name)));
    } catch {
      /* not empty, already gone, or not the directory made */
    }
  },
};
