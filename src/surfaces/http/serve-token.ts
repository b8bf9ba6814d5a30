/**
 * The bearer token of `tandem serve`, kept in `$TANDEM_HOME/serve-token` so the URL a phone
 * saved keeps working after a restart (README, "The web app").
 *
 * Contract of `serveToken({ flag, env, home, rotate })`:
 * - `flag` (`--token`) wins, then a non-empty `env` (`TANDEM_SERVE_TOKEN`); neither reads or
 *   writes the file.
 * - Otherwise the file's token is used when the file is trusted: a regular file (a symlink is
 *   never followed), owned by this user, with no permission bits for group or others. A file that
 *   fails any of these could have been planted or read by someone else, so it is replaced by a
 *   new token and `warning` says why. A trusted file whose content is not a valid token throws
 *   `ServeTokenError` and is left untouched (the user fixes it or passes `rotate`).
 * - No file, or `rotate` (`--rotate-token`): a new random token is written (home created 0700,
 *   the file 0600, through a private temporary file renamed into place, so a reader never sees
 *   half a token and an existing symlink is replaced, not written through).
 * - Throws `ServeTokenError` naming the path when the home cannot hold the file.
 * The token itself never appears in a warning or an error.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { generateToken } from "../../wire/bearer.js";

export const SERVE_TOKEN_FILE = "serve-token";

export type ServeTokenSource = "flag" | "env" | "file" | "new";

export interface ServeToken {
  token: string;
  source: ServeTokenSource;
  /** The file that holds it (file and new only). */
  path?: string;
  /** Why a stored token was not trusted and replaced. */
  warning?: string;
}

export class ServeTokenError extends Error {
  override readonly name = "ServeTokenError";
}

/** What any token must look like (`--token` is checked by the same rule). */
export function validToken(token: string): boolean {
  return token.length >= 8 && !/\s/.test(token);
}

export function serveToken(opts: {
  flag?: string;
  env?: string;
  home: string;
  rotate?: boolean;
}): ServeToken {
  if (opts.flag !== undefined) return { token: opts.flag, source: "flag" };
  if (opts.env) return { token: opts.env, source: "env" };
  const path = join(opts.home, SERVE_TOKEN_FILE);
  if (!opts.rotate) {
    const stored = readTrusted(path);
    if (stored.kind === "token") {
      if (!validToken(stored.token))
        throw new ServeTokenError(
          `${path} does not hold a valid token (8 or more characters, no spaces); fix it, delete it, or start with --rotate-token`,
        );
      return { token: stored.token, source: "file", path };
    }
    if (stored.kind === "untrusted")
      return { ...writeNew(opts.home, path), warning: `${path} was ${stored.why}; made a new token` };
  }
  return writeNew(opts.home, path);
}

type Stored = { kind: "none" } | { kind: "token"; token: string } | { kind: "untrusted"; why: string };

function readTrusted(path: string): Stored {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "none" };
    // O_NOFOLLOW on a symlink.
    if (code === "ELOOP" || code === "EMLINK")
      return { kind: "untrusted", why: "not a regular file (a symlink)" };
    throw new ServeTokenError(`cannot read the serve token ${path}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: "untrusted", why: "not a regular file" };
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return { kind: "untrusted", why: "owned by another user" };
    if ((st.mode & 0o077) !== 0)
      return { kind: "untrusted", why: "readable or writable by other users (it must be mode 0600)" };
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { kind: "token", token: buf.subarray(0, n).toString("utf8").trim() };
  } finally {
    closeSync(fd);
  }
}

function writeNew(home: string, path: string): ServeToken {
  const token = generateToken();
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // "wx": a fresh file of ours (never an existing one, never through a symlink), 0600 from birth.
    writeFileSync(tmp, `${token}\n`, { mode: 0o600, flag: "wx" });
    renameSync(tmp, path);
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* the home itself is unusable: nothing was written */
    }
    throw new ServeTokenError(
      `cannot keep the serve token in ${path}: ${(e as Error).message}; set TANDEM_HOME to a directory you own, or pass --token`,
    );
  }
  return { token, source: "new", path };
}
