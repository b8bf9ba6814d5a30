/**
 * The store operations the PostgreSQL worker runs (./worker.ts): one per `Store` method, plus
 * what the cluster asks (lost leases, orphaned threads). Shipped to the worker as source text
 * with `pgWorkerMain`, so `pgOps` must not reference anything outside its body: everything it
 * uses comes in `ctx` (the worker's pg helpers, fencing checks and row mappers).
 *
 * Fencing, per op: single-statement writes carry the held generation as a parameter and check
 * `threads.lease_generation` under the thread's row lock; transactional ones call
 * `checkFence` (a shared row lock) before writing. `whyNoRow` tells an unknown thread from a
 * refused fence after a statement touched no row.
 */

/** Plain JSON rows and the worker's helpers (typed where they are made, in ./worker.ts). */
type Any = any;

export function pgOps(ctx: Any): Record<string, (...args: Any[]) => Promise<unknown>> {
  type Row = Record<string, Any>;
  const q: (sql: string, params?: unknown[]) => Promise<Row[]> = ctx.q;
  const { tx, gen, held, OpError, whyNoRow, checkFence, fencedError, NOW, data } = ctx;
  const { toThread, toTurn, merge, isUnique, isForeignKey, threadCols, toLease, USAGE_KEYS } = ctx;
  /** Columns updateThread and updateTurn may set (a patch's other keys are not columns). */
  const THREAD_PATCHABLE = [
    "session_id",
    "parent_id",
    "created_at",
    "updated_at",
    "cwd",
    "model",
    "mode",
    "title",
    "status",
    "settings",
  ];
  const TURN_PATCHABLE = ["started_at", "ended_at", "status", "usage", "error", "diff"];
  /**
   * The thread of each turn and question this process wrote (bounded): with it, updateTurn and
   * settleQuestion check the fence in the one statement that writes, not in a transaction.
   */
  const turnThread = new Map<string, string>();
  const questionThread = new Map<string, string>();
  const remember = (m: Map<string, string>, key: string, threadId: string) => {
    if (m.size >= 10_000) m.delete(m.keys().next().value as string);
    m.set(key, threadId);
  };
  /**
   * `col = $n` for each of `cols` the patch sets (`merge`'s rule: undefined keeps a field), its
   * value appended to `params` (JSON columns encoded). Column names come from `cols` only.
   */
  const setList = (patch: Row, cols: readonly string[], params: unknown[]): string[] => {
    const sets: string[] = [];
    for (const col of cols) {
      const v = patch[col];
      if (v === undefined) continue;
      params.push(
        col === "settings" ? JSON.stringify(v) : col === "usage" ? (v ? JSON.stringify(v) : null) : v,
      );
      sets.push(`${col} = $${params.length}`);
    }
    return sets;
  };
  return {
    async createThread(t: Row) {
      try {
        await q(`INSERT INTO threads (${threadCols}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
          t.id,
          t.session_id,
          t.parent_id,
          t.created_at,
          t.updated_at,
          t.cwd,
          t.model,
          t.mode,
          t.title,
          t.status,
          JSON.stringify(t.settings),
        ]);
      } catch (e) {
        if (isUnique(e))
          throw new OpError(
            "conflict",
            `createThread: ${t.id} already exists; use the update method instead`,
          );
        throw e;
      }
    },
    async updateThread(id: string, patch: Row) {
      // One statement, no transaction: the UPDATE takes the row lock and checks the fence on the
      // newest row version. Only the columns the patch names are set (`merge`'s rule: undefined
      // keeps a field); `usage` is addUsage's.
      const params: unknown[] = [id, gen(id)];
      const sets = setList(patch, THREAD_PATCHABLE, params);
      if (patch.updated_at === undefined) {
        params.push(Date.now());
        sets.push(`updated_at = GREATEST(updated_at, $${params.length})`);
      }
      const rows = await q(
        `UPDATE threads SET ${sets.join(", ")} WHERE id = $1 AND ($2::bigint IS NULL OR lease_generation = $2) RETURNING id`,
        params,
      );
      if (!rows.length) await whyNoRow("updateThread", id);
    },
    async getThread(id: string) {
      const rows = await q(`SELECT ${threadCols}, usage FROM threads WHERE id = $1`, [id]);
      return rows.length ? toThread(rows[0]) : undefined;
    },
    async listThreads(limit: number | null) {
      const rows = await q(
        `SELECT ${threadCols}, usage FROM threads ORDER BY updated_at DESC, id DESC LIMIT $1`,
        [limit],
      );
      return rows.map(toThread);
    },
    async matchThreadIds(p: string, suffix: boolean, limit: number) {
      // left/right, not LIKE: an id fragment is compared literally (no % or _ wildcards).
      const part = suffix ? "right(id, length($1))" : "left(id, length($1))";
      const rows = await q(
        `SELECT id FROM threads WHERE ${part} = $1 ORDER BY updated_at DESC, id DESC LIMIT $2`,
        [p, limit],
      );
      return rows.map((r) => r.id);
    },
    async searchThreads(query: string, limit: number, scan: number) {
      // `query` is a tsquery of letter-and-digit prefixes (store.ts builds it). As in SQLite: the
      // newest `scan` matching messages and titles, one row per thread with its newest
      // matching message's text (../search.ts).
      const rows = await q(
        // Sorting the ords alone, then fetching those rows, keeps a common word's sort small.
        "WITH o AS (SELECT ord FROM thread_text WHERE words @@ to_tsquery('simple', $1) " +
          "ORDER BY ord DESC LIMIT $3), " +
          "m AS (SELECT x.thread_id, x.seq, x.body FROM o JOIN thread_text x ON x.ord = o.ord), " +
          "hits AS (SELECT DISTINCT ON (thread_id) thread_id, body FROM m ORDER BY thread_id, seq DESC), " +
          "titled AS (SELECT id FROM threads WHERE tandem_search_words(title) @@ to_tsquery('simple', $1) " +
          "ORDER BY created_at DESC LIMIT $3), " +
          "found AS (SELECT thread_id AS id FROM hits UNION SELECT id FROM titled) " +
          `SELECT ${threadCols.replace(/(\w+)/g, "t.$1")}, t.usage, h.body AS hit FROM found ` +
          "JOIN threads t ON t.id = found.id LEFT JOIN hits h ON h.thread_id = t.id " +
          "ORDER BY t.updated_at DESC, t.id DESC LIMIT $2",
        [query, limit, scan],
      );
      return rows.map((r) => ({ thread: toThread(r), hit: r.hit ?? null }));
    },
    async appendItem(
      threadId: string,
      turnId: string | null,
      type: string,
      callId: string | null,
      json: string,
    ) {
      // One statement: the UPDATE takes the thread's row lock (ordering appenders and checking
      // the fence on the newest row version) and gives the seq the INSERT uses.
      const rows = await q(
        `WITH t AS (UPDATE threads SET item_count = item_count + 1, updated_at = GREATEST(updated_at, $6) ` +
          "WHERE id = $1 AND ($7::bigint IS NULL OR lease_generation = $7) RETURNING item_count) " +
          "INSERT INTO items (thread_id, seq, turn_id, type, call_id, json, created_at) " +
          "SELECT $1, t.item_count, $2, $3, $4, $5, $6 FROM t RETURNING seq",
        [threadId, turnId, type, callId, json, Date.now(), gen(threadId)],
      );
      if (!rows.length) return whyNoRow("appendItem", threadId);
      return rows[0].seq;
    },
    async loadItems(threadId: string) {
      const rows = await q(
        "SELECT seq, turn_id, json, created_at FROM items WHERE thread_id = $1 ORDER BY seq",
        [threadId],
      );
      return rows.map((r) => ({
        seq: r.seq,
        thread_id: threadId,
        turn_id: r.turn_id,
        item: JSON.parse(r.json),
        created_at: r.created_at,
      }));
    },
    async truncateHistory(threadId: string, keep: number, dropTurns: string[]) {
      await tx(async () => {
        const rows = await q("SELECT lease_generation FROM threads WHERE id = $1 FOR UPDATE", [threadId]);
        if (!rows.length)
          throw new OpError("not_found", `truncateHistory: thread ${threadId} does not exist`);
        const g = gen(threadId);
        if (g !== null && Number(rows[0].lease_generation) !== g) {
          held.get(threadId)!.lost = true;
          throw fencedError("truncateHistory", threadId);
        }
        await q("DELETE FROM items WHERE thread_id = $1 AND seq > $2", [threadId, keep]);
        // The search index of the cut messages goes with them (schema.ts migration 5).
        await q("DELETE FROM thread_text WHERE thread_id = $1 AND seq > $2", [threadId, keep]);
        await q("UPDATE threads SET item_count = LEAST(item_count, $2) WHERE id = $1", [threadId, keep]);
        if (dropTurns.length)
          await q("DELETE FROM turns WHERE thread_id = $1 AND id = ANY($2::text[])", [threadId, dropTurns]);
      });
    },
    async countItems(threadId: string) {
      const rows = await q("SELECT item_count FROM threads WHERE id = $1", [threadId]);
      return rows.length ? rows[0].item_count : 0;
    },
    async putTurn(t: Row) {
      remember(turnThread, t.id, t.thread_id);
      const rows = await q(
        "WITH t AS (SELECT id FROM threads WHERE id = $2 AND ($8::bigint IS NULL OR lease_generation = $8) FOR SHARE) " +
          "INSERT INTO turns (id, thread_id, started_at, ended_at, status, usage, error, diff) " +
          "SELECT $1, t.id, $3, $4, $5, $6, $7, $9 FROM t ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, " +
          "ended_at = excluded.ended_at, status = excluded.status, usage = excluded.usage, error = excluded.error, " +
          "diff = excluded.diff RETURNING id",
        [
          t.id,
          t.thread_id,
          t.started_at,
          t.ended_at,
          t.status,
          t.usage ? JSON.stringify(t.usage) : null,
          t.error,
          gen(t.thread_id),
          t.diff ?? null,
        ],
      );
      if (!rows.length) await whyNoRow("putTurn", t.thread_id);
    },
    async updateTurn(id: string, patch: Row) {
      // A turn this process put: one statement (fence checked under the thread's row lock, as
      // putTurn does). Otherwise, or when it touched no row, the transaction below tells why.
      const threadId = turnThread.get(id);
      if (threadId !== undefined) {
        const params: unknown[] = [id, threadId, gen(threadId, "updateTurn")];
        const sets = setList(patch, TURN_PATCHABLE, params);
        if (!sets.length) return;
        const rows = await q(
          "WITH t AS (SELECT id FROM threads WHERE id = $2 AND ($3::bigint IS NULL OR lease_generation = $3) FOR SHARE) " +
            `UPDATE turns SET ${sets.join(", ")} FROM t WHERE turns.id = $1 AND turns.thread_id = t.id RETURNING turns.id`,
          params,
        );
        if (rows.length) return;
      }
      await tx(async () => {
        const rows = await q("SELECT * FROM turns WHERE id = $1 FOR UPDATE", [id]);
        if (!rows.length)
          throw new OpError("not_found", `updateTurn: turn ${id} does not exist; call putTurn first`);
        await checkFence("updateTurn", rows[0].thread_id);
        const next = merge(toTurn(rows[0]), patch);
        await q(
          "UPDATE turns SET started_at = $2, ended_at = $3, status = $4, usage = $5, error = $6, diff = $7 WHERE id = $1",
          [
            id,
            next.started_at,
            next.ended_at,
            next.status,
            next.usage ? JSON.stringify(next.usage) : null,
            next.error,
            next.diff ?? null,
          ],
        );
      });
    },
    async listTurns(threadId: string) {
      return (await q("SELECT * FROM turns WHERE thread_id = $1 ORDER BY started_at, ord", [threadId])).map(
        toTurn,
      );
    },
    async lastTurn(threadId: string) {
      const rows = await q(
        "SELECT * FROM turns WHERE thread_id = $1 ORDER BY started_at DESC, ord DESC LIMIT 1",
        [threadId],
      );
      return rows.length ? toTurn(rows[0]) : undefined;
    },
    async addUsage(threadId: string, turnId: string | null, u: Row) {
      // One statement: the thread's total and the turn's, summed key by key in SQL (numeric, so
      // a total never overflows or rounds), fenced like updateThread.
      const sum = (col: string) =>
        "(SELECT json_object_agg(k, COALESCE((COALESCE(" +
        col +
        ", '{}')::jsonb ->> k)::numeric, 0) + COALESCE(($4::jsonb ->> k)::numeric, 0)) FROM unnest($5::text[]) AS k)::text";
      const rows = await q(
        `WITH t AS (UPDATE threads SET usage = ${sum("threads.usage")} ` +
          "WHERE id = $1 AND ($3::bigint IS NULL OR lease_generation = $3) RETURNING usage), " +
          `x AS (UPDATE turns SET usage = ${sum("turns.usage")} FROM t WHERE turns.id = $2 AND turns.thread_id = $1) ` +
          "SELECT usage FROM t",
        [threadId, turnId, gen(threadId), JSON.stringify(u), USAGE_KEYS],
      );
      if (!rows.length) return whyNoRow("addUsage", threadId);
      return JSON.parse(rows[0].usage);
    },
    async saveQuestion(r: Row) {
      remember(questionThread, r.request_id, r.thread_id);
      try {
        const rows = await q(
          "WITH t AS (SELECT id FROM threads WHERE id = $2 AND ($7::bigint IS NULL OR lease_generation = $7) FOR SHARE) " +
            "INSERT INTO questions (request_id, thread_id, turn_id, call_id, request, created_at) " +
            "SELECT $1, t.id, $3, $4, $5, $6 FROM t ON CONFLICT (request_id) DO NOTHING RETURNING request_id",
          [
            r.request_id,
            r.thread_id,
            r.turn_id,
            r.call_id,
            JSON.stringify(r),
            r.created_at,
            gen(r.thread_id),
          ],
        );
        if (rows.length) return;
        const known = await q("SELECT 1 FROM questions WHERE request_id = $1", [r.request_id]);
        if (!known.length) await whyNoRow("saveQuestion", r.thread_id);
        else await checkFence("saveQuestion", r.thread_id);
      } catch (e) {
        if (isForeignKey(e)) await whyNoRow("saveQuestion", r.thread_id);
        throw e;
      }
    },
    async settleQuestion(requestId: string, outcome: Row) {
      // A question this process saved: one statement (fence checked under the thread's row
      // lock). When it settles nothing (settled already, or fenced) the transaction below
      // decides which, as for any other question.
      const threadId = questionThread.get(requestId);
      if (threadId !== undefined) {
        const rows = await q(
          "WITH t AS (SELECT id FROM threads WHERE id = $4 AND ($5::bigint IS NULL OR lease_generation = $5) FOR SHARE) " +
            "UPDATE questions SET outcome = $2, settled_at = $3 FROM t " +
            "WHERE request_id = $1 AND questions.thread_id = t.id AND outcome IS NULL RETURNING request_id",
          [requestId, JSON.stringify(outcome), Date.now(), threadId, gen(threadId, "settleQuestion")],
        );
        if (rows.length) {
          questionThread.delete(requestId);
          return;
        }
      }
      await tx(async () => {
        const rows = await q("SELECT thread_id FROM questions WHERE request_id = $1", [requestId]);
        if (!rows.length) return;
        await checkFence("settleQuestion", rows[0].thread_id);
        await q(
          `UPDATE questions SET outcome = $2, settled_at = $3 WHERE request_id = $1 AND outcome IS NULL`,
          [requestId, JSON.stringify(outcome), Date.now()],
        );
      });
    },
    async updateQuestionDeadline(requestId: string, deadline: number | null) {
      await tx(async () => {
        const rows = await q(
          "SELECT thread_id, request FROM questions WHERE request_id = $1 AND outcome IS NULL FOR UPDATE",
          [requestId],
        );
        if (!rows.length) return;
        await checkFence("updateQuestionDeadline", rows[0].thread_id);
        const request = JSON.parse(rows[0].request);
        request.deadline = deadline;
        await q("UPDATE questions SET request = $2 WHERE request_id = $1", [
          requestId,
          JSON.stringify(request),
        ]);
      });
    },
    async getQuestion(requestId: string) {
      const rows = await q("SELECT request, outcome FROM questions WHERE request_id = $1", [requestId]);
      if (!rows.length) return undefined;
      return {
        request: JSON.parse(rows[0].request),
        outcome: rows[0].outcome === null ? null : JSON.parse(rows[0].outcome),
      };
    },
    async pendingQuestions(threadId: string | null) {
      const rows =
        threadId === null
          ? await q("SELECT request FROM questions WHERE outcome IS NULL ORDER BY created_at, ord")
          : await q(
              "SELECT request FROM questions WHERE thread_id = $1 AND outcome IS NULL ORDER BY created_at, ord",
              [threadId],
            );
      return rows.map((r) => JSON.parse(r.request));
    },
    /**
     * Granted when free, already `owner`'s, expired, or held by `takeOver` (a holder the caller
     * judged dead); taking it from another holder bumps the generation.
     */
    async acquireLease(threadId: string, owner: Row, takeOver: string | null) {
      let started = 0;
      return tx(async () => {
        const t = await q("SELECT lease_generation FROM threads WHERE id = $1 FOR UPDATE", [threadId]);
        if (!t.length)
          throw new OpError(
            "not_found",
            `acquireLease: thread ${threadId} does not exist; create it with createThread first`,
          );
        const l = await q(
          `SELECT *, expires_at < ${NOW} AS expired FROM thread_leases WHERE thread_id = $1 FOR UPDATE`,
          [threadId],
        );
        const holder = l[0];
        const mine =
          holder &&
          holder.token === owner.token &&
          Number(holder.generation) === Number(t[0].lease_generation);
        if (holder && !mine && !holder.expired && holder.token !== takeOver)
          return { ok: false, holder: toLease(holder) };
        const generation = mine ? Number(holder.generation) : Number(t[0].lease_generation) + 1;
        if (!mine) await q("UPDATE threads SET lease_generation = $2 WHERE id = $1", [threadId, generation]);
        started = performance.now(); // no later than the database's NOW below (self-fencing, worker.ts)
        await q(
          "INSERT INTO thread_leases (thread_id, token, pid, host, node, since, generation, expires_at) " +
            `VALUES ($1, $2, $3, $4, $5, $6, $7, ${NOW} + $8) ON CONFLICT (thread_id) DO UPDATE SET token = excluded.token, ` +
            "pid = excluded.pid, host = excluded.host, node = excluded.node, since = excluded.since, " +
            "generation = excluded.generation, expires_at = excluded.expires_at",
          [
            threadId,
            owner.token,
            owner.pid,
            owner.host,
            data.node,
            mine ? holder.since : owner.since,
            generation,
            data.ttlMs,
          ],
        );
        held.set(threadId, { generation, token: owner.token, lost: false, confirmed: started });
        return { ok: true };
      });
    },
    /** Our lease becomes `to`'s (a reservation its node takes on open; it lapses like any lease). */
    async handOverLease(threadId: string, token: string, toToken: string, toNode: string) {
      await q(
        `UPDATE thread_leases SET token = $3, node = $4, expires_at = ${NOW} + $5 WHERE thread_id = $1 AND token = $2`,
        [threadId, token, toToken, toNode, data.ttlMs],
      );
      // Still known, as given away: a write for it from here is refused (fenced), not unchecked.
      const h = held.get(threadId);
      if (h?.token === token) Object.assign(h, { lost: true, given: true });
    },
    async releaseLease(threadId: string, token: string) {
      await q("DELETE FROM thread_leases WHERE thread_id = $1 AND token = $2", [threadId, token]);
      if (held.get(threadId)?.token === token) held.delete(threadId);
    },
    /** A question's thread and that thread's lease holder (cluster routing), in one read. */
    async questionRoute(requestId: string) {
      const rows = await q(
        `SELECT q.thread_id, l.node, l.expires_at < ${NOW} AS expired FROM questions q ` +
          "LEFT JOIN thread_leases l ON l.thread_id = q.thread_id WHERE q.request_id = $1",
        [requestId],
      );
      if (!rows.length) return undefined;
      return { thread_id: rows[0].thread_id, node: rows[0].node ?? null, expired: rows[0].expired === true };
    },
    async getLease(threadId: string) {
      const rows = await q(
        `SELECT *, expires_at < ${NOW} AS expired FROM thread_leases WHERE thread_id = $1`,
        [threadId],
      );
      return rows.length ? toLease(rows[0]) : undefined;
    },
    async getMeta(key: string) {
      const rows = await q("SELECT value FROM meta WHERE key = $1", [key]);
      return rows[0]?.value;
    },
    async setMeta(key: string, value: string) {
      await q(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
      );
    },
    /**
     * The cluster's event log (../../cluster/events.ts). Appends events, 500 to a statement; returns their ids in the rows' order. The ids ascend in
     * that order (the sequence is drawn row by row as VALUES lists them, and statements run one
     * after another); RETURNING's own order is not promised, so each statement's are sorted.
     */
    async appendEvents(rows: Array<[string | null, string[] | null, number, string]>) {
      const ids: number[] = [];
      for (let i = 0; i < rows.length; i += 500) {
        const params: unknown[] = [];
        const values = rows.slice(i, i + 500).map((r) => {
          const n = params.push(...r);
          return `($${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
        });
        const out = await q(
          `INSERT INTO events (thread_id, also, at, stamped) VALUES ${values.join(", ")} RETURNING seq`,
          params,
        );
        ids.push(...out.map((r) => Number(r.seq)).sort((a, b) => a - b));
      }
      return ids;
    },
    /** Logged events after `after` (of one thread, or all), oldest first, and the oldest id kept. */
    async eventsSince(after: number, threadId: string | null, limit: number) {
      const rows = await q(
        threadId === null
          ? "SELECT seq, stamped FROM events WHERE seq > $1 ORDER BY seq LIMIT $2"
          : "SELECT seq, stamped FROM events WHERE seq > $1 AND (thread_id = $3 OR $3 = ANY(also)) ORDER BY seq LIMIT $2",
        threadId === null ? [after, limit] : [after, limit, threadId],
      );
      const bounds = await q("SELECT MIN(seq) AS first, MAX(seq) AS last FROM events");
      return {
        events: rows.map((r) => ({ id: Number(r.seq), stamped: r.stamped as string })),
        first: bounds[0].first === null ? null : Number(bounds[0].first),
        last: bounds[0].last === null ? 0 : Number(bounds[0].last),
      };
    },
    /**
     * Drops logged events older than `before` (ms since the epoch), never the newest one (it
     * shows how far ids went, so a resume from before the pruned ones learns of the gap).
     */
    async pruneEvents(before: number) {
      const rows = await q(
        "WITH d AS (DELETE FROM events WHERE at < $1 AND seq < (SELECT MAX(seq) FROM events) RETURNING 1) " +
          "SELECT count(*)::int AS n FROM d",
        [before],
      );
      return Number(rows[0].n);
    },
    async heldLeases() {
      return [...held]
        .filter(([, h]) => !h.lost)
        .map(([id, h]) => ({ thread_id: id, generation: h.generation }));
    },
    /**
     * A dead or drained node's work: threads with no live lease that have a pending question,
     * or that were running in the last hour (a turn mid-request when their node stopped), oldest
     * first.
     */
    async orphanedThreads(limit: number) {
      const rows = await q(
        "SELECT thread_id, MIN(w.at) AS first FROM (" +
          "SELECT q.thread_id, q.created_at AS at FROM questions q WHERE q.outcome IS NULL " +
          // Running threads only while recent: one a process stopped long ago (or that crashed
          // last month) is resumed by whoever opens it, not by the first node to start.
          `UNION ALL SELECT t.id, t.updated_at FROM threads t WHERE t.status = 'running' AND t.updated_at > ${NOW} - 3600000` +
          ") w LEFT JOIN thread_leases l USING (thread_id) " +
          `WHERE l.thread_id IS NULL OR l.expires_at < ${NOW} GROUP BY thread_id ORDER BY first LIMIT $1`,
        [limit],
      );
      return rows.map((r) => r.thread_id);
    },
  };
}
