/**
 * The store read without a live runtime, for one-shot commands (`tandem threads`, `tandem export`,
 * `tandem rules`): the store the configuration names (`store.url`, else `$TANDEM_HOME/state.db`),
 * opened, read and closed. Nothing here drives a thread (no lease is taken); the only writes are
 * the approval rules' (approvals.ts).
 *
 * Contract: `openCatalog` throws what loading the configuration or opening the store throws
 * (ConfigError, StoreError); every method after `close()` throws.
 */
import { join } from "node:path";
import { loadConfig } from "../config/load.js";
import type { StoredItem, ThreadRecord, TurnRecord } from "../protocol/threads.js";
import { openStore } from "../store/index.js";
import { rulesProject, setStoredRules, storedRules } from "./approvals.js";
import { resolveThreadRef, type ThreadRef } from "./thread-ref.js";

export interface Catalog {
  /** Stored threads, most recently updated first. */
  list(opts?: { limit?: number }): ThreadRecord[];
  history(threadId: string): StoredItem[];
  turns(threadId: string): TurnRecord[];
  /** The thread's latest turn (`turns(threadId).at(-1)`). */
  lastTurn(threadId: string): TurnRecord | undefined;
  /** How many questions are stored as pending for the thread. */
  pendingCount(threadId: string): number;
  /** The one thread `ref` names (thread-ref.ts). */
  resolve(ref: string): ThreadRef;
  /** The project whose remembered approval rules apply in `cwd`, and those rules. */
  project(cwd: string): string;
  rules(cwd: string): string[][];
  setRules(cwd: string, rules: string[][]): void;
  close(): void;
}

/** Opens the configured store; each configuration warning goes to `opts.warn` first. */
export function openCatalog(opts: { overrides?: string[]; warn?: (warning: string) => void } = {}): Catalog {
  const { home, settings, warnings } = loadConfig({ overrides: opts.overrides ?? [] });
  for (const w of warnings) opts.warn?.(w);
  const store = openStore(settings.store?.url ?? join(home, "state.db"));
  return {
    list: (o) => store.listThreads(o),
    history: (id) => store.loadItems(id),
    turns: (id) => store.listTurns(id),
    lastTurn: (id) => store.lastTurn(id),
    pendingCount: (id) => store.pendingQuestions(id).length,
    resolve: (ref) => resolveThreadRef(store, ref),
    project: (cwd) => rulesProject(cwd),
    rules: (cwd) => storedRules(store, cwd),
    setRules: (cwd, rules) => setStoredRules(store, cwd, rules),
    close: () => store.close(),
  };
}
