/**
 * The thread list people read (`tandem threads`, the TUI's `/threads`): one aligned row per
 * thread — id, last update, status, tokens used, title, directory — with each sub-agent's thread nested under
 * its parent (`└`) instead of listed as a thread of its own.
 *
 * Short ids (`shortThreadId`) are an id's last 8 characters: uuidv7 ids begin with their creation
 * time, so threads made minutes apart share their first 8; the end is random, and thread
 * references resolve by unique suffix as well as prefix (runtime/thread-ref.ts).
 *
 * Contract: pure; titles and directories may be model text, so they pass util/terminal-text.ts
 * on one line. A sub-agent whose parent is not among `rows` is listed at the top level, marked
 * with its parent's short id, so nothing in `rows` is dropped.
 */
import { terminalText } from "../../util/terminal-text.js";

export interface ThreadRow {
  id: string;
  parent_id: string | null;
  updated_at: number;
  status: string;
  title: string;
  cwd: string;
  /** Questions waiting for an answer. */
  pending: number;
  /** Token totals of the thread's model responses, when known. */
  usage?: { total_tokens: number } | undefined;
}

export interface TableOptions {
  /** Full ids (`tandem threads`) or short ones (the TUI). */
  ids: "full" | "short";
  /** The thread on screen, marked `*`. */
  shown?: string;
  /** Most characters of a title. */
  titleWidth?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The part of a thread id people type (see the module comment); other ids are kept whole. */
export function shortThreadId(id: string): string {
  return UUID.test(id) ? id.slice(-8) : id;
}

const oneLine = (s: string) => terminalText(s.replace(/\s+/g, " ").trim());
const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

/** The table's lines, header first (see the contract). */
export function threadTable(rows: readonly ThreadRow[], opts: TableOptions): string[] {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string, ThreadRow[]>();
  const top: ThreadRow[] = [];
  for (const r of rows) {
    if (r.parent_id && ids.has(r.parent_id)) {
      const list = children.get(r.parent_id) ?? [];
      list.push(r);
      children.set(r.parent_id, list);
    } else top.push(r);
  }
  const ordered: Array<{ row: ThreadRow; depth: number }> = [];
  const visit = (r: ThreadRow, depth: number) => {
    ordered.push({ row: r, depth });
    for (const c of children.get(r.id) ?? []) visit(c, depth + 1);
  };
  for (const r of top) visit(r, 0);
  const id = (r: ThreadRow) => (opts.ids === "short" ? shortThreadId(r.id) : r.id);
  const status = (r: ThreadRow) => (r.pending ? `${r.status}, ${r.pending} question(s)` : r.status);
  const max = opts.titleWidth ?? 50;
  const title = (r: ThreadRow, depth: number) => {
    const lead = depth ? `${"  ".repeat(depth - 1)}└ ` : "";
    const orphan =
      r.parent_id && !ids.has(r.parent_id) ? `(sub-agent of ${shortThreadId(r.parent_id)}) ` : "";
    const text = oneLine(r.title) || "(no messages)";
    const room = Math.max(8, max - lead.length - orphan.length);
    return lead + orphan + (text.length > room ? `${text.slice(0, room - 1)}…` : text);
  };
  const tokens = (r: ThreadRow) => (r.usage?.total_tokens ? `${r.usage.total_tokens} tokens` : "");
  const cells = ordered.map(({ row, depth }) => [
    opts.shown === undefined ? "" : row.id === opts.shown ? "*" : " ",
    id(row),
    when(row.updated_at),
    status(row),
    tokens(row),
    title(row, depth),
    oneLine(row.cwd),
  ]);
  const head = [
    opts.shown === undefined ? "" : " ",
    "ID",
    "UPDATED",
    "STATUS",
    "TOKENS",
    "TITLE",
    "DIRECTORY",
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => [...c[i]].length)));
  const render = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v + " ".repeat(widths[i] - [...v].length)))
      .filter((_, i) => i > 0 || opts.shown !== undefined)
      .join("  ")
      .trimEnd();
  return [render(head), ...cells.map(render)];
}
