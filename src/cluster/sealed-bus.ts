/**
 * The cluster's NATS connection as nodes use it (docs/scale-out.md, "Trust model"): every
 * message out is a sealed frame (./auth.ts), every message in is opened before anyone sees it.
 *
 * Contract:
 * - `subscribe(subject, handler)`: the handler gets only frames that open (sealed with the
 *   cluster token, on their own subject, fresh, first time). Others are dropped: counted in
 *   `rejected` and logged at most once a minute per reason, naming the subject and the node the
 *   frame claims to come from, never its content. A handler that throws drops its frame (logged)
 *   and the subscription goes on.
 * - `request` publishes a sealed request with an inbox of its own and resolves with the first
 *   reply that opens there; replies that do not open are dropped the same way (a bus client
 *   racing a forged answer cannot end the request). It rejects on `timeoutMs` and, at once,
 *   when the server reports that nobody subscribes to `subject` ("no responders").
 * - `respond(msg, payload)` seals the reply to the request's own inbox.
 */
import { createInbox, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { BusSeal, type DropReason } from "./auth.js";

const WHY: Record<DropReason, string> = {
  malformed: "not a Tandem bus frame",
  forged: "not sealed with this cluster's token (a node started with another --token, or not a node)",
  stale: "too old or from the future (node clocks must agree within 30 s)",
  replayed: "a frame already received (replayed)",
};

export class SealedBus {
  readonly seal: BusSeal;
  private readonly said = new Map<DropReason, number>();

  constructor(
    readonly nc: NatsConnection,
    node: string,
    clusterToken: string,
    private readonly log?: (line: string) => void,
  ) {
    this.seal = new BusSeal(node, clusterToken);
  }

  /** Frames dropped so far, by reason. */
  get rejected(): Readonly<Record<DropReason, number>> {
    return this.seal.rejected;
  }

  publish(subject: string, payload: string): void {
    this.nc.publish(subject, this.seal.seal(subject, payload));
  }

  subscribe(subject: string, handler: (payload: string, from: string, msg: Msg) => void): Subscription {
    return this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        const opened = this.open(msg);
        if (!opened) return;
        // A handler that throws must not end the NATS client's reader (every later frame of the
        // connection, on every subject, would go unread): the frame is dropped and said.
        try {
          handler(opened.payload, opened.from, msg);
        } catch (e) {
          this.log?.(
            `a bus frame on ${msg.subject} from node ${opened.from} failed: ${(e as Error).message}`,
          );
        }
      },
    });
  }

  respond(msg: Msg, payload: string): void {
    if (msg.reply) this.nc.publish(msg.reply, this.seal.seal(msg.reply, payload));
  }

  request(subject: string, payload: string, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const inbox = createInbox();
      let timer: NodeJS.Timeout | undefined;
      const done = (fn: () => void) => {
        clearTimeout(timer);
        sub.unsubscribe();
        fn();
      };
      const sub = this.nc.subscribe(inbox, {
        callback: (err, msg) => {
          if (err) return done(() => reject(err));
          // The server's own answer when nobody subscribes: an empty message with status 503.
          if (msg.data.length === 0 && msg.headers?.code === 503)
            return done(() => reject(new Error(`no responders on ${subject}`)));
          const opened = this.open(msg);
          if (opened) done(() => resolve(opened.payload));
        },
      });
      timer = setTimeout(() => done(() => reject(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
      try {
        this.nc.publish(subject, this.seal.seal(subject, payload), { reply: inbox });
      } catch (e) {
        done(() => reject(e));
      }
    });
  }

  private open(msg: Msg): { payload: string; from: string } | undefined {
    const r = this.seal.open(msg.subject, msg.data);
    if (r.ok) return r;
    const now = Date.now();
    if (now - (this.said.get(r.reason) ?? 0) >= 60_000) {
      this.said.set(r.reason, now);
      const from =
        r.from === undefined ? "" : ` claiming to be from node ${JSON.stringify(r.from).slice(0, 80)}`;
      this.log?.(
        `dropped a bus frame on ${msg.subject}${from}: ${WHY[r.reason]}; ` +
          `${this.seal.rejected[r.reason]} dropped for this reason so far (said at most once a minute)`,
      );
    }
    return undefined;
  }
}
