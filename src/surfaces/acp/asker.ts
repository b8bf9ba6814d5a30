/**
 * The bridge between the broker's pending requests and the ACP client (one per connection).
 *
 * Contract:
 * - `ask(request)` sends a pending request to the client at most once at a time: an approval as
 *   `session/request_permission`; questions as `elicitation/create` when the client declared form
 *   elicitation, else as permission requests when every question is single choice (questions.ts);
 *   anything else is declined at once with the reason ("no responder" for this form: model
 *   questions never get here, the session's pre-tool hook answers them `unavailable`, SPEC Q3).
 * - The client's result becomes a typed reply through `runtime.questions.reply` (the broker validates it) or
 *   a decline; a JSON-RPC error from the client is a decline. An answer the broker refuses as
 *   invalid is logged and asked again (the form's message says why), at most MAX_ATTEMPTS times;
 *   after that the request stays pending (an interrupt or another answer settles it), never lost.
 * - `settled(requestId)` (the request settled anywhere: answered, timed out, cancelled by an
 *   interrupt) cancels the outstanding client request (`$/cancel_request`); a late result for it
 *   is ignored.
 * - Secret answers are never logged.
 */
import {
  type AgentContext,
  type CreateElicitationResponse,
  methods,
  RequestError,
  type RequestPermissionOutcome,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { ReplyResult } from "../../protocol/questions.js";
import {
  elicitationLabel,
  type QuestionAnswer,
  type QuestionRequest,
  type Responder,
} from "../../protocol/questions.js";
import type { Runtime } from "../../runtime/core.js";
import {
  approvalOptions,
  approvalReply,
  choiceAnswer,
  choiceOptions,
  elicitationMessage,
  elicitationReply,
  elicitationSchema,
  type Mapped,
  permissionAnswerable,
  urlReply,
} from "./questions.js";
import { text } from "./updates.js";

export const MAX_ATTEMPTS = 3;

export interface AskerDeps {
  runtime: Runtime;
  client: () => AgentContext;
  /** The client declared `elicitation.form` in initialize. */
  formElicitation: () => boolean;
  /** The client declared `elicitation.url` in initialize. */
  urlElicitation: () => boolean;
  responder: Responder;
  /** The connection to the client is closed. */
  closed: () => boolean;
  log: (line: string) => void;
}

export class Asker {
  private live = new Map<string, AbortController>();

  constructor(private readonly deps: AskerDeps) {}

  ask(request: QuestionRequest): void {
    if (this.live.has(request.request_id)) return;
    const ctrl = new AbortController();
    this.live.set(request.request_id, ctrl);
    void this.run(request, ctrl).finally(() => {
      if (this.live.get(request.request_id) === ctrl) this.live.delete(request.request_id);
    });
  }

  settled(requestId: string): void {
    this.live.get(requestId)?.abort();
    this.live.delete(requestId);
  }

  /** Cancels every outstanding client request (connection closing). */
  dispose(): void {
    for (const c of this.live.values()) c.abort();
    this.live.clear();
  }

  private async run(request: QuestionRequest, ctrl: AbortController): Promise<void> {
    let error: string | undefined;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      let mapped: Mapped;
      try {
        mapped = await this.exchange(request, ctrl.signal, error);
      } catch (err) {
        // Settled meanwhile, or the connection closed: nobody answered, the request stays pending.
        if (ctrl.signal.aborted || this.deps.closed()) return;
        const reason = err instanceof RequestError ? err.message : String(err);
        this.deps.log(`${request.request_id}: the client answered with an error (${reason}); declined`);
        mapped = { kind: "decline", reason: `the client could not show the request: ${reason}` };
      }
      if (ctrl.signal.aborted) return;
      const r = this.settle(request, mapped);
      if (r.ok) return;
      this.deps.log(`${request.request_id}: answer refused (${r.code}): ${r.message}`);
      if (r.code !== "invalid_reply") return;
      error = r.message;
    }
    this.deps.log(`${request.request_id}: ${MAX_ATTEMPTS} invalid answers; the request stays pending`);
  }

  private settle(request: QuestionRequest, mapped: Mapped): ReplyResult {
    const { thread_id, request_id } = request;
    const { runtime, responder } = this.deps;
    switch (mapped.kind) {
      case "invalid":
        return { ok: false, code: "invalid_reply", message: mapped.message };
      case "reply":
        return runtime.questions.reply(thread_id, request_id, mapped.reply, responder);
      case "decline":
        return runtime.questions.decline(thread_id, request_id, responder, mapped.reason);
    }
  }

  private async exchange(request: QuestionRequest, signal: AbortSignal, error?: string): Promise<Mapped> {
    if (request.approval) {
      const outcome = await this.permission(
        request,
        approvalToolCall(request),
        approvalOptions(request),
        signal,
      );
      return approvalReply(request, outcome);
    }
    const e = request.elicitation;
    if (e?.mode === "url" && e.url && this.deps.urlElicitation()) {
      const response = (await this.deps.client().request(
        methods.client.elicitation.create,
        {
          mode: "url",
          sessionId: sessionOf(request),
          toolCallId: request.call_id,
          elicitationId: e.elicitation_id ?? request.request_id,
          url: e.url,
          message: `${elicitationLabel(e)}\n${e.message}`,
        },
        { cancellationSignal: signal },
      )) as CreateElicitationResponse;
      return urlReply(request, response);
    }
    if (this.deps.formElicitation()) {
      const response = (await this.deps.client().request(
        methods.client.elicitation.create,
        {
          mode: "form",
          sessionId: sessionOf(request),
          toolCallId: request.call_id,
          message: elicitationMessage(request, error),
          requestedSchema: elicitationSchema(request),
        },
        { cancellationSignal: signal },
      )) as CreateElicitationResponse;
      return elicitationReply(request, response);
    }
    if (!permissionAnswerable(request.questions))
      return {
        kind: "decline",
        reason:
          "no responder: the editor cannot show this form (it has no form elicitation; only single-choice questions can be asked)",
      };
    const answers: Record<string, QuestionAnswer> = {};
    for (const q of request.questions) {
      const toolCall: ToolCallUpdate = {
        toolCallId: request.call_id,
        title: q.header ? `${q.header}: ${q.prompt}` : q.prompt,
        kind: "other",
        status: "pending",
        content: [text(q.prompt)],
      };
      const outcome = await this.permission(request, toolCall, choiceOptions(q), signal);
      const got = choiceAnswer(q, outcome);
      if (!got.ok) return { kind: "invalid", message: got.message };
      if (got.answer) answers[q.id] = got.answer;
    }
    if (Object.keys(answers).length === 0)
      return { kind: "decline", reason: "the user skipped every question" };
    return { kind: "reply", reply: { answers } };
  }

  private async permission(
    request: QuestionRequest,
    toolCall: ToolCallUpdate,
    options: ReturnType<typeof approvalOptions>,
    signal: AbortSignal,
  ): Promise<RequestPermissionOutcome> {
    const response = await this.deps
      .client()
      .request(
        methods.client.session.requestPermission,
        { sessionId: sessionOf(request), toolCall, options },
        { cancellationSignal: signal },
      );
    return response.outcome;
  }
}

/** The tool call an approval is about, as the permission request shows it. */
function approvalToolCall(request: QuestionRequest): ToolCallUpdate {
  const a = request.approval!;
  const prompt = request.questions[0]?.prompt ?? a.reason;
  if (a.kind === "file_change")
    return {
      toolCallId: request.call_id,
      title: `Edit ${a.paths?.join(", ") ?? "files"}`,
      kind: "edit",
      status: "pending",
      locations: (a.paths ?? []).map((path) => ({ path })),
      content: [text(prompt)],
    };
  return {
    toolCallId: request.call_id,
    title: a.command ?? "Run a command",
    kind: "execute",
    status: "pending",
    rawInput: {
      command: a.command,
      cwd: a.cwd,
      ...(a.justification ? { justification: a.justification } : {}),
    },
    content: [text(prompt)],
  };
}

/** The editor session a request is asked in: a sub-agent's goes to its root thread's (Q14). */
function sessionOf(request: QuestionRequest): string {
  return request.agent?.root_thread_id ?? request.thread_id;
}
