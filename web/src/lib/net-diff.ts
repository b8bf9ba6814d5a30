/**
 * A thread's files changed: the turns' diffs (each turn's net unified diff, parsed by ./diff.ts)
 * composed per file into one net change from before the first turn to after the last. Pure.
 *
 * How: each file is followed as a sequence of lines whose text is known only where some diff
 * showed it (context, removed or added lines); the rest stays unknown, counted by position. Each
 * hunk is applied where its line numbers put it; the result is diffed against the lines of the
 * original the diffs revealed. Renames carry a file's history to its new path.
 *
 * Contract of `netDiff(turns)` (`turns`: each turn's files, oldest first):
 * - one entry per file a turn touched, in first-touched order, keyed by its latest path;
 * - `exact: true`: `file` is the net change (`kind` add/update/delete/move with its hunks; no
 *   hunks when the turns cancel out, e.g. added then deleted);
 * - `exact: false` when the diffs do not line up (the file changed outside the turns, or a diff
 *   has no hunks, e.g. a binary file): `file` then holds every turn's lines for that file, in
 *   order, each turn's part after a `meta` line naming it, so nothing is hidden.
 */
import type { DiffFile, DiffLine, FileKind } from "./diff.js";

export interface NetFile {
  path: string;
  exact: boolean;
  turns: number;
  file: DiffFile;
}

/** A line of the file as known so far: from the original (its 1-based number) or added. */
type Known = { orig: number | null; text: string };
/** Lines of the original no diff showed: `len` of them from `from` (Infinity: to the end). */
type Gap = { from: number; len: number };
type Seg = Known | Gap;
const isGap = (s: Seg): s is Gap => "len" in s;

class Conflict extends Error {}

interface Track {
  path: string;
  firstKind: FileKind;
  /** The original existed (false: the first turn added it). */
  existed: boolean;
  gone: boolean;
  segs: Seg[];
  deleted: Map<number, string>;
  turns: DiffFile[];
  exact: boolean;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function netDiff(turns: DiffFile[][]): NetFile[] {
  const tracks: Track[] = [];
  const byPath = new Map<string, Track>();
  for (const files of turns)
    for (const f of files) {
      let t = byPath.get(f.path);
      if (!t) {
        t = {
          path: f.path,
          firstKind: f.kind,
          existed: f.kind !== "add",
          gone: false,
          segs: f.kind === "add" ? [] : [{ from: 1, len: Number.POSITIVE_INFINITY }],
          deleted: new Map(),
          turns: [],
          exact: true,
        };
        tracks.push(t);
      }
      t.turns.push(f);
      if (t.exact)
        try {
          apply(t, f);
        } catch (e) {
          if (!(e instanceof Conflict)) throw e;
          t.exact = false;
        }
      if (f.kind === "move" && f.move_path) {
        byPath.delete(f.path);
        t.path = f.move_path;
      }
      byPath.set(t.path, t);
    }
  return tracks.map((t) => ({
    path: t.path,
    exact: t.exact,
    turns: t.turns.length,
    file: t.exact ? result(t) : fallback(t),
  }));
}

/** Applies one turn's diff of the file to its track. Throws Conflict when it does not fit. */
function apply(t: Track, f: DiffFile): void {
  if (f.kind === "add" && !t.gone && t.segs.length) throw new Conflict();
  if (f.kind === "add") t.gone = false;
  const hunks = splitHunks(f.lines);
  if (!hunks.length) throw new Conflict();
  let offset = 0;
  for (const h of hunks) {
    // 0-based line where the hunk's old lines start (after line oldStart when it has none).
    const start = (h.oldLen === 0 ? h.oldStart : h.oldStart - 1) + offset;
    const old = h.lines.filter((l) => l.t !== "add");
    const at = boundary(t, start);
    old.forEach((l, k) => {
      const i = boundary(t, start + k);
      boundary(t, start + k + 1);
      const s = t.segs[i];
      if (isGap(s)) t.segs[i] = { orig: s.from, text: l.text };
      else if (s.text !== l.text) throw new Conflict();
    });
    const out: Seg[] = [];
    let k = 0;
    for (const l of h.lines) {
      if (l.t === "add") out.push({ orig: null, text: l.text });
      else {
        const seg = t.segs[at + k++] as Known;
        if (l.t === "ctx") out.push(seg);
        else if (seg.orig !== null) t.deleted.set(seg.orig, seg.text);
      }
    }
    t.segs.splice(at, old.length, ...out);
    offset += out.length - old.length;
  }
  if (f.kind === "delete") {
    // A deletion lists every line: nothing known or finite may be left.
    if (t.segs.some((s) => !isGap(s) || Number.isFinite(s.len))) throw new Conflict();
    t.segs = [];
    t.gone = true;
  }
}

/**
 * The index of the segment that starts at 0-based line `line` (splitting a gap there), or the
 * end when the file has exactly `line` lines. Throws Conflict past the end.
 */
function boundary(t: Track, line: number): number {
  let pos = 0;
  for (let i = 0; i < t.segs.length; i++) {
    if (pos === line) return i;
    const s = t.segs[i];
    const n = isGap(s) ? s.len : 1;
    if (isGap(s) && line < pos + n) {
      const skip = line - pos;
      t.segs.splice(i, 1, { from: s.from, len: skip }, { from: s.from + skip, len: s.len - skip });
      return i + 1;
    }
    pos += n;
  }
  if (pos === line) return t.segs.length;
  throw new Conflict();
}

interface Hunk {
  oldStart: number;
  oldLen: number;
  lines: DiffLine[];
}

function splitHunks(lines: DiffLine[]): Hunk[] {
  const hunks: Hunk[] = [];
  for (const l of lines) {
    if (l.t === "hunk") {
      const m = HUNK.exec(l.text);
      if (!m) throw new Conflict();
      hunks.push({ oldStart: Number(m[1]), oldLen: m[2] === undefined ? 1 : Number(m[2]), lines: [] });
    } else if (l.t !== "meta") {
      if (!hunks.length) throw new Conflict();
      hunks[hunks.length - 1].lines.push(l);
    }
  }
  for (const h of hunks) if (h.lines.filter((l) => l.t !== "add").length !== h.oldLen) throw new Conflict();
  return hunks;
}

/** One line of the net diff with its numbers (an add's `o` / a del's `n`: the line before). */
type Op = { t: "ctx" | "del" | "add"; text: string; o: number; n: number } | { t: "gap" };

/** The net change of a track as a DiffFile with hunks (3 lines of context, as git writes). */
function result(t: Track): DiffFile {
  const ops: Op[] = [];
  const deleted = [...t.deleted.entries()].sort((a, b) => a[0] - b[0]);
  let d = 0;
  let o = 0;
  let n = 0;
  let adds: string[] = [];
  // The originals deleted before `before` and the additions waiting at that place: lines both
  // hold (changed, then changed back) are context again, the rest deletions then additions.
  const flush = (before: number) => {
    const dels: Array<[number, string]> = [];
    for (; d < deleted.length && deleted[d][0] < before; d++) dels.push(deleted[d]);
    for (const [side, k] of common(
      dels.map((x) => x[1]),
      adds,
    )) {
      if (side === "del") {
        o = dels[k][0];
        ops.push({ t: "del", text: dels[k][1], o, n });
      } else if (side === "add") ops.push({ t: "add", text: adds[k], o, n: ++n });
      else {
        o = dels[k][0];
        ops.push({ t: "ctx", text: dels[k][1], o, n: ++n });
      }
    }
    adds = [];
  };
  for (const s of t.segs) {
    if (isGap(s)) {
      flush(s.from);
      if (!Number.isFinite(s.len)) break;
      ops.push({ t: "gap" });
      o = s.from + s.len - 1;
      n += s.len;
    } else if (s.orig === null) adds.push(s.text);
    else {
      flush(s.orig);
      o = s.orig;
      ops.push({ t: "ctx", text: s.text, o, n: ++n });
    }
  }
  flush(Number.POSITIVE_INFINITY);
  const kind: FileKind = !t.existed
    ? "add"
    : t.gone
      ? "delete"
      : t.path !== t.turns[0].path
        ? "move"
        : "update";
  const file: DiffFile = { path: t.turns[0].path, kind, lines: t.existed || !t.gone ? hunksOf(ops) : [] };
  if (kind === "move") file.move_path = t.path;
  return file;
}

/**
 * `a` (deleted) and `b` (added) merged by their longest common subsequence: `["del", i]`,
 * `["add", j]` or `["same", i]` (a[i] kept). Past 400 lines a side, no common lines are sought.
 */
function common(a: string[], b: string[]): Array<["del" | "add" | "same", number]> {
  const out: Array<["del" | "add" | "same", number]> = [];
  if (!a.length || !b.length || a.length > 400 || b.length > 400) {
    for (let i = 0; i < a.length; i++) out.push(["del", i]);
    for (let j = 0; j < b.length; j++) out.push(["add", j]);
    return out;
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  const lcs = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(["same", i++]);
      j++;
    } else if (j >= b.length || (i < a.length && lcs[i + 1][j] >= lcs[i][j + 1])) out.push(["del", i++]);
    else out.push(["add", j++]);
  }
  return out;
}

function hunksOf(ops: Op[]): DiffLine[] {
  // A line belongs to a hunk when it is a change or context within 3 lines of one (a gap never).
  const keep = ops.map((op) => op.t === "add" || op.t === "del");
  ops.forEach((op, i) => {
    if (op.t !== "add" && op.t !== "del") return;
    for (const dir of [-1, 1])
      for (let k = 1, j = i + dir; k <= 3 && j >= 0 && j < ops.length && ops[j].t === "ctx"; k++, j += dir)
        keep[j] = true;
  });
  const out: DiffLine[] = [];
  for (let i = 0; i < ops.length; ) {
    if (!keep[i]) {
      i++;
      continue;
    }
    const part: Array<Exclude<Op, { t: "gap" }>> = [];
    for (; i < ops.length && keep[i]; i++) part.push(ops[i] as Exclude<Op, { t: "gap" }>);
    const olds = part.filter((p) => p.t !== "add");
    const news = part.filter((p) => p.t !== "del");
    const oldStart = olds.length ? olds[0].o : part[0].o;
    const newStart = news.length ? news[0].n : part[0].n;
    out.push({ t: "hunk", text: `@@ -${oldStart},${olds.length} +${newStart},${news.length} @@` });
    for (const p of part) out.push({ t: p.t, text: p.text });
  }
  return out;
}

/** Every turn's lines for the file, each turn's part introduced by a meta line. */
function fallback(t: Track): DiffFile {
  const lines: DiffLine[] = [];
  t.turns.forEach((f, i) => {
    lines.push({ t: "meta", text: `turn ${i + 1} of ${t.turns.length} that changed it` });
    lines.push(...f.lines);
  });
  const last = t.turns[t.turns.length - 1];
  return { path: t.path, kind: last.kind, lines };
}
