/**
 * An MCP server's elicitation (a broker request carrying `elicitation`, requirements S6) ↔ Codex's
 * `mcpServer/elicitation/request` server request, which Codex clients render as a native form.
 *
 * Contract:
 * - Form mode: `{threadId, turnId, serverName, mode: "form", message, requestedSchema}`: the one
 *   question↔form mapping (questions/form.ts, the same form an ACP editor or a host of `tandem
 *   mcp-server` gets), so every kind keeps its type, bounds, default and required flag; `message`
 *   is the elicitation label (protocol/questions.ts: the server's name, and that it sees what the
 *   user types), a blank line, then the server's own message. URL mode: `{mode: "url", message,
 *   url, elicitationId}`, the message labelled the same way.
 * - The client's `{action, content}` (questions/form.ts formAnswer): `accept` → the typed reply
 *   (form) or the "Done" option (url); a value of the wrong type → invalid (asked again,
 *   questions/asker.ts); `decline` → a decline; `cancel` → cancel, which for an MCP server's
 *   request means the server hears `cancel` (questions/asker.ts).
 */
import * as z from "zod";
import { ELICITATION_URL_LABELS, type QuestionRequest } from "../../protocol/questions.js";
import { formAnswer, formFor, urlMessage } from "../../questions/form.js";
import type { CodexAnswerResult } from "./questions.js";

export const ELICITATION_REQUEST = "mcpServer/elicitation/request";

const Response = z.object({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).nullish(),
});

export function elicitationParams(request: QuestionRequest): Record<string, unknown> {
  const info = request.elicitation!;
  const base = { threadId: request.thread_id, turnId: request.turn_id, serverName: info.server };
  if (info.mode === "url")
    return {
      ...base,
      mode: "url",
      message: urlMessage(info),
      url: info.url ?? "",
      elicitationId: info.elicitation_id ?? request.request_id,
    };
  const form = formFor(request);
  return {
    ...base,
    mode: "form",
    message: form.message,
    requestedSchema: form.requestedSchema,
    ...(form._meta ? { _meta: form._meta } : {}),
  };
}

export function elicitationAnswer(request: QuestionRequest, result: unknown): CodexAnswerResult {
  const parsed = Response.safeParse(result);
  if (!parsed.success)
    return {
      kind: "invalid",
      message: `the ${ELICITATION_REQUEST} result is malformed; expected {action: "accept" | "decline" | "cancel", content?}`,
    };
  if (parsed.data.action === "accept" && request.elicitation?.mode === "url") {
    const id = request.questions[0].id;
    return { kind: "reply", reply: { answers: { [id]: { selected: [ELICITATION_URL_LABELS.done] } } } };
  }
  const mapped = formAnswer(request, parsed.data);
  // An MCP server's form offers no "Other…" choice, so no second form is ever needed.
  return mapped.kind === "other" ? { kind: "invalid", message: "unexpected free text" } : mapped;
}
