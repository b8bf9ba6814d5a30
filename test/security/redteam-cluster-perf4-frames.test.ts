/**
 * Red team round 4, commit a888d12 (src/cluster/events.ts eventFrames, src/cluster/node.ts
 * remoteEvents): a refused frame of several events is resent event by event; frames are
 * measured in UTF-8 bytes; malformed entries are skipped.
 *
 * Attacked here (all HELD; kept as regression guards), no infrastructure:
 * - order: a refused frame flushed by the size limit mid-burst, with the rest of the burst
 *   queued behind it: every event still leaves, in the order pushed;
 * - one event too large even alone, in the middle of a burst: only it is reported lost, its
 *   neighbours leave, in order, and the next burst is unaffected;
 * - frame bytes: every frame stays within limit + the `{"events":[]}` wrapper, whatever mix of
 *   1-, 2-, 3- and 4-byte characters.
 */
import { describe, expect, it } from "vitest";
import { eventFrames } from "../../src/cluster/events.js";

const tick = () => new Promise<void>((r) => setImmediate(r));
const ids = (payload: string): number[] => JSON.parse(payload).events.map((e: any) => e.event.n);
const ev = (n: number, text = "") => JSON.stringify({ event: { type: "x", n, text }, id: n });

describe("red team 4: eventFrames under refusal", () => {
  // Fails if a resend reorders events (a refused frame's events after a later frame's), or if
  // events pushed after a size-limit flush are lost when that flush is refused.
  it("a refused frame flushed mid-burst: all events leave in push order", async () => {
    const sent: number[][] = [];
    const push = eventFrames((p) => {
      const n = ids(p);
      if (n.length > 1 && n.includes(2)) throw new Error("MAX_PAYLOAD_EXCEEDED");
      sent.push(n);
    }, 4096); // limit 2048 bytes
    for (let i = 1; i <= 7; i++) push(ev(i, "é".repeat(300))); // ~630 bytes each: 3 a frame
    await tick();
    expect(sent.flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(sent[0]).toEqual([1]); // the refused frame went one by one
  });

  // Fails if one event too large for the server makes its frame's other events (or the next
  // burst) lost, or if the loss is not reported.
  it("an event too large alone is the only one lost, and said", async () => {
    const sent: number[] = [];
    const failed: string[] = [];
    const max = 4096;
    const push = eventFrames(
      (p) => {
        if (Buffer.byteLength(p) > max) throw new Error("MAX_PAYLOAD_EXCEEDED");
        sent.push(...ids(p));
      },
      max,
      (e) => failed.push(e.message),
    );
    push(ev(1, "a"));
    push(ev(2, "𝄞".repeat(1500))); // 6 KB alone
    push(ev(3, "b"));
    await tick();
    push(ev(4));
    await tick();
    expect(sent).toEqual([1, 3, 4]);
    expect(failed).toEqual(["MAX_PAYLOAD_EXCEEDED"]);
  });

  // Fails if a frame grows past the limit (plus its wrapper) in UTF-8 bytes.
  it("frames stay within the byte limit for any mix of character widths", async () => {
    const sizes: number[] = [];
    const push = eventFrames((p) => sizes.push(Buffer.byteLength(p)), 8192); // limit 4096
    const chars = ["a", "é", "漢", "𝄞"];
    for (let i = 0; i < 200; i++) push(ev(i, chars[i % 4].repeat(37 + (i % 53))));
    await tick();
    expect(sizes.length).toBeGreaterThan(1);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(4096 + 16);
  });
});
