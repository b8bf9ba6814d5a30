/**
 * What only the SQLite store does (files, modes, pragmas, schema refusal, :memory:). The shared
 * behaviour of every store is the contract suite (../contract.suite.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../../protocol/items.js";
import { defaultStorePath, openStore, SCHEMA_VERSION, type Store, StoreError, tandemHome } from "../index.js";
import type { ThreadRecord } from "../types.js";

let dir: string;
let dbPath: string;
const open: Store[] = [];

function store(path = dbPath): Store {
  const s = openStore(path);
  open.push(s);
  return s;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tandem-store-"));
  dbPath = join(dir, "nested", "home", "state.db");
});

afterEach(() => {
  for (const s of open.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function thread(id: string, over: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    id,
    session_id: id,
    parent_id: null,
    created_at: 1000,
    updated_at: 1000,
    cwd: "/work",
    model: "gpt-test",
    mode: "default",
    title: `thread ${id}`,
    status: "idle",
    settings: { effort: "high", nested: { policies: ["a", "b"] } },
    ...over,
  };
}

const msg = (text: string): ResponseItem => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});

describe("paths", () => {
  it("uses $TANDEM_HOME, else ~/.tandem", () => {
    const saved = process.env.TANDEM_HOME;
    try {
      process.env.TANDEM_HOME = "/tmp/th";
      expect(tandemHome()).toBe("/tmp/th");
      expect(defaultStorePath()).toBe("/tmp/th/state.db");
      process.env.TANDEM_HOME = "";
      expect(tandemHome()).toBe(join(homedir(), ".tandem"));
      expect(defaultStorePath("/x")).toBe("/x/state.db");
    } finally {
      if (saved === undefined) delete process.env.TANDEM_HOME;
      else process.env.TANDEM_HOME = saved;
    }
  });
});

describe("openStore", () => {
  it("creates private dirs and file, WAL, foreign keys and the current schema version", () => {
    store();
    expect(statSync(join(dir, "nested")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "nested", "home")).mode & 0o777).toBe(0o700);
    expect(statSync(dbPath).mode & 0o777).toBe(0o600);
    const db = new Database(dbPath);
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      // The search indexes (migration 5) are FTS5 tables, each with its shadow tables.
      const fts = (t: string, ...own: string[]) => [t, ...own.map((o) => `${t}_${o}`)];
      expect(tables).toEqual([
        "items",
        "meta",
        "questions",
        "thread_leases",
        ...fts("thread_text", "config", "content", "data", "docsize", "idx"),
        ...fts("thread_titles", "config", "data", "docsize", "idx"),
        "threads",
        "turns",
      ]);
    } finally {
      db.close();
    }
  });

  it("refuses a file written by a newer schema", () => {
    store().close();
    const db = new Database(dbPath);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    let caught: unknown;
    try {
      openStore(dbPath);
    } catch (e) {
      caught = e;
    }
    expect(StoreError.isInstance(caught) && caught.code).toBe("schema");
    expect(String(caught)).toMatch(/upgrade Tandem/);
  });

  // Fails if migration 4 (turns.diff) is missing or loses a v3 file's rows, if migration 5 does
  // not index the rows already stored, or if user_version
  // is not moved on: a store written by the previous Tandem opens with everything in it.
  it("migrates a schema-3 file: every row kept, turns gain an empty diff column", () => {
    mkdirSync(dirname(dbPath), { recursive: true });
    const v3 = new Database(dbPath);
    v3.exec(readFileSync(new URL("../testdata/v3-store.sql", import.meta.url), "utf8"));
    expect(v3.pragma("user_version", { simple: true })).toBe(3);
    v3.close();

    const s = store();
    expect(s.getThread("thr_v3")).toMatchObject({ title: "a v3 thread", status: "failed" });
    expect(s.loadItems("thr_v3").map((r) => r.turn_id)).toEqual(["turn_a"]);
    const turns = s.listTurns("thr_v3");
    expect(turns.map((t) => [t.id, t.status, t.error, t.usage?.total_tokens, t.diff])).toEqual([
      ["turn_a", "completed", null, 15, undefined],
      ["turn_b", "failed", "model said no", undefined, undefined],
    ]);
    // Migration 5 indexes what was stored before it: the title and the user's message.
    expect(s.searchThreads("hello").map((h) => [h.thread.id, h.snippet])).toEqual([["thr_v3", "hello"]]);
    expect(s.searchThreads("v3 thread").map((h) => h.thread.id)).toEqual(["thr_v3"]);
    s.updateTurn("turn_b", { diff: "+x\n" });
    expect(s.listTurns("thr_v3")[1].diff).toBe("+x\n");
    s.close();
    const db = new Database(dbPath);
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      db.close();
    }
  });

  it("supports :memory: and an idempotent close", () => {
    const s = openStore(":memory:");
    s.createThread(thread("m"));
    expect(s.appendItem("m", null, msg("hi"))).toBe(1);
    s.close();
    s.close();
  });
});
