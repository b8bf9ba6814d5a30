/**
 * The sealed NATS connection (./sealed-bus.ts) on a real nats-server: requests and replies
 * between two nodes, a bus client racing a forged reply, "no responders", and what a dropped
 * frame logs. Skipped with the reason where nats-server is absent.
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNats, type TestNats } from "../../test/helpers/infra/nats.js";
import { missing } from "../../test/helpers/system-tools.js";
import { SealedBus } from "./sealed-bus.js";

const TOKEN = "cluster-token-0123";

describe.skipIf(missing("nats-server").length > 0)("sealed bus", () => {
  let nats: TestNats;
  const conns: NatsConnection[] = [];
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => {
    for (const c of conns) await c.close().catch(() => {});
    await nats?.stop();
  });
  async function nc(): Promise<NatsConnection> {
    const c = await connect({ servers: `127.0.0.1:${nats.port}` });
    conns.push(c);
    return c;
  }

  // fails if a request does not reach its handler sealed, or its reply is not bound to it.
  it("carries a request and its reply between nodes", async () => {
    const a = new SealedBus(await nc(), "a", TOKEN);
    const b = new SealedBus(await nc(), "b", TOKEN);
    b.subscribe("t.node.b", (payload, from, msg) => b.respond(msg, `${from} asked ${payload}`));
    await b.nc.flush();
    expect(await a.request("t.node.b", "ping", 5000)).toBe("a asked ping");
  });

  // fails if the first message on the inbox wins (a bus client that answers first, with junk
  // or a reply it captured, would end the request and decide its result).
  it("ignores replies that do not open, and takes the node's", async () => {
    const a = new SealedBus(await nc(), "a", TOKEN);
    const b = new SealedBus(await nc(), "b", TOKEN);
    const outsider = await nc();
    let captured: Uint8Array | undefined;
    // The outsider sees the request, answers at once, then again with an old reply.
    outsider.subscribe("t.race", {
      callback: (_e, m) => {
        if (m.reply) outsider.publish(m.reply, '{"status":200,"body":"forged"}');
        if (m.reply && captured) outsider.publish(m.reply, captured);
      },
    });
    // The node's sealed reply to the first request, to send as the answer to the second.
    outsider.subscribe("_INBOX.>", {
      callback: (_e, m) => {
        if (m.data[0] === 1) captured ??= Uint8Array.from(m.data);
      },
    });
    b.subscribe("t.race", (payload, _from, msg) => setTimeout(() => b.respond(msg, `real ${payload}`), 50));
    await Promise.all([outsider.flush(), b.nc.flush()]);
    expect(await a.request("t.race", "1", 5000)).toBe("real 1");
    for (let i = 0; i < 100 && !captured; i++) await new Promise((r) => setTimeout(r, 20));
    expect(captured).toBeDefined();
    expect(await a.request("t.race", "2", 5000)).toBe("real 2");
    expect(a.rejected.malformed).toBeGreaterThanOrEqual(2);
    expect(a.rejected.forged).toBeGreaterThanOrEqual(1);
  });

  // fails if a request to nobody waits out its timeout (a dead owner's requests would hang 30 s).
  it("fails at once when nobody subscribes", async () => {
    const a = new SealedBus(await nc(), "a", TOKEN);
    await expect(a.request("t.nobody", "x", 60_000)).rejects.toThrow(/no responders on t.nobody/);
  });

  // fails if a dropped frame is logged with its content, or every time (an outsider could flood
  // the log), or not at all.
  it("logs a dropped frame once a minute per reason, without its content", async () => {
    const lines: string[] = [];
    const b = new SealedBus(await nc(), "b", TOKEN, (l) => lines.push(l));
    let got = 0;
    b.subscribe("t.log", () => got++);
    await b.nc.flush();
    const outsider = await nc();
    for (let i = 0; i < 5; i++) outsider.publish("t.log", `{"secret":"hunter2-${i}"}`);
    await outsider.flush();
    for (let i = 0; i < 100 && b.rejected.malformed < 5; i++) await new Promise((r) => setTimeout(r, 20));
    expect(b.rejected.malformed).toBe(5);
    expect(got).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/dropped a bus frame on t.log: not a Tandem bus frame; 1 dropped/);
    expect(lines.join("")).not.toContain("hunter2");
  });
});
