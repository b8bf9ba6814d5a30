import { describe, expect, it } from "vitest";
import { checkElicitationUrl, MAX_URL_LENGTH } from "./elicitation-url.js";

const refused = (raw: string) => {
  const r = checkElicitationUrl(raw);
  return r.ok ? `accepted ${r.url}` : r.reason;
};

describe("URL-mode elicitation: which URLs a server may show", () => {
  // Fails if https or loopback http is refused, or the URL shown is not the normalised one.
  it("accepts https anywhere and http to loopback, normalised", () => {
    expect(checkElicitationUrl("https://example.com/login?x=1#f")).toEqual({
      ok: true,
      url: "https://example.com/login?x=1#f",
      host: "example.com",
    });
    expect(checkElicitationUrl("HTTPS://Example.COM")).toMatchObject({
      ok: true,
      url: "https://example.com/",
    });
    expect(checkElicitationUrl("https://bücher.example/")).toMatchObject({ host: "xn--bcher-kva.example" });
    for (const raw of [
      "http://127.0.0.1:8080/cb",
      "http://127.9.8.7/",
      "http://[::1]:3000/",
      "http://localhost/x",
    ])
      expect(checkElicitationUrl(raw).ok, raw).toBe(true);
  });

  // Fails if any of these is accepted: script and local schemes, plain http off this machine,
  // credentials that disguise the host, hidden characters, junk.
  it.each([
    ["javascript:alert(document.cookie)", /scheme "javascript:"/],
    ["JavaScript:alert(1)", /scheme "javascript:"/],
    ["data:text/html,<script>alert(1)</script>", /scheme "data:"/],
    ["file:///etc/passwd", /scheme "file:"/],
    ["vbscript:msgbox(1)", /scheme "vbscript:"/],
    ["ftp://example.com/", /scheme "ftp:"/],
    ["http://example.com/login", /only to this machine/],
    ["http://10.0.0.1/", /only to this machine/],
    ["http://localhost.evil.example/", /only to this machine/],
    ["https://bank.example@evil.example/", /user name or password/],
    ["https://user:pass@example.com/", /user name or password/],
    ["https://example.com/\u0000x", /control, invisible/],
    ["https://example.com/\nx", /control, invisible/],
    ["java\tscript:alert(1)", /control, invisible/],
    ["https://example.com/\u202egnp.exe", /control, invisible/],
    ["https://exa\u200bmple.com/", /control, invisible/],
    [" https://example.com/", /control, invisible/],
    ["/relative/path", /not an absolute URL/],
    ["", /not an absolute URL/],
    [`https://example.com/${"a".repeat(MAX_URL_LENGTH)}`, /longer than/],
  ])("refuses %j", (raw, why) => {
    expect(refused(raw)).toMatch(why);
  });
});
