/**
 * Asking one connected client (one per connection): the bridge every surface that forwards
 * pending requests to a client uses — the app server (Codex server requests), ACP editors
 * (`elicitation/create`, permission requests) and hosts of `tandem mcp-server` (MCP
 * `elicitation/create`). The surface supplies how to show a request and read the result
 * (`AskClient`); the core supplies how to settle it (`AskHost`); this owns the one policy.
 *
 * Contract (README "Questions on every surface"):
 * - `ask(request, context)` shows a pending request to the client once at a time (a request already
 *   being asked is not sent again); `follow(event, context)` does so for `question.requested` and
 *   calls `settled` for every terminal question event.
 * - The client's answer is settled by one rule (`settle`): a reply through the broker (which
 *   validates it); a decline; a cancel (the person dismissed it without deciding) cancels what
 *   asked: an MCP server's request settles `cancelled`, so the server hears `cancel` and the turn
 *   goes on; an approval gets its Cancel decision and a model question stops its turn (both stop
 *   the turn, requirements A3).
 * - An answer the mapping or the broker refuses as invalid is never lost: the request is shown
 *   again with the reason, at most MAX_ATTEMPTS times in all. Every refusal is logged (secret
 *   answers never are) and passed to `AskClient.refused`.
 * - When this connection cannot get an answer — MAX_ATTEMPTS invalid answers, or the client could
 *   not show the request (`unseen`: a client error, a form it cannot render) — it stops asking. If
 *   another responder can answer the thread, the request stays pending for it; otherwise it
 *   settles `unavailable` with the reason: nobody can answer, and the model (or MCP server) is
 *   told so rather than left waiting or told the user declined.
 * - A client error that is the protocol's way to refuse (`declined`, e.g. a Codex client's error
 *   reply) declines with the client's message.
 * - A closed connection, or a request withdrawn (`withdraw`, `close`) or settled elsewhere
 *   (`settled`): nothing is settled; the request stays pending (stored) for other surfaces and the
 *   next connection (requirements Q11). A disconnect never settles a question.
 * - The asker never times a request out: the question's own policy does (Q7), and when the
 *   request settles anywhere `settled` aborts the exchange's signal, which withdraws the client's
 *   request. A result that arrives after that is ignored here.
 */
import type { Event } from "../protocol/events.js";
import { APPROVAL_LABELS, type QuestionRequest, type Responder } from "../protocol/questions.js";
import type { ReplyResult } from "./broker.js";
import type { FormAnswer } from "./form.js";
import { offeredDecisions } from "./form-approval.js";

export const MAX_ATTEMPTS = 3;

/** How the core settles requests for an asker (the surfaces bind it to the runtime). */
export interface AskHost {
  /** The request as it is pending now (a snoozed deadline), or undefined once it settled. */
  pending(request: QuestionRequest): QuestionRequest | undefined;
  reply(
    request: QuestionRequest,
    reply: Extract<FormAnswer, { kind: "reply" }>["reply"],
    responder: Responder,
  ): ReplyResult;
  decline(request: QuestionRequest, responder: Responder, reason: string): ReplyResult;
  /** Settles it `unavailable` (nobody can answer it). */
  unavailable(request: QuestionRequest, reason: string): ReplyResult;
  /** Settles an MCP server's request `cancelled`, so the server hears `cancel`. */
  expire(request: QuestionRequest, reason: string): ReplyResult;
  /** Stops the request's turn; false when that turn is not running here. */
  interrupt(request: QuestionRequest, reason: string): boolean;
  /** Whether anyone but `responder` can answer the request's thread. */
  othersCanAnswer(request: QuestionRequest, responder: Responder): boolean;
}

/** What a client's error means (AskClient.classify). */
export type ClientError =
  /** The connection closed, or the request was withdrawn: nothing is settled. */
  | { kind: "gone" }
  /** The protocol's way to refuse: a decline with this reason. */
  | { kind: "declined"; reason: string }
  /** The client could not show the request: nobody saw it. */
  | { kind: "unseen"; reason: string }
  /** The client's own check refused the answer: asked again. */
  | { kind: "invalid"; message: string };

export interface Exchange<C> {
  /** Aborted when the request settles elsewhere or is withdrawn: withdraw the client's request. */
  signal: AbortSignal;
  /** 1 for the first showing, then 2, 3… */
  attempt: number;
  /** Why the previous answer was not used, for the client's message. */
  problem?: string;
  context: C;
}

export interface AskClient<C> {
  responder: Responder;
  /** Shows the request once; resolves with the person's mapped answer, rejects with the client's error. */
  exchange(request: QuestionRequest, x: Exchange<C>): Promise<FormAnswer>;
  classify(err: unknown): ClientError;
  log(line: string): void;
  /** Every refused answer (after it is logged). */
  refused?(request: QuestionRequest, code: string, message: string): void;
}

/** The events that settle a question (whoever settled it). */
export const SETTLED_EVENTS: ReadonlySet<Event["type"]> = new Set<Event["type"]>([
  "question.answered",
  "question.declined",
  "question.timed_out",
  "question.cancelled",
]);

export class Asker<C = undefined> {
  private live = new Map<string, { ctrl: AbortController; request: QuestionRequest }>();

  constructor(
    private readonly host: AskHost,
    private readonly client: AskClient<C>,
  ) {}

  /** Requests being asked now (leak checks). */
  get size(): number {
    return this.live.size;
  }

  has(requestId: string): boolean {
    return this.live.has(requestId);
  }

  ask(request: QuestionRequest, context: C): void {
    if (this.live.has(request.request_id)) return;
    const ctrl = new AbortController();
    this.live.set(request.request_id, { ctrl, request });
    void this.run(request, ctrl.signal, context)
      .catch((err) => this.client.log(`asking ${request.request_id} failed: ${String(err)}`))
      .finally(() => {
        if (this.live.get(request.request_id)?.ctrl === ctrl) this.live.delete(request.request_id);
      });
  }

  /** Asks `question.requested`; withdraws on a terminal question event. */
  follow(event: Event, context: C): void {
    if (event.type === "question.requested") this.ask(event.request, context);
    else if (SETTLED_EVENTS.has(event.type) && "request_id" in event) this.settled(event.request_id);
  }

  /** The request settled anywhere: withdraw it from the client. */
  settled(requestId: string): void {
    this.withdraw((r) => r.request_id === requestId, "the question was settled");
  }

  /** Stops asking the matching requests (all without `match`); they stay pending in the broker. */
  withdraw(match: (r: QuestionRequest) => boolean = () => true, reason = "withdrawn"): void {
    for (const [id, entry] of [...this.live]) {
      if (!match(entry.request)) continue;
      this.live.delete(id);
      entry.ctrl.abort(new Error(reason));
    }
  }

  close(): void {
    this.withdraw(undefined, "the connection is closing");
  }

  /** Settles `request` with a mapped answer by the one rule (also for a result that came late). */
  settle(request: QuestionRequest, answer: FormAnswer): ReplyResult {
    const { responder } = this.client;
    switch (answer.kind) {
      case "invalid":
        return { ok: false, code: "invalid_reply", message: answer.message };
      case "reply":
        return this.host.reply(request, answer.reply, responder);
      case "decline":
        return this.host.decline(request, responder, answer.reason);
      case "cancel":
        if (request.elicitation) return this.host.expire(request, answer.reason);
        if (request.approval && offeredDecisions(request).includes("cancel"))
          return this.host.reply(
            request,
            { answers: { decision: { selected: [APPROVAL_LABELS.cancel] } } },
            responder,
          );
        if (!request.approval && this.host.interrupt(request, answer.reason))
          return { ok: true, outcome: { status: "cancelled", reason: answer.reason } };
        return this.host.decline(request, responder, answer.reason);
    }
  }

  private async run(first: QuestionRequest, signal: AbortSignal, context: C): Promise<void> {
    let problem: string | undefined;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const request = this.host.pending(first);
      if (!request || signal.aborted) return;
      let answer: FormAnswer;
      try {
        answer = await this.client.exchange(request, { signal, attempt, problem, context });
      } catch (err) {
        if (signal.aborted) return;
        const meaning = this.client.classify(err);
        if (meaning.kind === "gone") return;
        if (meaning.kind === "unseen")
          return this.giveUp(request, `the client could not show it: ${meaning.reason}`);
        answer =
          meaning.kind === "declined"
            ? { kind: "decline", reason: meaning.reason }
            : { kind: "invalid", message: meaning.message };
      }
      if (signal.aborted) return;
      const r = this.settle(request, answer);
      if (r.ok) return;
      this.refuse(request, r.code, r.message);
      if (r.code !== "invalid_reply") return;
      problem = r.message;
    }
    this.giveUp(first, `no valid answer after ${MAX_ATTEMPTS} attempts (last: ${problem})`);
  }

  /** This connection cannot get an answer: leave it to the others, or settle `unavailable`. */
  private giveUp(request: QuestionRequest, reason: string): void {
    if (this.host.othersCanAnswer(request, this.client.responder)) {
      this.client.log(`${request.request_id}: ${reason}; it stays pending for the other responders`);
      return;
    }
    this.client.log(`${request.request_id}: ${reason}; nobody else can answer it: unavailable`);
    const r = this.host.unavailable(request, `nobody could answer: ${reason}`);
    if (!r.ok) this.refuse(request, r.code, r.message);
  }

  private refuse(request: QuestionRequest, code: string, message: string): void {
    this.client.log(`answer to ${request.request_id} refused (${code}): ${message}`);
    this.client.refused?.(request, code, message);
  }
}
