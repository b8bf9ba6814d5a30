/**
 * The turn diff: what every apply_patch call of a turn changed, as one unified diff.
 *
 * `track(changes)` is fed the changes of each successful call (in order). For each file the
 * tracker keeps the text it had before the turn first touched it (its baseline) and its latest
 * text, following moves, so `diff()` shows the net change from baseline to now: a file edited
 * three times appears once; a file added then deleted does not appear; a file moved and then
 * edited appears as one rename with its edits. Files are listed by original path.
 * In memory only; it sees changes made through apply_patch, not by commands. `reset()` starts
 * the next turn.
 */
import type { FileChange } from "./changes.js";
import { unifiedDiff } from "./diff.js";

interface Tracked {
  /** Path (relative to the working directory) when the turn first touched the file. */
  origin: string;
  /** Current path (differs from `origin` after a move). */
  path: string;
  baseline: string | null;
  current: string | null;
}

export class TurnDiffTracker {
  /** Live files keyed by current absolute path. */
  private live = new Map<string, Tracked>();
  /** Files whose path was taken over by a later file (deleted, then another moved there). */
  private retired: Tracked[] = [];

  track(changes: readonly FileChange[]): void {
    for (const c of changes) {
      const known = this.live.get(c.absPath);
      if (c.kind === "add") {
        if (known) known.current = c.after;
        else this.live.set(c.absPath, { origin: c.path, path: c.path, baseline: null, current: c.after });
        continue;
      }
      const t = known ?? { origin: c.path, path: c.path, baseline: c.before, current: c.before };
      if (!known) this.live.set(c.absPath, t);
      if (c.kind !== "move" || c.absMovePath === undefined || c.movePath === undefined) {
        t.current = c.after;
        continue;
      }
      this.live.delete(c.absPath);
      const there = this.live.get(c.absMovePath);
      if (there) this.retired.push(there);
      t.path = c.movePath;
      t.current = c.after;
      this.live.set(c.absMovePath, t);
    }
  }

  /** The turn's net changes as a unified diff ("" when nothing changed). */
  diff(): string {
    const all = [...this.retired, ...this.live.values()].sort((x, y) =>
      x.origin < y.origin ? -1 : x.origin > y.origin ? 1 : 0,
    );
    let out = "";
    for (const t of all) {
      if (t.baseline === null && t.current === null) continue;
      out += unifiedDiff(t.baseline, t.current, { oldPath: t.origin, newPath: t.path });
    }
    return out;
  }

  /** Forgets everything (start of a new turn). */
  reset(): void {
    this.live.clear();
    this.retired = [];
  }
}
