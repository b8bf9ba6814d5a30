/**
 * The embedded SQLite store (requirements P1): the default `Store`, one file per Tandem home.
 *
 * Contracts (beyond those on `Store` in ./types.ts):
 * - Every method is synchronous and returns only after its write is committed. Single-row
 *   writes are one autocommit statement; read-modify-write patches run in one IMMEDIATE
 *   transaction, so several processes may share the file (WAL + `busy_timeout`).
 * - `appendItem` computes `seq` and inserts the row in ONE statement, and a trigger bumps
 *   `threads.updated_at` inside that same statement, so seqs are contiguous 1..N per thread
 *   even with concurrent writers, and a `kill -9` never leaves a gap or a half-written item.
 * - `updateThread`/`updateTurn` ignore `undefined` patch fields. `updateThread` bumps
 *   `updated_at` to now unless the patch sets it.
 * - Failures throw `StoreError` with a `code`: `not_found` (unknown thread/turn), `conflict`
 *   (id already exists), `schema` (the file was written by a newer Tandem), `open` (the file or
 *   its directory cannot be created or is not a Tandem store; the message names the path).
 * - Stored JSON is ours and is trusted on read (validated at the boundaries, not here).
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { addUsage, emptyUsage, type Usage } from "../../protocol/events.js";
import type { ResponseItem } from "../../protocol/items.js";
import type { QuestionOutcome, QuestionRequest } from "../../protocol/questions.js";
import { parseThreadSettings } from "../../protocol/threads.js";
import { cachedJson } from "../../util/json-cache.js";
import { StoreError } from "../errors.js";
import { type Lease, type LeaseResult, leaseIsStale } from "../lease.js";
import { SEARCH_LIMITS, searchLimit, searchTerms, snippetOf } from "../search.js";
import type {
  Store,
  StoredItem,
  StoredQuestion,
  ThreadRecord,
  ThreadSearchHit,
  TurnRecord,
} from "../types.js";
import { MIGRATIONS } from "./schema.js";

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Opens (creating if needed) the store at `path`; `":memory:"` gives a private in-memory
 * store. New directories are created 0700 and a new file 0600 (SQLite gives the -wal/-shm
 * files the same mode). Throws `StoreError("schema")` if the file is from a newer Tandem and
 * `StoreError("open")` if it cannot be opened (a non-directory in the path, no permission, a
 * file that is not an SQLite database).
 */
export function openSqliteStore(path: string): Store {
  try {
    return openOrThrow(path);
  } catch (e) {
    if (StoreError.isInstance(e)) throw e;
    throw openError(path, e as NodeJS.ErrnoException);
  }
}

/** A one-line `StoreError("open")` naming the path, the cause and what to do. */
function openError(path: string, e: NodeJS.ErrnoException): StoreError {
  const dir = dirname(path);
  const reason =
    e.code === "EEXIST"
      ? `${dir} is not a directory`
      : e.code === "ENOTDIR"
        ? `a component of ${dir} is a file, not a directory`
        : e.message;
  const code = e.code ?? "";
  const fix =
    code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")
      ? "move the damaged file away (its threads are lost) or set TANDEM_HOME to another directory"
      : code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")
        ? "another process holds it locked; try again"
        : "set TANDEM_HOME to a directory Tandem can create and write";
  return new StoreError("open", `cannot open the Tandem store ${path}: ${reason}; ${fix}`);
}

function openOrThrow(path: string): Store {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, "a", 0o600)); // mode applies only when the file is created
  }
  const db = new Database(path);
  try {
    // Set first: the pragmas and migration below may wait on another process's lock.
    db.pragma("busy_timeout = 5000");
    db.pragma("journal_mode = WAL");
    // In WAL mode NORMAL syncs only at checkpoints: every commit survives a process crash
    // (kill -9); only an OS crash or power loss may roll back the last commits, never corrupt.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db);
    return new SqliteStore(db, path);
  } catch (e) {
    db.close();
    throw e;
  }
}

function migrate(db: Database.Database): void {
  // IMMEDIATE takes the write lock before reading the version, so two processes opening a
  // fresh file at once apply each migration exactly once.
  db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new StoreError(
        "schema",
        `the store file is at schema version ${version} but this Tandem supports up to ` +
          `${MIGRATIONS.length}; upgrade Tandem or point TANDEM_HOME elsewhere`,
      );
    }
    for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]);
    if (version !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}

interface ThreadRow {
  id: string;
  session_id: string;
  parent_id: string | null;
  created_at: number;
  updated_at: number;
  cwd: string;
  model: string;
  mode: string;
  title: string;
  status: string;
  settings: string;
  /** Read only: written by `addUsage` alone. */
  usage?: string | null;
}

interface TurnRow {
  id: string;
  thread_id: string;
  started_at: number;
  ended_at: number | null;
  status: string;
  usage: string | null;
  error: string | null;
  diff: string | null;
}

interface ItemRow {
  seq: number;
  turn_id: string | null;
  json: string;
  created_at: number;
}

/** `usage` is left out: only `addUsage` writes it, so a stale record never rolls it back. */
const threadToRow = ({ usage: _usage, ...t }: ThreadRecord): ThreadRow => ({
  ...t,
  settings: JSON.stringify(t.settings),
});
const rowToThread = ({ usage, ...r }: ThreadRow): ThreadRecord => ({
  ...r,
  mode: r.mode as ThreadRecord["mode"],
  status: r.status as ThreadRecord["status"],
  settings: parseThreadSettings(JSON.parse(r.settings)),
  ...(usage ? { usage: JSON.parse(usage) as Usage } : {}),
});
const turnToRow = (t: TurnRecord): TurnRow => ({
  ...t,
  usage: t.usage ? JSON.stringify(t.usage) : null,
  diff: t.diff ?? null,
});
/** `diff` is left out when there is none (records written before migration 4 look the same). */
const rowToTurn = ({ diff, ...r }: TurnRow): TurnRecord => ({
  ...r,
  status: r.status as TurnRecord["status"],
  usage: r.usage === null ? null : JSON.parse(r.usage),
  ...(diff ? { diff } : {}),
});

/** `{...base, ...patch}` without letting `undefined` patch fields erase values. */
function merge<T extends object>(base: T, patch: Partial<T>): T {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Maps SQLite constraint failures to `StoreError`s that say what to do. */
function rethrow(e: unknown, what: string, id: string): never {
  const code = (e as { code?: string }).code;
  if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    throw new StoreError(
      "not_found",
      `${what}: thread ${id} does not exist; create it with createThread first`,
    );
  }
  if (code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE") {
    throw new StoreError("conflict", `${what}: ${id} already exists; use the update method instead`);
  }
  throw e;
}

class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #s;
  readonly #updateThread;
  readonly #updateTurn;
  readonly #acquireLease;
  readonly #addUsage;

  constructor(
    db: Database.Database,
    readonly path: string,
  ) {
    this.#db = db;
    const p = (sql: string) => db.prepare(sql);
    const threadCols =
      "id, session_id, parent_id, created_at, updated_at, cwd, model, mode, title, status, settings";
    this.#s = {
      insertThread: p(
        `INSERT INTO threads (${threadCols}) VALUES (@id, @session_id, @parent_id, @created_at, ` +
          "@updated_at, @cwd, @model, @mode, @title, @status, @settings)",
      ),
      writeThread: p(
        "UPDATE threads SET session_id = @session_id, parent_id = @parent_id, created_at = @created_at, " +
          "updated_at = @updated_at, cwd = @cwd, model = @model, mode = @mode, title = @title, " +
          "status = @status, settings = @settings WHERE id = @id",
      ),
      getThread: p(`SELECT ${threadCols}, usage FROM threads WHERE id = ?`),
      listThreads: p(`SELECT ${threadCols}, usage FROM threads ORDER BY updated_at DESC, id DESC LIMIT ?`),
      // Hits of one query (../search.ts): the newest `scan` matching messages and titles (FTS5
      // walks its rowids backwards, so the cost is bounded whatever matches), one row per thread;
      // the bare `body` beside max(seq) is that newest message's (SQLite's min/max rule).
      search: p(
        "WITH m AS (SELECT thread_id, seq, body FROM thread_text WHERE thread_text MATCH @q " +
          "ORDER BY rowid DESC LIMIT @scan), " +
          "hits AS (SELECT thread_id, max(seq) AS seq, body FROM m GROUP BY thread_id), " +
          "titled AS (SELECT t.id FROM thread_titles f JOIN threads t ON t.rowid = f.rowid " +
          "WHERE thread_titles MATCH @q ORDER BY f.rowid DESC LIMIT @scan), " +
          "found AS (SELECT thread_id AS id FROM hits UNION SELECT id FROM titled) " +
          `SELECT ${threadCols.replace(/(\w+)/g, "t.$1")}, t.usage, h.body AS hit FROM found ` +
          "JOIN threads t ON t.id = found.id LEFT JOIN hits h ON h.thread_id = t.id " +
          "ORDER BY t.updated_at DESC, t.id DESC LIMIT @n",
      ),
      setThreadUsage: p("UPDATE threads SET usage = ? WHERE id = ?"),
      setTurnUsage: p("UPDATE turns SET usage = ? WHERE id = ? AND thread_id = ?"),
      // One statement: seq = max + 1 is read under the write lock the INSERT already holds.
      appendItem: p(
        "INSERT INTO items (thread_id, seq, turn_id, type, call_id, json, created_at) " +
          "SELECT @thread_id, COALESCE(MAX(seq), 0) + 1, @turn_id, @type, @call_id, @json, @created_at " +
          "FROM items WHERE thread_id = @thread_id RETURNING seq",
      ),
      loadItems: p(
        // thread_id is the argument; not selecting it saves a string per row on long histories.
        "SELECT seq, turn_id, json, created_at FROM items WHERE thread_id = ? ORDER BY seq",
      ),
      // Items are append-only and contiguous from 1, so the last seq is the count (O(log n)).
      countItems: p("SELECT COALESCE(MAX(seq), 0) AS n FROM items WHERE thread_id = ?"),
      truncateItems: p("DELETE FROM items WHERE thread_id = ? AND seq > ?"),
      // The search index of the cut messages goes with them (schema.ts migration 5).
      truncateText: p("DELETE FROM thread_text WHERE thread_id = ? AND seq > ?"),
      dropTurn: p("DELETE FROM turns WHERE id = ? AND thread_id = ?"),
      putTurn: p(
        "INSERT INTO turns (id, thread_id, started_at, ended_at, status, usage, error, diff) " +
          "VALUES (@id, @thread_id, @started_at, @ended_at, @status, @usage, @error, @diff) " +
          "ON CONFLICT (id) DO UPDATE SET started_at = excluded.started_at, ended_at = excluded.ended_at, " +
          "status = excluded.status, usage = excluded.usage, error = excluded.error, diff = excluded.diff",
      ),
      getTurn: p("SELECT * FROM turns WHERE id = ?"),
      writeTurn: p(
        "UPDATE turns SET started_at = @started_at, ended_at = @ended_at, status = @status, " +
          "usage = @usage, error = @error, diff = @diff WHERE id = @id",
      ),
      listTurns: p("SELECT * FROM turns WHERE thread_id = ? ORDER BY started_at, rowid"),
      lastTurn: p("SELECT * FROM turns WHERE thread_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1"),
      saveQuestion: p(
        "INSERT INTO questions (request_id, thread_id, turn_id, call_id, request, created_at) " +
          "VALUES (@request_id, @thread_id, @turn_id, @call_id, @request, @created_at) " +
          "ON CONFLICT (request_id) DO NOTHING",
      ),
      settleQuestion: p(
        "UPDATE questions SET outcome = ?, settled_at = ? WHERE request_id = ? AND outcome IS NULL",
      ),
      questionDeadline: p(
        "UPDATE questions SET request = json_set(request, '$.deadline', ?) " +
          "WHERE request_id = ? AND outcome IS NULL",
      ),
      getQuestion: p("SELECT request, outcome FROM questions WHERE request_id = ?"),
      pendingAll: p("SELECT request FROM questions WHERE outcome IS NULL ORDER BY created_at, rowid"),
      pendingByThread: p(
        "SELECT request FROM questions WHERE thread_id = ? AND outcome IS NULL ORDER BY created_at, rowid",
      ),
      getLease: p("SELECT pid, host, since, token FROM thread_leases WHERE thread_id = ?"),
      putLease: p(
        "INSERT INTO thread_leases (thread_id, token, pid, host, since) " +
          "VALUES (@thread_id, @token, @pid, @host, @since) ON CONFLICT (thread_id) DO UPDATE SET " +
          "token = excluded.token, pid = excluded.pid, host = excluded.host, since = excluded.since",
      ),
      releaseLease: p("DELETE FROM thread_leases WHERE thread_id = ? AND token = ?"),
      getMeta: p("SELECT value FROM meta WHERE key = ?"),
      setMeta: p(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
    };
    const s = this.#s;
    this.#updateThread = db.transaction((id: string, patch: Partial<Omit<ThreadRecord, "id">>) => {
      const row = s.getThread.get(id) as ThreadRow | undefined;
      if (!row) throw new StoreError("not_found", `updateThread: thread ${id} does not exist`);
      const current = rowToThread(row);
      const next = merge(current, patch);
      if (patch.updated_at === undefined) next.updated_at = Math.max(current.updated_at, Date.now());
      s.writeThread.run(threadToRow({ ...next, id }));
    });
    this.#updateTurn = db.transaction((id: string, patch: Partial<Omit<TurnRecord, "id" | "thread_id">>) => {
      const row = s.getTurn.get(id) as TurnRow | undefined;
      if (!row)
        throw new StoreError("not_found", `updateTurn: turn ${id} does not exist; call putTurn first`);
      const current = rowToTurn(row);
      s.writeTurn.run(turnToRow({ ...merge(current, patch), id, thread_id: current.thread_id }));
    });
    this.#acquireLease = db.transaction((threadId: string, owner: Lease): LeaseResult => {
      const holder = s.getLease.get(threadId) as Lease | undefined;
      if (holder && holder.token !== owner.token && !leaseIsStale(holder)) return { ok: false, holder };
      s.putLease.run({
        ...owner,
        since: holder?.token === owner.token ? holder.since : owner.since,
        thread_id: threadId,
      });
      return { ok: true };
    });
    this.#addUsage = db.transaction((threadId: string, turnId: string | null, u: Usage): Usage => {
      const row = s.getThread.get(threadId) as ThreadRow | undefined;
      if (!row) throw new StoreError("not_found", `addUsage: thread ${threadId} does not exist`);
      const total = row.usage ? (JSON.parse(row.usage) as Usage) : emptyUsage();
      addUsage(total, u);
      s.setThreadUsage.run(JSON.stringify(total), threadId);
      const turn = turnId === null ? undefined : (s.getTurn.get(turnId) as TurnRow | undefined);
      if (turn && turn.thread_id === threadId) {
        const sum = turn.usage ? (JSON.parse(turn.usage) as Usage) : emptyUsage();
        addUsage(sum, u);
        s.setTurnUsage.run(JSON.stringify(sum), turnId, threadId);
      }
      return total;
    });
  }

  createThread(thread: ThreadRecord): void {
    try {
      this.#s.insertThread.run(threadToRow(thread));
    } catch (e) {
      rethrow(e, "createThread", thread.id);
    }
  }

  updateThread(id: string, patch: Partial<Omit<ThreadRecord, "id">>): void {
    this.#updateThread.immediate(id, patch);
  }

  getThread(id: string): ThreadRecord | undefined {
    const row = this.#s.getThread.get(id) as ThreadRow | undefined;
    return row && rowToThread(row);
  }

  listThreads(opts: { limit?: number } = {}): ThreadRecord[] {
    const rows = this.#s.listThreads.all(opts.limit ?? -1) as ThreadRow[];
    return rows.map(rowToThread);
  }

  searchThreads(query: string, opts: { limit?: number } = {}): ThreadSearchHit[] {
    const terms = searchTerms(query);
    if (!terms.length) return [];
    // Terms are letters and digits only, so quoting each as a prefix query is safe.
    const q = terms.map((t) => `"${t}"*`).join(" ");
    const rows = this.#s.search.all({ q, n: searchLimit(opts.limit), scan: SEARCH_LIMITS.scanHits }) as Array<
      ThreadRow & { hit: string | null }
    >;
    return rows.map(({ hit, ...row }) => ({
      thread: rowToThread(row),
      snippet: hit === null ? null : snippetOf(hit, terms),
    }));
  }

  appendItem(threadId: string, turnId: string | null, item: ResponseItem): number {
    try {
      const row = this.#s.appendItem.get({
        thread_id: threadId,
        turn_id: turnId,
        type: item.type,
        call_id: "call_id" in item ? item.call_id : null,
        json: cachedJson(item), // the next request re-sends it: serialised once for both
        created_at: Date.now(),
      }) as { seq: number };
      return row.seq;
    } catch (e) {
      rethrow(e, "appendItem", threadId);
    }
  }

  loadItems(threadId: string): StoredItem[] {
    const rows = this.#s.loadItems.all(threadId) as ItemRow[];
    return rows.map((r) => ({
      seq: r.seq,
      thread_id: threadId,
      turn_id: r.turn_id,
      item: JSON.parse(r.json) as ResponseItem,
      created_at: r.created_at,
    }));
  }

  countItems(threadId: string): number {
    return (this.#s.countItems.get(threadId) as { n: number }).n;
  }

  truncateHistory(threadId: string, keepItems: number, dropTurns: readonly string[]): void {
    this.#db
      .transaction(() => {
        if (!this.#s.getThread.get(threadId))
          throw new StoreError("not_found", `truncateHistory: thread ${threadId} does not exist`);
        this.#s.truncateItems.run(threadId, keepItems);
        this.#s.truncateText.run(threadId, keepItems);
        for (const id of dropTurns) this.#s.dropTurn.run(id, threadId);
      })
      .immediate();
  }

  putTurn(turn: TurnRecord): void {
    try {
      this.#s.putTurn.run(turnToRow(turn));
    } catch (e) {
      rethrow(e, "putTurn", turn.thread_id);
    }
  }

  updateTurn(id: string, patch: Partial<Omit<TurnRecord, "id" | "thread_id">>): void {
    this.#updateTurn.immediate(id, patch);
  }

  addUsage(threadId: string, turnId: string | null, usage: Usage): Usage {
    return this.#addUsage.immediate(threadId, turnId, usage);
  }

  listTurns(threadId: string): TurnRecord[] {
    return (this.#s.listTurns.all(threadId) as TurnRow[]).map(rowToTurn);
  }

  lastTurn(threadId: string): TurnRecord | undefined {
    const row = this.#s.lastTurn.get(threadId) as TurnRow | undefined;
    return row && rowToTurn(row);
  }

  saveQuestion(request: QuestionRequest): void {
    try {
      this.#s.saveQuestion.run({
        request_id: request.request_id,
        thread_id: request.thread_id,
        turn_id: request.turn_id,
        call_id: request.call_id,
        request: JSON.stringify(request),
        created_at: request.created_at,
      });
    } catch (e) {
      rethrow(e, "saveQuestion", request.thread_id);
    }
  }

  settleQuestion(requestId: string, outcome: QuestionOutcome): void {
    this.#s.settleQuestion.run(JSON.stringify(outcome), Date.now(), requestId);
  }

  /** Rewrites `request.deadline` of a pending request; no-op if unknown or settled. */
  updateQuestionDeadline(requestId: string, deadline: number | null): void {
    this.#s.questionDeadline.run(deadline, requestId);
  }

  getQuestion(requestId: string): StoredQuestion | undefined {
    const row = this.#s.getQuestion.get(requestId) as { request: string; outcome: string | null } | undefined;
    if (!row) return undefined;
    return {
      request: JSON.parse(row.request) as QuestionRequest,
      outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as QuestionOutcome),
    };
  }

  pendingQuestions(threadId?: string): QuestionRequest[] {
    const rows = (
      threadId === undefined ? this.#s.pendingAll.all() : this.#s.pendingByThread.all(threadId)
    ) as { request: string }[];
    return rows.map((r) => JSON.parse(r.request) as QuestionRequest);
  }

  acquireLease(threadId: string, owner: Lease): LeaseResult {
    try {
      // IMMEDIATE: the read of the holder and the write happen under one write lock, so two
      // processes racing for a free lease cannot both get it.
      return this.#acquireLease.immediate(threadId, owner);
    } catch (e) {
      rethrow(e, "acquireLease", threadId);
    }
  }

  releaseLease(threadId: string, token: string): void {
    this.#s.releaseLease.run(threadId, token);
  }

  getLease(threadId: string): Lease | undefined {
    return this.#s.getLease.get(threadId) as Lease | undefined;
  }

  matchThreadIds(prefix: string, opts: { suffix?: boolean; limit?: number } = {}): string[] {
    // substr, not LIKE: an id fragment is compared literally (no % or _ wildcards).
    const part = opts.suffix ? "substr(id, -length(@p))" : "substr(id, 1, length(@p))";
    const sql = `SELECT id FROM threads WHERE ${part} = @p ORDER BY updated_at DESC, id DESC LIMIT @n`;
    const rows = this.#db.prepare(sql).all({ p: prefix, n: opts.limit ?? 20 }) as { id: string }[];
    return rows.map((r) => r.id);
  }

  getMeta(key: string): string | undefined {
    return (this.#s.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.#s.setMeta.run(key, value);
  }

  /** Idempotent. Later calls on a closed store throw. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
