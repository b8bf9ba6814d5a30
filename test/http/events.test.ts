/**
 * `GET /event` (requirements S4): resume after reconnect without losing events, thread filter, gap notice,
 * heartbeats, responder registration while connected, and no leaked listeners after disconnect.
 */
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { EventLog } from "../../src/cluster/events.js";
import { Scripts } from "../../src/mock-model/index.js";
import type { Event, Stamped } from "../../src/protocol/events.js";
import { runtimeInternals } from "../../src/runtime/internals.testing.js";
import { isEvent, openSse, type Served, serve, TOKEN, until } from "../helpers/http.js";

const auth = { authorization: `Bearer ${TOKEN}` };
let sv: Served | undefined;
afterEach(async () => {
  await sv?.close();
  sv = undefined;
});

describe("GET /event", () => {
  it("a reconnect with Last-Event-ID replays exactly the missed events; disconnect settles nothing", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    const { h } = sv;
    const threadId = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    const first = await openSse(`${sv.url}/event?responder=web`, auth);
    await first.next((f) => f.event === "ready");
    await sv.call("POST", `/thread/${threadId}/turn`, { text: "go" });
    const asked = await first.next(isEvent("question.requested"));
    const requestId = JSON.parse(asked.data).event.request.request_id;
    first.close();
    await first.closed;
    await until(() => runtimeInternals(h.runtime).responders.size === 0);

    // The web page went away: the question is still pending and answerable (Q11).
    expect((await sv.call("GET", "/question")).json.questions.map((q: any) => q.request_id)).toEqual([
      requestId,
    ]);
    const reply = await sv.call("POST", `/question/${requestId}/reply`, {
      thread_id: threadId,
      text: { stack: "1", name: "demo" },
    });
    expect(reply.status).toBe(200);
    await h.waitFor((e) => e.type === "turn.completed");

    const resumed = await openSse(`${sv.url}/event`, { ...auth, "last-event-id": asked.id! });
    await resumed.next(isEvent("turn.completed"));
    const expected = h.events.filter((s) => s.seq > Number(asked.id));
    expect(expected.length).toBeGreaterThan(10);
    expect(resumed.events()).toEqual(expected);
    expect(resumed.frames.some((f) => f.event === "gap")).toBe(false);
    resumed.close();

    // ?since= is the same as Last-Event-ID, and ?thread= keeps one thread's events.
    const other = (await sv.call("POST", "/thread", {})).json.id;
    const since = await openSse(`${sv.url}/event?since=0&thread=${threadId}`, auth);
    await since.next(isEvent("turn.completed"));
    const ofThread = h.events.filter((s) => "thread_id" in s.event && s.event.thread_id === threadId);
    expect(since.events()).toEqual(ofThread);
    expect(since.events().some((s) => s.event.thread_id === other)).toBe(false);
    since.close();
  });

  it("ids are bus seqs, control frames carry no id, and a client ahead of the server gets `gap`", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    const sse = await openSse(`${sv.url}/event?since=999999`, auth);
    const ready = await sse.next((f) => f.event === "ready");
    expect(ready.id).toBeUndefined();
    expect(JSON.parse(ready.data)).toMatchObject({ last_seq: sv.h.runtime.lastSeq });
    const gap = await sse.next((f) => f.event === "gap");
    expect(gap.id).toBeUndefined();
    expect(JSON.parse(gap.data).message).toContain("refetch");
    await sv.call("POST", "/thread", {});
    const started = await sse.next(isEvent("thread.started"));
    expect(Number(started.id)).toBe(JSON.parse(started.data).seq);
    sse.close();
  });

  it("sends heartbeats", async () => {
    sv = await serve({ script: Scripts.questionDemo(), heartbeatMs: 30 });
    const sse = await openSse(`${sv.url}/event`, auth);
    await sse.next((f) => f.comment === "ping");
    sse.close();
  });

  it("attaches a responder while connected and removes every listener on disconnect", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    const { runtime } = sv.h;
    const threadId = (await sv.call("POST", "/thread", {})).json.id;
    const baseline = runtimeInternals(runtime).bus.listenerCount;
    expect(runtimeInternals(runtime).responders.has(threadId)).toBe(false);

    const scoped = await openSse(`${sv.url}/event?responder=web&thread=${threadId}`, auth);
    await scoped.next((f) => f.event === "ready");
    expect(runtimeInternals(runtime).responders.has(threadId)).toBe(true);
    expect(runtimeInternals(runtime).responders.list(threadId)[0].kind).toBe("web");
    expect(runtimeInternals(runtime).responders.has("some-other-thread")).toBe(false);
    const streams = [scoped];
    for (let i = 0; i < 4; i++) {
      const s = await openSse(`${sv.url}/event${i % 2 ? "?responder=web" : ""}`, auth);
      await s.next((f) => f.event === "ready");
      streams.push(s);
    }
    expect(runtimeInternals(runtime).bus.listenerCount).toBe(baseline + 5);
    expect(runtimeInternals(runtime).responders.size).toBe(3);
    expect(runtimeInternals(runtime).responders.has("some-other-thread")).toBe(true);

    for (const s of streams) s.close();
    await until(
      () =>
        runtimeInternals(runtime).bus.listenerCount === baseline &&
        runtimeInternals(runtime).responders.size === 0,
    );

    // Closing the server ends open streams too.
    const a = await openSse(`${sv.url}/event?responder=web`, auth);
    await a.next((f) => f.event === "ready");
    expect(runtimeInternals(runtime).bus.listenerCount).toBe(baseline + 1);
    await sv.server.close();
    await until(
      () =>
        runtimeInternals(runtime).bus.listenerCount === baseline &&
        runtimeInternals(runtime).responders.size === 0,
    );
  });

  it("drops a client that stops reading instead of buffering without bound", async () => {
    sv = await serve({ script: Scripts.questionDemo(), maxQueuedBytes: 64 * 1024 });
    const { runtime } = sv.h;
    const baseline = runtimeInternals(runtime).bus.listenerCount;
    const u = new URL(`${sv.url}/event`);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, headers: auth });
    const res = await new Promise<import("node:http").IncomingMessage>((r) => req.once("response", r).end());
    res.pause(); // never read
    expect(runtimeInternals(runtime).bus.listenerCount).toBe(baseline + 1);
    const delta = "x".repeat(1024);
    for (let i = 0; i < 40_000 && runtimeInternals(runtime).bus.listenerCount > baseline; i++) {
      runtimeInternals(runtime).bus.publish({
        type: "agent_message.delta",
        thread_id: "t",
        turn_id: "u",
        item_id: "m",
        delta,
      });
      if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    }
    expect(runtimeInternals(runtime).bus.listenerCount).toBe(baseline);
    res.destroy();
  });

  // fails if a resume whose replay alone overflows the client's queue throws out of the stream
  // (a 500) or leaves its bus listener behind (each retry would leak another).
  it("a replay too large for the queue drops the client cleanly and leaks no listener", async () => {
    sv = await serve({ script: Scripts.questionDemo(), maxQueuedBytes: 64 * 1024 });
    const { runtime } = sv.h;
    const baseline = runtimeInternals(runtime).bus.listenerCount;
    const delta = "x".repeat(1024);
    for (let i = 0; i < 500; i++)
      runtimeInternals(runtime).bus.publish({
        type: "agent_message.delta",
        thread_id: "t",
        turn_id: "u",
        item_id: "m",
        delta,
      });
    const u = new URL(`${sv.url}/event?since=0`);
    const req = httpRequest({
      host: u.hostname,
      port: u.port,
      path: `${u.pathname}${u.search}`,
      headers: auth,
    });
    const res = await new Promise<import("node:http").IncomingMessage>((r) => req.once("response", r).end());
    expect(res.statusCode).toBe(200);
    res.resume();
    await new Promise((r) => res.once("end", r));
    expect(runtimeInternals(runtime).bus.listenerCount).toBe(baseline);
  });

  // fails if a resumed cluster stream drops another node's event because it arrived after an
  // event with a later id (ids come from one sequence; NATS delivers other nodes' events late).
  it("cluster ids: a resumed stream keeps a late event from another node", async () => {
    const ids = new WeakMap<Stamped, number>();
    const rows: Stamped[] = [];
    let tag: number | undefined;
    const log: EventLog = {
      idOf: (s) => ids.get(s),
      pending: () => false,
      onSettled: () => () => {},
      settled: async () => {},
      since: (after) => ({ events: rows.filter((r) => r.seq > after), gap: false }),
      lastId: () => rows.reduce((m, r) => Math.max(m, r.seq), 0),
    };
    sv = await serve({ script: Scripts.questionDemo(), eventLog: log });
    const { runtime } = sv.h;
    // Subscribed first, as the cluster node is: each event has its id before the stream sees it.
    runtime.subscribe((s) => {
      if (tag === undefined) return;
      ids.set(s, tag);
      const row = { ...s, seq: tag }; // as the store reads it back: its own object, same id
      ids.set(row, tag);
      rows.push(row);
    });
    const publish = (id: number) => {
      tag = id;
      runtimeInternals(runtime).bus.publish({
        type: "thread.status_changed",
        thread_id: "t",
        status: "idle",
      });
      tag = undefined;
    };
    publish(100);
    const sse = await openSse(`${sv.url}/event?since=99`, auth);
    await sse.next((f) => f.id === "100"); // replayed from the log
    publish(102);
    publish(101); // another node's, late
    await sse.next((f) => f.id === "101", 5_000);
    expect(sse.frames.filter((f) => f.id !== undefined).map((f) => f.id)).toEqual(["100", "102", "101"]);
    sse.close();
  });

  it("refuses bad parameters with 4xx", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    const cases: Array<[string, Record<string, string>, number]> = [
      ["/event?since=-1", {}, 400],
      ["/event?since=abc", {}, 400],
      ["/event", { "last-event-id": "1.5" }, 400],
      ["/event?responder=Web%20Page", {}, 400],
      ["/event?thread=nope", {}, 404],
    ];
    // Fails if a refused request leaves a bus subscription behind.
    const baseline = runtimeInternals(sv.h.runtime).bus.listenerCount;
    for (const [path, headers, status] of cases) {
      const r = await sv.call("GET", path, undefined, headers);
      expect(r.status, path).toBe(status);
      expect(typeof r.json.error.message).toBe("string");
    }
    expect(runtimeInternals(sv.h.runtime).bus.listenerCount).toBe(baseline);
  });

  it("streams the transcript live: deltas, commands with output, turn status", async () => {
    sv = await serve({ script: Scripts.readmeDemo({ tokenDelayMs: 1 }) });
    const threadId = (await sv.call("POST", "/thread", {})).json.id;
    const sse = await openSse(`${sv.url}/event?thread=${threadId}`, auth);
    await sse.next((f) => f.event === "ready");
    await sv.call("POST", `/thread/${threadId}/turn`, { text: "make a readme" });
    await sse.next(isEvent("turn.completed"));
    const types = new Set(sse.events().map((s) => (s.event as Event).type));
    for (const t of [
      "turn.started",
      "item.started",
      "agent_message.delta",
      "item.completed",
      "turn.completed",
    ])
      expect(types.has(t as Event["type"]), t).toBe(true);
    const commands = sse
      .events()
      .filter((s) => s.event.type === "item.completed" && s.event.item.type === "command_execution");
    expect(commands).toHaveLength(3);
    expect(commands[2].event.item.aggregated_output).toContain("# Codex Demo");
    sse.close();
  });
});
