/** Token totals in the SQLite store: `addUsage`, reads, and the migration that backfills them. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { threadRecord as record } from "../../test/helpers/store-records.js";
import type { Usage } from "../protocol/events.js";
import { openStore, SCHEMA_VERSION, StoreError } from "./index.js";

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-usage-"));
  path = join(dir, "state.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const u = (input: number, output: number): Usage => ({
  input_tokens: input,
  cached_input_tokens: 1,
  output_tokens: output,
  reasoning_output_tokens: 0,
  total_tokens: input + output,
});
const turn = (id: string, thread: string) => ({
  id,
  thread_id: thread,
  started_at: 1,
  ended_at: null,
  status: "running" as const,
  usage: null,
  error: null,
});

describe("thread token totals", () => {
  it("addUsage sums into the thread and the turn, and every read returns the total", () => {
    const s = openStore(path);
    s.createThread(record("t1"));
    s.putTurn(turn("u1", "t1"));
    // fails if a thread starts with a usage before any response
    expect(s.getThread("t1")?.usage).toBeUndefined();
    s.addUsage("t1", "u1", u(10, 2));
    // fails if addUsage replaces instead of adding
    expect(s.addUsage("t1", "u1", u(5, 1))).toMatchObject({ input_tokens: 15, total_tokens: 18 });
    expect(s.getThread("t1")?.usage).toMatchObject({ total_tokens: 18, cached_input_tokens: 2 });
    expect(s.listThreads()[0].usage).toMatchObject({ total_tokens: 18 });
    expect(s.listTurns("t1")[0].usage).toMatchObject({ total_tokens: 18 });
    // fails if updateThread writes the usage column (a stale record would roll the total back)
    s.updateThread("t1", { ...record("t1"), usage: u(0, 0) });
    expect(s.getThread("t1")?.usage?.total_tokens).toBe(18);
    // fails if a turn of another thread is charged
    s.createThread(record("t2"));
    s.addUsage("t2", "u1", u(1, 1));
    expect(s.listTurns("t1")[0].usage?.total_tokens).toBe(18);
    s.close();
    // fails if the total is not stored (read back by a new connection)
    const again = openStore(path);
    expect(again.getThread("t1")?.usage?.total_tokens).toBe(18);
    again.close();
  });

  it("an unknown thread is not_found", () => {
    const s = openStore(path);
    let err: unknown;
    try {
      s.addUsage("nope", null, u(1, 1));
    } catch (e) {
      err = e;
    }
    // fails if usage of an unknown thread is silently dropped
    expect(StoreError.isInstance(err) && err.code).toBe("not_found");
    s.close();
  });

  it("a store from before the usage column gets its totals from its turns", () => {
    const s = openStore(path);
    s.createThread(record("old"));
    s.createThread(record("none"));
    s.putTurn({ ...turn("a", "old"), usage: u(10, 1) });
    s.putTurn({ ...turn("b", "old"), usage: u(20, 2) });
    s.putTurn(turn("c", "old"));
    s.close();
    const db = new Database(path);
    // A schema-2 file has neither the usage column nor turns.diff (migration 4).
    db.exec("ALTER TABLE threads DROP COLUMN usage; ALTER TABLE turns DROP COLUMN diff");
    db.pragma("user_version = 2");
    db.close();
    const migrated = openStore(path);
    // fails if the migration does not backfill the thread totals from the turns
    expect(migrated.getThread("old")?.usage).toEqual({
      input_tokens: 30,
      cached_input_tokens: 2,
      output_tokens: 3,
      reasoning_output_tokens: 0,
      total_tokens: 33,
    });
    expect(migrated.getThread("none")?.usage).toBeUndefined();
    expect(SCHEMA_VERSION).toBe(5);
    migrated.close();
  });
});
