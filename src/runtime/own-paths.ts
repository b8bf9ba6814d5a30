/**
 * Tandem's own state on disk, as the sandbox and apply_patch must treat it (README "What the
 * sandbox guarantees"): the home (`$TANDEM_HOME`: config.toml with its tokens, keys) and the
 * SQLite store with its -wal/-shm files. All paths absolute; a PostgreSQL store has no files.
 */
import { dirname, resolve } from "node:path";

/** The store's files (database, -wal, -shm), or none for an in-memory or PostgreSQL store. */
function storeFiles(storePath: string): string[] {
  if (storePath === ":memory:" || /^postgres(ql)?:\/\//.test(storePath)) return [];
  const db = resolve(storePath);
  return [db, `${db}-wal`, `${db}-shm`];
}

/** Never writable by commands or patches: the home, the store's files and their directory. */
export function protectedPathsFor(home: string | undefined, storePath: string): string[] {
  const files = storeFiles(storePath);
  const out = home ? [resolve(home)] : [];
  if (files.length) out.push(dirname(files[0]), ...files);
  return [...new Set(out)];
}

/**
 * Never visible to sandboxed commands (unless `sandbox_workspace_write.readable_home`): the home
 * and the store's files. Not the store's directory, which may be a workspace or /tmp.
 */
export function hiddenPathsFor(home: string | undefined, storePath: string): string[] {
  return [...new Set([...(home ? [resolve(home)] : []), ...storeFiles(storePath)])];
}
