/**
 * Plans as Codex shows them (pure mapping plus one small streaming splitter).
 *
 * Contract:
 * - `update_plan` is no Codex item: its `plan.updated` event is `turn/plan/updated` (the TUI's
 *   checklist), and its `tool_call`/`todo_list` display items map to nothing, so no item is
 *   started that never completes.
 * - In a Plan-mode turn, a `<proposed_plan>…</proposed_plan>` block of an agent message is
 *   Codex's `plan` item (what makes the Codex TUI offer "Implement this plan?"): while the
 *   message streams, text inside the block goes out as `item/plan/delta` of the plan item
 *   `<message id>-plan` and the rest as `item/agentMessage/delta`; when the message completes,
 *   the plan item completes with the block's text and the agent message with the text around it.
 *   Stored history splits the same way (`splitProposedPlan`).
 */
import type { CodexThreadItem } from "../../protocol/app-server.js";

export const PLAN_TOOL = "update_plan";
const OPEN = "<proposed_plan>";
const CLOSE = "</proposed_plan>";

const STEP_STATUS = { pending: "pending", in_progress: "inProgress", completed: "completed" } as const;

/** `turn/plan/updated` params for a `plan.updated` event. */
export function planUpdated(
  threadId: string,
  turnId: string,
  explanation: string | null,
  plan: Array<{ step: string; status: keyof typeof STEP_STATUS }>,
) {
  return {
    threadId,
    turnId,
    explanation,
    plan: plan.map((s) => ({ step: s.step, status: STEP_STATUS[s.status] })),
  };
}

export const planItemId = (messageId: string): string => `${messageId}-plan`;

/**
 * A message's text split around its first complete `<proposed_plan>` block; `plan` undefined when
 * it has none. The plan text is trimmed of the blank lines next to the tags.
 */
export function splitProposedPlan(text: string): { text: string; plan?: string } {
  const start = text.indexOf(OPEN);
  if (start < 0) return { text };
  const end = text.indexOf(CLOSE, start + OPEN.length);
  if (end < 0) return { text };
  const plan = text
    .slice(start + OPEN.length, end)
    .replace(/^\s*\n/, "")
    .replace(/\n\s*$/, "");
  const rest = `${text.slice(0, start)}${text.slice(end + CLOSE.length)}`.trim();
  return { text: rest, plan };
}

/** The Codex items of an agent message: the message (if any text is left) and its plan item. */
export function agentMessageItems(id: string, text: string, planMode: boolean): CodexThreadItem[] {
  const split = planMode ? splitProposedPlan(text) : { text };
  if (split.plan === undefined) return [{ type: "agentMessage", id, text }];
  const out: CodexThreadItem[] = [];
  if (split.text) out.push({ type: "agentMessage", id, text: split.text });
  out.push({ type: "plan", id: planItemId(id), text: split.plan });
  return out;
}

/** What one streamed chunk of a Plan-mode message is: message text, plan text, the plan's start. */
export type PlanChunk = { kind: "text" | "plan"; text: string } | { kind: "planStarted" };

/**
 * Splits one agent message's deltas at the `<proposed_plan>` tags. A tag may arrive across
 * deltas: text that could be the start of a tag is held back until the next delta decides it.
 */
export class PlanSplitter {
  private inPlan = false;
  private held = "";
  started = false;

  push(delta: string): PlanChunk[] {
    const out: PlanChunk[] = [];
    let s = this.held + delta;
    this.held = "";
    for (;;) {
      const tag = this.inPlan ? CLOSE : OPEN;
      const at = s.indexOf(tag);
      if (at >= 0) {
        if (at > 0) out.push({ kind: this.inPlan ? "plan" : "text", text: s.slice(0, at) });
        s = s.slice(at + tag.length);
        if (!this.inPlan && !this.started) {
          this.started = true;
          out.push({ kind: "planStarted" });
        }
        this.inPlan = !this.inPlan;
        continue;
      }
      const keep = partialTagSuffix(s, tag);
      if (s.length > keep)
        out.push({ kind: this.inPlan ? "plan" : "text", text: s.slice(0, s.length - keep) });
      this.held = s.slice(s.length - keep);
      return out;
    }
  }
}

/** The length of the longest suffix of `s` that is a proper prefix of `tag`. */
function partialTagSuffix(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) if (tag.startsWith(s.slice(-n))) return n;
  return 0;
}

interface Note {
  method: string;
  params: Record<string, unknown>;
}

/**
 * The Plan-mode state of live turns for the event mapper: which turns run in Plan mode, and a
 * splitter per streaming agent message of those turns. Dropped when the turn completes.
 */
export class PlanTurns {
  private planTurns = new Set<string>();
  private splitters = new Map<string, PlanSplitter>();

  started(turnId: string, mode: string): void {
    if (mode === "plan") this.planTurns.add(turnId);
  }

  completed(turnId: string): void {
    this.planTurns.delete(turnId);
    for (const key of this.splitters.keys())
      if (key.startsWith(`${turnId}\u0000`)) this.splitters.delete(key);
  }

  isPlan(turnId: string): boolean {
    return this.planTurns.has(turnId);
  }

  /** An agent message delta as Codex notifications (split at the plan tags in Plan mode). */
  delta(ids: { threadId: string; turnId: string; itemId: string }, delta: string, time: number): Note[] {
    if (!this.planTurns.has(ids.turnId))
      return [{ method: "item/agentMessage/delta", params: { ...ids, delta } }];
    const key = `${ids.turnId}\u0000${ids.itemId}`;
    const splitter = this.splitters.get(key) ?? new PlanSplitter();
    this.splitters.set(key, splitter);
    const planId = planItemId(ids.itemId);
    return splitter.push(delta).map((c): Note => {
      if (c.kind === "planStarted") {
        const item = { type: "plan", id: planId, text: "" };
        return {
          method: "item/started",
          params: { threadId: ids.threadId, turnId: ids.turnId, item, startedAtMs: time },
        };
      }
      if (c.kind === "plan")
        return { method: "item/plan/delta", params: { ...ids, itemId: planId, delta: c.text } };
      return { method: "item/agentMessage/delta", params: { ...ids, delta: c.text } };
    });
  }

  /** Whether the plan item of a streamed message was already announced with item/started. */
  planAnnounced(turnId: string, itemId: string): boolean {
    return this.splitters.get(`${turnId}\u0000${itemId}`)?.started === true;
  }
}
