/**
 * Sealed frames on the cluster bus (docs/scale-out.md, "Trust model"): everything a node
 * publishes on NATS — forwarded requests, their replies, hand-overs, events — is sealed with a
 * key only nodes hold, and a node acts on a frame only once it has opened it.
 *
 * Contract:
 * - The key is derived (HKDF-SHA256) from the cluster's shared token (`tandem serve --token`,
 *   TANDEM_SERVE_TOKEN), which every node of a cluster already holds. A NATS client that can
 *   publish and subscribe but lacks the token can neither read a frame nor make one a node
 *   accepts.
 * - A frame is AES-256-GCM: its header (sending node, that process's boot id, a sequence
 *   number, the time it was sealed) and the NATS subject are authenticated, the payload is
 *   encrypted. A frame moved to another subject (a request sent to another node, an event
 *   replayed as a request, a reply delivered to another request's inbox) does not open.
 * - `open` accepts each frame once: a frame older than FRAME_MAX_AGE_MS (or as far in the
 *   future: node clocks must agree within that, e.g. NTP), older than this process (minus
 *   START_SLACK_MS: a node that restarted has forgotten what it saw), or whose
 *   (node, boot, sequence) was seen already is refused as `stale` or `replayed`. Sequences may
 *   arrive out of order within REPLAY_WINDOW of the newest seen.
 * - `open` never throws: a frame that is not ours is a drop reason, counted in `rejected`.
 *   State kept for a sender is dropped 2 × FRAME_MAX_AGE_MS after its last frame (its frames
 *   are stale by then).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export const FRAME_MAX_AGE_MS = 30_000;
export const START_SLACK_MS = 2_000;
export const REPLAY_WINDOW = 4096;
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type DropReason = "malformed" | "forged" | "stale" | "replayed";
export type Opened =
  | { ok: true; from: string; payload: string }
  | { ok: false; reason: DropReason; from?: string };

interface Header {
  from: string;
  boot: string;
  seq: number;
  ts: number;
}

/** The key frames are sealed with, from the cluster token (the same on every node). */
export function busKey(clusterToken: string): Buffer {
  return Buffer.from(hkdfSync("sha256", clusterToken, "tandem cluster bus", "frame key v1", 32));
}

export class BusSeal {
  /** This process's id among the node's lifetimes: its sequence numbers start again at 1. */
  readonly boot = randomBytes(8).toString("hex");
  readonly rejected: Record<DropReason, number> = { malformed: 0, forged: 0, stale: 0, replayed: 0 };
  private seq = 0;
  private readonly key: Buffer;
  private readonly started: number;
  private readonly seen = new Map<string, { max: number; recent: Set<number>; at: number }>();
  private pruned = 0;

  constructor(
    readonly node: string,
    clusterToken: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = busKey(clusterToken);
    this.started = now();
  }

  /** The frame carrying `payload` on `subject` (for a reply: the request's reply subject). */
  seal(subject: string, payload: string): Uint8Array {
    const header: Header = { from: this.node, boot: this.boot, seq: ++this.seq, ts: this.now() };
    const head = Buffer.from(JSON.stringify(header));
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(aad(subject, head));
    const body = Buffer.concat([cipher.update(payload, "utf8"), cipher.final(), cipher.getAuthTag()]);
    const len = Buffer.alloc(3);
    len.writeUInt8(VERSION, 0);
    len.writeUInt16BE(head.length, 1);
    return Buffer.concat([len, head, iv, body]);
  }

  /** The payload of a frame received on `subject`, or why it is dropped (counted). */
  open(subject: string, frame: Uint8Array): Opened {
    const r = this.check(subject, Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
    if (!r.ok) this.rejected[r.reason]++;
    return r;
  }

  private check(subject: string, buf: Buffer): Opened {
    if (buf.length < 3 || buf.readUInt8(0) !== VERSION) return { ok: false, reason: "malformed" };
    const headLen = buf.readUInt16BE(1);
    if (buf.length < 3 + headLen + IV_BYTES + TAG_BYTES) return { ok: false, reason: "malformed" };
    const head = buf.subarray(3, 3 + headLen);
    let h: Header;
    try {
      h = JSON.parse(head.toString("utf8"));
    } catch {
      return { ok: false, reason: "malformed" };
    }
    if (typeof h?.from !== "string" || typeof h.boot !== "string" || !Number.isSafeInteger(h.seq))
      return { ok: false, reason: "malformed" };
    if (!Number.isFinite(h.ts)) return { ok: false, reason: "malformed" };
    // Not yet authenticated: a forger gains nothing by a fresh time, and a stale one is cheap to refuse.
    const now = this.now();
    if (Math.abs(now - h.ts) > FRAME_MAX_AGE_MS || h.ts < this.started - START_SLACK_MS)
      return { ok: false, reason: "stale", from: h.from };
    const iv = buf.subarray(3 + headLen, 3 + headLen + IV_BYTES);
    const body = buf.subarray(3 + headLen + IV_BYTES);
    let payload: string;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
      decipher.setAAD(aad(subject, head));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      payload = Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      return { ok: false, reason: "forged", from: h.from };
    }
    if (!this.fresh(h, now)) return { ok: false, reason: "replayed", from: h.from };
    return { ok: true, from: h.from, payload };
  }

  /** Records (from, boot, seq) as seen; false when it was, or fell out of the window. */
  private fresh(h: Header, now: number): boolean {
    if (now - this.pruned > FRAME_MAX_AGE_MS) {
      this.pruned = now;
      for (const [k, s] of this.seen) if (now - s.at > 2 * FRAME_MAX_AGE_MS) this.seen.delete(k);
    }
    const key = `${h.from}\u0000${h.boot}`;
    let s = this.seen.get(key);
    if (!s) {
      s = { max: 0, recent: new Set(), at: now };
      this.seen.set(key, s);
    }
    if (h.seq <= s.max - REPLAY_WINDOW || s.recent.has(h.seq)) return false;
    s.recent.add(h.seq);
    s.at = now;
    if (h.seq > s.max) s.max = h.seq;
    if (s.recent.size > 2 * REPLAY_WINDOW)
      for (const n of s.recent) if (n <= s.max - REPLAY_WINDOW) s.recent.delete(n);
    return true;
  }
}

/** What GCM authenticates besides the payload: the subject and the header as sent. */
function aad(subject: string, head: Buffer): Buffer {
  return Buffer.concat([Buffer.from(subject, "utf8"), Buffer.from([0]), head]);
}
