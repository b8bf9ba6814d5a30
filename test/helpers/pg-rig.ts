/**
 * A PostgreSQL server for one test file (test/helpers/infra/postgres.ts), with the stores and
 * admin clients a test opens closed after it. Call `pgRig()` in a `describe`: it registers the
 * hooks and returns `db(prefix)` (a fresh, empty database's URL), `store(url, node)` (the Tandem
 * store on it, lease TTL 60 s unless given) and `admin(url)` (a connected `pg` client). `sql`
 * runs one statement on a database over a connection of its own.
 */
import pgClient from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { openStore } from "../../src/store/index.js";
import type { Store } from "../../src/store/types.js";
import { startPostgres, type TestPostgres } from "./infra/postgres.js";

export interface PgRig {
  db(prefix: string): string;
  store(url: string, node?: string, opts?: { leaseTtlMs?: number }): Store;
  admin(url: string): Promise<pgClient.Client>;
}

export function pgRig(): PgRig {
  let pg: TestPostgres | undefined;
  let n = 0;
  const open: Store[] = [];
  const clients: pgClient.Client[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());
  afterEach(async () => {
    for (const s of open.splice(0)) s.close();
    for (const c of clients.splice(0)) await c.end().catch(() => {});
  });
  return {
    db: (prefix) => pg!.createDatabase(`${prefix}_${++n}`),
    store(url, node = "node-a", opts = {}) {
      const s = openStore(url, { node, leaseTtlMs: opts.leaseTtlMs ?? 60_000 });
      open.push(s);
      return s;
    },
    async admin(url) {
      const c = new pgClient.Client({ connectionString: url });
      await c.connect();
      clients.push(c);
      return c;
    },
  };
}

/** One statement on `db` over a connection of its own, closed after; the rows. */
export async function sql<T = any>(db: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pgClient.Client({ connectionString: db });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}
