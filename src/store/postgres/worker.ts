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
 */

export interface PgWorkerData {
  url: string;
  pgPath: string;
  migrations: readonly string[];
  ttlMs: number;
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
  const held = new Map<string, { generation: number; token: string; lost: boolean }>();
  // A client whose connection broke is replaced by a fresh one before the next use (a restarted
  // database, a dropped connection); the op that saw the break fails with `unavailable`.
  const broken = new Set<unknown>();
  const client = (name: string) => {
    const c = new pg.Client({ connectionString: data.url, application_name: name });
    c.on("error", () => broken.add(c));
    return c;
  };
  let db = client("tandem");
  let renewer = client("tandem-lease");
  let ready: Promise<void> | undefined;
  let closed = false;
  async function heal(): Promise<void> {
    if (broken.has(db)) {
      const fresh = client("tandem");
      await fresh.connect();
      db.end().catch(() => {});
      db = fresh;
    }
    if (broken.has(renewer)) {
      const fresh = client("tandem-lease");
      await fresh.connect();
      renewer.end().catch(() => {});
      renewer = fresh;
    }
  }

  class OpError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  }

  const q = async (sql: string, params: unknown[] = []): Promise<Row[]> => (await db.query(sql, params)).rows;
  async function tx<T>(fn: () => Promise<T>): Promise<T> {
    await db.query("BEGIN");
    try {
      const out = await fn();
      await db.query("COMMIT");
      return out;
    } catch (e) {
      await db.query("ROLLBACK").catch(() => {});
      throw e;
    }
  }
  const gen = (threadId: string) => held.get(threadId)?.generation ?? null;
  function fencedError(what: string, threadId: string): OpError {
    const h = held.get(threadId);
    return new OpError(
      "fenced",
      `${what}: this node lost the lease on thread ${threadId} (generation ${h?.generation}) to another node; ` +
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
    const g = gen(threadId);
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
  const sumUsage = (total: Row | null, u: Row) => {
    const out: Row = {};
    for (const k of USAGE_KEYS) out[k] = (total?.[k] ?? 0) + (u[k] ?? 0);
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
      ...{ toThread, toTurn, merge, sumUsage, isUnique, isForeignKey, threadCols, toLease },
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
    const live = [...held].filter(([, h]) => !h.lost);
    if (!live.length) return;
    const rows = (
      await renewer.query(
        `UPDATE thread_leases l SET expires_at = ${NOW} + $1 FROM unnest($2::text[], $3::bigint[], $4::text[]) AS h(id, g, tok) ` +
          "WHERE l.thread_id = h.id AND l.generation = h.g AND l.token = h.tok RETURNING l.thread_id",
        [data.ttlMs, live.map(([id]) => id), live.map(([, h]) => h.generation), live.map(([, h]) => h.token)],
      )
    ).rows as Row[];
    const renewed = new Set(rows.map((r) => r.thread_id));
    for (const [id, h] of live) if (!renewed.has(id) && held.get(id) === h) h.lost = true;
  }

  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing || closed) return;
      renewing = true;
      heal()
        .then(renew)
        .catch(() => {}) // a failed renewal is retried; expiry then fences us out
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(50, Math.floor(data.ttlMs / 3)),
  );

  function reply(id: number, msg: Row): void {
    data.port.postMessage({ id, ...msg });
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }

  let chain: Promise<void> = Promise.resolve();
  data.port.on("message", (m: { id: number; op: string; args: unknown[] }) => {
    chain = chain.then(async () => {
      if (m.op === "close") {
        closed = true;
        clearInterval(timer);
        await Promise.allSettled([db.end(), renewer.end()]);
        reply(m.id, { ok: true });
        data.port.close();
        return;
      }
      try {
        ready ??= (async () => {
          await db.connect();
          await renewer.connect();
          await migrate();
        })();
        await ready;
        await heal().catch((e: Error) => {
          throw new OpError(
            "unavailable",
            `the PostgreSQL connection was lost and cannot be reopened: ${e.message}`,
          );
        });
        const fn = ops[m.op];
        if (!fn) throw new Error(`unknown store op ${m.op}`);
        reply(m.id, { ok: true, value: await fn(...m.args) });
      } catch (e) {
        const err = e as { code?: string; message?: string };
        // No SQLSTATE, or a connection/shutdown class one: the connection itself is gone.
        if (!(e instanceof OpError) && (!err.code || /^(08|57)/.test(err.code))) broken.add(db);
        const code = e instanceof OpError ? e.code : m.op === "init" ? "open" : undefined;
        reply(m.id, { ok: false, code, pgCode: err.code, message: err.message ?? String(e) });
      }
    });
  });
}
