/**
 * One MCP tool call = one Tandem turn, run to completion (the stateful core of `tandem mcp-server`;
 * tools.ts is the MCP face). A thin adapter: threads, turns, questions and approvals are the
 * runtime's; this only follows the thread's events for the duration of the call.
 *
 * Contract of `runTurn(spec, call)`:
 * - `spec.threadId` absent: a new thread in `spec.cwd` (which must be a directory) with the given
 *   mode, model, sandbox and approval policy, remembered by the thread (a later `tandem_reply` keeps
 *   them). Present: that thread (any unique prefix), opened from the store when this process does
 *   not hold it; questions left pending by an earlier process are asked again first (Q11) and the
 *   turn they belong to finishes before the new prompt starts.
 * - While the call runs, and only when the host declared form elicitation (`asker` given), this
 *   connection is the thread's responder: every question and approval of the thread goes to the
 *   host as a form, tied to the tool call. Without it nobody is attached, so the model is told no
 *   one can answer and approvals resolve unavailable (requirements Q3, headless rule) — nothing ever waits.
 * - `call.signal` (the MCP request's cancellation) interrupts the turn: command process trees are
 *   killed, pending questions settle as cancelled, history stays paired. Resolves once it ended.
 * - Resolves with the turn's status and final agent message; throws `McpServerError` for what the
 *   caller got wrong (bad cwd, unknown thread, a thread busy with another call) and lets the
 *   runtime's own errors (thread in use by another process) through with their messages.
 * - Listeners and the responder registration are removed when the call ends, whatever happens.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { CollaborationMode, Event } from "../../protocol/events.js";
import type { TurnOptions } from "../../protocol/ops.js";
import type { Responder } from "../../protocol/questions.js";
import { SETTLED_EVENTS } from "../../questions/asker.js";
import type { Runtime } from "../../runtime/core.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import type { McpAsker } from "./asker.js";

/** A caller mistake; its message says what to fix. */
export class McpServerError extends Error {
  override name = "McpServerError";
}

export interface TurnSpec {
  prompt: string;
  threadId?: string;
  cwd?: string;
  mode?: CollaborationMode;
  sandbox?: TurnOptions["sandbox"];
  approvalPolicy?: TurnOptions["approval_policy"];
  model?: string;
}

export interface CallContext {
  signal: AbortSignal;
  requestId?: RequestId;
  /** Human-readable progress for a long turn (sent as MCP progress when the host asked for it). */
  progress?: (message: string) => void;
}

export interface TurnReport {
  threadId: string;
  turnId: string;
  status: "completed" | "interrupted" | "failed";
  /** The turn's last agent message ("" when it wrote none). */
  message: string;
  error?: string;
}

export interface TurnRunnerDeps {
  runtime: Runtime;
  /** Present when the host declared form elicitation. */
  asker?: McpAsker;
  responder: Responder;
  /** The server process's directory: threads start here unless the call names a cwd. */
  defaultCwd: string;
}

function progressLine(event: Event): string | undefined {
  switch (event.type) {
    case "turn.started":
      return "turn started";
    case "item.started":
      return event.item.type === "command_execution" ? `running ${event.item.command}` : undefined;
    case "item.completed":
      return event.item.type === "agent_message" ? event.item.text.slice(0, 200) : undefined;
    case "question.requested":
      return event.request.approval
        ? `waiting for approval: ${event.request.questions[0]?.prompt.split("\n")[0] ?? ""}`
        : `waiting for an answer: ${event.request.questions.map((q) => q.header || q.id).join(", ")}`;
    default:
      return SETTLED_EVENTS.has(event.type) ? "the user's answer was taken" : undefined;
  }
}

function directory(cwd: string): string {
  const dir = resolve(cwd);
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new McpServerError(`cwd ${dir} is not a directory; pass an existing directory`);
  return dir;
}

export class TurnRunner {
  constructor(private readonly deps: TurnRunnerDeps) {}

  async runTurn(spec: TurnSpec, call: CallContext): Promise<TurnReport> {
    const { runtime } = this.deps;
    if (call.signal.aborted) throw new McpServerError("the call was cancelled before it started");
    let threadId: string | undefined;
    if (spec.threadId !== undefined) {
      const ref = runtime.threads.resolve(spec.threadId);
      if (!ref.ok) throw new McpServerError(`${ref.message}; start a new thread with the tandem tool`);
      threadId = ref.id;
    }
    const cwd = threadId ? undefined : directory(spec.cwd ?? this.deps.defaultCwd);
    const cleanups: Array<() => void> = [];
    try {
      // Attached and listening before a stored thread opens: its re-asked questions reach the host.
      const follow = (id: string) => {
        if (this.deps.asker) cleanups.push(runtime.questions.attach({ threadId: id }, this.deps.responder));
        const sub = runtime.subscribe((s) => this.onEvent(s.event, call), { threadId: id });
        cleanups.push(() => sub.unsubscribe());
      };
      let thread: Thread;
      if (threadId) {
        const loaded = runtime.threads.get(threadId);
        if (loaded?.active)
          throw new McpServerError(
            `thread ${threadId} is running a turn for another call; wait for it to finish, then reply`,
          );
        follow(threadId);
        thread = loaded ?? runtime.threads.open(threadId);
      } else {
        thread = runtime.threads.start({
          cwd: cwd!,
          mode: spec.mode,
          model: spec.model,
          offerQuestions: true,
        });
        const safety = {
          ...(spec.sandbox ? { sandbox_mode: spec.sandbox } : {}),
          ...(spec.approvalPolicy ? { approval_policy: spec.approvalPolicy } : {}),
        };
        if (Object.keys(safety).length) runtime.threads.updateSettings(thread.id, safety);
        follow(thread.id);
      }
      for (const request of runtime.questions.list({ threadId: thread.id }))
        this.deps.asker?.ask(request, call.requestId);

      const onAbort = () => thread.interrupt("cancelled by the MCP client");
      call.signal.addEventListener("abort", onAbort, { once: true });
      cleanups.push(() => call.signal.removeEventListener("abort", onAbort));

      // A turn resumed by re-asked questions finishes first.
      if (thread.active) await thread.active.done.catch(() => {});
      if (call.signal.aborted) throw new McpServerError("the call was cancelled");
      const turn = thread.startTurn(spec.prompt, { options: { mode: spec.mode ?? thread.record.mode } });
      const outcome = await turn.done;
      return {
        threadId: thread.id,
        turnId: turn.id,
        status: outcome.status,
        message: outcome.lastMessage ?? "",
        ...(outcome.error ? { error: outcome.error.message } : {}),
      };
    } finally {
      for (const c of cleanups.reverse()) c();
    }
  }

  private onEvent(event: Event, call: CallContext): void {
    this.deps.asker?.follow(event, call.requestId);
    const line = call.progress && progressLine(event);
    if (line) call.progress?.(line);
  }
}
