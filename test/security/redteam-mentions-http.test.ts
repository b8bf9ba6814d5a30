/**
 * Red team: `GET /thread/:id/files` (the `@` picker's search) from whoever reaches the port. Without
 * the token nothing is listed; an unknown id is 404; a huge `q` and any `limit` stay bounded; a
 * thread whose directory is Tandem's home lists nothing of it. Real server on a real port.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Served, serve } from "../helpers/http.js";

describe("red team: GET /thread/:id/files", () => {
  let sv: Served | undefined;
  afterEach(async () => {
    await sv?.close();
    sv = undefined;
  });

  it("needs the token, bounds q and limit, and never lists the home", async () => {
    sv = await serve({ script: { steps: [] } as any });
    for (let i = 0; i < 150; i++) writeFileSync(join(sv.h.cwd, `f${i}.txt`), "");
    writeFileSync(join(sv.h.home, "credentials.json"), "{}");
    const t = await sv.call("POST", "/thread");
    expect(t.status).toBe(201);
    const id = t.json.id;
    const path = `/thread/${id}/files?q=f`;
    for (const headers of [{}, { authorization: "Bearer wrong" }] as Record<string, string>[]) {
      const r = await fetch(sv.url + path, { headers });
      expect(r.status).toBe(401);
      expect(await r.text()).not.toContain("f1.txt");
    }
    expect((await sv.call("GET", `/thread/nope/files?q=f`)).status).toBe(404);
    for (const limit of ["-1", "1e9", "NaN", "0"]) {
      const r = await sv.call("GET", `/thread/${id}/files?q=&limit=${limit}`);
      expect(r.status).toBe(200);
      expect(r.json.files.length).toBeGreaterThan(0);
      expect(r.json.files.length).toBeLessThanOrEqual(100);
    }
    // A 1 MB q (a 10 MB one is refused by Node's header limit before any route).
    const big = await sv.call("GET", `/thread/${id}/files?q=${"a".repeat(1 << 20)}`);
    expect(big.status).toBeGreaterThanOrEqual(400);
    const long = await sv.call("GET", `/thread/${id}/files?q=${"f1".repeat(5000)}`);
    expect(long.status).toBe(200);
    // A thread in Tandem's home: nothing listed.
    const inHome = await sv.call("POST", "/thread", { cwd: sv.h.home });
    expect(inHome.status).toBe(201);
    const r = await sv.call("GET", `/thread/${inHome.json.id}/files?q=cred`);
    expect(r.json).toEqual({ files: [] });
  });
});
