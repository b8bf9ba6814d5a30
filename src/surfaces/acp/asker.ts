/**
 * How `tandem acp` shows a pending request to the editor (one per connection), under the one
 * asking policy (questions/asker.ts: re-asks with the reason, cancel, unavailable, a disconnect
 * settles nothing).
 *
 * Contract of `acpAsker(deps)`:
 * - An approval goes out as `session/request_permission` (questions.ts). An MCP server's URL
 *   request goes out in URL mode when the editor declared `elicitation.url`. Questions go out as
 *   `elicitation/create` forms (sessionId + toolCallId of the asking call) by the one
 *   question↔form mapping (questions/form.ts: the "Other…" choice and its text form, secrets under
 *   `_meta["tandem/secret"]`) when the editor declared `elicitation.form`; else as one permission
 *   request per question when every question is single choice. Anything else the editor cannot
 *   show (`unseen`): model questions never get here (the session's pre-tool hook answers them
 *   `unavailable`, requirements Q3), so this is an internal request, e.g. an MCP server's form.
 * - A JSON-RPC error from the editor means it could not show the request (`unseen`; ACP has its
 *   own decline and cancel); a closed connection changes nothing (the request stays stored and is
 *   asked again when the session is loaded).
 * - A sub-agent's request is asked in its root thread's session (Q14).
 * - Secret answers are never logged.
 */
import {
  type AgentContext,
  type CreateElicitationResponse,
  methods,
  type RequestPermissionOutcome,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { QuestionAnswer, QuestionRequest, Responder } from "../../protocol/questions.js";
import { Asker, type ClientError } from "../../questions/asker.js";
import { askByForm, type FormAnswer, urlMessage } from "../../questions/form.js";
import type { Runtime } from "../../runtime/core.js";
import { askHost } from "../shared/ask-host.js";
import {
  approvalOptions,
  approvalReply,
  choiceOptions,
  permissionAnswer,
  permissionAnswerable,
  urlReply,
} from "./questions.js";
import { text } from "./updates.js";

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

/** The editor has no way to show this request. */
class CannotShow extends Error {}

export type AcpAsker = Asker<undefined>;

export function acpAsker(deps: AskerDeps): AcpAsker {
  const classify = (err: unknown): ClientError => {
    if (deps.closed()) return { kind: "gone" };
    return { kind: "unseen", reason: err instanceof Error ? err.message : String(err) };
  };
  return new Asker(askHost(deps.runtime), {
    responder: deps.responder,
    log: deps.log,
    classify,
    exchange: (request, { signal, problem }) => exchange(deps, request, signal, problem),
  });
}

async function exchange(
  deps: AskerDeps,
  request: QuestionRequest,
  signal: AbortSignal,
  problem?: string,
): Promise<FormAnswer> {
  const client = deps.client();
  const permission = async (toolCall: ToolCallUpdate, options: ReturnType<typeof approvalOptions>) =>
    (
      await client.request(
        methods.client.session.requestPermission,
        { sessionId: sessionOf(request), toolCall, options },
        { cancellationSignal: signal },
      )
    ).outcome as RequestPermissionOutcome;
  if (request.approval)
    return approvalReply(request, await permission(approvalToolCall(request), approvalOptions(request)));
  const e = request.elicitation;
  if (e?.mode === "url" && e.url && deps.urlElicitation()) {
    const response = (await client.request(
      methods.client.elicitation.create,
      {
        mode: "url",
        sessionId: sessionOf(request),
        toolCallId: request.call_id,
        elicitationId: e.elicitation_id ?? request.request_id,
        url: e.url,
        message: urlMessage(e),
      },
      { cancellationSignal: signal },
    )) as CreateElicitationResponse;
    return urlReply(request, response);
  }
  if (deps.formElicitation())
    return askByForm(
      request,
      async (form) =>
        (await client.request(
          methods.client.elicitation.create,
          {
            mode: "form",
            sessionId: sessionOf(request),
            toolCallId: request.call_id,
            message: form.message,
            // The mapping's fields are ACP's restricted schema (checked with the SDK's guard in tests).
            requestedSchema: form.requestedSchema as never,
            ...(form._meta ? { _meta: form._meta } : {}),
          },
          { cancellationSignal: signal },
        )) as CreateElicitationResponse,
      { problem },
    );
  if (!permissionAnswerable(request.questions))
    throw new CannotShow(
      "the editor has no form elicitation, and only single-choice questions can be asked without it",
    );
  const answers: Record<string, QuestionAnswer> = {};
  for (const q of request.questions) {
    const toolCall: ToolCallUpdate = {
      toolCallId: request.call_id,
      title: q.header ? `${q.header}: ${q.prompt}` : q.prompt,
      kind: "other",
      status: "pending",
      content: [text(q.prompt)],
    };
    const got = permissionAnswer(q, await permission(toolCall, choiceOptions(q)));
    if ("kind" in got) return got;
    if (!got.ok) return { kind: "invalid", message: got.message };
    if (got.answer) answers[q.id] = got.answer;
  }
  if (Object.keys(answers).length === 0)
    return { kind: "decline", reason: "the user skipped every question" };
  return { kind: "reply", reply: { answers } };
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
