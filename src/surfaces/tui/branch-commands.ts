/**
 * The TUI's `/undo`, `/redo`, `/fork` and `/rewind` (README "Undo, redo, fork and rewind"):
 * thin calls of `runtime.checkpoints` and `runtime.branches`.
 *
 * - `/undo` and `/redo` (optionally a turn id): the runtime asks on the question overlay (the
 *   diff, then Apply / Cancel; files changed since get their own question); the outcome is a
 *   notice.
 * - `/fork`: a new thread with the whole conversation, shown at once.
 * - `/rewind` (also Esc Esc in an empty composer with no turn running): a picker of the earlier
 *   user messages, newest first; choosing one cuts the conversation back to before it (the cut
 *   part stays as an archived thread, named in the notice), then a second picker asks whether to
 *   restore the files too (undoing the later turns, each asked on the overlay).
 *
 * Contract: never throws; every failure is a notice. Refused while a turn runs.
 */

import type { RestoreOutcome } from "../../runtime/checkpoints-api.js";
import type { Runtime } from "../../runtime/core.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import type { MenuHost } from "./picker.js";

export type BranchCommand = "undo" | "redo" | "fork" | "rewind";

export interface BranchDeps {
  runtime: Runtime;
  thread(): Thread | undefined;
  notice(text: string, tone: "dim" | "info" | "ok" | "warn" | "error"): void;
  menus: MenuHost;
  /** Shows another thread (a fork). */
  open(threadId: string): void;
  /** Shows the shown thread's history again (after a rewind). */
  replay(): void;
  interruptKey: string;
}

const clip = (s: string, n: number) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

function describe(o: RestoreOutcome): string {
  const verb = o.direction === "undo" ? "Undid" : "Redid";
  if (o.status === "cancelled") return `${o.direction} cancelled; no file was changed`;
  const r = o.result;
  const parts = [`${verb} turn ${o.turnId}: ${r?.applied.length ?? 0} file(s) written`];
  if (r?.skipped.length) parts.push(`left as you edited them: ${r.skipped.join(", ")}`);
  for (const f of r?.failed ?? []) parts.push(`not written: ${f.path} (${f.reason})`);
  for (const u of r?.unrestorable ?? []) parts.push(`cannot restore ${u.path}: ${u.reason}`);
  return parts.join("\n");
}

export function runBranchCommand(deps: BranchDeps, name: BranchCommand, arg: string): void {
  const thread = deps.thread();
  if (!thread) return;
  if (thread.active) {
    deps.notice(`a turn is running; interrupt it (${deps.interruptKey}) first`, "warn");
    return;
  }
  const { runtime } = deps;
  const fail = (err: unknown) => deps.notice((err as Error).message, "error");
  try {
    if (name === "undo" || name === "redo") {
      const turnId = arg.trim() || undefined;
      runtime.checkpoints[name](thread.id, { turnId }).then(
        (o) => deps.notice(describe(o), o.status === "applied" ? "ok" : "dim"),
        fail,
      );
      return;
    }
    if (name === "fork") {
      const record = runtime.branches.fork(thread.id);
      deps.notice(`Forked into ${record.id} ("${record.title}"); the original is ${thread.id}`, "ok");
      deps.open(record.id);
      return;
    }
    openRewindPicker(deps, thread);
  } catch (err) {
    fail(err);
  }
}

/** The `/rewind` pickers (see the module contract). */
export function openRewindPicker(deps: BranchDeps, thread: Thread): void {
  const messages = deps.runtime.branches.userMessages(thread.id);
  if (!messages.length) {
    deps.notice("nothing to rewind: no earlier message in this thread", "dim");
    return;
  }
  deps.menus.open({
    title: "Rewind the conversation to before…",
    items: messages
      .map((m, i) => ({
        label: clip(m.text, 70) || "(empty message)",
        value: m.turnId,
        detail: `#${i + 1}`,
        initial: i === messages.length - 1,
      }))
      .reverse(),
    onPick: (turnId) =>
      deps.menus.open({
        title: "Also restore the files to that point?",
        items: [
          { label: "Conversation only", value: "history", detail: "files stay as they are" },
          {
            label: "Conversation and files",
            value: "code",
            detail: "undo the later turns' file changes (asks)",
          },
        ],
        onPick: (how) => {
          deps.runtime.branches.rewind(thread.id, turnId, { restoreCode: how === "code" }).then(
            (r) => {
              for (const o of r.restores) deps.notice(describe(o), o.status === "applied" ? "ok" : "dim");
              if (r.status === "cancelled") {
                deps.notice("rewind cancelled; the conversation is unchanged", "dim");
                return;
              }
              deps.replay();
              deps.notice(
                `Rewound: the conversation continues from before that message; the part cut away is thread ${r.archivedId} (/resume ${r.archivedId})`,
                "ok",
              );
            },
            (err: unknown) => deps.notice((err as Error).message, "error"),
          );
        },
      }),
  });
}
