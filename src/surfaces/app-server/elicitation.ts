/**
 * An MCP server's elicitation (a broker request carrying `elicitation`, SPEC S6) ↔ Codex's
 * `mcpServer/elicitation/request` server request, which Codex clients render as a native form.
 *
 * Contract:
 * - Form mode: `{threadId, turnId, serverName, mode: "form", message, requestedSchema}`; the schema is
 *   rebuilt from the typed questions by questions/form.ts (the same form `tandem mcp-server` sends a
 *   host), so every kind keeps its type, bounds, default and required flag; `message` is the
 *   elicitation label (protocol/questions.ts: the server's name, and that it sees what the user
 *   types), a blank line, then the server's own message. URL mode: `{mode: "url", message, url,
 *   elicitationId}`, the message labelled the same way.
 * - The client's `{action, content}`: `accept` → the typed reply (form) or the "Done" option (url);
 *   a value of the wrong type → invalid (the client is told and asked again, see session.ts);
 *   `decline` → a decline; `cancel` → the request settles `cancelled` (Broker.expire), so the MCP
 *   server hears `cancel`, as MCP distinguishes a dismissed form from a declined one.
 */
import { z } from "zod";
import { ELICITATION_URL_LABELS, elicitationLabel, type QuestionRequest } from "../../protocol/questions.js";
import { elicitationFor, elicitationReply } from "../../questions/form.js";
import type { CodexAnswerResult } from "./questions.js";

export const ELICITATION_REQUEST = "mcpServer/elicitation/request";

const Response = z.object({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.unknown()).nullish(),
});

export function elicitationParams(request: QuestionRequest): Record<string, unknown> {
  const info = request.elicitation!;
  const base = { threadId: request.thread_id, turnId: request.turn_id, serverName: info.server };
  const message = `${elicitationLabel(info)}\n\n${info.message}`;
  if (info.mode === "url")
    return {
      ...base,
      mode: "url",
      message,
      url: info.url ?? "",
      elicitationId: info.elicitation_id ?? request.request_id,
    };
  const form = elicitationFor(request);
  return {
    ...base,
    mode: "form",
    message,
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
  const { action, content } = parsed.data;
  if (action === "decline") return { kind: "decline", reason: "the user declined the MCP server's request" };
  if (action === "cancel") return { kind: "cancel", reason: "the user cancelled the MCP server's request" };
  if (request.elicitation?.mode === "url") {
    const id = request.questions[0].id;
    return { kind: "reply", reply: { answers: { [id]: { selected: [ELICITATION_URL_LABELS.done] } } } };
  }
  const mapped = elicitationReply(request, { action, content: (content ?? {}) as Record<string, never> });
  return mapped;
}
