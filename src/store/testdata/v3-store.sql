-- A schema-version-3 Tandem store (before turns.diff), dumped with sqlite3 .dump from a store
-- the SQLite store of that version wrote: one thread, one item, a completed and a failed turn.
-- Used by sqlite/store.test.ts to check migration 4 keeps every row. Do not edit.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    parent_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    cwd TEXT NOT NULL,
    model TEXT NOT NULL,
    mode TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    settings TEXT NOT NULL
  , usage TEXT);
INSERT INTO threads VALUES('thr_v3','thr_v3',NULL,1000,1796065633865,'/work','gpt-test','default','a v3 thread','failed','{}',NULL);
CREATE TABLE items (
    thread_id TEXT NOT NULL REFERENCES threads (id),
    seq INTEGER NOT NULL,
    turn_id TEXT,
    type TEXT NOT NULL,
    call_id TEXT,
    json TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (thread_id, seq)
  );
INSERT INTO items VALUES('thr_v3',1,'turn_a','message',NULL,'{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}',1796065633865);
CREATE TABLE turns (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id),
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    status TEXT NOT NULL,
    usage TEXT,
    error TEXT
  );
INSERT INTO turns VALUES('turn_a','thr_v3',1000,1500,'completed','{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":15}',NULL);
INSERT INTO turns VALUES('turn_b','thr_v3',1600,2000,'failed',NULL,'model said no');
CREATE TABLE questions (
    request_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id),
    turn_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    request TEXT NOT NULL,
    outcome TEXT,
    created_at INTEGER NOT NULL,
    settled_at INTEGER
  );
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE thread_leases (
    thread_id TEXT PRIMARY KEY REFERENCES threads (id),
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since INTEGER NOT NULL
  );
CREATE INDEX threads_by_updated ON threads (updated_at DESC);
CREATE TRIGGER items_touch_thread AFTER INSERT ON items BEGIN
    UPDATE threads SET updated_at = MAX(updated_at, NEW.created_at) WHERE id = NEW.thread_id;
  END;
CREATE INDEX turns_by_thread ON turns (thread_id, started_at);
CREATE INDEX questions_pending ON questions (thread_id, created_at) WHERE outcome IS NULL;
CREATE INDEX questions_pending_all ON questions (created_at) WHERE outcome IS NULL;
PRAGMA user_version = 3;
COMMIT;
