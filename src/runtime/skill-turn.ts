/**
 * A turn's skills, before its first model request (skill-use.ts, docs/skills.md): the skill files
 * skipped (once per thread, as `warning:` display items), then the skills the input names,
 * attached after it as pending input. A skill that cannot be used fails the turn: the outcome
 * returned, with an `error` event; nothing reaches the model.
 */
import type { TurnOutcome } from "../agent/turn.js";
import type { Event } from "../protocol/events.js";
import { emptyUsage } from "../protocol/events.js";
import type { QuestionPolicy } from "../protocol/questions.js";
import type { ThreadSkills } from "./host.js";
import type { ActiveTurn } from "./types.js";

/** A turn's input as the skills see it: its text and the skills named explicitly. */
export interface SkillInput {
  text: string;
  skills: string[];
}

export interface SkillThread {
  readonly id: string;
  readonly record: { readonly cwd: string };
  emit(event: Event): void;
  questionPolicy(turn: ActiveTurn): QuestionPolicy;
  readonly newItemId: (prefix: string) => string;
}

export async function attachSkills(
  skills: ThreadSkills,
  thread: SkillThread,
  turn: ActiveTurn,
  use: SkillInput,
  warn: boolean,
): Promise<TurnOutcome | undefined> {
  const cwd = turn.options.cwd ?? thread.record.cwd;
  if (warn)
    for (const message of skills.problems(cwd))
      thread.emit({
        type: "item.completed",
        thread_id: thread.id,
        turn_id: turn.id,
        item: { id: thread.newItemId("warning"), type: "error", message: `warning: ${message}` },
      });
  const r = await skills.prepare({
    threadId: thread.id,
    turnId: turn.id,
    cwd,
    text: use.text,
    explicit: use.skills,
    policy: thread.questionPolicy(turn),
    signal: turn.ctrl.signal,
  });
  if (r.ok) {
    for (const { item, display } of r.items)
      turn.pending.push({ id: thread.newItemId("skill"), item, display });
    return undefined;
  }
  const interrupted = turn.ctrl.signal.aborted;
  const error = { kind: interrupted ? ("interrupted" as const) : ("other" as const), message: r.message };
  thread.emit({ type: "error", thread_id: thread.id, turn_id: turn.id, error, will_retry: false });
  return { status: interrupted ? "interrupted" : "failed", usage: emptyUsage(), error };
}
