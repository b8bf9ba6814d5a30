/**
 * The bridge from the broker's pending requests to the MCP host's `elicitation/create` (the stateful
 * half; the mapping is elicitation.ts). One per connection, used only when the host declared form
 * elicitation.
 *
 * Contract:
 * - `ask(request)` sends one form per pending request (a request already being asked is not sent
 *   again) and hands the host's result to the broker through the runtime's question API: accept →
 *   `reply`, decline → `decline`, cancel → Tandem's cancel (an approval gets its Cancel decision,
 *   which stops the turn; a question stops the turn, which settles it as cancelled).
 * - An answer the mapping or the broker refuses (wrong type, not an option, a required field
 *   missing, a schema mismatch found by the SDK) is never lost: the form is sent again with the
 *   reason first in its message, up to MAX_ATTEMPTS times; after that the request is declined with
 *   that reason, so the model is told rather than left waiting.
 * - A JSON-RPC error from the host is a decline (as on app-server). A closed connection changes
 *   nothing: the question stays pending until the turn ends or the process shuts down (Q11).
 * - `settled(id)` (the request settled anywhere: timeout, interrupt, another surface) withdraws the
 *   host's form: the SDK sends `notifications/cancelled` for it. `close()` withdraws every form.
 * - Forms wait as long as the question does (no SDK request timeout): the question policy (Q7)
 *   decides when to stop waiting.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { ReplyResult } from "../../protocol/questions.js";
import { APPROVAL_LABELS, type QuestionRequest, type Responder } from "../../protocol/questions.js";
import {
  type ElicitationAnswer,
  elicitationFor,
  elicitationReply,
  offeredDecisions,
} from "../../questions/form.js";
import type { Runtime } from "../../runtime/core.js";

export const MAX_ATTEMPTS = 5;
/** The longest timer Node keeps (about 24.8 days): in effect, no timeout. */
const NO_TIMEOUT = 2_147_483_647;

export interface AskerDeps {
  server: Server;
  runtime: Runtime;
  responder: Responder;
  log: (line: string) => void;
}

export class ElicitationAsker {
  private live = new Map<string, AbortController>();

  constructor(private readonly deps: AskerDeps) {}

  /** Forms currently waiting on the host (leak checks). */
  get size(): number {
    return this.live.size;
  }

  /** Sends `request` to the host unless it is already being asked; `related` ties it to a tool call. */
  ask(request: QuestionRequest, related?: RequestId): void {
    if (this.live.has(request.request_id)) return;
    const ctrl = new AbortController();
    this.live.set(request.request_id, ctrl);
    void this.run(request, ctrl, related)
      .catch((err) => this.deps.log(`elicitation for ${request.request_id} failed: ${String(err)}`))
      .finally(() => {
        if (this.live.get(request.request_id) === ctrl) this.live.delete(request.request_id);
      });
  }

  /** The request settled: withdraw its form, if any. */
  settled(requestId: string): void {
    const ctrl = this.live.get(requestId);
    if (!ctrl) return;
    this.live.delete(requestId);
    ctrl.abort(new Error("the question was settled"));
  }

  close(): void {
    for (const id of [...this.live.keys()]) this.settled(id);
  }

  private async run(request: QuestionRequest, ctrl: AbortController, related?: RequestId): Promise<void> {
    const { server } = this.deps;
    let problem: string | undefined;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const params = elicitationFor(request);
      if (problem) params.message = `Your previous answer was not used: ${problem}\n\n${params.message}`;
      let answer: ElicitationAnswer;
      try {
        const result = await server.elicitInput(params, {
          signal: ctrl.signal,
          timeout: NO_TIMEOUT,
          ...(related !== undefined ? { relatedRequestId: related } : {}),
        });
        answer = elicitationReply(request, result);
      } catch (err) {
        if (ctrl.signal.aborted) return;
        if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return;
        // The SDK checks an accepted form against the schema it sent: a mismatch is an invalid answer.
        if (err instanceof McpError && /does not match requested schema/.test(err.message)) {
          answer = { kind: "invalid", message: err.message.replace(/^MCP error -?\d+: /, "") };
        } else {
          const reason = `the MCP host answered with an error: ${(err as Error).message}`;
          this.report(
            request,
            this.deps.runtime.questions.decline(
              request.thread_id,
              request.request_id,
              this.deps.responder,
              reason,
            ),
          );
          return;
        }
      }
      if (ctrl.signal.aborted) return;
      if (answer.kind === "invalid") {
        problem = answer.message;
        continue;
      }
      const r = this.settle(request, answer);
      if (r.ok || r.code !== "invalid_reply") return this.report(request, r);
      problem = r.message;
    }
    const reason = `no valid answer after ${MAX_ATTEMPTS} attempts (last: ${problem})`;
    this.deps.log(`${request.request_id}: ${reason}; declined`);
    this.report(
      request,
      this.deps.runtime.questions.decline(request.thread_id, request.request_id, this.deps.responder, reason),
    );
  }

  /** Hands a mapped answer to the broker (reply / decline) or stops the turn (cancel). */
  private settle(
    request: QuestionRequest,
    answer: Exclude<ElicitationAnswer, { kind: "invalid" }>,
  ): ReplyResult {
    const { runtime, responder } = this.deps;
    const { thread_id, request_id } = request;
    switch (answer.kind) {
      case "reply":
        return runtime.questions.reply(thread_id, request_id, answer.reply, responder);
      case "decline":
        return runtime.questions.decline(thread_id, request_id, responder, answer.reason);
      case "cancel": {
        if (request.approval && offeredDecisions(request).includes("cancel")) {
          const reply = { answers: { decision: { selected: [APPROVAL_LABELS.cancel] } } };
          return runtime.questions.reply(thread_id, request_id, reply, responder);
        }
        if (runtime.turns.active(thread_id)?.id === request.turn_id)
          runtime.turns.interrupt(thread_id, answer.reason);
        else return runtime.questions.decline(thread_id, request_id, responder, answer.reason);
        return { ok: true, outcome: { status: "cancelled", reason: answer.reason } };
      }
    }
  }

  private report(request: QuestionRequest, r: ReplyResult): void {
    if (!r.ok) this.deps.log(`answer to ${request.request_id} refused (${r.code}): ${r.message}`);
  }
}
