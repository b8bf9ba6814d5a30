/**
 * Reading files the model may have written, on the host, without letting them steer Tandem.
 *
 * Everything Tandem itself reads from a workspace (AGENTS.md, .gitignore, role files, skills,
 * prompt files, a file a patch updates, a file a checkpoint stores) can be replaced by the model
 * with a FIFO (an open() that blocks forever), a device, a symlink to somewhere else, or a file
 * of gigabytes. `readRegular` opens with O_NONBLOCK (a FIFO opens at once and is then refused),
 * optionally O_NOFOLLOW (a symlink is refused rather than followed), checks on the open
 * descriptor that it is a regular file, and reads at most `maxBytes`.
 *
 * Contract: never blocks on a special file, never throws for a missing or refused file
 * (returns a reason instead), never reads more than `maxBytes + 1` bytes.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  opendirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { sep } from "node:path";

export type ReadRefusal = "missing" | "not_regular" | "symlink" | "outside" | "too_large" | "unreadable";

export type RegularRead =
  | { ok: true; data: Buffer; stat: Stats }
  | { ok: false; reason: ReadRefusal; stat?: Stats; message: string };

export interface ReadOptions {
  /** Largest size read; a larger file is refused as `too_large` (or cut, with `truncate`). */
  maxBytes: number;
  /** Refuse a symlink at the last component instead of following it. */
  noFollow?: boolean;
  /** Return the first `maxBytes` of a larger file instead of refusing it. */
  truncate?: boolean;
  /**
   * Links may be followed, but the file opened must really lie under `root` and under none of
   * `exclude` (checked on the open descriptor, so a link swapped after a check cannot lead
   * elsewhere): a model-made `AGENTS.md -> ~/.tandem/config.toml` is refused as `outside`.
   */
  within?: { root: string; exclude?: readonly string[] };
}

// O_NOCTTY: opening a terminal device must never make it our controlling terminal.
const FLAGS_BASE = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Reads `path` if it is a regular file within the size limit (see the module contract). */
export function readRegular(path: string, opts: ReadOptions): RegularRead {
  // Refused before it is opened when it already leads out: opening a device has effects of its
  // own (a watchdog arms, a tape rewinds). The check on the descriptor below is the one that holds.
  if (opts.within && !realWithin(path, opts.within))
    return refuse("outside", `${path} leads outside ${opts.within.root}`);
  let fd: number;
  try {
    fd = openSync(path, FLAGS_BASE | (opts.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return refuse("missing", `${path} does not exist`);
    if (code === "ELOOP") return refuse("symlink", `${path} is a symbolic link`);
    return refuse("unreadable", `cannot open ${path}: ${(err as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return refuse("not_regular", `${path} is not a regular file`, stat);
    if (opts.within && !openedWithin(fd, path, opts.within))
      return refuse("outside", `${path} leads outside ${opts.within.root}`, stat);
    if (stat.size > opts.maxBytes && !opts.truncate)
      return refuse("too_large", `${path} is larger than ${opts.maxBytes} bytes`, stat);
    const want = Math.min(stat.size, opts.maxBytes);
    const buf = Buffer.allocUnsafe(want + 1);
    let got = 0;
    // The size can change under us: read until EOF or one byte past the limit.
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
    }
    if (got > opts.maxBytes) {
      if (!opts.truncate) return refuse("too_large", `${path} is larger than ${opts.maxBytes} bytes`, stat);
      got = opts.maxBytes;
    }
    return { ok: true, data: buf.subarray(0, got), stat };
  } catch (err) {
    return refuse("unreadable", `cannot read ${path}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** Whether the file open on `fd` (opened as `path`) lies under `within.root` and outside its excludes. */
function openedWithin(fd: number, path: string, within: NonNullable<ReadOptions["within"]>): boolean {
  let real: string;
  try {
    real = PROC_FD ? readlinkSync(`/proc/self/fd/${fd}`) : realpathSync.native(path);
  } catch {
    return false;
  }
  return isWithin(real, within);
}

/** Whether `path` (links resolved now) lies under `within.root` and outside its excludes; true when it does not exist. */
function realWithin(path: string, within: NonNullable<ReadOptions["within"]>): boolean {
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch {
    return true; // missing: open() says so
  }
  return isWithin(real, within);
}

function isWithin(real: string, within: NonNullable<ReadOptions["within"]>): boolean {
  const under = (dir: string) => {
    const d = realOr(dir);
    return real === d || real.startsWith(d.endsWith(sep) ? d : d + sep);
  };
  return under(within.root) && !(within.exclude ?? []).some(under);
}

function realOr(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The file's text (UTF-8), or undefined when `readRegular` refuses it. */
export function readRegularText(path: string, opts: ReadOptions): string | undefined {
  const r = readRegular(path, opts);
  return r.ok ? r.data.toString("utf8") : undefined;
}

function refuse(reason: ReadRefusal, message: string, stat?: Stats): RegularRead {
  return stat ? { ok: false, reason, stat, message } : { ok: false, reason, message };
}

export type DirRead =
  | { ok: true; entries: { name: string; dir: boolean }[]; complete: boolean }
  | { ok: false; reason: "missing" | "outside" | "unreadable" };

/**
 * The entries of the directory at `path` (links followed), at most `maxEntries` of them
 * (`complete` false when there are more: a directory of a million names costs no more than
 * `maxEntries`), or a refusal. With `within`, the directory opened must lie under its root and
 * outside its excludes; on Linux this is checked on the open descriptor and the listing read
 * through it, so a directory swapped for a link after the check is never listed (elsewhere a
 * `realpath` check, not proof against a swap). Never throws.
 */
export function listDir(path: string, opts: { maxEntries: number; within?: ReadOptions["within"] }): DirRead {
  let fd: number | undefined;
  try {
    try {
      fd = openSync(
        path,
        constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK | constants.O_NOCTTY,
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { ok: false, reason: code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unreadable" };
    }
    if (opts.within && !openedWithin(fd, path, opts.within)) return { ok: false, reason: "outside" };
    const dir = opendirSync(PROC_FD ? `/proc/self/fd/${fd}` : path);
    const entries: { name: string; dir: boolean }[] = [];
    let complete = true;
    try {
      for (let e = dir.readSync(); e; e = dir.readSync()) {
        if (entries.length >= opts.maxEntries) {
          complete = false;
          break;
        }
        entries.push({ name: e.name, dir: e.isDirectory() });
      }
    } finally {
      dir.closeSync();
    }
    return { ok: true, entries, complete };
  } catch {
    return { ok: false, reason: "unreadable" };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A directory opened by `openDirExact`; its entries are named `join(path, name)`. */
export interface DirHandle {
  readonly path: string;
  close(): void;
}

const PROC_FD = existsSync("/proc/self/fd");

/**
 * Opens the directory at `abs` (an absolute, real path) for reading what is beneath it, or
 * undefined when `abs` is not where that directory really is: a component of `abs` is a
 * symbolic link (or was swapped for one), it is not a directory, or it is gone. On Linux the
 * handle's `path` is `/proc/self/fd/N`: the kernel resolves it to the directory that was
 * checked, so a component replaced by a link after the check is never followed (as `openat`
 * would). Elsewhere `path` is `abs` itself after a `realpath` check (a replacement between the
 * check and the use is then not caught). Never throws; the caller closes the handle.
 */
export function openDirExact(abs: string): DirHandle | undefined {
  if (!PROC_FD) {
    try {
      return realpathSync.native(abs) === abs ? { path: abs, close: () => {} } : undefined;
    } catch {
      return undefined;
    }
  }
  let fd: number;
  try {
    fd = openSync(
      abs,
      constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch {
    return undefined;
  }
  const path = `/proc/self/fd/${fd}`;
  try {
    if (readlinkSync(path) === abs) return { path, close: () => closeSync(fd) };
  } catch {
    // refused below
  }
  closeSync(fd);
  return undefined;
}
