/** The checkpoint store's pruning: when a workspace's opening sweeps blobs, and when it does not. */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CheckpointStore, SWEEP_EVERY_MS } from "./store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function file(): string {
  const d = mkdtempSync(join(tmpdir(), "tandem-cp-store-"));
  dirs.push(d);
  return join(d, "cp.db");
}
const MAX = 1 << 20;
const atOpen = { olderThan: 0, maxBytes: MAX, ifDue: true };
/** A blob nothing refers to: what an overwritten file's earlier content leaves behind. */
const orphan = (s: CheckpointStore, bytes = 64) => s.putBlob(randomBytes(bytes));

describe("CheckpointStore.prune", () => {
  it("sweeps unreferenced blobs at a workspace's first opening, then not again until due", () => {
    const s = new CheckpointStore(file());
    const first = orphan(s);
    expect(s.prune(atOpen).blobs).toBe(1); // never swept: due
    expect(s.getBlob(first)).toBeUndefined();

    // Fails if every opening sweeps again: the sweep reads the whole baseline.
    const second = orphan(s);
    expect(s.prune(atOpen)).toEqual({ checkpoints: 0, blobs: 0 });
    expect(s.getBlob(second)).toBeDefined();
    // A prune while running (the bound) always sweeps.
    expect(s.prune({ olderThan: 0, maxBytes: MAX }).blobs).toBe(1);
    s.close();
  });

  it("sweeps at opening once a day has passed since the last sweep", () => {
    const s = new CheckpointStore(file());
    s.prune(atOpen);
    const blob = orphan(s);
    s.setMeta("swept_at", String(Date.now() - SWEEP_EVERY_MS - 1));
    expect(s.prune(atOpen).blobs).toBe(1);
    expect(s.getBlob(blob)).toBeUndefined();
    // A clock set back (swept "in the future") counts as due too.
    orphan(s);
    s.setMeta("swept_at", String(Date.now() + SWEEP_EVERY_MS));
    expect(s.prune(atOpen).blobs).toBe(1);
    s.close();
  });

  it("sweeps at opening when processes closed since stored a quarter of the bound", () => {
    const path = file();
    let s = new CheckpointStore(path);
    s.prune(atOpen);
    orphan(s, 1000); // small: closing adds it, far under a quarter
    s.close();
    s = new CheckpointStore(path);
    expect(s.prune(atOpen).blobs).toBe(0);
    orphan(s, MAX / 4 + 1000); // random bytes do not compress
    s.close();
    s = new CheckpointStore(path);
    // Fails if what a closed process stored is forgotten: small sessions would then grow the
    // store for a day past the bound without a sweep.
    expect(s.prune(atOpen).blobs).toBe(2);
    expect(s.getMeta("unswept_bytes")).toBe("0");
    s.close();
  });

  it("sweeps at opening when old checkpoints were deleted, dropping the blobs only they kept", () => {
    const s = new CheckpointStore(file());
    s.prune(atOpen);
    const cp = s.checkpoint("t", "turn1");
    const kept = orphan(s);
    s.recordChange(cp.id, "a.txt", null, { kind: "file", hash: kept, mode: 0o644 });
    expect(s.prune(atOpen).blobs).toBe(0); // referenced by a live checkpoint
    expect(s.prune({ ...atOpen, olderThan: Date.now() + 1000 })).toEqual({ checkpoints: 1, blobs: 1 });
    expect(s.getBlob(kept)).toBeUndefined();
    s.close();
  });
});
