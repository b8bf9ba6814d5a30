/**
 * eventFrames (./events.ts): what one microtask delivers goes out as one frame, in order, under
 * the size limit, and a failed send does not stop the frames after it.
 */
import { describe, expect, it } from "vitest";
import { eventFrames } from "./events.js";

const tick = () => new Promise<void>((r) => queueMicrotask(r));
const events = (frame: string) => (JSON.parse(frame) as { events: unknown[] }).events;

describe("eventFrames", () => {
  // fails if each event is sent as its own frame (the cost the batching saves) or out of order.
  it("sends the events of one microtask as one frame, in order", async () => {
    const sent: string[] = [];
    const push = eventFrames((p) => sent.push(p));
    for (let i = 0; i < 5; i++) push(JSON.stringify({ event: { n: i }, id: i + 1 }));
    expect(sent).toEqual([]); // nothing leaves before the microtask ends
    await tick();
    expect(sent).toHaveLength(1);
    expect(events(sent[0])).toEqual([0, 1, 2, 3, 4].map((n) => ({ event: { n }, id: n + 1 })));
    push(JSON.stringify({ event: { n: 5 } }));
    await tick();
    expect(sent.map(events)).toEqual([expect.any(Array), [{ event: { n: 5 } }]]);
  });

  // fails if a frame may grow past half the server's max payload (NATS refuses the publish) or
  // if the split reorders events.
  it("splits at half the max payload, in order; one larger event goes alone", async () => {
    const sent: string[] = [];
    const push = eventFrames((p) => sent.push(p), 4096);
    const body = (n: number, size: number) => JSON.stringify({ event: { n, pad: "x".repeat(size) } });
    for (let i = 0; i < 10; i++) push(body(i, 500));
    push(body(10, 5000));
    push(body(11, 10));
    await tick();
    for (const f of sent) if (events(f).length > 1) expect(f.length).toBeLessThanOrEqual(2048 + 40);
    expect(sent.flatMap(events).map((e: any) => e.event.n)).toEqual([...Array(12).keys()]);
    expect(sent.some((f) => events(f).length === 1 && (events(f)[0] as any).event.n === 10)).toBe(true);
  });

  // fails if one failed publish (a frame the server refuses) swallows the frames after it.
  it("reports a failed send and goes on with the next frame", async () => {
    const sent: string[] = [];
    const failed: string[] = [];
    let first = true;
    const push = eventFrames(
      (p) => {
        if (first) {
          first = false;
          throw new Error("MAX_PAYLOAD_EXCEEDED");
        }
        sent.push(p);
      },
      undefined,
      (e) => failed.push(e.message),
    );
    push('{"event":{"n":1}}');
    await tick();
    push('{"event":{"n":2}}');
    await tick();
    expect(failed).toEqual(["MAX_PAYLOAD_EXCEEDED"]);
    expect(sent.map(events)).toEqual([[{ event: { n: 2 } }]]);
  });

  // fails if a refused frame of several events loses them all (each would have gone alone), or
  // if the limit counts UTF-16 units instead of bytes (3-byte characters overflow the frame).
  it("resends the events of a refused frame one by one, and measures frames in bytes", async () => {
    const sent: string[] = [];
    const push = eventFrames((p) => {
      if (events(p).length > 1) throw new Error("MAX_PAYLOAD_EXCEEDED");
      sent.push(p);
    });
    push('{"event":{"n":1}}');
    push('{"event":{"n":2}}');
    await tick();
    expect(sent.map(events)).toEqual([[{ event: { n: 1 } }], [{ event: { n: 2 } }]]);
    const sizes: number[] = [];
    const wide = eventFrames((p) => sizes.push(Buffer.byteLength(p)), 4096);
    for (let i = 0; i < 3; i++) wide(JSON.stringify({ event: { text: "漢".repeat(400) } })); // 1.2 KB each
    await tick();
    expect(sizes.length).toBeGreaterThan(1);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(2048 + 40);
  });
});
