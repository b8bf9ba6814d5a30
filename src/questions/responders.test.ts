import { describe, expect, it } from "vitest";
import { createResponders } from "./responders.js";

describe("responder registry (Q3)", () => {
  it("tracks thread-scoped and global responders, in attach order", () => {
    const responders = createResponders();
    expect(responders.has("t1")).toBe(false);
    const detachTui = responders.attach({ threadId: "t1" }, { kind: "tui" });
    const detachWeb = responders.attach("all", { kind: "web", id: "w" });
    responders.attach({ threadId: "t2" }, { kind: "app-server" });
    expect(responders.list("t1")).toEqual([{ kind: "tui" }, { kind: "web", id: "w" }]);
    expect(responders.list("t3")).toEqual([{ kind: "web", id: "w" }]);
    detachWeb();
    expect(responders.has("t3")).toBe(false);
    expect(responders.has("t1")).toBe(true);
    detachTui();
    detachTui();
    expect(responders.has("t1")).toBe(false);
    expect(responders.size).toBe(1);
  });

  it("counts the same responder attached twice as two registrations", () => {
    const responders = createResponders();
    const r = { kind: "http" };
    const a = responders.attach({ threadId: "t1" }, r);
    const b = responders.attach({ threadId: "t1" }, r);
    a();
    expect(responders.has("t1")).toBe(true);
    b();
    expect(responders.has("t1")).toBe(false);
    expect(responders.size).toBe(0);
  });
});
