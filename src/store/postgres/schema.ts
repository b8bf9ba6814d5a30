/**
 * The PostgreSQL schema: the same tables and meaning as the SQLite store (../sqlite/store.ts),
 * plus what many nodes need. Migrations are append only (never edit a shipped entry) and run
 * in one transaction under an advisory lock, so nodes starting together apply each once;
 * `tandem_schema.version` = number applied.
 *
 * Differences from SQLite, all internal:
 * - `threads.item_count` is the last seq: `appendItem` bumps it and inserts the item in ONE
 *   statement (the row lock orders concurrent appenders), so seqs stay contiguous 1..N.
 * - `threads.lease_generation` is the fencing number: taking the lease from another holder bumps
 *   it under the thread's row lock, and every write for a thread this process leased checks it
 *   under that same lock, so a node that lost the lease cannot write (../lease.ts, ./worker.ts).
 * - `thread_leases` holds the live holder with an expiry in the database's clock (renewed by the
 *   holder); JSON stays TEXT so items read back byte for byte as written.
 */

export const PG_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    parent_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    cwd TEXT NOT NULL,
    model TEXT NOT NULL,
    mode TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    settings TEXT NOT NULL,
    usage TEXT,
    item_count INTEGER NOT NULL DEFAULT 0,
    lease_generation BIGINT NOT NULL DEFAULT 0
  );
  CREATE INDEX threads_by_updated ON threads (updated_at DESC, id DESC);

  CREATE TABLE items (
    thread_id TEXT NOT NULL REFERENCES threads (id),
    seq INTEGER NOT NULL,
    turn_id TEXT,
    type TEXT NOT NULL,
    call_id TEXT,
    json TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (thread_id, seq)
  );

  CREATE TABLE turns (
    ord BIGSERIAL,
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id),
    started_at BIGINT NOT NULL,
    ended_at BIGINT,
    status TEXT NOT NULL,
    usage TEXT,
    error TEXT
  );
  CREATE INDEX turns_by_thread ON turns (thread_id, started_at, ord);

  CREATE TABLE questions (
    ord BIGSERIAL,
    request_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id),
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    request TEXT NOT NULL,
    outcome TEXT,
    created_at BIGINT NOT NULL,
    settled_at BIGINT
  );
  CREATE INDEX questions_pending ON questions (thread_id, created_at, ord) WHERE outcome IS NULL;
  CREATE INDEX questions_pending_all ON questions (created_at, ord) WHERE outcome IS NULL;

  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  CREATE TABLE thread_leases (
    thread_id TEXT PRIMARY KEY REFERENCES threads (id),
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    node TEXT,
    since BIGINT NOT NULL,
    generation BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
  );
  CREATE INDEX thread_leases_expiry ON thread_leases (expires_at);
  `,
  // 2: each turn's final diff (TurnRecord.diff), as SQLite's migration 4.
  `
  ALTER TABLE turns ADD COLUMN diff TEXT;
  `,
  // 3: the failover scan looks for running threads every second (ops.ts orphanedThreads).
  `
  CREATE INDEX threads_running ON threads (id) WHERE status = 'running';
  `,
  // 4: the cluster's event log (../../cluster/events.ts): SSE resume (Last-Event-ID) on any
  // node. \`seq\` is the cluster-wide event id; \`stamped\` the event as delivered, JSON.
  `
  CREATE TABLE events (
    seq BIGSERIAL PRIMARY KEY,
    thread_id TEXT,
    also TEXT[],
    at BIGINT NOT NULL,
    stamped TEXT NOT NULL
  );
  CREATE INDEX events_by_thread ON events (thread_id, seq);
  CREATE INDEX events_by_time ON events (at);
  `,
  // 5: full-text search (../search.ts), as SQLite's migration 5: titles through an expression
  // index, user/assistant message text in thread_text (kept by a trigger in the appending
  // statement, filled from what is stored). Words are letters and digits: the rest is blanked
  // before parsing, so both stores split text the same way.
  `
  CREATE FUNCTION tandem_search_words(t TEXT) RETURNS tsvector LANGUAGE sql IMMUTABLE AS
    $$ SELECT to_tsvector('simple', regexp_replace(t, '[^[:alnum:]]+', ' ', 'g')) $$;
  CREATE INDEX threads_title_search ON threads USING GIN (tandem_search_words(title));

  CREATE TABLE thread_text (
    ord BIGSERIAL,
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    words tsvector NOT NULL,
    PRIMARY KEY (thread_id, seq)
  );
  CREATE INDEX thread_text_search ON thread_text USING GIN (words);
  CREATE INDEX thread_text_recent ON thread_text (ord);
  CREATE FUNCTION tandem_message_text(j TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN m.body IS NULL OR m.body LIKE '<environment_context>%'
      OR m.body LIKE '# AGENTS.md instructions%' THEN NULL ELSE m.body END
    FROM (SELECT string_agg(c ->> 'text', ' ') AS body
      FROM jsonb_array_elements(CASE WHEN j::jsonb ->> 'role' IN ('user', 'assistant')
        THEN j::jsonb -> 'content' ELSE '[]'::jsonb END) c
      WHERE c ->> 'type' IN ('input_text', 'output_text')) m
  $$;
  INSERT INTO thread_text (thread_id, seq, body, words)
    SELECT thread_id, seq, b, tandem_search_words(b)
    FROM (SELECT thread_id, seq, created_at, tandem_message_text(json) AS b FROM items WHERE type = 'message') x
    WHERE b IS NOT NULL ORDER BY created_at, thread_id, seq;
  CREATE FUNCTION tandem_index_message() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE b TEXT := tandem_message_text(NEW.json);
    BEGIN
      IF b IS NOT NULL THEN
        INSERT INTO thread_text (thread_id, seq, body, words)
          VALUES (NEW.thread_id, NEW.seq, b, tandem_search_words(b));
      END IF;
      RETURN NULL;
    END
  $$;
  CREATE TRIGGER items_search AFTER INSERT ON items FOR EACH ROW WHEN (NEW.type = 'message')
    EXECUTE FUNCTION tandem_index_message();
  `,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;
