/**
 * `apply_patch` calls as Codex `fileChange` items (pure mapping).
 *
 * Contract:
 * - While a patch runs (and while its approval is pending, see approvals.ts) the item lists the
 *   files named by the patch's `*** Add/Update/Delete File:` headers (`*** Move to:` → update with
 *   `move_path`), each with an empty diff: nothing is applied yet.
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
