import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { hostPolicy, hostRefusal, parseAllowHost } from "./allowed-hosts.js";

describe("hostPolicy", () => {
  // Fails if a loopback bind refuses a loopback spelling a browser sends, or accepts a name that
  // merely contains one (rebinding domains like 127.0.0.1.evil.example) or another port.
  it("a loopback bind answers localhost, 127.0.0.1 and [::1] on its port only", () => {
    const p = hostPolicy({ bind: "127.0.0.1", port: 4000 });
    for (const h of ["localhost:4000", "LOCALHOST:4000", "127.0.0.1:4000", "[::1]:4000", "127.1:4000"])
      expect(p.allows(h), h).toBe(true);
    for (const h of [
      "localhost",
      "localhost:4001",
      "evil.example:4000",
      "127.0.0.1.evil.example:4000",
      "localhost.:4000",
      "[::2]:4000",
      "127.0.0.2:4000",
      "",
      "localhost:4000/x",
      "user@localhost:4000",
      "localhost:99999",
      undefined,
    ])
      expect(p.allows(h), String(h)).toBe(false);
    expect(hostPolicy({ bind: "127.0.0.2", port: 80 }).allows("127.0.0.2")).toBe(true);
    expect(hostPolicy({ bind: "::1", port: 80 }).allows("[::1]:80")).toBe(true);
  });

  // Fails if allowed names match by suffix or prefix, if NAME:PORT accepts another port, or if
  // a bare NAME is tied to the listening port (a proxy in front rewrites it).
  it("--allow-host names: NAME on any port, NAME:PORT on that one", () => {
    const p = hostPolicy({ bind: "192.0.2.10", port: 4000, allow: ["tandem.test", "other.test:8443"] });
    for (const h of [
      "tandem.test",
      "tandem.test:4000",
      "Tandem.Test:443",
      "other.test:8443",
      "192.0.2.10:4000",
    ])
      expect(p.allows(h), h).toBe(true);
    for (const h of [
      "sub.tandem.test",
      "tandem.test.evil",
      "other.test",
      "other.test:4000",
      "localhost:4000",
    ])
      expect(p.allows(h), h).toBe(false);
  });

  // Fails if a wildcard bind refuses this machine's own addresses (the page URLs serve prints).
  it("a wildcard bind answers every interface address and the loopback names", () => {
    const p = hostPolicy({ bind: "0.0.0.0", port: 4000 });
    const v4 = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a?.family === "IPv4")
      .map((a) => a!.address);
    for (const ip of v4) expect(p.allows(`${ip}:4000`), ip).toBe(true);
    expect(p.allows("localhost:4000")).toBe(true);
    expect(p.allows("198.51.100.99:4000")).toBe(false);
    expect(p.allows("evil.example:4000")).toBe(false);
  });
});

describe("parseAllowHost and hostRefusal", () => {
  // Fails if a URL, a path or a wildcard is taken as a name (the check would silently never match).
  it("takes NAME or NAME:PORT, normalised; refuses anything else with the flag's name", () => {
    expect(parseAllowHost("Tandem.Example.com")).toBe("tandem.example.com");
    expect(parseAllowHost("tandem.example.com:08443")).toBe("tandem.example.com:8443");
    expect(parseAllowHost("[::1]:80")).toBe("[::1]:80");
    for (const bad of ["http://x", "x/y", "", "a b", "*.example.com", "x:99999", "x."])
      expect(() => parseAllowHost(bad), bad).toThrow(/--allow-host/);
  });

  it("says which flag adds the name", () => {
    const r = hostRefusal("tandem.lan:4000", "tandem serve");
    expect(r.error.code).toBe("host_not_allowed");
    expect(r.error.message).toContain("--allow-host tandem.lan (tandem serve)");
  });
});
