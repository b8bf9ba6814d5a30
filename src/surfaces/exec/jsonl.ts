/**
 * Maps Tandem events to `codex exec --json` JSONL (requirements S2), so Codex SDK clients can drive
 * Tandem unchanged. Item ids are `item_N` in order of first appearance, as Codex prints them.
 * Tandem additions (`question.requested`) use their own type names; Codex clients ignore them.
 * A run that stops on a deferred question ends with `turn.failed` naming the request.
 */
import type { Event, TurnItem } from "../../protocol/events.js";
import type { QuestionRequest } from "../../protocol/questions.js";

export class JsonlMapper {
  private ids = new Map<string, string>();
  private outputs = new Map<string, string>();
  private lastUpdate = new Map<string, number>();
  /** The turn's todo list (update_plan): started once, updated, completed at turn end. */
  private todo: { id: string; items: Array<{ text: string; completed: boolean }> } | undefined;

  constructor(private readonly write: (obj: unknown) => void) {}

  private itemId(id: string): string {
    let mapped = this.ids.get(id);
    if (!mapped) {
      mapped = `item_${this.ids.size}`;
      this.ids.set(id, mapped);
    }
    return mapped;
  }

  private item(item: TurnItem): Record<string, unknown> | undefined {
    const id = this.itemId(item.id);
    switch (item.type) {
      case "agent_message":
        return { id, type: "agent_message", text: item.text };
      case "reasoning":
        return { id, type: "reasoning", text: item.text };
      case "command_execution":
        return {
          id,
          type: "command_execution",
          command: item.command,
          aggregated_output: item.aggregated_output,
          exit_code: item.exit_code,
          status: item.status,
        };
      case "error":
        return { id, type: "error", message: item.message };
      case "file_change":
        return {
          id,
          type: "file_change",
          // Codex has no "move" kind: a move is an update with its new path.
          changes: item.changes.map((c) =>
            c.kind === "move"
              ? { path: c.path, kind: "update", move_path: c.move_path }
              : { path: c.path, kind: c.kind },
          ),
          status: item.status === "completed" ? "completed" : "failed",
          // Tandem addition (Codex clients ignore it): why the patch failed.
          ...(item.error ? { error: { message: item.error } } : {}),
        };
      default:
        return undefined;
    }
  }

  handle(event: Event): void {
    switch (event.type) {
      case "thread.started":
        this.write({ type: "thread.started", thread_id: event.thread_id });
        break;
      case "turn.started":
        this.write({ type: "turn.started" });
        break;
      case "item.started":
      case "item.completed": {
        if (event.item.type === "agent_message" && event.type === "item.started") break;
        const item = this.item(event.item);
        if (item) this.write({ type: event.type, item });
        break;
      }
      case "exec.output_delta": {
        const prev = this.outputs.get(event.item_id) ?? "";
        const text = prev + event.chunk;
        this.outputs.set(event.item_id, text);
        const now = Date.now();
        if (now - (this.lastUpdate.get(event.item_id) ?? 0) < 100) break;
        this.lastUpdate.set(event.item_id, now);
        this.write({
          type: "item.updated",
          item: {
            id: this.itemId(event.item_id),
            type: "command_execution",
            aggregated_output: text,
            status: "in_progress",
          },
        });
        break;
      }
      case "error":
        this.write({ type: "error", message: event.error.message });
        break;
      // Tandem addition: a compaction is a `context_compaction` item (Codex clients ignore it).
      case "context.compacting":
        this.write({
          type: "item.started",
          item: { id: this.itemId(event.item_id), type: "context_compaction", reason: event.reason },
        });
        break;
      case "context.compacted":
        this.write({
          type: "item.completed",
          item: {
            id: this.itemId(event.item_id),
            type: "context_compaction",
            reason: event.reason,
            before_tokens: event.before_tokens,
            after_tokens: event.after_tokens,
          },
        });
        break;
      case "plan.updated": {
        const items = event.plan.map((p) => ({ text: p.step, completed: p.status === "completed" }));
        const first = !this.todo;
        this.todo ??= { id: this.itemId(`todo_${event.turn_id}`), items };
        this.todo.items = items;
        this.write({
          type: first ? "item.started" : "item.updated",
          item: { id: this.todo.id, type: "todo_list", items },
        });
        break;
      }
      case "turn.completed": {
        if (this.todo) {
          this.write({
            type: "item.completed",
            item: { id: this.todo.id, type: "todo_list", items: this.todo.items },
          });
          this.todo = undefined;
        }
        const u = event.usage;
        if (event.status === "completed") {
          this.write({
            type: "turn.completed",
            usage: {
              input_tokens: u.input_tokens,
              cached_input_tokens: u.cached_input_tokens,
              output_tokens: u.output_tokens,
              reasoning_output_tokens: u.reasoning_output_tokens,
            },
          });
        } else {
          const message =
            event.error?.message ?? (event.status === "interrupted" ? "turn interrupted" : "turn failed");
          this.write({ type: "turn.failed", error: { message } });
        }
        break;
      }
      case "question.requested":
        this.write(questionLine(event.request));
        break;
    }
  }
}

export function questionLine(request: QuestionRequest): Record<string, unknown> {
  return {
    type: "question.requested",
    thread_id: request.thread_id,
    turn_id: request.turn_id,
    request_id: request.request_id,
    call_id: request.call_id,
    policy: request.policy,
    deadline: request.deadline,
    questions: request.questions,
    // Tandem addition: a sub-agent asks (who, its task, its root thread).
    ...(request.agent ? { agent: request.agent } : {}),
  };
}

/**
 * The last line of a run that stopped on a deferred question: a Codex `turn.failed` (the SDK's
 * `Thread.run` throws with its message) saying input is needed and naming the request.
 */
export function inputNeededLine(request: QuestionRequest, hint: string): Record<string, unknown> {
  const message = `input needed: question request ${request.request_id} is waiting for an answer; ${hint}`;
  return { type: "turn.failed", error: { message } };
}
