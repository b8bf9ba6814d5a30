/**
 * The SQLite schema (./store.ts): migrations applied in order, `PRAGMA user_version` = number
 * applied. Append only: never edit a shipped entry, add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
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
  );
  CREATE INDEX threads_by_updated ON threads (updated_at DESC);

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
  CREATE TRIGGER items_touch_thread AFTER INSERT ON items BEGIN
    UPDATE threads SET updated_at = MAX(updated_at, NEW.created_at) WHERE id = NEW.thread_id;
  END;

  CREATE TABLE turns (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL REFERENCES threads (id),
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    status TEXT NOT NULL,
    usage TEXT,
    error TEXT
  );
  CREATE INDEX turns_by_thread ON turns (thread_id, started_at);

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
  CREATE INDEX questions_pending ON questions (thread_id, created_at) WHERE outcome IS NULL;
  CREATE INDEX questions_pending_all ON questions (created_at) WHERE outcome IS NULL;

  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  // 2: one driving process per thread (./lease.ts).
  `
  CREATE TABLE thread_leases (
    thread_id TEXT PRIMARY KEY REFERENCES threads (id),
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    since INTEGER NOT NULL
  );
  `,
  // 3: a thread's token totals (turns.usage already holds each turn's), backfilled from its turns.
  `
  ALTER TABLE threads ADD COLUMN usage TEXT;
  UPDATE threads SET usage = (
    SELECT json_object(
      'input_tokens', SUM(json_extract(t.usage, '$.input_tokens')),
      'cached_input_tokens', SUM(json_extract(t.usage, '$.cached_input_tokens')),
      'output_tokens', SUM(json_extract(t.usage, '$.output_tokens')),
      'reasoning_output_tokens', SUM(json_extract(t.usage, '$.reasoning_output_tokens')),
      'total_tokens', SUM(json_extract(t.usage, '$.total_tokens')))
    FROM turns t WHERE t.thread_id = threads.id AND t.usage IS NOT NULL)
  WHERE EXISTS (SELECT 1 FROM turns t WHERE t.thread_id = threads.id AND t.usage IS NOT NULL);
  `,
  // 4: each turn's final diff (TurnRecord.diff), so a reader after a reload shows it.
  `
  ALTER TABLE turns ADD COLUMN diff TEXT;
  `,
  // 5: full-text search (../search.ts): titles through an external-content index over threads,
  // user/assistant message text in its own index, both kept by triggers and filled from what
  // is already stored. Safe to run again (a file whose user_version was set back).
  `
  CREATE VIRTUAL TABLE IF NOT EXISTS thread_titles USING fts5(
    title, content = 'threads', content_rowid = 'rowid', tokenize = 'unicode61 remove_diacritics 0'
  );
  INSERT INTO thread_titles (thread_titles) VALUES ('rebuild');
  CREATE TRIGGER IF NOT EXISTS threads_title_insert AFTER INSERT ON threads BEGIN
    INSERT INTO thread_titles (rowid, title) VALUES (NEW.rowid, NEW.title);
  END;
  CREATE TRIGGER IF NOT EXISTS threads_title_update AFTER UPDATE OF title ON threads BEGIN
    INSERT INTO thread_titles (thread_titles, rowid, title) VALUES ('delete', OLD.rowid, OLD.title);
    INSERT INTO thread_titles (rowid, title) VALUES (NEW.rowid, NEW.title);
  END;

  CREATE VIRTUAL TABLE IF NOT EXISTS thread_text USING fts5(
    body, thread_id UNINDEXED, seq UNINDEXED, tokenize = 'unicode61 remove_diacritics 0'
  );
  CREATE VIEW IF NOT EXISTS searchable_messages AS
    SELECT thread_id, seq, body FROM (
      SELECT i.thread_id, i.seq, (
        SELECT group_concat(json_extract(c.value, '$.text'), ' ') FROM json_each(i.json, '$.content') c
        WHERE json_extract(c.value, '$.type') IN ('input_text', 'output_text')
      ) AS body
      FROM items i WHERE i.type = 'message' AND json_extract(i.json, '$.role') IN ('user', 'assistant')
    )
    WHERE body IS NOT NULL
      AND body NOT LIKE '<environment_context>%' AND body NOT LIKE '# AGENTS.md instructions%';
  DELETE FROM thread_text;
  INSERT INTO thread_text (body, thread_id, seq) SELECT body, thread_id, seq FROM searchable_messages;
  CREATE TRIGGER IF NOT EXISTS items_search AFTER INSERT ON items WHEN NEW.type = 'message' BEGIN
    INSERT INTO thread_text (body, thread_id, seq)
      SELECT body, thread_id, seq FROM searchable_messages WHERE thread_id = NEW.thread_id AND seq = NEW.seq;
  END;
  `,
];
