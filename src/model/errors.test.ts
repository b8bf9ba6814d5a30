import { APIConnectionError } from "openai";
import { describe, expect, it } from "vitest";
import { classifyThrown, networkCause } from "./errors.js";

const wrapped = (cause: unknown) =>
  new APIConnectionError({ cause: Object.assign(new TypeError("fetch failed"), { cause }) } as never);

describe("connection errors", () => {
  // fails if the SDK's bare "Connection error." is the message, or the URL is not named.
  it("name the URL and the innermost cause", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(classifyThrown(wrapped(refused), "http://127.0.0.1:1/v1")).toEqual({
      kind: "stream",
      message: "cannot reach http://127.0.0.1:1/v1: connection refused",
      retryable: true,
    });
  });

  // fails if an AggregateError (localhost over IPv4 and IPv6) or a TLS failure loses its cause,
  // or if credentials in the base URL are printed.
  it("read AggregateErrors, TLS codes and blocked ports; hide URL credentials", () => {
    const agg = new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })], "");
    expect(networkCause(wrapped(agg))).toBe("connection refused");
    const tls = Object.assign(new Error("certificate has expired"), { code: "CERT_HAS_EXPIRED" });
    expect(networkCause(wrapped(tls))).toBe("TLS: certificate has expired");
    expect(networkCause(wrapped(new Error("bad port")))).toMatch(/blocked port/);
    const msg = classifyThrown(wrapped(agg), "https://u:secret@example.test/v1").message;
    expect(msg).toBe("cannot reach https://example.test/v1: connection refused");
  });
});
