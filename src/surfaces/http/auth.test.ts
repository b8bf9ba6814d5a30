import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bearerAuth } from "./auth.js";

describe("bearerAuth", () => {
  const app = new Hono();
  app.use("/h", bearerAuth({ token: "secret-token" }));
  app.use("/q", bearerAuth({ token: "secret-token", queryParam: "token" }));
  app.get("/h", (c) => c.text("ok"));
  app.get("/q", (c) => c.text("ok"));

  it("accepts the bearer header, case-insensitively on the scheme", async () => {
    expect((await app.request("/h", { headers: { authorization: "Bearer secret-token" } })).status).toBe(200);
    expect((await app.request("/h", { headers: { authorization: "bearer secret-token" } })).status).toBe(200);
  });

  it("refuses missing, wrong and malformed credentials with a JSON 401", async () => {
    for (const authorization of [undefined, "Bearer nope", "Bearer", "Basic secret-token", "Bearer a b"]) {
      const res = await app.request("/h", { headers: authorization ? { authorization } : {} });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("unauthorized");
      expect(body.error.message).not.toContain("secret-token");
    }
  });

  it("takes ?token= only where enabled, and a header still wins", async () => {
    expect((await app.request("/h?token=secret-token")).status).toBe(401);
    expect((await app.request("/q?token=secret-token")).status).toBe(200);
    expect((await app.request("/q?token=wrong")).status).toBe(401);
    const both = await app.request("/q?token=secret-token", { headers: { authorization: "Bearer wrong" } });
    expect(both.status).toBe(401);
  });

  it("refuses to be built without a token", () => {
    expect(() => bearerAuth({ token: "" })).toThrow();
  });
});
