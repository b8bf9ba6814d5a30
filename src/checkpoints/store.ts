/**
 * The checkpoint store of one workspace: a SQLite file of Tandem's own under
 * `$TANDEM_HOME/checkpoints/` (never the user's `.git`, index, stash or branches).
 *
 * - `blobs`: file contents by SHA-256, deflated; shared by every state that has that content.
 * - `files`: the workspace as last seen (the baseline): per path its kind (`file`, `link`, or
 *   `big`/`withheld` stored without content), content hash, mode and the
 *   stat fields that tell, on the next scan, whether it may have changed.
 * - `checkpoints` + `changes`: per turn of a thread, each path the turn changed with its state
 *   before the turn first touched it and after its last change — what undo restores and redo
 *   re-applies. A checkpoint is the workspace just before its turn: the baseline then, which
 *   is the current baseline with every later turn's changes taken back.
 *
 * Contract: synchronous (better-sqlite3); several processes may share the file (WAL,
 * busy_timeout). Throws only for a file that cannot be opened (the caller then works without
 * checkpoints). Stored paths are workspace-relative, `/`-separated.
 */
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import Database from "better-sqlite3";

/**
 * `big`: over the size limit; `withheld`: holds a secret value Tandem knows. Both are tracked by
 * stat only, stored without content: never diffed, never restorable.
 */
export type EntryKind = "file" | "link" | "big" | "withheld";

/** A path's state: absent (null) or this. `hash` is null for `big` and `withheld`. */
export interface FileState {
  kind: EntryKind;
  hash: string | null;
  mode: number;
}

export interface FileRow extends FileState {
  path: string;
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
}

export interface CheckpointRow {
  id: number;
  thread_id: string;
  turn_id: string;
  created_at: number;
  /** `live`: applied; `undone`: its changes are taken back (redo re-applies them). */
  state: "live" | "undone";
}

export interface ChangeRow {
  path: string;
  before: FileState | null;
  after: FileState | null;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, dir TEXT NOT NULL, kind TEXT NOT NULL, hash TEXT, mode INTEGER NOT NULL,
    size INTEGER NOT NULL, mtime REAL NOT NULL, ctime REAL NOT NULL, ino INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS files_by_dir ON files (dir);
  CREATE TABLE IF NOT EXISTS checkpoints (
    id INTEGER PRIMARY KEY, thread_id TEXT NOT NULL, turn_id TEXT NOT NULL,
    created_at INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'live', UNIQUE (thread_id, turn_id)
  );
  CREATE TABLE IF NOT EXISTS changes (
    checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE, path TEXT NOT NULL,
    before_kind TEXT, before_hash TEXT, before_mode INTEGER,
    after_kind TEXT, after_hash TEXT, after_mode INTEGER,
    PRIMARY KEY (checkpoint_id, path)
  );
`;

/** The longest a workspace goes without a blob sweep when it opens (`prune` with `ifDue`). */
export const SWEEP_EVERY_MS = 86_400_000;

/** A baseline row's path and stat: `[path, size, mtime, ctime, ino]` (`statsIn`). */
export type StatTuple = [path: string, size: number, mtime: number, ctime: number, ino: number];

export const hashOf = (data: Buffer): string => createHash("sha256").update(data).digest("hex");

const dirOf = (path: string) => {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
};

const stateOf = (kind: string | null, hash: string | null, mode: number | null): FileState | null =>
  kind === null ? null : { kind: kind as EntryKind, hash, mode: mode ?? 0o644 };

export class CheckpointStore {
  private readonly db: Database.Database;
  private readonly q: ReturnType<typeof prepare>;

  constructor(readonly path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("synchronous = NORMAL");
    this.db.pragma("foreign_keys = ON");
    // better-sqlite3's default page cache is 16 MiB per connection; a scan streams the whole
    // baseline through it once, so a small one costs no time and keeps the process lean.
    this.db.pragma("cache_size = -2048");
    this.db.exec(SCHEMA);
    this.q = prepare(this.db);
  }

  /** Runs `fn` in one transaction (a scan's many writes commit together). */
  batch<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  getMeta(key: string): string | undefined {
    return (this.q.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.q.setMeta.run(key, value);
  }

  /** Bytes of blobs stored since the last `prune` (compressed), for the owner's bound. */
  addedBytes = 0;

  /** Stores `data` (once per content) and returns its hash. */
  putBlob(data: Buffer): string {
    const hash = hashOf(data);
    if (!this.q.hasBlob.get(hash)) {
      const packed = deflateRawSync(data, { level: 1 });
      this.q.putBlob.run(hash, data.length, packed);
      this.addedBytes += packed.length;
    }
    return hash;
  }

  getBlob(hash: string): Buffer | undefined {
    const row = this.q.getBlob.get(hash) as { data: Buffer } | undefined;
    return row ? inflateRawSync(row.data) : undefined;
  }

  file(path: string): FileRow | undefined {
    return this.q.file.get(path) as FileRow | undefined;
  }

  /** The baseline rows of one directory's direct entries. */
  filesIn(dir: string): FileRow[] {
    return this.q.filesIn.all(dir) as FileRow[];
  }

  /**
   * The stat part of one directory's baseline rows, as `[path, size, mtime, ctime, ino]` tuples:
   * what a scan compares each entry with (the full row is read only for an entry that moved).
   */
  statsIn(dir: string): StatTuple[] {
    return this.q.statsIn.all(dir) as StatTuple[];
  }

  /** Paths of baseline rows at or below `path` (a directory that went away). */
  pathsUnder(path: string): string[] {
    return (this.q.under.all(path, `${path}/`, `${path}0`) as { path: string }[]).map((r) => r.path);
  }

  /** Directories (`dir` values) with baseline rows at or below `dir` ("" for all). */
  dirsUnder(dir: string): string[] {
    const rows = (dir === "" ? this.q.allDirs.all() : this.q.dirsUnder.all(dir, `${dir}/`, `${dir}0`)) as {
      dir: string;
    }[];
    return rows.map((r) => r.dir);
  }

  countFiles(): number {
    return (this.q.count.get() as { n: number }).n;
  }

  putFile(row: FileRow): void {
    this.q.putFile.run(
      row.path,
      dirOf(row.path),
      row.kind,
      row.hash,
      row.mode,
      row.size,
      row.mtime,
      row.ctime,
      row.ino,
    );
  }

  deleteFile(path: string): void {
    this.q.deleteFile.run(path);
  }

  /** The checkpoint of `turnId`, made on first use. */
  checkpoint(threadId: string, turnId: string, now = Date.now()): CheckpointRow {
    this.q.putCheckpoint.run(threadId, turnId, now);
    return this.q.checkpointOf.get(threadId, turnId) as CheckpointRow;
  }

  checkpointById(id: number): CheckpointRow | undefined {
    return this.q.checkpointById.get(id) as CheckpointRow | undefined;
  }

  /** A thread's checkpoints, oldest first. */
  checkpoints(threadId: string): CheckpointRow[] {
    return this.q.checkpoints.all(threadId) as CheckpointRow[];
  }

  setCheckpointState(id: number, state: CheckpointRow["state"]): void {
    this.q.setState.run(state, id);
  }

  /** Gives a checkpoint to another thread's turn (a rewind hands later turns to the branch). */
  moveCheckpoint(id: number, threadId: string, turnId: string): void {
    this.q.moveCheckpoint.run(threadId, turnId, id);
  }

  /**
   * Records that the checkpoint's turn moved `path` from `before` to `after`: the first record
   * of a path keeps its `before`; later ones only move `after`.
   */
  recordChange(checkpointId: number, path: string, before: FileState | null, after: FileState | null): void {
    const b = before ?? { kind: null, hash: null, mode: null };
    const a = after ?? { kind: null, hash: null, mode: null };
    this.q.recordChange.run(checkpointId, path, b.kind, b.hash, b.mode, a.kind, a.hash, a.mode);
  }

  changes(checkpointId: number): ChangeRow[] {
    const rows = this.q.changes.all(checkpointId) as Array<Record<string, string | number | null>>;
    return rows.map((r) => ({
      path: r.path as string,
      before: stateOf(
        r.before_kind as string | null,
        r.before_hash as string | null,
        r.before_mode as number | null,
      ),
      after: stateOf(
        r.after_kind as string | null,
        r.after_hash as string | null,
        r.after_mode as number | null,
      ),
    }));
  }

  /**
   * Deletes checkpoints created before `olderThan`, then every blob no baseline row or change
   * refers to (contents overwritten before any checkpoint kept them), then, oldest first, more
   * checkpoints until the blobs only checkpoints keep (not the baseline's: those mirror the
   * workspace) take at most `maxBytes`.
   *
   * The blob sweep reads every baseline row and blob (~0.5 s for 100,000 files). With `ifDue`
   * (a workspace opening) it runs only when checkpoints were just deleted, when no sweep ran for
   * `SWEEP_EVERY_MS`, or when processes that closed since the last sweep stored a quarter of
   * `maxBytes` anew (`close` adds what this process stored to the meta `unswept_bytes`); a
   * process that stores that much itself prunes while it runs (the workspace's bound).
   */
  prune(opts: { olderThan: number; maxBytes: number; ifDue?: boolean }): {
    checkpoints: number;
    blobs: number;
  } {
    return this.batch(() => {
      let removed = this.q.pruneOld.run(opts.olderThan).changes;
      const now = Date.now();
      if (opts.ifDue && removed === 0) {
        const swept = Number(this.getMeta("swept_at") ?? 0);
        const unswept = Number(this.getMeta("unswept_bytes") ?? 0);
        if (now - swept >= 0 && now - swept < SWEEP_EVERY_MS && unswept < opts.maxBytes / 4)
          return { checkpoints: 0, blobs: 0 };
      }
      let blobs = this.q.gc.run().changes;
      const size = () => (this.q.historyBytes.get() as { n: number | null }).n ?? 0;
      while (size() > opts.maxBytes) {
        const oldest = this.q.oldest.get() as { id: number } | undefined;
        if (!oldest) break;
        this.q.deleteCheckpoint.run(oldest.id);
        removed++;
        blobs += this.q.gc.run().changes;
      }
      this.addedBytes = 0;
      this.setMeta("swept_at", String(now));
      this.setMeta("unswept_bytes", "0");
      return { checkpoints: removed, blobs };
    });
  }

  /** Closes the database; what this process stored since its last prune counts for the next sweep. */
  close(): void {
    if (!this.db.open) return;
    try {
      if (this.addedBytes > 0)
        this.setMeta("unswept_bytes", String(Number(this.getMeta("unswept_bytes") ?? 0) + this.addedBytes));
    } catch {
      // read-only or busy: the daily sweep still comes
    }
    this.db.close();
  }
}

function prepare(db: Database.Database) {
  return {
    getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
    setMeta: db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ),
    hasBlob: db.prepare("SELECT 1 FROM blobs WHERE hash = ?"),
    putBlob: db.prepare("INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)"),
    getBlob: db.prepare("SELECT data FROM blobs WHERE hash = ?"),
    file: db.prepare("SELECT * FROM files WHERE path = ?"),
    filesIn: db.prepare("SELECT * FROM files WHERE dir = ?"),
    statsIn: db.prepare("SELECT path, size, mtime, ctime, ino FROM files WHERE dir = ?").raw(),
    under: db.prepare("SELECT path FROM files WHERE path = ? OR (path >= ? AND path < ?)"),
    allDirs: db.prepare("SELECT DISTINCT dir FROM files"),
    dirsUnder: db.prepare("SELECT DISTINCT dir FROM files WHERE dir = ? OR (dir >= ? AND dir < ?)"),
    count: db.prepare("SELECT count(*) AS n FROM files"),
    putFile: db.prepare(
      `INSERT INTO files (path, dir, kind, hash, mode, size, mtime, ctime, ino) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, hash = excluded.hash, mode = excluded.mode,
       size = excluded.size, mtime = excluded.mtime, ctime = excluded.ctime, ino = excluded.ino`,
    ),
    deleteFile: db.prepare("DELETE FROM files WHERE path = ?"),
    putCheckpoint: db.prepare(
      "INSERT OR IGNORE INTO checkpoints (thread_id, turn_id, created_at) VALUES (?, ?, ?)",
    ),
    checkpointOf: db.prepare("SELECT * FROM checkpoints WHERE thread_id = ? AND turn_id = ?"),
    checkpointById: db.prepare("SELECT * FROM checkpoints WHERE id = ?"),
    checkpoints: db.prepare("SELECT * FROM checkpoints WHERE thread_id = ? ORDER BY id"),
    setState: db.prepare("UPDATE checkpoints SET state = ? WHERE id = ?"),
    moveCheckpoint: db.prepare("UPDATE checkpoints SET thread_id = ?, turn_id = ? WHERE id = ?"),
    recordChange: db.prepare(
      `INSERT INTO changes (checkpoint_id, path, before_kind, before_hash, before_mode, after_kind, after_hash, after_mode)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (checkpoint_id, path) DO UPDATE SET after_kind = excluded.after_kind,
       after_hash = excluded.after_hash, after_mode = excluded.after_mode`,
    ),
    changes: db.prepare("SELECT * FROM changes WHERE checkpoint_id = ? ORDER BY path"),
    pruneOld: db.prepare("DELETE FROM checkpoints WHERE created_at < ?"),
    oldest: db.prepare("SELECT id FROM checkpoints ORDER BY id LIMIT 1"),
    deleteCheckpoint: db.prepare("DELETE FROM checkpoints WHERE id = ?"),
    historyBytes: db.prepare(
      "SELECT sum(length(data)) AS n FROM blobs WHERE hash NOT IN (SELECT hash FROM files WHERE hash IS NOT NULL)",
    ),
    gc: db.prepare(
      `DELETE FROM blobs WHERE hash NOT IN (SELECT hash FROM files WHERE hash IS NOT NULL)
       AND hash NOT IN (SELECT before_hash FROM changes WHERE before_hash IS NOT NULL)
       AND hash NOT IN (SELECT after_hash FROM changes WHERE after_hash IS NOT NULL)`,
    ),
  };
}
