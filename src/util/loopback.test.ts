import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "./loopback.js";

describe("isLoopbackHost", () => {
  // Fails if only 127.0.0.1 counts as IPv4 loopback (`tandem serve --host 127.0.0.2` then warns
  // that other machines can reach it), or if a bracketed / mapped / upper-case form is missed.
  it("is true for all of 127.0.0.0/8, ::1 and localhost, in every spelling", () => {
    for (const h of [
      "127.0.0.1",
      "127.0.0.2",
      "127.255.255.254",
      "::1",
      "[::1]",
      "localhost",
      "LocalHost",
      "::ffff:127.0.0.5",
      "[::ffff:127.1.2.3]",
    ])
      expect(isLoopbackHost(h), h).toBe(true);
  });

  // Fails if the check is a prefix match ("127." anywhere) or accepts wildcards and LAN hosts:
  // those would skip the warning (serve) or the required token (app-server --listen ws://).
  it("is false for wildcards, LAN addresses, names and malformed 127 forms", () => {
    for (const h of [
      "0.0.0.0",
      "::",
      "10.0.0.1",
      "192.168.1.127",
      "128.0.0.1",
      "127.0.0.256",
      "127.0.0",
      "127.0.0.1.example.com",
      "localhost.example.com",
      "::ffff:10.0.0.1",
      "",
    ])
      expect(isLoopbackHost(h), h).toBe(false);
  });
});
