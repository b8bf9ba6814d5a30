import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/index.js";
import { checkBearer, generateToken, readTokenFile, TokenFileError, tokensEqual } from "./bearer.js";

describe("tokensEqual", () => {
  it("is true only for the exact token", () => {
    expect(tokensEqual("abc123", "abc123")).toBe(true);
    expect(tokensEqual("abc124", "abc123")).toBe(false);
    expect(tokensEqual("abc12", "abc123")).toBe(false);
    expect(tokensEqual("", "abc123")).toBe(false);
    expect(tokensEqual("abc123 ", "abc123")).toBe(false);
  });
});

describe("generateToken", () => {
  it("is 32 random bytes in base64url", () => {
    const a = generateToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });
});

describe("checkBearer", () => {
  // Fails if the scheme is case-sensitive, if another scheme or a second word passes, or if a
  // refusal's reason repeats the token or what the client sent.
  it("accepts only Bearer <token>; the reason never holds a token", () => {
    expect(checkBearer("Bearer secret-token", "secret-token")).toEqual({ ok: true });
    expect(checkBearer("bearer\tsecret-token ", "secret-token")).toEqual({ ok: true });
    const refused = {
      missing: [undefined, ""],
      malformed: ["Basic secret-token", "Bearer", "Bearer a b", "secret-token"],
      wrong: ["Bearer nope-not-it"],
    };
    for (const header of refused.missing)
      expect(checkBearer(header, "secret-token")).toMatchObject({
        ok: false,
        reason: "missing bearer token",
      });
    for (const header of refused.malformed)
      expect(checkBearer(header, "secret-token"), header).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/^malformed/),
      });
    for (const header of refused.wrong) {
      const r = checkBearer(header, "secret-token");
      expect(r).toEqual({ ok: false, reason: "wrong bearer token" });
    }
  });
});

describe("readTokenFile", () => {
  // Fails if the content is not trimmed, if an empty or unreadable file is accepted, or if the
  // error shows the file's content instead of naming the flag and the path.
  it("reads a trimmed token; empty and unreadable files are errors naming the flag and path", () => {
    const dir = tempDir("tandem-token-");
    const good = join(dir, "token");
    writeFileSync(good, "  a-token-of-some-length\n");
    expect(readTokenFile(good, "--ws-token-file")).toBe("a-token-of-some-length");
    const empty = join(dir, "empty");
    writeFileSync(empty, " \n\t");
    expect(() => readTokenFile(empty, "--ws-token-file")).toThrow(
      new TokenFileError(`--ws-token-file: ${empty} is empty`),
    );
    expect(() => readTokenFile(join(dir, "missing"), "--x")).toThrow(
      /^--x: cannot read .*missing \(ENOENT\)$/,
    );
    expect(() => readTokenFile(dir, "--x")).toThrow(/EISDIR/);
  });
});
