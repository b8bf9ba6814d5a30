/**
 * `GET /thread?q=` (search across threads) and `PATCH /thread/:id/settings` (model, effort, mode
 * of later turns) over real HTTP against the scripted model.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type Served, serve } from "../helpers/http.js";

let sv: Served | undefined;
afterEach(async () => {
  await sv?.close();
  sv = undefined;
});

/** Starts a thread with one turn saying `text`, waits for it to end; returns its id. */
async function threadWith(s: Served, text: string): Promise<string> {
  const id = (await s.call("POST", "/thread", {})).json.id;
  const before = s.h.events.filter((e) => e.event.type === "turn.completed").length;
  expect((await s.call("POST", `/thread/${id}/turn`, { text })).status).toBe(202);
  const end = Date.now() + 10_000;
  while (s.h.events.filter((e) => e.event.type === "turn.completed").length === before) {
    if (Date.now() > end) throw new Error("the turn did not complete");
    await new Promise((r) => setTimeout(r, 10));
  }
  return id;
}

describe("GET /thread?q=", () => {
  // Fails if search ignores message content or titles, drops the snippet, lists threads that do
  // not match, or accepts limits it cannot honour.
  it("finds threads by title and by what the agent answered, with a snippet", async () => {
    const script: Script = {
      steps: [
        { output: [{ type: "message", text: "The flux capacitor is recalibrated now." }] },
        { output: [{ type: "message", text: "Nothing special here." }] },
      ],
    };
    sv = await serve({ script });
    const a = await threadWith(sv, "calibrate the device please");
    const b = await threadWith(sv, "write the release notes");
    const byAnswer = await sv.call("GET", "/thread?q=capacitor%20recal");
    expect(byAnswer.status).toBe(200);
    expect(byAnswer.json.threads.map((t: any) => [t.id, t.snippet])).toEqual([
      [a, "The flux capacitor is recalibrated now."],
    ]);
    expect(byAnswer.json.default_cwd).toBe(sv.h.cwd);
    // The title is the first message (runtime/thread.ts), which is also a matching message.
    const byTitle = await sv.call("GET", "/thread?q=release");
    expect(byTitle.json.threads.map((t: any) => t.id)).toEqual([b]);
    expect(byTitle.json.threads[0]).toMatchObject({ title: "write the release notes", status: "idle" });
    expect((await sv.call("GET", "/thread?q=nomatchword")).json.threads).toEqual([]);
    expect((await sv.call("GET", "/thread?q=")).json.threads).toEqual([]);

    expect((await sv.call("GET", "/thread?q=x&limit=101")).status).toBe(400);
    expect((await sv.call("GET", `/thread?q=${"x".repeat(501)}`)).status).toBe(400);
    expect(
      (await sv.call("GET", "/thread?q=notes", undefined, { authorization: "Bearer wrong" })).status,
    ).toBe(401);
  });
});

describe("PATCH /thread/:id/settings", () => {
  // Fails if the next turn does not use the new model or effort, if null does not go back to the
  // configured effort, if absent fields are wiped, or if bad bodies are accepted.
  it("changes the model and effort of later turns; null effort goes back to the configuration", async () => {
    const script: Script = {
      steps: [1, 2, 3].map((n) => ({ output: [{ type: "message" as const, text: `answer ${n}` }] })),
    };
    sv = await serve({ script });
    const id = await threadWith(sv, "first");
    const first = sv.h.model.requests[0] as any;

    const changed = await sv.call("PATCH", `/thread/${id}/settings`, {
      model: "other-model",
      effort: "high",
    });
    expect(changed.status).toBe(200);
    expect(first.model).not.toBe("other-model");
    expect(changed.json).toMatchObject({ id, model: "other-model", effort: "high" });
    await sv.call("POST", `/thread/${id}/turn`, { text: "second" });
    await sv.h.waitFor((e) => e.type === "turn.completed" && sv!.h.model.requests.length === 2);
    const second = sv.h.model.requests[1] as any;
    expect(second.model).toBe("other-model");
    expect(second.reasoning?.effort).toBe("high");

    // Only the mode: model and effort stay.
    const mode = await sv.call("PATCH", `/thread/${id}/settings`, { mode: "plan" });
    expect(mode.json).toMatchObject({ model: "other-model", effort: "high", mode: "plan" });
    const reset = await sv.call("PATCH", `/thread/${id}/settings`, { effort: null });
    expect(reset.json).toMatchObject({ model: "other-model", effort: null });
    const detail = await sv.call("GET", `/thread/${id}`);
    expect(detail.json.thread).toMatchObject({ model: "other-model", effort: null, mode: "plan" });
    expect(sv.h.runtime.threads.stored(id)).toMatchObject({ model: "other-model", mode: "plan" });

    for (const bad of [{}, { effort: "extreme" }, { model: "" }, { mode: "yolo" }, { temperature: 1 }]) {
      const r = await sv.call("PATCH", `/thread/${id}/settings`, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await sv.call("PATCH", "/thread/nope/settings", { model: "x" })).status).toBe(404);
  });
});
