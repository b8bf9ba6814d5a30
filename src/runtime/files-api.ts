/**
 * `runtime.files`: the workspace's file list for `@` mentions (TUI, web composer) and app-server
 * `fuzzyFileSearch` (README "Mention files: `@`"). One index per workspace root, built on first
 * use and kept current by file-system events (checkpoints/file-index.ts); closed at shutdown.
 *
 * Contract: `search` resolves with the best matches, relative to `root`; a root that is not an
 * existing directory resolves with none. Never throws for the disk's contents.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { FileIndex, type FileMatch } from "../checkpoints/file-index.js";

export type { FileMatch } from "../checkpoints/file-index.js";

/** Most indexes held at once (one per workspace); the least recently used goes first. */
const MAX_INDEXES = 8;

export class FilesApi {
  readonly #indexes = new Map<string, FileIndex>();

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
    try {
      if (!statSync(root).isDirectory()) return undefined;
    } catch {
      return undefined;
    }
    index = new FileIndex(root);
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
