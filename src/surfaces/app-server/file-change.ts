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
import { diffSections, patchFiles, patchText, sectionFor } from "../../protocol/patch-history.js";

export { diffSections, patchText };

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

/** The files a patch names, in patch order, with empty diffs. */
export function patchChanges(patch: string): Change[] {
  return patchFiles(patch).map((f) => ({
    path: f.path,
    kind: f.kind === "update" ? { type: "update", move_path: f.move_path } : { type: f.kind },
    diff: "",
  }));
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
 * A stored fileChange item with each file's diff from its turn's net diff (`sections`), for
 * history: the store keeps the patch, not the per-call display, so a file the turn changed again
 * later shows the turn's net change of it.
 */
export function withTurnDiffs(item: FileChangeItem, sections: Map<string, string>): FileChangeItem {
  if (sections.size === 0) return item;
  const find = (path: string) => sectionFor(sections, path);
  return {
    ...item,
    changes: item.changes.map((c) => {
      const moved = c.kind.type === "update" && c.kind.move_path ? find(c.kind.move_path) : undefined;
      return { ...c, diff: c.diff || moved || find(c.path) || "" };
    }),
  };
}
