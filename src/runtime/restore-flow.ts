/**
 * Undo and redo of a thread's turn, asked through the question protocol (README "Undo, redo,
 * fork and rewind"): nothing is written until the user chose.
 *
 * 1. The plan (checkpoints/restore.ts) of the chosen checkpoint: undo takes the thread's last
 *    checkpoint still applied (or turn `turnId`'s), redo the earliest one undone (or `turnId`'s).
 * 2. An internal question `restore` shows the unified diff (secret values masked; cut to the
 *    `[questions] max_prompt_chars` cap — `plan()` has all of it): Apply / Cancel.
 * 3. Files someone changed since the turn (conflicts) get their own question `conflicts`:
 *    Overwrite them / Skip them / Cancel.
 * 4. Just before writing, the plan is made again; if the workspace changed meanwhile nothing is
 *    written and the call throws (run it again). Then each file is written (restore.ts).
 *
 * Both questions wait for an answer whatever the thread's timeout policy (a timeout never
 * applies), are asked only in this process (never stored: a restart drops them, nothing was
 * written) and go to the thread's surfaces like any question. Headless — no responder for
 * the thread — the call throws at once, writing nothing. Also throws while a turn runs, for
 * an unknown thread or turn, and when there is nothing to undo or redo.
 */
import { randomUUID } from "node:crypto";
import {
  applyRestore,
  planRestore,
  type RestoreDirection,
  type RestorePlan,
  type RestoreResult,
} from "../checkpoints/restore.js";
import type { CheckpointRow } from "../checkpoints/store.js";
import type { Workspace } from "../checkpoints/workspace.js";
import type { Question, QuestionRequest } from "../protocol/questions.js";
import { requestIdFor } from "../questions/broker.js";
import type { RuntimeParts } from "./internals.js";

/** Call ids of restore questions start with this (never stored: core.ts `questionStore`). */
export const RESTORE_CALL_PREFIX = "tandem-restore:";

export interface RestoreOptions {
  /** The turn to undo or redo (default: see the module contract). */
  turnId?: string;
  signal?: AbortSignal;
}

export interface RestoreOutcome {
  /** `applied`: files were written; `cancelled`: the user said no (nothing written). */
  status: "applied" | "cancelled";
  direction: RestoreDirection;
  turnId: string;
  /** What was written, skipped, failed, and could not be restored (applied only). */
  result?: RestoreResult;
  plan: RestorePlan;
}

export const LABELS = {
  apply: "Apply",
  cancel: "Cancel",
  overwrite: "Overwrite them",
  skip: "Skip them",
} as const;

/** The checkpoint `direction` acts on (see the module contract); throws when there is none. */
export function pickCheckpoint(
  rows: CheckpointRow[],
  direction: RestoreDirection,
  turnId: string | undefined,
): CheckpointRow {
  const verb = direction === "undo" ? "undo" : "redo";
  if (turnId !== undefined) {
    const row = rows.find((r) => r.turn_id === turnId);
    if (!row)
      throw new Error(`turn ${turnId} changed no files in this thread (or its checkpoint was pruned)`);
    if (direction === "undo" && row.state === "undone") throw new Error(`turn ${turnId} is already undone`);
    if (direction === "redo" && row.state === "live") throw new Error(`turn ${turnId} is not undone`);
    return row;
  }
  const row =
    direction === "undo"
      ? rows.filter((r) => r.state === "live").at(-1)
      : rows.find((r) => r.state === "undone");
  if (!row) throw new Error(`nothing to ${verb}: no turn of this thread has changes to ${verb}`);
  return row;
}

/** Runs the flow of the module contract for `threadId` in workspace `ws`. */
export async function restoreFlow(
  rt: RuntimeParts,
  ws: Workspace,
  threadId: string,
  direction: RestoreDirection,
  opts: RestoreOptions,
  message: (turnId: string) => string,
): Promise<RestoreOutcome> {
  const cp = pickCheckpoint(ws.store.checkpoints(threadId), direction, opts.turnId);
  const plan = planRestore(ws, cp.id, direction);
  const base = { direction, turnId: cp.turn_id, plan };
  const files = plan.steps.length + plan.conflicts.length;
  if (files === 0) {
    // Nothing to write (already in place, or nothing restorable): the state still moves.
    const result = await applyRestore(ws, plan, { overwrite: false });
    return { status: "applied", result, ...base };
  }
  const mask = (text: string) => rt.secrets.view(threadId).mask(text);
  const what = message(cp.turn_id);
  const verb = direction === "undo" ? "Undo" : "Redo";
  const lines = [
    `${verb} the file changes of turn ${cp.turn_id}${what ? ` ("${clip(what, 80)}")` : ""}: ${files} file${files === 1 ? "" : "s"}.`,
    ...plan.unrestorable.map((u) => `Not restored: ${u.path}: ${u.reason}.`),
  ];
  const head = lines.join("\n");
  const limit = rt.settings.questions.max_prompt_chars;
  const confirm: Question = {
    id: "restore",
    header: verb,
    prompt: `${head}\n\n${clip(mask(plan.diff), limit - [...head].length - 2)}`,
    kind: "single",
    options: [
      { label: LABELS.apply, description: `${verb} these changes now` },
      { label: LABELS.cancel, description: "Change nothing" },
    ],
    allow_other: false,
    secret: false,
  };
  if ((await ask(rt, threadId, cp.turn_id, confirm, opts.signal)) !== LABELS.apply)
    return { status: "cancelled", ...base };
  let overwrite = false;
  if (plan.conflicts.length) {
    const list = plan.conflicts.map((c) => `- ${c.path}: ${c.reason}`).join("\n");
    const conflicts: Question = {
      id: "conflicts",
      header: "Changed since",
      prompt: clip(
        mask(
          `These files changed after the turn (someone else edited them):\n${list}\nOverwrite them, skip them, or cancel?`,
        ),
        limit,
      ),
      kind: "single",
      options: [
        { label: LABELS.overwrite, description: "Replace what is there now with the turn's state" },
        { label: LABELS.skip, description: "Leave these files as they are; restore the others" },
        { label: LABELS.cancel, description: "Change nothing" },
      ],
      allow_other: false,
      secret: false,
    };
    const choice = await ask(rt, threadId, cp.turn_id, conflicts, opts.signal);
    if (choice !== LABELS.overwrite && choice !== LABELS.skip) return { status: "cancelled", ...base };
    overwrite = choice === LABELS.overwrite;
  }
  const now = planRestore(ws, cp.id, direction);
  if (now.diff !== plan.diff || now.conflicts.length !== plan.conflicts.length)
    throw new Error(
      `the workspace changed while the ${direction} waited for an answer; nothing was written — run it again`,
    );
  const result = await applyRestore(ws, now, { overwrite });
  return { status: "applied", result, ...base, plan: now };
}

/** Asks one question (wait policy); the chosen label, or undefined when not answered. */
async function ask(
  rt: RuntimeParts,
  threadId: string,
  turnId: string,
  question: Question,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const callId = `${RESTORE_CALL_PREFIX}${randomUUID()}`;
  const request: QuestionRequest = {
    request_id: requestIdFor(threadId, callId),
    thread_id: threadId,
    turn_id: turnId,
    call_id: callId,
    source: "internal",
    questions: [question],
    policy: { type: "wait" },
    deadline: null,
    created_at: Date.now(),
  };
  const outcome = await rt.broker.ask(request, signal ?? new AbortController().signal);
  if (outcome.status === "unavailable" && outcome.limit) throw new Error(outcome.reason);
  if (outcome.status !== "answered") return undefined;
  return outcome.answers[question.id]?.selected[0];
}

function clip(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const note = "\n… (cut; the full diff is in the plan)";
  return chars.slice(0, Math.max(0, max - note.length)).join("") + note;
}
