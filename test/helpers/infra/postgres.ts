/**
 * A throwaway PostgreSQL server for tests: initdb in a temp dir, `postgres` on a random port
 * with its unix socket in that dir, trust auth, stopped and removed by `stop()`.
 *
 * Contract: `startPostgres()` resolves once the server accepts connections and returns its URL
 * (`postgres://postgres@127.0.0.1:PORT/postgres`). postgres refuses to run as root, so when we
 * are root the data dir is chowned to the `postgres` user and the binaries run as that user
 * (setpriv). `createDatabase(name)` gives each test its own database. Binaries are found under
 * /usr/lib/postgresql/<version>/bin (Debian's layout; they are not on PATH).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The newest Debian postgres bin dir, or undefined. */
export function postgresBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "postgres")) && existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], "bin");
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface TestPostgres {
  url: string;
  port: number;
  /** A URL for a fresh, empty database. */
  createDatabase(name: string): string;
  stop(): Promise<void>;
}

function asPostgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const r = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const g = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (r.status !== 0 || g.status !== 0) throw new Error("running as root needs a `postgres` user");
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("postgres is not installed (apt-get install postgresql)");
  const dir = mkdtempSync(join(tmpdir(), "tandem-pg-"));
  const data = join(dir, "data");
  const user = asPostgresUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const opts = { uid: user?.uid, gid: user?.gid, encoding: "utf8" as const };
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
    opts,
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const proc: ChildProcess = spawn(
    join(bin, "postgres"),
    [
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-h",
      "127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "max_connections=200",
    ],
    { uid: user?.uid, gid: user?.gid, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  proc.stderr?.on("data", (d) => {
    log += d;
  });
  const isReady = join(bin, "pg_isready");
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`postgres exited: ${log}`);
    if (spawnSync(isReady, ["-h", "127.0.0.1", "-p", String(port), "-q"]).status === 0) break;
    if (Date.now() > deadline) throw new Error(`postgres did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    createDatabase(name) {
      const r = spawnSync(
        join(bin, "createdb"),
        ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name],
        {
          encoding: "utf8",
        },
      );
      if (r.status !== 0) throw new Error(`createdb ${name}: ${r.stderr}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGINT"); // fast shutdown
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (proc.exitCode === null) proc.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
