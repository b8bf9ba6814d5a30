/**
 * Red team round 3, commit c23248f (src/cluster/events.ts `eventFrames`, src/cluster/node.ts,
 * src/cluster/bus-connect.ts noEcho): a node's events now leave in one sealed NATS frame per
 * microtask, `{"events":[…]}`, kept "under half the server's max payload".
 *
 * Attacked here:
 * - the size limit: eventFrames measures `event.length` (UTF-16 code units) against
 *   `max_payload / 2` (bytes). Text outside ASCII is 2-3 UTF-8 bytes per code unit (CJK: 3), so
 *   a frame of events that each fit the server alone can exceed max_payload; the publish is then
 *   refused and EVERY event of that frame is lost for the other nodes' clients (turn.completed
 *   included), where one-event frames lost none of them.
 * - malformed frames from a key holder (`events` null / not an array / null entries): the
 *   receiving node must keep its subscription and go on with the next frame.
 *
 * Real `tandem serve` processes on one PostgreSQL and one nats-server, one scripted model; the
 * unit part needs nothing. Skipped (e2e part) where postgres / nats-server are absent.
 */
import { connect } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BusSeal } from "../../src/cluster/auth.js";
import { eventFrames } from "../../src/cluster/events.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { CLUSTER_TOKEN, type ServeNode, startServeNode, waitFor } from "../helpers/cluster.js";
import { isEvent, openSse, type SseClient } from "../helpers/http.js";
import { startNats, type TestNats } from "../helpers/infra/nats.js";
import { startPostgres, type TestPostgres } from "../helpers/infra/postgres.js";
import { missing } from "../helpers/system-tools.js";

const auth = { authorization: `Bearer ${CLUSTER_TOKEN}` };
/** A thread on `a` with one finished turn (stored, so other nodes' streams may follow it). */
async function firstTurn(a: ServeNode): Promise<string> {
  const id = (await a.post("/thread", {})).body.id as string;
  expect((await a.post(`/thread/${id}/turn`, { text: "first" })).status).toBe(202);
  await waitFor("the first turn", async () => {
    const d = await a.get(`/thread/${id}`);
    return JSON.stringify(d.items).includes("stored") && d.active_turn_id == null ? true : undefined;
  });
  return id;
}
const tick = () => new Promise<void>((r) => setImmediate(r));
/** CJK text: 1 UTF-16 code unit, 3 UTF-8 bytes per character. */
const cjk = (n: number) => "漢".repeat(n);
/** Thai text: also 3 UTF-8 bytes per code unit, and one "token" for the scripted model (one delta). */
const thai = (n: number) => "ก".repeat(n);

describe("red team 3: eventFrames' size limit (no infrastructure)", () => {
  // Broke in round 3, fixed since: failed because eventFrames counts UTF-16 code units (`event.length`), not bytes: three
  // events of 27 KB each (9,000 CJK characters; each alone fits a 64 KiB max payload once sealed)
  // go out as ONE frame of ~81 KB, which NATS refuses (MAX_PAYLOAD_EXCEEDED), losing all three.
  it("every sealed frame fits the server's max payload whenever each event alone does", async () => {
    const max = 64 * 1024;
    const seal = new BusSeal("a", CLUSTER_TOKEN);
    const subject = "tandem.events.a";
    const sealedSizes: number[] = [];
    const push = eventFrames((payload) => sealedSizes.push(seal.seal(subject, payload).byteLength), max);
    const events = [1, 2, 3].map((n) =>
      JSON.stringify({ event: { type: "item.completed", thread_id: "t", n, text: cjk(9000) }, id: n }),
    );
    for (const e of events) {
      const alone = seal.seal(subject, `{"events":[${e}]}`).byteLength;
      expect(alone, "each event alone fits").toBeLessThan(max);
    }
    for (const e of events) push(e);
    push(JSON.stringify({ event: { type: "turn.completed", thread_id: "t" }, id: 4 }));
    await tick();
    console.log("[redteam3] sealed frame sizes (bytes):", JSON.stringify(sealedSizes), "max", max);
    for (const size of sealedSizes)
      expect(size, "a frame larger than the server's max payload").toBeLessThanOrEqual(max);
  });
});

describe.skipIf(missing("postgres", "nats-server").length > 0)(
  "red team 3: event frames on a real bus",
  () => {
    let pg: TestPostgres | undefined;
    let nats: TestNats | undefined;
    let mock: MockProcess | undefined;
    const nodes: ServeNode[] = [];
    const streams: SseClient[] = [];
    beforeAll(async () => {
      // A 64 KiB max payload keeps the test small; the default 1 MiB breaks the same way with
      // events 16x larger (three agent messages of 120,000 CJK characters).
      [pg, nats] = await Promise.all([startPostgres(), startNats({ config: "max_payload: 65536" })]);
    }, 60_000);
    afterAll(async () => {
      await Promise.all([pg?.stop(), nats?.stop()]);
    });
    afterEach(async () => {
      for (const s of streams.splice(0)) s.close();
      for (const n of nodes.splice(0)) n.stop();
      await mock?.stop();
      mock = undefined;
    });

    // Broke in round 3, fixed since: failed because node A packs the reply's events (per message: item.started, one delta of
    // ~27 KB, item.completed of ~27 KB; Thai text, 3 UTF-8 bytes per code unit) into frames of up to
    // 32,768 code units = up to ~98 KB, above the 64 KiB max_payload; the publishes are refused
    // ("could not publish events on the bus: 'payload' max_payload size exceeded" on A's stderr) and
    // node B's live SSE client silently misses all three messages (ids jump, e.g. 12 -> 19), although
    // every event fits the server alone (one-event frames, before c23248f, all went through).
    it("a per-thread stream on another node gets a reply with non-ASCII text", async () => {
      mock = await startMockProcess({
        steps: [
          { output: [{ type: "message", text: "stored" }] },
          { output: [1, 2, 3].map((n) => ({ type: "message", text: `${n}:${thai(9000)}` })) },
        ],
      });
      const db = pg!.createDatabase("redteam3_frames");
      const opts = { db, bus: nats!.url, mock, ttlMs: 5000 };
      const a = await startServeNode("a", opts);
      const b = await startServeNode("b", opts);
      nodes.push(a, b);
      const id = await firstTurn(a);
      const live = await openSse(`${b.url}/event?thread=${id}`, auth);
      streams.push(live);
      const turn = await a.post(`/thread/${id}/turn`, { text: "go" });
      expect(turn.status).toBe(202);
      await waitFor("the turn on A", async () => {
        const d = await a.get(`/thread/${id}`);
        return d.active_turn_id == null && JSON.stringify(d.items ?? []).includes("3:") ? true : undefined;
      });
      const got = await live
        .next(
          isEvent("turn.completed", (e) => e.turn_id === turn.body.turn_id),
          8000,
        )
        .then(
          () => true,
          () => false,
        );
      const refused = /could not publish events on the bus[^\n]*/.exec(a.stderr())?.[0];
      const messages = live.frames.filter(
        isEvent("item.completed", (e) => e.turn_id === turn.body.turn_id && e.item?.type === "agent_message"),
      );
      const ids = live.frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
      console.log(
        "[redteam3] B saw turn.completed:",
        got,
        "| messages:",
        messages.length,
        "| ids:",
        JSON.stringify(ids),
        "| A's log:",
        refused ?? "(nothing)",
      );
      expect(got, "node B's client never got turn.completed").toBe(true);
      expect(messages.length, "node B's live client missed the reply's messages (frame refused)").toBe(3);
      expect(refused, "node A's bus publish was refused").toBeUndefined();
    });

    // Broke in round 3, fixed since (robustness; needs the cluster token): failed because ONE sealed frame with a malformed
    // `events` ({"events":null}, "abc", [null], [{"id":1}], an array-like object; set RT3_BAD=i to
    // send only the i-th) makes node B's handler throw (src/cluster/node.ts: `for (const {event,id}
    // of "events" in frame ? frame.events : [frame])`, unguarded). The throw leaves the NATS
    // callback, so nats-core's reader loop ends ("reader closed", protocol.js `for await … parse`):
    // B's connection stays open but reads nothing more — no events, no forwarded requests, no
    // replies — until the server drops it as stale (minutes). Node A's next reply never reaches
    // B's live client. (The same holds for a frame "null" or "[]", which the one-event format
    // before c23248f did not guard either.)
    it("malformed {events} frames do not stop a node from taking the next frame", async () => {
      mock = await startMockProcess({
        steps: [
          { output: [{ type: "message", text: "stored" }] },
          { output: [{ type: "message", text: "hello" }] },
        ],
      });
      const db = pg!.createDatabase("redteam3_malformed");
      const opts = { db, bus: nats!.url, mock, ttlMs: 5000 };
      const a = await startServeNode("a", opts);
      const b = await startServeNode("b", opts);
      nodes.push(a, b);
      const id = await firstTurn(a);
      const live = await openSse(`${b.url}/event?thread=${id}`, auth);
      streams.push(live);
      const nc = await connect({ servers: nats!.url });

      try {
        const seal = new BusSeal("evil", CLUSTER_TOKEN);
        const subject = "tandem.events.evil";
        for (const bad of [
          '{"events":null}',
          '{"events":"abc"}',
          '{"events":[null]}',
          '{"events":[{"id":1}]}',
          '{"events":{"length":1,"0":{"event":{"type":"x"}}}}',
        ].filter((_, i) => process.env.RT3_BAD === undefined || String(i) === process.env.RT3_BAD))
          nc.publish(subject, seal.seal(subject, bad));
        await nc.flush();
      } finally {
        await nc.close();
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(b.proc.exitCode, `node B died: ${b.stderr()}`).toBeNull();
      const turn = await a.post(`/thread/${id}/turn`, { text: "go" });
      expect(turn.status).toBe(202);
      await live.next(
        isEvent("turn.completed", (e) => e.turn_id === turn.body.turn_id),
        15_000,
      );
      expect(b.proc.exitCode).toBeNull();
    });
  },
);
