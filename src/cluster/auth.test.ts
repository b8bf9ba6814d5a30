/**
 * Sealed bus frames (./auth.ts): only a holder of the cluster token makes a frame a node opens,
 * a frame opens once, on its own subject, while fresh.
 */
import { describe, expect, it } from "vitest";
import { BusSeal, FRAME_MAX_AGE_MS, REPLAY_WINDOW, START_SLACK_MS } from "./auth.js";

const TOKEN = "cluster-token-0123";
const SUBJECT = "tandem.node.b.http";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("bus frames", () => {
  // fails if a frame does not round-trip, or the payload travels in clear text.
  it("opens a frame sealed with the same token, and hides its payload", () => {
    const a = new BusSeal("a", TOKEN);
    const b = new BusSeal("b", TOKEN);
    const frame = a.seal(SUBJECT, '{"path":"/thread","secret":"hunter2"}');
    expect(Buffer.from(frame).toString("latin1")).not.toContain("hunter2");
    expect(b.open(SUBJECT, frame)).toEqual({
      ok: true,
      from: "a",
      payload: '{"path":"/thread","secret":"hunter2"}',
    });
  });

  // fails if a frame sealed without the cluster token, or changed on the way, is accepted.
  it("refuses a frame of another token, a changed frame, and a plain message", () => {
    const b = new BusSeal("b", TOKEN);
    expect(b.open(SUBJECT, new BusSeal("a", "another-token-999").seal(SUBJECT, "{}"))).toMatchObject({
      ok: false,
      reason: "forged",
    });
    const frame = new BusSeal("a", TOKEN).seal(SUBJECT, '{"method":"GET"}');
    const flipped = Buffer.from(frame);
    flipped[flipped.length - 20] ^= 1;
    expect(b.open(SUBJECT, flipped)).toMatchObject({ ok: false, reason: "forged" });
    // The header (sender, time) is authenticated too: claiming another sender breaks the seal.
    const renamed = Buffer.from(
      Buffer.from(frame).toString("latin1").replace('"from":"a"', '"from":"c"'),
      "latin1",
    );
    expect(b.open(SUBJECT, renamed)).toMatchObject({ ok: false, reason: "forged" });
    expect(b.open(SUBJECT, Buffer.from('{"method":"GET","path":"/thread"}'))).toMatchObject({
      ok: false,
      reason: "malformed",
    });
    expect(b.open(SUBJECT, new Uint8Array(0))).toMatchObject({ ok: false, reason: "malformed" });
    expect(b.rejected).toEqual({ malformed: 2, forged: 3, stale: 0, replayed: 0 });
  });

  // fails if a frame opens on another subject (a request for node b replayed to node c, an
  // event replayed as a request, a reply delivered to another request's inbox).
  it("binds a frame to its subject", () => {
    const frame = new BusSeal("a", TOKEN).seal(SUBJECT, "{}");
    const c = new BusSeal("c", TOKEN);
    expect(c.open("tandem.node.c.http", frame)).toMatchObject({ ok: false, reason: "forged" });
    expect(c.open("tandem.events.a", frame)).toMatchObject({ ok: false, reason: "forged" });
  });

  // fails if a captured frame can be sent again and is acted on twice.
  it("opens each frame once; out-of-order frames within the window open", () => {
    const a = new BusSeal("a", TOKEN);
    const b = new BusSeal("b", TOKEN);
    const frames = [1, 2, 3].map((i) => a.seal(SUBJECT, String(i)));
    expect(b.open(SUBJECT, frames[2]).ok).toBe(true);
    expect(b.open(SUBJECT, frames[0]).ok).toBe(true);
    expect(b.open(SUBJECT, frames[2])).toMatchObject({ ok: false, reason: "replayed" });
    expect(b.open(SUBJECT, frames[0])).toMatchObject({ ok: false, reason: "replayed" });
    expect(b.open(SUBJECT, frames[1]).ok).toBe(true);
    // Older than the window: refused even if never seen (its slot is forgotten).
    const old = a.seal(SUBJECT, "old");
    for (let i = 0; i < REPLAY_WINDOW + 1; i++) expect(b.open(SUBJECT, a.seal(SUBJECT, "x")).ok).toBe(true);
    expect(b.open(SUBJECT, old)).toMatchObject({ ok: false, reason: "replayed" });
  });

  // fails if an old captured frame opens later (after the replay state of its sender is gone),
  // or if a node that restarted accepts frames sealed before it started.
  it("refuses stale frames, frames from the future, and frames older than the receiver", () => {
    const t = clock();
    const a = new BusSeal("a", TOKEN, t.now);
    const b = new BusSeal("b", TOKEN, t.now);
    const frame = a.seal(SUBJECT, "late");
    t.advance(FRAME_MAX_AGE_MS + 1);
    expect(b.open(SUBJECT, frame)).toMatchObject({ ok: false, reason: "stale" });
    const ahead = new BusSeal("a", TOKEN, () => t.now() + FRAME_MAX_AGE_MS + 1);
    expect(b.open(SUBJECT, ahead.seal(SUBJECT, "x"))).toMatchObject({ ok: false, reason: "stale" });
    // Captured just before the receiver (re)started: it does not remember it, so it refuses it.
    const captured = a.seal(SUBJECT, "before");
    t.advance(START_SLACK_MS + 1);
    const restarted = new BusSeal("b", TOKEN, t.now);
    expect(restarted.open(SUBJECT, captured)).toMatchObject({ ok: false, reason: "stale" });
    expect(restarted.open(SUBJECT, a.seal(SUBJECT, "now")).ok).toBe(true);
  });

  // fails if a new process of the same node (its sequence starts at 1 again) is refused.
  it("tells a sender's lifetimes apart", () => {
    const b = new BusSeal("b", TOKEN);
    expect(b.open(SUBJECT, new BusSeal("a", TOKEN).seal(SUBJECT, "1")).ok).toBe(true);
    expect(b.open(SUBJECT, new BusSeal("a", TOKEN).seal(SUBJECT, "1")).ok).toBe(true);
  });
});
