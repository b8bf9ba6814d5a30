/**
 * Bad input over HTTP (requirements §8): malformed JSON, oversized and chunked bodies, wrong types,
 * unknown ids, stale replies, replies naming the wrong thread, random bodies. Every case gets a
 * 4xx with a JSON error message, the server keeps serving, and the pending question is still
 * answerable afterwards.
 */
import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { replayable } from "../helpers/fc-replay.js";
import { isEvent, openSse, type Served, type SseClient, serve, TOKEN } from "../helpers/http.js";

const auth = { authorization: `Bearer ${TOKEN}` };

describe("HTTP fuzz", () => {
  let sv: Served;
  let sse: SseClient;
  let threadId: string;
  let otherThread: string;
  let requestId: string;
  let settledId: string;

  beforeAll(async () => {
    // Two questionDemo runs: the first question is settled (for stale replies), the second stays pending.
    const demo = Scripts.questionDemo();
    sv = await serve({
      script: { steps: [demo.steps[0], { output: [{ type: "message", text: "ok" }] }, demo.steps[0]] },
    });
    sse = await openSse(`${sv.url}/event?responder=web`, auth);
    threadId = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    otherThread = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    // The same scripted call id in two threads gives two request ids.
    await sv.call("POST", `/thread/${otherThread}/turn`, { text: "first" });
    settledId = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request.request_id;
    await sv.call("POST", `/question/${settledId}/reject`, { thread_id: otherThread });
    await sse.next(isEvent("turn.completed"));
    await sv.call("POST", `/thread/${threadId}/turn`, { text: "second" });
    const asked = await sse.next(isEvent("question.requested", (e) => e.request.request_id !== settledId));
    requestId = JSON.parse(asked.data).event.request.request_id;
  });
  // Order-independent (shuffle-safe): every test leaves the pending question pending and checks
  // so at its end; it is answered only here, after all of them.
  afterAll(async () => {
    try {
      const ok = await sv.call("POST", `/question/${requestId}/reply`, {
        thread_id: threadId,
        text: { stack: "1", name: "fuzzed" },
      });
      expect(ok.status).toBe(200);
      await sse.next(isEvent("question.answered", (e) => e.request_id === requestId));
    } finally {
      sse.close();
      await sv.close();
    }
  });

  /** The fuzzed server still lists the one pending question. Fails if a bad request settled it. */
  const expectStillPending = async () => {
    const pending = (await sv.call("GET", "/question")).json.questions;
    expect(pending.map((q: any) => q.request_id)).toEqual([requestId]);
  };

  const expectError = (r: { status: number; json: any; text: string }, label: string) => {
    expect(r.status, `${label}: ${r.text}`).toBeGreaterThanOrEqual(400);
    expect(r.status, label).toBeLessThan(500);
    expect(typeof r.json?.error?.code, label).toBe("string");
    expect(r.json.error.message.length, label).toBeGreaterThan(10);
  };

  it("refuses every malformed or misdirected request with a 4xx and a message", async () => {
    const reply = `/question/${requestId}/reply`;
    const cases: Array<[string, string, unknown, Record<string, string>?, number?]> = [
      ["malformed JSON", reply, "{not json", undefined, 400],
      ["truncated JSON", reply, '{"thread_id":', undefined, 400],
      ["JSON array", reply, "[]", undefined, 400],
      ["JSON null", reply, "null", undefined, 400],
      ["wrong content type", reply, '{"thread_id":"x"}', { "content-type": "text/plain" }, 415],
      ["missing thread", reply, { answers: { stack: { selected: ["Rust"] } } }, undefined, 400],
      ["thread wrong type", reply, { thread_id: 42, answers: {} }, undefined, 400],
      ["answers wrong type", reply, { thread_id: threadId, answers: "Rust" }, undefined, 400],
      ["selected wrong type", reply, { thread_id: threadId, answers: { stack: { selected: "Rust" } } }],
      ["both forms", reply, { thread_id: threadId, answers: {}, text: { stack: "1" } }, undefined, 400],
      ["neither form", reply, { thread_id: threadId }, undefined, 400],
      ["unknown field", reply, { thread_id: threadId, text: { stack: "1" }, extra: 1 }, undefined, 400],
      ["empty answers", reply, { thread_id: threadId, answers: {} }, undefined, 400],
      [
        "not an option",
        reply,
        { thread_id: threadId, answers: { stack: { selected: ["Go"] } } },
        undefined,
        400,
      ],
      ["unknown question", reply, { thread_id: threadId, answers: { zzz: { other: "x" } } }, undefined, 400],
      ["note alone", reply, { thread_id: threadId, answers: { stack: { note: "hm" } } }, undefined, 400],
      ["bad responder", reply, { thread_id: threadId, text: { stack: "1" }, responder: { kind: "tui" } }],
      ["unknown thread", reply, { thread_id: "nope", text: { stack: "1" } }, undefined, 404],
      ["wrong thread", reply, { thread_id: otherThread, text: { stack: "1" } }, undefined, 409],
      [
        "unknown request",
        "/question/q_unknown/reply",
        { thread_id: threadId, text: { stack: "1" } },
        undefined,
        404,
      ],
      [
        "stale reply",
        `/question/${settledId}/reply`,
        { thread_id: otherThread, text: { stack: "1" } },
        undefined,
        409,
      ],
      [
        "stale typed reply",
        `/question/${settledId}/reply`,
        { thread_id: otherThread, answers: { stack: { selected: ["Rust"] } } },
        undefined,
        409,
      ],
      ["reject wrong thread", `/question/${requestId}/reject`, { thread_id: otherThread }, undefined, 409],
      [
        "reject bad body",
        `/question/${requestId}/reject`,
        { thread_id: threadId, reason: 5 },
        undefined,
        400,
      ],
      ["touch unknown", "/question/q_unknown/touch", {}, undefined, 404],
      ["touch bad body", `/question/${requestId}/touch`, { responder: "me" }, undefined, 400],
      ["turn wrong types", `/thread/${otherThread}/turn`, { text: 7 }, undefined, 400],
      ["turn empty text", `/thread/${otherThread}/turn`, { text: "" }, undefined, 400],
      [
        "turn bad mode",
        `/thread/${otherThread}/turn`,
        { text: "x", options: { mode: "yolo" } },
        undefined,
        400,
      ],
      [
        "turn bad policy",
        `/thread/${otherThread}/turn`,
        { text: "x", options: { question_policy: { type: "timeout", ms: -1 } } },
      ],
      ["thread bad mode", "/thread", { mode: 3 }, undefined, 400],
      ["thread unknown field", "/thread", { cwd: ".", shell: "rm -rf /" }, undefined, 400],
      ["busy turn", `/thread/${threadId}/turn`, { text: "x" }, undefined, 409],
      ["unknown route", "/nope", {}, undefined, 404],
    ];
    for (const [label, path, body, headers, status] of cases) {
      const r = await sv.call("POST", path, body, headers);
      expectError(r, label);
      if (status) expect(r.status, label).toBe(status);
      expect(r.text, label).not.toMatch(/\n\s+at /);
    }
    await expectStillPending();
  });

  it("bounds body size: 413 by content-length and for chunked bodies", async () => {
    const big = JSON.stringify({ thread_id: threadId, text: { stack: "x".repeat(2 * 1024 * 1024) } });
    const r = await sv.call("POST", `/question/${requestId}/reply`, big);
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe("payload_too_large");
    // Chunked (no content-length), written slowly; the server answers 413 mid-upload.
    const chunked = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${sv.url}/question/${requestId}/reply`);
      let answered = false;
      const req = httpRequest(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
        },
        (res) => {
          answered = true;
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on("error", (err) => (answered ? undefined : reject(err)));
      const piece = "x".repeat(64 * 1024);
      req.write('{"thread_id":"t","text":{"stack":"');
      let sent = 0;
      const more = () => {
        if (answered) return req.destroy();
        if (sent++ < 40) req.write(piece, () => setTimeout(more, 5));
        else req.end('"}}');
      };
      more();
    });
    expect(chunked).toBe(413);
    // A small chunked body is read normally.
    const small = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${sv.url}/question/q_unknown/touch`);
      const req = httpRequest(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on("error", reject);
      req.write("{");
      req.end("}");
    });
    expect(small).toBe(404);
    await expectStillPending();
  });

  it("random bodies on every write route never crash the server", async () => {
    const routes = [
      `/question/${requestId}/reply`,
      `/question/${requestId}/reject`,
      `/thread/${otherThread}/steer`,
      "/thread",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof(fc.anything(), fc.string(), fc.object()),
        async (path, value) => {
          const body = typeof value === "string" ? value : JSON.stringify(value ?? null);
          const r = await sv.call("POST", path, body ?? "null");
          // `/thread` accepts `{}`-like bodies; everything else must be refused.
          if (r.status < 300) expect(path).toBe("/thread");
          else expectError(r, `${path} ${body?.slice(0, 80)}`);
        },
      ),
      replayable({ numRuns: 150 }),
    );
    await expectStillPending();
  });

  it("the pending question survives and is still the one pending", async () => {
    await expectStillPending();
  });
});
