/** Every regular file under `home`, relative: the store and the checkpoint stores too. */
export function homeFiles(home: string): string[] {
  return readdirSync(home, { recursive: true, encoding: "utf8" }).filter((f) =>
    statSync(join(home, f)).isFile(),
  );
}

/**
 * What Tandem's checkpoint stores under a home hold, decoded: every blob of every
 * `checkpoints/*.db` inflated, so a test can look for a value that compression would hide.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import Database from "better-sqlite3";

export function checkpointBlobs(home: string): Buffer[] {
  const dir = join(home, "checkpoints");
  if (!existsSync(dir)) return [];
  const out: Buffer[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".db"))) {
    const db = new Database(join(dir, f), { readonly: true });
    try {
      for (const r of db.prepare("SELECT data FROM blobs").all() as { data: Buffer }[])
        out.push(inflateRawSync(r.data));
    } finally {
      db.close();
    }
  }
  return out;
}
