/**
 * The web app's undo, redo, fork and rewind (README "Undo, redo, fork and rewind"): thin calls
 * of `POST /thread/:id/undo|redo|fork|rewind` (surfaces/http/routes/checkpoints.ts).
 *
 * Contract:
 * - Undo, redo and a rewind that restores files ask the user through the question protocol (the
 *   diff, then Apply / Cancel): their requests stay open until answered, so they are never
 *   awaited by the composer; the outcome lands in `app.notice` when the server answers.
 * - Fork opens the new thread at once; rewind reloads the thread and hands the rewound message
 *   to the composer (`app.draft`), to edit and send again, as Codex's Esc Esc does.
 * - Every failure is a notice; nothing here throws.
 */

import type { ThreadSummary } from "../../src/protocol/http.js";
import { api, enc } from "./api.js";
import { app, changed } from "./app-state.js";

interface Restore {
  status: "applied" | "cancelled";
  turn_id: string;
  applied: string[];
  skipped: string[];
  failed: Array<{ path: string; reason: string }>;
  unrestorable: Array<{ path: string; reason: string }>;
}

/** Shows `text` above the composer; `open`: a thread it names, offered as a button. */
export function notice(text: string, tone: "ok" | "info" | "error", open?: string): void {
  app.notice = { text, tone, ...(open ? { open } : {}) };
  changed();
}

function restored(direction: "undo" | "redo", o: Restore): string {
  if (o.status === "cancelled")
    return `${direction === "undo" ? "Undo" : "Redo"} cancelled; no file was changed.`;
  const parts = [
    `${direction === "undo" ? "Undid" : "Redid"} turn ${o.turn_id}: ${o.applied.length} file(s) written.`,
  ];
  if (o.skipped.length) parts.push(`Left as you edited them: ${o.skipped.join(", ")}.`);
  for (const f of o.failed) parts.push(`Not written: ${f.path} (${f.reason}).`);
  for (const u of o.unrestorable) parts.push(`Cannot restore ${u.path}: ${u.reason}.`);
  return parts.join(" ");
}

/** Shows a thread (state.ts `selectThread`, passed in: that module calls this one). */
type Show = (threadId: string) => void;

const failed = (e: unknown) => notice((e as Error).message, "error");

/** `/undo` or `/redo` of the thread's last (or undone) turn: the server asks, then answers. */
export function restore(threadId: string, direction: "undo" | "redo"): void {
  notice(`${direction === "undo" ? "Undo" : "Redo"}: answer the question to apply it…`, "info");
  api<Restore>("POST", `/thread/${enc(threadId)}/${direction}`, {}).then(
    (o) => notice(restored(direction, o), o.status === "applied" ? "ok" : "info"),
    failed,
  );
}

/** A new thread with the history (through `turnId`'s turn, or all), shown at once. */
export async function fork(show: Show, threadId: string, turnId?: string): Promise<void> {
  try {
    const t = await api<ThreadSummary>("POST", `/thread/${enc(threadId)}/fork`, turnId ? { turnId } : {});
    app.threads.set(t.id, t);
    show(t.id);
    notice(`Forked into “${t.title ?? t.id}”; the original thread is unchanged.`, "ok");
  } catch (e) {
    failed(e);
  }
}

/**
 * Cuts the conversation back to before `turnId` (its message and what followed are archived as a
 * thread of their own); with `restoreCode`, the later turns' file changes are undone too (asks).
 */
export function rewind(
  show: Show,
  threadId: string,
  turn: { id: string; text: string },
  restoreCode: boolean,
): void {
  if (restoreCode) notice("Rewind: answer the questions to restore the files…", "info");
  api<{ status: "rewound" | "cancelled"; archived_id: string | null; restores: Restore[] }>(
    "POST",
    `/thread/${enc(threadId)}/rewind`,
    { turnId: turn.id, restoreCode },
  ).then((r) => {
    if (r.status === "cancelled") {
      notice("Rewind cancelled; the conversation is unchanged.", "info");
      return;
    }
    if (app.current === threadId) {
      app.draft = turn.text;
      show(threadId);
    }
    const files = r.restores.filter((o) => o.status === "applied").length;
    notice(
      `Rewound to before that message${files ? ` (files of ${files} turn(s) restored)` : ""}; the part cut away is kept as an archived thread.`,
      "ok",
      r.archived_id ?? undefined,
    );
  }, failed);
}
