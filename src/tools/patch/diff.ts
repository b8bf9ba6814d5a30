/**
 * A small unified-diff writer (git style) for display: surfaces show it, the model never does.
 *
 * `unifiedDiff(before, after, {oldPath, newPath, context})`:
 * - `before`/`after` null mean the file did not exist / was deleted (`/dev/null` headers);
 * - returns "" when the texts are equal and the path did not change;
 * - lines are compared with their line endings (a CRLF→LF change is a change); `\r` is not
 *   printed; a last line without a newline is followed by `\ No newline at end of file`;
 * - hunks carry `context` lines (default 3) around changes and merge when they would overlap.
 *
 * The line diff is Myers' O((N+M)·D) algorithm after trimming the common prefix and suffix. When
 * the middle differs in more than MAX_EDITS lines, that middle is shown as one removal followed
 * by one addition instead (a correct diff, just not minimal) to bound time and memory.
 */
import { headerPath } from "../../util/diff-header.js";
import { splitText } from "./applier.js";

export { headerPath } from "../../util/diff-header.js";

const EQ = 0;
const DEL = 1;
const INS = 2;
type Op = typeof EQ | typeof DEL | typeof INS;

export const MAX_EDITS = 2000;

export interface DiffOptions {
  /** Path shown on the `---` line (without `a/`); default "file". */
  oldPath?: string;
  /** Path shown on the `+++` line (without `b/`); default `oldPath`. */
  newPath?: string;
  /** Context lines around each change; default 3. */
  context?: number;
}

/** Edit script turning `a` into `b`: one op per line of the result walk. */
export function diffOps(a: readonly string[], b: readonly string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf])
    suf++;
  const ids = new Map<string, number>();
  const id = (s: string) => {
    let v = ids.get(s);
    if (v === undefined) {
      v = ids.size;
      ids.set(s, v);
    }
    return v;
  };
  const ma = Int32Array.from(a.slice(pre, a.length - suf), id);
  const mb = Int32Array.from(b.slice(pre, b.length - suf), id);
  const middle = myers(ma, mb) ?? [
    ...new Array<Op>(ma.length).fill(DEL),
    ...new Array<Op>(mb.length).fill(INS),
  ];
  return [...new Array<Op>(pre).fill(EQ), ...middle, ...new Array<Op>(suf).fill(EQ)];
}

/** Myers' greedy shortest edit script; undefined when it needs more than MAX_EDITS edits. */
function myers(a: Int32Array, b: Int32Array): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const off = max + 2;
  const v = new Int32Array(2 * max + 5);
  // trace[d] = v for k in [-d-1, d+1] before step d (index k + d + 1).
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(max, MAX_EDITS); d++) {
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], n: number, m: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const snap = trace[d];
    const at = (k: number) => snap[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(EQ);
      x--;
      y--;
    }
    if (d > 0) ops.push(x === prevX ? INS : DEL);
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

interface Row {
  op: Op;
  /** Old lines before this row; new lines before this row. */
  a: number;
  b: number;
}

export function unifiedDiff(before: string | null, after: string | null, opts: DiffOptions = {}): string {
  const oldPath = opts.oldPath ?? "file";
  const newPath = opts.newPath ?? oldPath;
  const context = opts.context ?? 3;
  const oldDoc = splitText(before ?? "");
  const newDoc = splitText(after ?? "");
  const keys = (d: typeof oldDoc) => d.lines.map((l, i) => l + d.ends[i]);
  const ops = diffOps(keys(oldDoc), keys(newDoc));
  const rows: Row[] = [];
  let a = 0;
  let b = 0;
  for (const op of ops) {
    rows.push({ op, a, b });
    if (op !== INS) a++;
    if (op !== DEL) b++;
  }
  const changed = rows.some((r) => r.op !== EQ);
  if (!changed && before !== null && after !== null && oldPath === newPath) return "";
  let out = `--- ${before === null ? "/dev/null" : headerPath("a/", oldPath)}\n`;
  out += `+++ ${after === null ? "/dev/null" : headerPath("b/", newPath)}\n`;
  const line = (prefix: string, doc: typeof oldDoc, i: number) =>
    `${prefix}${doc.lines[i]}\n${doc.ends[i] === "" ? "\\ No newline at end of file\n" : ""}`;
  for (const [start, stop] of hunkRanges(rows, context)) {
    const hunk = rows.slice(start, stop);
    const oldCount = hunk.filter((r) => r.op !== INS).length;
    const newCount = hunk.filter((r) => r.op !== DEL).length;
    const range = (first: number, count: number) =>
      count === 1 ? `${first + 1}` : `${count === 0 ? first : first + 1},${count}`;
    out += `@@ -${range(hunk[0].a, oldCount)} +${range(hunk[0].b, newCount)} @@\n`;
    for (const r of hunk) {
      if (r.op === EQ) out += line(" ", newDoc, r.b);
      else if (r.op === DEL) out += line("-", oldDoc, r.a);
      else out += line("+", newDoc, r.b);
    }
  }
  return out;
}

/** [start, stop) row ranges of hunks: changes plus `context` rows around, merged when close. */
function hunkRanges(rows: Row[], context: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i].op === EQ) {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let last = i;
    let j = i;
    while (j < rows.length) {
      if (rows[j].op !== EQ) {
        last = j++;
        continue;
      }
      let r = j;
      while (r < rows.length && rows[r].op === EQ) r++;
      if (r < rows.length && r - j <= 2 * context) j = r;
      else break;
    }
    const stop = Math.min(rows.length, last + 1 + context);
    ranges.push([start, stop]);
    i = stop;
  }
  return ranges;
}
