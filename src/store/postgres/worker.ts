/**
 * The PostgreSQL side of the sync bridge (./bridge.ts): runs in a worker thread, holds two `pg`
 * clients (one for the store's operations, one for lease renewal so a renewal never waits
 * behind, or lands inside, an operation's transaction) and answers one request at a time.
 *
 * `pgWorkerMain` is shipped to the worker as source text (`Function.prototype.toString`), so
 * it must not reference anything outside its own body: it gets `require`, the worker data and
 * the ops factory (./ops.ts, shipped the same way) as arguments. Ops take and return plain
 * JSON; rows are mapped to records here.
 *
 * Fencing: `held` maps each thread this process leased to the generation it got. Every write
 * for such a thread checks `threads.lease_generation` under the thread's row lock (the lock a
 * takeover needs to bump it), so once another node has taken the lease the write is refused
 * with `fenced`. Renewal pushes `expires_at` of every held lease; a lease the renewal no longer
 * finds is marked lost (the refusal then says so).
 *
 * Self-fencing: each held lease remembers when the store last confirmed it (`confirmed`: the
 * local monotonic time just before the statement that set its expiry was sent — the acquiring
 * INSERT or the latest successful renewal — so never later than the database's own NOW there). Once that is more than FENCE_AFTER of the TTL ago (the store
 * cut off, renewals hanging) the lease is treated as lost here, before any other node can take
 * it: writes for it are refused without asking the database, renewal stops (so it lapses even if
 * the database comes back first), and `lostLeases` reports it, answered at once even while an
 * operation hangs on the cut-off connection, so the node stops the thread's turn and commands.
 */

export interface PgWorkerData {
  url: string;
  pgPath: string;
  migrations: readonly string[];
  ttlMs: number;
  /** LEASE_FENCE_AFTER (./store.ts). */
  fenceAfter: number;
  node: string | null;
  flag: SharedArrayBuffer;
  port: import("node:worker_threads").MessagePort;
}

export function pgWorkerMain(
  require: NodeRequire,
  data: PgWorkerData,
  makeOps: (ctx: Record<string, unknown>) => Record<string, (...args: any[]) => Promise<unknown>>,
): void {
  const pg = require(data.pgPath);
  pg.types.setTypeParser(20, (v: string) => Number(v)); // int8 → number (ms timestamps)
  const flag = new Int32Array(data.flag);
  const NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
  const USAGE_KEYS = [
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "total_tokens",
  ];
  type Row = Record<string, any>;
  type Held = {
    generation: number;
    token: string;
    lost: boolean;
    confirmed: number;
    /** Lost because the store did not confirm it in time (self-fenced). */
    unconfirmed?: boolean;
    /** Handed over to another node on purpose: refused like a lost lease, not reported as lost. */
    given?: boolean;
  };
  const held = new Map<string, Held>();
  /** Writes whose first argument is the thread or has its `thread_id`: refused up front when its lease is lost here. */
  const FENCED_FIRST = new Set(["appendItem", "updateThread", "addUsage", "putTurn", "saveQuestion"]);
  /** The share of the TTL after which an unconfirmed lease counts as lost here (see above). */
  const FENCE_AFTER = data.fenceAfter;
  /** Marks lost (unconfirmed) the held leases the store has not confirmed in time; how many now. */
  function selfFence(only?: string): number {
    const limit = performance.now() - data.ttlMs * FENCE_AFTER;
    let now = 0;
    for (const [id, h] of held) {
      if (only !== undefined && id !== only) continue;
      if (!h.lost && h.confirmed < limit) {
        h.lost = true;
        h.unconfirmed = true;
        now++;
      }
    }
    return now;
  }
  // A client whose connection broke is replaced by a fresh one before the next use (a restarted
  // database, a dropped connection); the op that saw the break fails with `unavailable`.
  const broken = new Set<unknown>();
  // A connection that cannot be reopened within half a lease fails the call: a node cut off from
  // the database answers "unavailable" quickly instead of freezing its callers. (Opening the
  // store the first time may take longer.)
  const reopenTimeout = Math.max(1000, Math.round(data.ttlMs / 2));
  const client = (name: string, connectionTimeoutMillis = reopenTimeout) => {
    const c = new pg.Client({ connectionString: data.url, application_name: name, connectionTimeoutMillis });
    c.on("error", () => broken.add(c));
    return c;
  };
  let db = client("tandem", 15_000);
  let renewer = client("tandem-lease", 15_000);
  let ready: Promise<void> | undefined;
  let closed = false;
  // After a reopen failed, calls fail at once for a while (the reason repeated) rather than each
  // waiting out its own connection timeout: a node cut off from the database stays responsive.
  // Each connection is reopened only by its own user (operations, in their queue; renewal, in
  // its timer), so neither is ever replaced under the other's open transaction.
  let down: { until: number; why: string } | undefined;
  /** A connected replacement for `old` (which is ended), or the connect error. */
  async function reopen(old: { end(): Promise<void> }, name: string) {
    const fresh = client(name);
    try {
      await fresh.connect();
    } catch (e) {
      fresh.end().catch(() => {});
      throw e;
    }
    old.end().catch(() => {});
    return fresh;
  }
  async function healDb(): Promise<void> {
    if (!broken.has(db)) return;
    if (down && performance.now() < down.until) throw new Error(`${down.why} (retried within a second)`);
    try {
      db = await reopen(db, "tandem");
      down = undefined;
    } catch (e) {
      down = { until: performance.now() + 1000, why: (e as Error).message };
      throw e;
    }
  }
  async function healRenewer(): Promise<void> {
    if (broken.has(renewer)) renewer = await reopen(renewer, "tandem-lease");
  }

  class OpError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }

  // Statements with parameters are prepared once per connection (named): PostgreSQL then skips
  // parsing and planning them on every call (a reply's statements cost the database ~40% less).
  // Bounded, and not for the long ones built per call (a batch of events); those go unnamed, as
  // do statements without parameters (migrations' scripts, which cannot be prepared). A prepared
  // statement whose table changed under it ("cached plan must not change result type", 0A000:
  // a column added while nodes run) is forgotten and the call made unprepared; the next call
  // prepares it afresh under a new name. Inside a transaction the failure has aborted it, so
  // `tx` runs the whole transaction again once instead.
  const names = new Map<string, string>();
  let named = 0;
  let inTx = false;
  const q = async (sql: string, params: unknown[] = []): Promise<Row[]> => {
    let name = names.get(sql);
    if (name === undefined && params.length && params.length <= 32 && names.size < 500) {
      name = `tandem_${named++}`;
      names.set(sql, name);
    }
    if (!name) return (await db.query({ text: sql, values: params })).rows;
    try {
      return (await db.query({ name, text: sql, values: params })).rows;
    } catch (e) {
      if ((e as { code?: string }).code !== "0A000") throw e;
      names.delete(sql);
      if (inTx) throw e;
      return (await db.query({ text: sql, values: params })).rows;
    }
  };
  async function tx<T>(fn: () => Promise<T>): Promise<T> {
    for (let again = true; ; again = false) {
      await db.query("BEGIN");
      inTx = true;
      try {
        const out = await fn();
        await db.query("COMMIT");
        return out;
      } catch (e) {
        await db.query("ROLLBACK").catch(() => {});
        // A prepared statement gone stale (see `q`): it is forgotten; run the transaction again.
        if (again && (e as { code?: string }).code === "0A000") continue;
        throw e;
      } finally {
        inTx = false;
      }
    }
  }
  /** The generation a write for `threadId` must match (null: not leased here); a lost lease refuses. */
  const gen = (threadId: string, what = "write"): number | null => {
    selfFence(threadId);
    const h = held.get(threadId);
    if (h?.lost) throw fencedError(what, threadId);
    return h?.generation ?? null;
  };
  function fencedError(what: string, threadId: string): OpError {
    const h = held.get(threadId);
    if (h?.given)
      return new OpError(
        "fenced",
        `${what}: this node handed thread ${threadId} over to another node; the write was refused and nothing was written`,
      );
    const why = h?.unconfirmed
      ? `: the store did not confirm it for over ${Math.round(data.ttlMs * FENCE_AFTER)} ms, so another node may have taken it`
      : " to another node";
    return new OpError(
      "fenced",
      `${what}: this node lost the lease on thread ${threadId} (generation ${h?.generation})${why}; ` +
        "the write was refused and nothing was written",
    );
  }
  /** After a fenced statement touched no row: unknown thread, or the fence refused it. */
  async function whyNoRow(what: string, threadId: string): Promise<never> {
    const rows = await q("SELECT lease_generation FROM threads WHERE id = $1", [threadId]);
    if (!rows.length)
      throw new OpError(
        "not_found",
        `${what}: thread ${threadId} does not exist; create it with createThread first`,
      );
    const h = held.get(threadId);
    if (h) h.lost = true;
    throw fencedError(what, threadId);
  }
  /** Locks the thread row (shared) and checks the fence, inside a transaction. */
  async function checkFence(what: string, threadId: string): Promise<void> {
    const g = gen(threadId, what);
    if (g === null) return;
    const rows = await q("SELECT lease_generation FROM threads WHERE id = $1 FOR SHARE", [threadId]);
    if (rows.length && Number(rows[0].lease_generation) !== g) {
      held.get(threadId)!.lost = true;
      throw fencedError(what, threadId);
    }
  }
  const threadCols =
    "id, session_id, parent_id, created_at, updated_at, cwd, model, mode, title, status, settings";
  const toThread = (r: Row): Row => {
    const { usage, ...rest } = r;
    return { ...rest, settings: JSON.parse(r.settings), ...(usage ? { usage: JSON.parse(usage) } : {}) };
  };
  const toTurn = (r: Row) => ({
    id: r.id,
    thread_id: r.thread_id,
    started_at: r.started_at,
    ended_at: r.ended_at,
    status: r.status,
    usage: r.usage === null ? null : JSON.parse(r.usage),
    error: r.error,
    ...(r.diff ? { diff: r.diff } : {}),
  });
  const merge = (base: Row, patch: Row) => {
    const out = { ...base };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) out[k] = v;
    return out;
  };
  const isUnique = (e: unknown) => (e as { code?: string }).code === "23505";
  const isForeignKey = (e: unknown) => (e as { code?: string }).code === "23503";

  async function migrate(): Promise<void> {
    await tx(async () => {
      await q("SELECT pg_advisory_xact_lock(7270160)");
      await q("CREATE TABLE IF NOT EXISTS tandem_schema (version INTEGER NOT NULL)");
      const rows = await q("SELECT version FROM tandem_schema");
      const version = rows.length ? Number(rows[0].version) : 0;
      if (!rows.length) await q("INSERT INTO tandem_schema (version) VALUES (0)");
      if (version > data.migrations.length)
        throw new OpError(
          "schema",
          `the PostgreSQL store is at schema version ${version} but this Tandem supports up to ` +
            `${data.migrations.length}; upgrade Tandem or use another database`,
        );
      for (let v = version; v < data.migrations.length; v++) await q(data.migrations[v]);
      await q("UPDATE tandem_schema SET version = $1", [data.migrations.length]);
    });
  }

  const ops: Record<string, (...args: any[]) => Promise<unknown>> = {
    ...makeOps({
      ...{ q, tx, gen, held, OpError, whyNoRow, checkFence, fencedError, NOW, data },
      ...{ toThread, toTurn, merge, isUnique, isForeignKey, threadCols, toLease, USAGE_KEYS },
    }),
    async init() {},
    async renewNow() {
      await renew();
    },
  };

  function toLease(r: Row) {
    return {
      pid: r.pid,
      host: r.host,
      since: Number(r.since),
      token: r.token,
      node: r.node,
      generation: Number(r.generation),
      expires: Number(r.expires_at),
      expired: r.expired === true,
    };
  }

  async function renew(): Promise<void> {
    selfFence();
    const live = [...held].filter(([, h]) => !h.lost);
    if (!live.length) return;
    const started = performance.now();
    const rows = (
      await renewer.query(
        `UPDATE thread_leases l SET expires_at = ${NOW} + $1 FROM unnest($2::text[], $3::bigint[], $4::text[]) AS h(id, g, tok) ` +
          "WHERE l.thread_id = h.id AND l.generation = h.g AND l.token = h.tok RETURNING l.thread_id",
        [data.ttlMs, live.map(([id]) => id), live.map(([, h]) => h.generation), live.map(([, h]) => h.token)],
      )
    ).rows as Row[];
    const renewed = new Set(rows.map((r) => r.thread_id));
    for (const [id, h] of live) {
      if (held.get(id) !== h || h.lost) continue; // replaced, or self-fenced while this ran
      if (renewed.has(id)) h.confirmed = started;
      else h.lost = true;
    }
  }

  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing || closed) return;
      renewing = true;
      healRenewer()
        .then(renew)
        .catch(() => {}) // a failed renewal is retried; expiry then fences us out
        .finally(() => {
          renewing = false;
        });
    },
    // Every fifth of the TTL: a renewal may take over half the TTL before the lease counts as
    // unconfirmed (FENCE_AFTER), so one slow renewal does not fence a healthy node.
    Math.max(50, Math.floor(data.ttlMs / 5)),
  );

  // The watchdog: when a held lease goes unconfirmed the database is out of reach, and an
  // operation waiting on it (the caller's thread blocked in the bridge) or a renewal would hang
  // until TCP gives up. Their connections are dropped so they fail now: the node goes on to stop
  // the threads it no longer safely owns. Both connections are reopened on their next use.
  /** Set while an operation runs: since when. */
  let busy = 0;
  let cutAt = 0;
  function cut(c: { connection?: { stream?: { destroyed?: boolean; destroy(): void } } }): void {
    broken.add(c);
    const stream = c.connection?.stream;
    if (stream && !stream.destroyed) stream.destroy();
  }
  function watch(): void {
    if (closed || selfFence() === 0) return;
    if (busy) {
      cutAt = performance.now();
      cut(db);
      down = { until: cutAt + 1000, why: "PostgreSQL stopped answering" };
    }
    if (renewing) cut(renewer);
  }
  const watchdog = setInterval(watch, Math.max(20, Math.floor(data.ttlMs / 20)));

  function reply(id: number, msg: Row): void {
    data.port.postMessage({ id, ...msg });
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }

  let chain: Promise<void> = Promise.resolve();
  data.port.on("message", (m: { id: number; op: string; args: unknown[] }) => {
    // Answered at once, outside the queue: it reads only `held`, and it must answer while an
    // operation hangs on a cut-off connection (that is when a lease goes unconfirmed).
    if (m.op === "lostLeases") {
      watch();
      const value = [...held]
        .filter(([, h]) => h.lost && !h.given)
        .map(([id, h]) => ({ thread_id: id, unconfirmed: h.unconfirmed === true }));
      reply(m.id, { ok: true, value });
      return;
    }
    chain = chain.then(async () => {
      if (m.op === "close") {
        closed = true;
        clearInterval(timer);
        clearInterval(watchdog);
        await Promise.allSettled([db.end(), renewer.end()]);
        reply(m.id, { ok: true });
        data.port.close();
        return;
      }
      if (m.op === "each") {
        // Queued writes (bridge.ts `soon`): each runs as if sent alone, in order, and answers alone.
        const answers: Row[] = [];
        for (const [op, args] of m.args[0] as Array<[string, unknown[]]>) answers.push(await run(op, args));
        reply(m.id, { ok: true, value: answers });
        return;
      }
      reply(m.id, await run(m.op, m.args));
    });
  });

  /** Runs one op; its answer (`ok` with the value, or the error's code and message). */
  async function run(op: string, args: unknown[]): Promise<Row> {
    busy = performance.now();
    cutAt = 0;
    try {
      ready ??= (async () => {
        await db.connect();
        await renewer.connect();
        await migrate();
      })();
      await ready;
      // A write for a lease lost here is refused before any reconnecting: "fenced" tells the
      // caller to give the thread up, quietly (it goes on elsewhere).
      const a0 = args[0] as Row | string | undefined;
      const tid = !FENCED_FIRST.has(op) ? undefined : typeof a0 === "string" ? a0 : a0?.thread_id;
      if (typeof tid === "string") {
        selfFence(tid);
        if (held.get(tid)?.lost) throw fencedError(op, tid);
      }
      await healDb().catch((e: Error) => {
        throw new OpError(
          "unavailable",
          `the PostgreSQL connection was lost and cannot be reopened: ${e.message}`,
        );
      });
      const fn = ops[op];
      if (!fn) throw new Error(`unknown store op ${op}`);
      return { ok: true, value: await fn(...args) };
    } catch (e) {
      const err = e as { code?: string; message?: string };
      // No SQLSTATE, or a connection/shutdown class one: the connection itself is gone.
      if (!(e instanceof OpError) && (!err.code || /^(08|57)/.test(err.code))) broken.add(db);
      const code = e instanceof OpError ? e.code : op === "init" ? "open" : undefined;
      const message =
        cutAt && !(e instanceof OpError)
          ? `PostgreSQL did not answer for ${Math.round(cutAt - busy)} ms while a lease went unconfirmed; ` +
            "the connection was dropped (the write, if any, may or may not have landed) and is reopened on the next call"
          : (err.message ?? String(e));
      return { ok: false, code, pgCode: err.code, message };
    } finally {
      busy = 0;
    }
  }
}
