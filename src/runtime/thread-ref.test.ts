import { describe, expect, it } from "vitest";
import { openStore } from "../store/index.js";
import type { ThreadRecord } from "../store/types.js";
import { resolveThreadRef } from "./thread-ref.js";

const record = (id: string, updated_at: number): ThreadRecord => ({
  id,
  session_id: id,
  parent_id: null,
  created_at: updated_at,
  updated_at,
  cwd: "/w",
  model: "m",
  mode: "default",
  title: "",
  status: "idle",
  settings: {},
});

describe("resolveThreadRef", () => {
  const store = openStore(":memory:");
  store.createThread(record("abc-111-xyz", 1));
  store.createThread(record("abd-222-xyz", 2));
  store.createThread(record("a_c-333-q%r", 3));

  // fails if the lookup uses LIKE without escaping (`_` and `%` would match any character).
  it("matches prefixes literally, exact ids first, then unique prefixes", () => {
    expect(resolveThreadRef(store, "abc-111-xyz")).toEqual({ ok: true, id: "abc-111-xyz" });
    expect(resolveThreadRef(store, "abc")).toEqual({ ok: true, id: "abc-111-xyz" });
    expect(resolveThreadRef(store, "a_c")).toEqual({ ok: true, id: "a_c-333-q%r" });
    expect(resolveThreadRef(store, "a%")).toMatchObject({ ok: false, reason: "not_found" });
  });

  // fails if an ambiguous prefix silently picks one thread, or candidates are unordered.
  it("an ambiguous prefix lists the candidates, most recently updated first", () => {
    const r = resolveThreadRef(store, "ab");
    expect(r).toMatchObject({ ok: false, reason: "ambiguous", candidates: ["abd-222-xyz", "abc-111-xyz"] });
    expect(!r.ok && r.message).toContain("abd-222-xyz, abc-111-xyz");
  });

  // fails if the web page's short id (an id's last characters) is not accepted, or if a suffix
  // is tried before prefixes.
  it("falls back to a unique suffix, and counts live threads not stored yet", () => {
    expect(resolveThreadRef(store, "q%r")).toEqual({ ok: true, id: "a_c-333-q%r" });
    expect(resolveThreadRef(store, "-xyz")).toMatchObject({ ok: false, reason: "ambiguous" });
    expect(resolveThreadRef(store, "zz9", ["zz9-live"])).toEqual({ ok: true, id: "zz9-live" });
    expect(resolveThreadRef(store, "abc", ["abc-live"])).toMatchObject({ ok: false, reason: "ambiguous" });
    expect(resolveThreadRef(store, "")).toMatchObject({ ok: false, reason: "not_found" });
  });
});
