/**
 * `runtime.files`: the workspace's file list for `@` mentions (TUI, web composer) and app-server
 * `fuzzyFileSearch` (README "Mention files: `@`"). One index per workspace root, built on first
 * use and kept current by file-system events (checkpoints/file-index.ts); closed at shutdown.
 *
 * Contract: `search` resolves with the best matches, relative to `root`; a root that is not an
 * existing directory resolves with none. Never throws for the disk's contents. Tandem's home and
 * store (`hidden`, as hidden from sandboxed commands) are never listed: a root inside them (links
 * resolved) resolves with none, and a root holding them lists around them.
 */
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { FileIndex, type FileMatch } from "../checkpoints/file-index.js";

export type { FileMatch } from "../checkpoints/file-index.js";

/** Most indexes held at once (one per workspace); the least recently used goes first. */
const MAX_INDEXES = 8;

export class FilesApi {
  readonly #indexes = new Map<string, FileIndex>();
  readonly #hidden: string[];

  constructor(opts: { hidden?: readonly string[] } = {}) {
    this.#hidden = (opts.hidden ?? []).map(realOrSelf);
  }

  /** Fuzzy matches of `query` among the files under `root` (see the contract). */
  async search(
    root: string,
    query: string,
    opts: { limit?: number; hidden?: boolean } = {},
  ): Promise<FileMatch[]> {
    const index = this.#index(resolve(root));
    return index ? index.search(query, opts) : [];
  }

  /** Starts indexing `root` now, so the first `@` is fast; resolves when the list is built. */
  async warm(root: string): Promise<void> {
    await this.#index(resolve(root))?.ready();
  }

  #index(root: string): FileIndex | undefined {
    let index = this.#indexes.get(root);
    if (index) {
      this.#indexes.delete(root);
      this.#indexes.set(root, index);
      return index;
    }
    let real: string;
    try {
      if (!statSync(root).isDirectory()) return undefined;
      real = realpathSync(root);
    } catch {
      return undefined;
    }
    if (this.#hidden.some((h) => real === h || real.startsWith(`${h}/`))) return undefined;
    index = new FileIndex(root, { exclude: this.#hidden });
    this.#indexes.set(root, index);
    if (this.#indexes.size > MAX_INDEXES) {
      const [oldest, old] = this.#indexes.entries().next().value as [string, FileIndex];
      old.close();
      this.#indexes.delete(oldest);
    }
    return index;
  }

  /** Stops every index's watches (Runtime.shutdown). */
  close(): void {
    for (const i of this.#indexes.values()) i.close();
    this.#indexes.clear();
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
