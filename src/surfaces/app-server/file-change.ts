/**
 * `apply_patch` calls as Codex `fileChange` items (pure mapping).
 *
 * Contract:
 * - While a patch runs the item lists the files named by the patch's `*** Add/Update/Delete File:`
 *   headers (`*** Move to:` → update with `move_path`), each with an empty diff: nothing is applied
 *   yet. The live `item/started` of such an item waits (mapping.ts `heldPatches`) for the patch
 *   approval's would-be diffs or the result's, so a client never draws `+0 -0`.
 * - Once applied, the item carries the tool's `file_change` display: per-file kinds and unified
 *   diffs. A refused, declined or failed patch changed nothing and is reported `failed` (the core
 *   does not tell a declined patch from a failed one).
 * - The call's arguments are the patch itself (custom tool) or `{"input": patch}` (function tool).
 */
import type { CodexThreadItem } from "../../protocol/app-server.js";
import type { TurnItem } from "../../protocol/events.js";

export const PATCH_TOOL = "apply_patch";

type FileChangeItem = Extract<CodexThreadItem, { type: "fileChange" }>;
type Change = FileChangeItem["changes"][number];
type Status = FileChangeItem["status"];

const STATUS = {
  in_progress: "inProgress",
  completed: "completed",
  failed: "failed",
  declined: "declined",
} as const satisfies Record<string, Status>;

/** The patch text of an apply_patch call's arguments. */
export function patchText(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (typeof parsed?.input === "string") return parsed.input;
  } catch {
    /* the custom tool's input is the patch itself */
  }
  return args;
}

/** The files a patch names, in patch order, with empty diffs. */
export function patchChanges(patch: string): Change[] {
  const out: Change[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (m) {
      const path = m[2].trim();
      const kind: Change["kind"] =
        m[1] === "Add"
          ? { type: "add" }
          : m[1] === "Delete"
            ? { type: "delete" }
            : { type: "update", move_path: null };
      out.push({ path, kind, diff: "" });
      continue;
    }
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    const last = out.at(-1);
    if (move && last?.kind.type === "update") last.kind = { type: "update", move_path: move[1].trim() };
  }
  return out;
}

/** An apply_patch call (arguments as sent by the model) as a fileChange item. */
export function patchCallItem(id: string, args: string, status: keyof typeof STATUS): FileChangeItem {
  return { type: "fileChange", id, changes: patchChanges(patchText(args)), status: STATUS[status] };
}

/** The patch tool's `file_change` display item as a fileChange item. */
export function fileChangeItem(item: Extract<TurnItem, { type: "file_change" }>): FileChangeItem {
  return {
    type: "fileChange",
    id: item.id,
    changes: item.changes.map((c) => ({
      path: c.path,
      kind:
        c.kind === "add" || c.kind === "delete"
          ? { type: c.kind }
          : { type: "update", move_path: c.kind === "move" ? (c.move_path ?? null) : null },
      diff: c.diff,
    })),
    status: STATUS[item.status],
  };
}

/**
 * A turn's stored net diff (turn.diff, `---`/`+++` sections as tools/patch/diff.ts writes them)
 * split per file, keyed by the path of each side (without `a/`/`b/`). Quoted paths are skipped.
 */
export function diffSections(diff: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!diff) return out;
  const lines = diff.split("\n");
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    const text = `${lines.slice(start, end).join("\n")}\n`;
    for (const header of [lines[start], lines[start + 1]]) {
      const m = /^(?:---|\+\+\+) [ab]\/(.+)$/.exec(header ?? "");
      if (m && !out.has(m[1])) out.set(m[1], text);
    }
  };
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      flush(i);
      start = i;
      i++;
    }
  }
  flush(lines.at(-1) === "" ? lines.length - 1 : lines.length);
  return out;
}

/**
 * A stored fileChange item with each file's diff from its turn's net diff (`sections`), for
 * history: the store keeps the patch, not the per-call display, so a file the turn changed again
 * later shows the turn's net change of it.
 */
export function withTurnDiffs(item: FileChangeItem, sections: Map<string, string>): FileChangeItem {
  if (sections.size === 0) return item;
  const find = (path: string) => {
    const direct = sections.get(path);
    if (direct !== undefined) return direct;
    for (const [p, d] of sections) if (p.endsWith(`/${path}`) || path.endsWith(`/${p}`)) return d;
    return undefined;
  };
  return {
    ...item,
    changes: item.changes.map((c) => {
      const moved = c.kind.type === "update" && c.kind.move_path ? find(c.kind.move_path) : undefined;
      return { ...c, diff: c.diff || moved || find(c.path) || "" };
    }),
  };
}
