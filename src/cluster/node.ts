/**
 * One `tandem serve` node of a cluster (docs/scale-out.md): PostgreSQL holds the threads and their
 * leases (../store/postgres), NATS carries requests and events between nodes.
 *
 * Contract:
 * - Ownership is the thread's lease: the node named on a live (unexpired) lease owns the thread.
 *   `ownerOf(id)` is that node, or undefined when this node owns it or nobody does (then this
 *   node serves the request and, by opening the thread, takes the lease).
 * - Trust (docs/scale-out.md, "Trust model"): every message on NATS is a frame sealed with a key
 *   derived from the cluster token (./auth.ts, ./sealed-bus.ts); frames that do not open (not a
 *   node's, another subject's, stale, replayed) are dropped and counted, never acted on.
 * - `forward(owner, request)` sends an HTTP request to the owner over NATS
 *   (`tandem.node.<id>.http`, the id as `subjectToken` writes it) and returns the owner's response as is. The sending node has
 *   checked the caller's token (forwarding runs after auth); the owner runs it through its own
 *   app (`attach`) with its own token, marked forwarded so it is never forwarded again. No
 *   answer within `forwardTimeoutMs` (owner dead or cut off) is a 503 the client may retry: by
 *   then the lease lapses and another node takes the thread.
 * - Events: every event of this node's bus is logged in the store (./events.ts: a cluster-wide
 *   id, deltas excepted) and goes out with that id on `tandem.events.<node>` once it is written
 *   (deltas in their place among the others); events from other
 *   nodes are published into this node's bus with theirs, so SSE clients of any node see every
 *   thread's events under the same ids, and Last-Event-ID replays from the store on any node.
 * - Failover: every `scanMs` the node looks for threads with no live lease (a dead or drained
 *   node's) that have a pending question or were running, and opens them: that takes the lease,
 *   re-asks their questions with the same request ids (first answer wins: settling is once, in
 *   the store), and continues a turn that was mid-request from its stored history (a call cut
 *   off mid-run is recorded as aborted first, so the model sees it did not finish).
 *   Threads whose lease this node lost (fenced: taken by another node, or not confirmed by the
 *   store in time, checked every twentieth of the TTL) are reported once each and counted; their stale
 *   copy here is dropped (ownership.ts `relinquish`, through runtime/cluster-port.ts: its turn stops, nothing more is written or
 *   published, its questions stay pending for the new owner). Should that owner die too, this
 *   node may take the thread over again like any other.
 * - Hand-over: `runtime.threads.claim(id)` (the app-server before it opens a thread, docs/scale-out.md) asks the
 *   live owner to hand the thread over (`POST /thread/:id/handover`, routes.ts): the owner stops
 *   it without writing and releases the lease, and this node opens it, going on with its turn
 *   and re-asking its questions with the same ids. An owner that does not answer is a
 *   ThreadInUseError naming it (its lease lapses within the TTL if it is dead).
 * - Remote ops: `runtime.turns.remote` (the app-server's turn/steer and turn/interrupt of a thread
 *   another node runs) forwards to that node's HTTP route and returns its answer.
 * - `close()` stops scanning and drains the NATS connection; it does not shut the runtime down.
 */
import { hostname } from "node:os";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Event } from "../protocol/events.js";
import { type ClusterPort, clusterPort } from "../runtime/cluster-port.js";
import type { Runtime } from "../runtime/core.js";
import { ThreadInUseError } from "../runtime/errors.js";
import { asPostgresStore, type PostgresStore } from "../store/postgres/store.js";
import { BusConfigError, type BusSettings, connectBus } from "./bus-connect.js";
import { ClusterEventLog, eventFrames, Outbox } from "./events.js";
import { SealedBus } from "./sealed-bus.js";

export interface ClusterOptions {
  /** The NATS servers and how to authenticate to them (./bus-connect.ts). */
  bus: BusSettings;
  /** The cluster's shared token: bus frames are sealed with a key derived from it (./auth.ts). */
  clusterToken: string | undefined;
  node?: string;
  /** How long a forwarded request waits for its owner (default 30 s). */
  forwardTimeoutMs?: number;
  /** How often to look for orphaned threads (default 1 s). */
  scanMs?: number;
  log?: (line: string) => void;
}

export interface ForwardRequest {
  method: string;
  /** Path and query. */
  path: string;
  contentType?: string;
  body?: string;
}
export interface ForwardResponse {
  status: number;
  contentType?: string;
  body: string;
}

export const FORWARDED_HEADER = "x-tandem-forwarded-by";

/** One event on `tandem.events.<node>`, with its id in the cluster's log (none: not logged). */
interface RemoteEvent {
  event: Event;
  id?: number;
}

/** The well-formed events of a `tandem.events.*` payload (see `listen`); none when it is not JSON. */
function remoteEvents(payload: string): RemoteEvent[] {
  let frame: unknown;
  try {
    frame = JSON.parse(payload);
  } catch {
    return [];
  }
  const all = frame && typeof frame === "object" && "events" in frame ? frame.events : [frame];
  if (!Array.isArray(all)) return [];
  return all.filter(
    (e): e is RemoteEvent =>
      !!e &&
      typeof e === "object" &&
      !!e.event &&
      typeof e.event === "object" &&
      typeof e.event.type === "string" &&
      (e.id === undefined || Number.isSafeInteger(e.id)),
  );
}

/**
 * A node id as one NATS subject token: `.`, `*`, `>` and whitespace mean something in a
 * subject (a host name `node1.example.com` would be three tokens, out of `tandem.events.*`'s
 * reach; a node named `*` would subscribe to every node's requests). Letters, digits, `_` and
 * `-` stay; every other byte is `~` and two hex digits (so `~` itself is written `~7e`).
 */
export function subjectToken(node: string): string {
  return node.replace(/[^A-Za-z0-9_-]/gu, (c) =>
    [...Buffer.from(c, "utf8")].map((b) => `~${b.toString(16).padStart(2, "0")}`).join(""),
  );
}

/** How long the event log keeps events (SSE resume further back gets a gap). */
const EVENT_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface ClusterMetrics {
  forwards: number;
  forwardFailures: number;
  forwardsServed: number;
  takeovers: number;
  leasesLost: number;
}

export class ClusterNode {
  readonly node: string;
  readonly metrics: ClusterMetrics = {
    forwards: 0,
    forwardFailures: 0,
    forwardsServed: 0,
    takeovers: 0,
    leasesLost: 0,
  };
  draining = false;
  /** The cluster's event log, for SSE resume (./events.ts). */
  readonly events: ClusterEventLog;
  private readonly store: PostgresStore;
  private readonly nats: SealedBus;
  private readonly subs: Subscription[] = [];
  private readonly lost = new Set<string>();
  private app?: { fetch(req: Request): Response | Promise<Response> };
  private token = "";
  private timer?: NodeJS.Timeout;
  private leaseTimer?: NodeJS.Timeout;
  private closed = false;
  /** Set while publishing another node's event into this node's bus: its id. */
  private remoteId: number | undefined;
  private applyingRemote = false;
  private pruned = 0;
  private unsubscribe?: () => void;
  private up = true;
  /** What this node reaches behind the runtime's API (runtime/cluster-port.ts). */
  private readonly port: ClusterPort;

  private constructor(
    private readonly runtime: Runtime,
    nc: NatsConnection,
    private readonly opts: ClusterOptions & { clusterToken: string },
  ) {
    this.port = clusterPort(runtime);
    const pg = asPostgresStore(this.port.store);
    if (!pg) throw new Error("--bus needs the PostgreSQL store (--store postgres://…)");
    this.store = pg;
    this.node = opts.node ?? pg.node ?? hostname();
    this.nats = new SealedBus(nc, this.node, opts.clusterToken, opts.log);
    this.events = new ClusterEventLog(pg, opts.log, (e) =>
      e.type.startsWith("question.") && "thread_id" in e && e.thread_id
        ? runtime.agents.lineage(e.thread_id)
        : undefined,
    );
    const { ownership } = this.port;
    ownership.onFenced = (id) => void this.lose(id);
    ownership.remoteOp = (id, op, body) => {
      const owner = runtime.threads.get(id) ? undefined : this.ownerOf(id);
      if (owner === undefined) return undefined;
      return this.forward(owner, {
        method: "POST",
        path: `/thread/${encodeURIComponent(id)}/${op}`,
        contentType: "application/json",
        body: JSON.stringify(body),
      }).then((r) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(r.body);
        } catch {
          parsed = { error: { message: r.body } };
        }
        return { status: r.status, body: parsed };
      });
    };
    ownership.claimHook = (id) => {
      // The node named on the lease is asked even when its lease looks lapsed: a busy node
      // renews late, and one that is gone answers "no responders" at once.
      const lease = this.store.getLease(id);
      if (!lease?.node || lease.node === this.node) return undefined;
      return this.requestHandover(lease.node, id, lease.expired === true);
    };
  }

  /**
   * Connects to NATS (./bus-connect.ts); throws with the masked URL when it cannot, and
   * BusConfigError (the CLI exits 2) without the cluster token or on a bus anyone may join.
   */
  static async start(runtime: Runtime, opts: ClusterOptions): Promise<ClusterNode> {
    if (!asPostgresStore(clusterPort(runtime).store))
      throw new Error("--bus needs the PostgreSQL store: pass --store postgres://… (or store.url) too");
    const clusterToken = opts.clusterToken;
    if (!clusterToken)
      throw new BusConfigError(
        "--bus needs the cluster's shared token, the same on every node (bus messages are sealed with it): " +
          "pass --token or set TANDEM_SERVE_TOKEN",
      );
    const nc = await connectBus(opts.bus, `tandem ${opts.node ?? hostname()}`);
    if (opts.bus.insecure && !opts.bus.loopback && !nc.info?.auth_required)
      opts.log?.(
        `warning: --insecure-bus: anyone who can reach ${opts.bus.display} can join the bus; they cannot read ` +
          "or forge the cluster's sealed messages, but they can disrupt it (docs/scale-out.md, Trust model)",
      );
    const node = new ClusterNode(runtime, nc, { ...opts, clusterToken });
    node.listen();
    return node;
  }

  /** The app forwarded requests run through, and the token it requires. */
  attach(app: { fetch(req: Request): Response | Promise<Response> }, token: string): void {
    this.app = app;
    this.token = token;
  }

  /** False while NATS is disconnected (the client keeps reconnecting). */
  get connected(): boolean {
    return this.up && !this.nats.nc.isClosed();
  }

  /** True once this node learned it lost `threadId`'s lease (its writes there are fenced). */
  hasLost(threadId: string): boolean {
    return this.lost.has(threadId);
  }

  /** The node that owns `threadId` when it is another live node; else undefined. */
  ownerOf(threadId: string): string | undefined {
    const lease = this.store.getLease(threadId);
    if (!lease || lease.expired || !lease.node || lease.node === this.node) return undefined;
    return lease.node;
  }

  /**
   * Where a request about question `requestId` goes: its thread, and `owner()`, the other live
   * node that holds the thread's lease (undefined: serve here). When the question waits in this
   * node's broker its thread is known without the store, and `owner()` still reads the lease: a
   * node that lost it without knowing yet (until its next renewal) must forward, not settle a
   * waiter the store then refuses (red team). Otherwise one read answers both. Undefined when no
   * such question is stored.
   */
  questionRoute(requestId: string): { threadId: string; owner(): string | undefined } | undefined {
    const live = this.runtime.questions.pending(requestId);
    if (live) return { threadId: live.thread_id, owner: () => this.ownerOf(live.thread_id) };
    const r = this.store.questionRoute(requestId);
    if (!r) return undefined;
    const owner = !r.node || r.expired || r.node === this.node ? undefined : r.node;
    return { threadId: r.thread_id, owner: () => owner };
  }

  async forward(owner: string, req: ForwardRequest): Promise<ForwardResponse> {
    this.metrics.forwards++;
    try {
      const subject = `tandem.node.${subjectToken(owner)}.http`;
      const reply = await this.nats.request(
        subject,
        JSON.stringify(req),
        this.opts.forwardTimeoutMs ?? 30_000,
      );
      return JSON.parse(reply) as ForwardResponse;
    } catch (e) {
      this.metrics.forwardFailures++;
      const body = {
        error: {
          code: "owner_unavailable",
          message:
            `the thread is owned by node ${owner}, which did not answer (${(e as Error).message}); ` +
            "retry in a few seconds: another node takes the thread once its lease lapses",
        },
      };
      return { status: 503, contentType: "application/json", body: JSON.stringify(body) };
    }
  }

  private async requestHandover(owner: string, threadId: string, lapsed: boolean): Promise<void> {
    const res = await this.forward(owner, {
      method: "POST",
      path: `/thread/${encodeURIComponent(threadId)}/handover`,
      contentType: "application/json",
      body: JSON.stringify({ to: this.store.node }), // the node its store takes leases for
    });
    if (res.status === 200) {
      this.opts.log?.(`thread ${threadId} handed over by node ${owner}`);
      return;
    }
    // Its lease lapsed and it does not run the thread, or is gone: opening takes the lease.
    if (lapsed && (res.status === 503 || res.status === 409)) return;
    let message = res.body;
    try {
      message = JSON.parse(res.body)?.error?.message ?? message;
    } catch {}
    throw new ThreadInUseError(
      `thread ${threadId} runs on node ${owner}, which did not hand it over: ${message}`,
    );
  }

  private listen(): void {
    // Only frames that open reach these handlers: sealed by a node (./sealed-bus.ts).
    const own = this.nats.subscribe(`tandem.node.${subjectToken(this.node)}.http`, (payload, _from, msg) => {
      void this.serveForwarded(JSON.parse(payload) as ForwardRequest).then((r) =>
        this.nats.respond(msg, JSON.stringify(r)),
      );
    });
    const events = this.nats.subscribe("tandem.events.*", (payload, from) => {
      if (from === this.node) return;
      // A frame carries a run of one node's events, in order (`{events}`), or one (`{event, id}`).
      // Its sender holds the cluster token, but a malformed entry is skipped, never thrown: an
      // exception here would end the NATS client's reader and leave this node deaf on the bus.
      for (const { event, id } of remoteEvents(payload)) {
        this.applyingRemote = true;
        this.remoteId = id;
        try {
          this.port.publish(event);
        } finally {
          this.applyingRemote = false;
          this.remoteId = undefined;
        }
      }
    });
    this.subs.push(own, events);
    void (async () => {
      for await (const s of this.nats.nc.status()) {
        if (s.type === "disconnect") this.up = false;
        else if (s.type === "reconnect") this.up = true;
      }
    })().catch(() => {});
    // Other nodes get an event once it is in the log (./events.ts): their clients may resume
    // from the store at once.
    const publish = eventFrames(
      (payload) => {
        if (!this.nats.nc.isClosed()) this.nats.publish(`tandem.events.${subjectToken(this.node)}`, payload);
      },
      this.nats.nc.info?.max_payload,
      (e) => this.opts.log?.(`could not publish events on the bus: ${e.message}`),
    );
    const outbox = new Outbox(this.events, (s) =>
      publish(JSON.stringify({ event: s.event, id: this.events.idOf(s) } satisfies RemoteEvent)),
    );
    // Subscribed before any SSE client, so an event is recorded (pending) before they see it.
    const sub = this.runtime.subscribe((s) => {
      if (this.applyingRemote) {
        if (this.remoteId !== undefined) this.events.adopt(s, this.remoteId);
        return;
      }
      // A thread lost here is another node's now: its stale copy's events stay local.
      if ("thread_id" in s.event && typeof s.event.thread_id === "string" && this.lost.has(s.event.thread_id))
        return;
      this.events.record(s);
      outbox.push(s);
    });
    this.unsubscribe = () => {
      sub.unsubscribe();
      outbox.close();
    };
    this.timer = setInterval(() => this.scan(), this.opts.scanMs ?? 1000);
    this.timer.unref();
    // Lost leases are looked for often: a node cut off from the store must stop its threads'
    // commands before another node may take them (self-fencing, store worker).
    const every = Math.min(this.opts.scanMs ?? 1000, Math.max(25, Math.floor(this.store.leaseTtlMs / 20)));
    this.leaseTimer = setInterval(() => this.checkLeases(), every);
    this.leaseTimer.unref();
  }

  private async serveForwarded(req: ForwardRequest): Promise<ForwardResponse> {
    this.metrics.forwardsServed++;
    if (!this.app) return { status: 503, body: '{"error":{"code":"starting","message":"node is starting"}}' };
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      [FORWARDED_HEADER]: "1",
    };
    if (req.contentType) headers["content-type"] = req.contentType;
    const res = await this.app.fetch(
      new Request(`http://cluster${req.path}`, { method: req.method, headers, body: req.body || undefined }),
    );
    return {
      status: res.status,
      contentType: res.headers.get("content-type") ?? undefined,
      body: await res.text(),
    };
  }

  /**
   * Records that another node took `id` (seen at lease renewal, or a write refused by fencing):
   * counted and said once. The caller stops the stale copy here (ownership.ts `relinquish`): no more
   * model requests or commands, no writes, no events. False when already known.
   */
  private lose(id: string, unconfirmed?: boolean): boolean {
    if (this.lost.has(id)) return false;
    this.lost.add(id);
    this.metrics.leasesLost++;
    unconfirmed ??= this.store.lostLeases().some((l) => l.thread_id === id && l.unconfirmed);
    if (unconfirmed) {
      // The store is out of reach: asking it who holds the lease now would hang.
      this.opts.log?.(
        `lost the lease on thread ${id}: the store did not confirm it for ${this.store.fenceAfterMs} ms (PostgreSQL unreachable?), ` +
          "so another node may take it; its turn and commands stop here and its writes are refused (fenced)",
      );
      return true;
    }
    let holder = "?";
    try {
      holder = this.store.getLease(id)?.node ?? "?";
    } catch {}
    this.opts.log?.(`lost the lease on thread ${id} to node ${holder}; its writes here are refused (fenced)`);
    return true;
  }

  /** Stops the stale copy of every thread whose lease this node lost (taken, or unconfirmed). */
  checkLeases(): void {
    try {
      const lost = this.store.lostLeases();
      // Unconfirmed first: giving those up must not wait on `lose` asking the store about others.
      lost.sort((x, y) => Number(y.unconfirmed) - Number(x.unconfirmed));
      for (const l of lost) {
        if (this.lose(l.thread_id, l.unconfirmed))
          void this.port.ownership.relinquish(l.thread_id, { now: true }).catch(() => {});
      }
      // Leased here again since (reopened after the store came back): this node owns it now.
      const still = new Set(lost.map((l) => l.thread_id));
      for (const id of this.lost) if (!still.has(id) && this.runtime.threads.get(id)) this.lost.delete(id);
    } catch (e) {
      this.opts.log?.(`lease check failed: ${(e as Error).message}`);
    }
  }

  /** One failover pass: take orphaned threads, report lost leases. */
  scan(): void {
    if (this.draining) return;
    // Events older than a day leave the log (a client resuming from before gets a gap).
    if (Date.now() - this.pruned > 60_000) {
      this.pruned = Date.now();
      try {
        this.events.prune(EVENT_RETENTION_MS);
      } catch (e) {
        this.opts.log?.(`event log: pruning failed: ${(e as Error).message}`);
      }
    }
    this.checkLeases();
    // The rest waits a tick: a thread just given up stops its commands (abort handlers run in
    // microtasks) before this blocks on a store that may be out of reach.
    setImmediate(() => {
      if (!this.closed) this.takeOrphans();
    });
  }

  private takeOrphans(): void {
    if (this.draining) return;
    try {
      for (const id of this.store.orphanedThreads(20)) {
        if (this.runtime.threads.get(id)) continue;
        try {
          const thread = this.runtime.threads.open(id, { continueWorking: true });
          this.lost.delete(id);
          this.metrics.takeovers++;
          const what = thread.active ? "its turn goes on here" : "nothing was left to run";
          this.opts.log?.(`took over thread ${id}: ${what}`);
        } catch (e) {
          if (!(e instanceof ThreadInUseError))
            this.opts.log?.(`cannot take over thread ${id}: ${(e as Error).message}`);
        }
      }
    } catch (e) {
      this.opts.log?.(`failover scan failed: ${(e as Error).message}`);
    }
  }

  /** Prometheus text: threads owned here, pending questions, forwards, lease changes. */
  metricsText(): string {
    const owned = this.runtime.threads.loaded().filter((t) => t.stored && !this.lost.has(t.id)).length;
    const pending = this.runtime.questions.list().length;
    const m = this.metrics;
    return [
      "# TYPE tandem_threads_owned gauge",
      `tandem_threads_owned{node="${this.node}"} ${owned}`,
      "# TYPE tandem_questions_pending gauge",
      `tandem_questions_pending{node="${this.node}"} ${pending}`,
      "# TYPE tandem_forwards_total counter",
      `tandem_forwards_total{node="${this.node}"} ${m.forwards}`,
      "# TYPE tandem_forward_failures_total counter",
      `tandem_forward_failures_total{node="${this.node}"} ${m.forwardFailures}`,
      "# TYPE tandem_forwards_served_total counter",
      `tandem_forwards_served_total{node="${this.node}"} ${m.forwardsServed}`,
      "# TYPE tandem_lease_takeovers_total counter",
      `tandem_lease_takeovers_total{node="${this.node}"} ${m.takeovers}`,
      "# TYPE tandem_leases_lost_total counter",
      `tandem_leases_lost_total{node="${this.node}"} ${m.leasesLost}`,
      // Bus frames not acted on: not a node's (malformed, forged), or too old, or seen before.
      "# TYPE tandem_bus_frames_rejected_total counter",
      ...Object.entries(this.nats.rejected).map(
        ([reason, n]) => `tandem_bus_frames_rejected_total{node="${this.node}",reason="${reason}"} ${n}`,
      ),
      "",
    ].join("\n");
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    // What this node's threads published goes to the log and out on the bus before it leaves
    // (for at most 2 s: a store out of reach must not hold the shutdown for its 30 s timeout).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.events.settled(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 2000);
      }),
    ]);
    clearTimeout(timer);
    this.unsubscribe?.();
    await this.nats.nc.drain().catch(() => {});
  }
}
