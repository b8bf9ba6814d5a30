/**
 * The serve token kept in $TANDEM_HOME (./serve-token.ts): which source wins, that the file is
 * made private and reused, and that a file someone else could have planted or read is never
 * trusted (the tests run as root, so another owner is a chown away).
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/helpers/index.js";
import { SERVE_TOKEN_FILE, ServeTokenError, serveToken } from "./serve-token.js";

const PLANTED = "planted-by-someone-else-0123456789";
const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

describe("serveToken", () => {
  it("--token wins over TANDEM_SERVE_TOKEN, which wins over the file; neither writes the file", () => {
    const home = tempDir();
    expect(serveToken({ flag: "from-the-flag-123", env: "from-the-env-1234", home })).toMatchObject({
      token: "from-the-flag-123",
      source: "flag",
    });
    expect(serveToken({ env: "from-the-env-1234", home })).toMatchObject({
      token: "from-the-env-1234",
      source: "env",
    });
    expect(existsSync(join(home, SERVE_TOKEN_FILE))).toBe(false);
  });

  it("makes a token once (file 0600, home 0700) and reuses it on the next start", () => {
    const home = join(tempDir(), "new-home");
    const first = serveToken({ home });
    expect(first.source).toBe("new");
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = join(home, SERVE_TOKEN_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, "utf8").trim()).toBe(first.token);
    const again = serveToken({ home, env: "" });
    expect(again).toMatchObject({ token: first.token, source: "file" });
  });

  it("--rotate-token replaces the stored token", () => {
    const home = tempDir();
    const first = serveToken({ home }).token;
    const rotated = serveToken({ home, rotate: true });
    expect(rotated.source).toBe("new");
    expect(rotated.token).not.toBe(first);
    expect(serveToken({ home }).token).toBe(rotated.token);
  });

  it("a token file others can read is not used: a new one replaces it, with a warning", () => {
    const home = tempDir();
    const file = join(home, SERVE_TOKEN_FILE);
    writeFileSync(file, `${PLANTED}\n`);
    chmodSync(file, 0o644);
    const got = serveToken({ home });
    expect(got.token).not.toBe(PLANTED);
    expect(got.source).toBe("new");
    expect(got.warning).toMatch(/readable or writable by other users/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(got.token);
  });

  it("a symlink in place of the token file is not followed: replaced, its target untouched", () => {
    const home = tempDir();
    const target = join(tempDir(), "attacker-token");
    writeFileSync(target, PLANTED, { mode: 0o600 });
    symlinkSync(target, join(home, SERVE_TOKEN_FILE));
    const got = serveToken({ home });
    expect(got.token).not.toBe(PLANTED);
    expect(got.warning).toMatch(/not a regular file/);
    expect(lstatSync(join(home, SERVE_TOKEN_FILE)).isSymbolicLink()).toBe(false);
    expect(readFileSync(target, "utf8")).toBe(PLANTED);
  });

  it.skipIf(!asRoot)("a token file owned by another user is not used", () => {
    const home = tempDir();
    const file = join(home, SERVE_TOKEN_FILE);
    writeFileSync(file, PLANTED, { mode: 0o600 });
    chownSync(file, 4242, 4242);
    const got = serveToken({ home });
    expect(got.token).not.toBe(PLANTED);
    expect(got.warning).toMatch(/owned by another user/);
    expect(statSync(file).uid).toBe(0);
  });

  it("a private file with a malformed token is an error that names the file, and is left as it is", () => {
    const home = tempDir();
    const file = join(home, SERVE_TOKEN_FILE);
    writeFileSync(file, "has spaces in it\n", { mode: 0o600 });
    expect(() => serveToken({ home })).toThrowError(ServeTokenError);
    expect(() => serveToken({ home })).toThrowError(/serve-token.*--rotate-token/);
    expect(readFileSync(file, "utf8")).toBe("has spaces in it\n");
  });

  it("a home that cannot hold the file is an error naming it", () => {
    const base = tempDir();
    writeFileSync(join(base, "file"), "");
    expect(() => serveToken({ home: join(base, "file", "home") })).toThrowError(
      /cannot keep the serve token/,
    );
  });
});
