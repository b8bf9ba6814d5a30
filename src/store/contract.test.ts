/**
 * The store contract suites (./contract.suite.ts, ./search.suite.ts) against both implementations: SQLite files in
 * a temp dir, and a real PostgreSQL server (test/helpers/infra/postgres.ts) with one fresh database per
 * test. PostgreSQL runs are skipped, with the reason, where postgres is not installed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { startPostgres, type TestPostgres } from "../../test/helpers/infra/postgres.js";
import { missing } from "../../test/helpers/system-tools.js";
import { storeContract } from "./contract.suite.js";
import { searchContract } from "./search.suite.js";

describe("SQLite store", () => {
  let dir: string;
  let n = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "tandem-contract-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  storeContract(() => join(dir, `s${++n}`, "state.db"));
  searchContract(() => join(dir, `s${++n}`, "state.db"));
});

describe.skipIf(missing("postgres").length > 0)("PostgreSQL store", () => {
  let pg: TestPostgres;
  let n = 0;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());
  storeContract(() => pg.createDatabase(`contract_${++n}`));
  searchContract(() => pg.createDatabase(`contract_${++n}`));
});
