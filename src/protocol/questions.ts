/**
 * Question protocol types (requirements Q1–Q13). One definition drives the broker, events, the
 * model-facing tool schema (see tools/request-user-input) and every surface's wire shape.
 *
 * Vocabulary: a *request* is one ask (one tool call, or one internal prompt) holding 1..n
 * *questions*; a *reply* answers some or all of them; an *outcome* is how the request settled.
 */
import * as z from "zod";

export const QuestionOption = z.object({
  label: z.string().min(1).describe("Short label shown to the user and returned as the answer"),
  description: z.string().describe("One line explaining the consequence of choosing this option"),
  value: z
    .string()
    .optional()
    .describe(
      "What the asker gets back for this option when it differs from the label (an MCP enum const); answers still name the label",
    ),
});
export type QuestionOption = z.infer<typeof QuestionOption>;

/**
 * How a question is answered (every answer is a `QuestionAnswer`):
 * - `single` / `multi`: option labels in `selected` (plus `other` text where `allow_other`).
 * - `text`: the text in `other`; `format`, `min_length`, `max_length` constrain it.
 * - `boolean`: `selected: ["Yes"]` (true) or `selected: ["No"]` (false); its `options` are
 *   exactly BOOLEAN_OPTIONS, so a surface that knows only `single` still renders it right.
 * - `number`: the number as text in `other` (e.g. "42", "-1.5"); `integer`, `minimum`,
 *   `maximum` constrain it. A valid reply's text is normalised to the canonical form `String(n)`.
 */
export const QuestionKind = z.enum(["single", "multi", "text", "boolean", "number"]);
export type QuestionKind = z.infer<typeof QuestionKind>;

export const TextFormat = z.enum(["email", "uri", "date", "date-time"]);
export type TextFormat = z.infer<typeof TextFormat>;

/** Labels of a `boolean` question's two options, in this order: Yes = true, No = false. */
export const BOOLEAN_LABELS = { yes: "Yes", no: "No" } as const;
export const BOOLEAN_OPTIONS: QuestionOption[] = [
  { label: BOOLEAN_LABELS.yes, description: "" },
  { label: BOOLEAN_LABELS.no, description: "" },
];

export const Question = z.object({
  id: z.string().min(1),
  header: z.string(),
  prompt: z.string().min(1),
  kind: QuestionKind,
  options: z.array(QuestionOption),
  /** Free-text "Other" is accepted in addition to the options (always true for model questions, Q2). */
  allow_other: z.boolean(),
  /** Secret answers never enter history, logs or events (Q10). */
  secret: z.boolean(),
  // Typed fields (MCP elicitation, S6). All optional: a question without them is answered as before.
  format: TextFormat.optional().describe(
    "text: the answer must be an email address, a URI (with a scheme), a date YYYY-MM-DD or an RFC 3339 date-time",
  ),
  min_length: z.number().int().nonnegative().optional().describe("text: fewest characters"),
  max_length: z.number().int().nonnegative().optional().describe("text: most characters"),
  integer: z.boolean().optional().describe("number: only whole numbers"),
  minimum: z.number().optional().describe("number: smallest allowed value (inclusive)"),
  maximum: z.number().optional().describe("number: largest allowed value (inclusive)"),
  min_items: z.number().int().nonnegative().optional().describe("multi: fewest options to choose"),
  max_items: z.number().int().nonnegative().optional().describe("multi: most options to choose"),
  default: z
    .union([z.string(), z.number(), z.boolean(), z.array(z.string())])
    .optional()
    .describe(
      "Pre-selected answer: an option label (single), labels (multi), true/false (boolean), a number, or text. A reply that leaves the question out takes it",
    ),
  required: z
    .boolean()
    .optional()
    .describe(
      "true: every reply must answer this question (or it has a default). Absent or false: a reply may leave it out",
    ),
});
export type Question = z.infer<typeof Question>;

export const OnTimeout = z.enum(["recommended", "empty", "decline"]);
export type OnTimeout = z.infer<typeof OnTimeout>;

/** Q7: how long a question may wait. `wait` blocks until a reply, cancel or interrupt. */
export const QuestionPolicy = z.discriminatedUnion("type", [
  z.object({ type: z.literal("wait") }),
  z.object({
    type: z.literal("timeout"),
    ms: z.number().int().positive(),
    on_timeout: OnTimeout,
  }),
]);
export type QuestionPolicy = z.infer<typeof QuestionPolicy>;

export const QuestionSource = z.enum(["model", "internal"]);

/**
 * Present when the request is an approval (requirements A2/A3): it then holds one single-choice
 * question `decision` whose options are APPROVAL_LABELS. Approvals share the questions'
 * queue, timeouts, pause accounting and persistence, and go before questions.
 */
export const ApprovalInfo = z.object({
  kind: z.enum(["exec", "file_change"]),
  reason: z.string(),
  command: z.string().optional(),
  cwd: z.string(),
  justification: z.string().optional(),
  prefix_rule: z.array(z.string()).optional(),
  paths: z.array(z.string()).optional(),
  changes: z
    .array(
      z.object({
        path: z.string(),
        kind: z.enum(["add", "update", "delete", "move"]),
        move_path: z.string().optional(),
        diff: z.string(),
      }),
    )
    .optional()
    .describe("file_change: what the patch would change, per file with its unified diff (not applied yet)"),
});
export type ApprovalInfo = z.infer<typeof ApprovalInfo>;

/**
 * Present when the request is an MCP server's `elicitation/create` (requirements S6). `form`: one
 * question per schema property. `url`: one single-choice question `url` with options
 * ELICITATION_URL_LABELS (Done / Decline) while the user visits `url`. The server's request
 * lives only in this process: after a restart the request settles as cancelled.
 */
export const ElicitationInfo = z.object({
  server: z.string().describe("Name of the MCP server asking"),
  mode: z.enum(["form", "url"]),
  message: z.string().describe("The server's message to the user"),
  url: z.string().optional().describe("url mode: the address the user should open"),
  elicitation_id: z.string().optional().describe("url mode: the server's id for this elicitation"),
});
export type ElicitationInfo = z.infer<typeof ElicitationInfo>;

export const ELICITATION_URL_LABELS = { done: "Done", decline: "Decline" } as const;

/**
 * The one label every surface shows on an MCP server's elicitation (TUI overlay, web sheet,
 * app-server and ACP messages, `tandem mcp-server` forms, exec): which server asks, and that it
 * sees the answer. A server cannot make a field secret (Tandem never marks one, whatever its
 * title or schema say), so no surface may call an answer secret. Surfaces make it printable.
 */
export function elicitationLabel(info: Pick<ElicitationInfo, "server" | "mode">): string {
  return info.mode === "url"
    ? `MCP server "${info.server}" asks you to open a link; check its host first. This server may see what you type there.`
    : `MCP server "${info.server}" asks; this server will see what you type, and Tandem keeps it as plain text.`;
}

/**
 * Present when a sub-agent asks (requirements Q14): who asks, so the root thread's surfaces can say so.
 * The request still belongs to the child (`thread_id`), and the answer goes back to it.
 */
export const AgentInfo = z.object({
  thread_id: z.string().describe("The sub-agent's thread (the one that asks)"),
  parent_thread_id: z.string().describe("The thread that spawned it"),
  root_thread_id: z.string().describe("The root thread whose surfaces are asked"),
  nickname: z.string().describe("The sub-agent's short name, e.g. Ada"),
  role: z.string().describe("Its role (`default` or an [agents.NAME] / .tandem/agents role)"),
  depth: z.number().int().positive().describe("1 for a child of the root, 2 for a grandchild…"),
  task: z.string().describe("The task message it was given (spawn_agent's message)"),
});
export type AgentInfo = z.infer<typeof AgentInfo>;

export const APPROVAL_LABELS = {
  accept: "Accept",
  accept_for_session: "Accept for session",
  accept_and_remember: "Accept and remember",
  decline: "Decline",
  cancel: "Cancel",
} as const;
export type ApprovalDecisionName = keyof typeof APPROVAL_LABELS;

export const QuestionRequest = z.object({
  request_id: z.string(),
  thread_id: z.string(),
  turn_id: z.string(),
  call_id: z.string(),
  source: QuestionSource,
  questions: z.array(Question).min(1),
  policy: QuestionPolicy,
  /** Epoch ms when a timeout policy fires; null for `wait`. Moves forward on `touch`. */
  deadline: z.number().nullable(),
  created_at: z.number(),
  approval: ApprovalInfo.optional(),
  elicitation: ElicitationInfo.optional(),
  agent: AgentInfo.optional().describe("Set when a sub-agent asks: who asks, relayed to the root thread"),
});
export type QuestionRequest = z.infer<typeof QuestionRequest>;

/** The one queue order every surface shows (Q16): approvals first, then oldest first. */
export function queueOrder(a: QuestionRequest, b: QuestionRequest): number {
  return Number(!!b.approval) - Number(!!a.approval) || a.created_at - b.created_at;
}

export const QuestionAnswer = z.object({
  selected: z.array(z.string()).default([]).describe("Labels of chosen options"),
  other: z.string().optional().describe("Free-text answer (the 'Other' field)"),
  note: z.string().optional().describe("Optional note the user adds to the answer"),
});
export type QuestionAnswer = z.infer<typeof QuestionAnswer>;

export const QuestionReply = z.object({
  answers: z.record(z.string(), QuestionAnswer),
});
export type QuestionReply = z.infer<typeof QuestionReply>;

/** Who settled a request: a surface kind plus an optional client/connection id. */
export const Responder = z.object({
  kind: z.string().describe("Surface kind: tui, exec, app-server, http, web, acp, api, policy"),
  id: z.string().optional(),
});
export type Responder = z.infer<typeof Responder>;

export const QuestionOutcome = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("answered"),
    answers: z.record(z.string(), QuestionAnswer),
    unanswered: z.array(z.string()),
    responder: Responder,
  }),
  z.object({ status: z.literal("declined"), responder: Responder, reason: z.string().optional() }),
  z.object({
    status: z.literal("timed_out"),
    policy: QuestionPolicy,
    answers: z.record(z.string(), QuestionAnswer),
    unanswered: z.array(z.string()),
  }),
  z.object({ status: z.literal("cancelled"), reason: z.string() }),
  z.object({
    status: z.literal("unavailable"),
    reason: z.string(),
    limit: z
      .string()
      .optional()
      .describe(
        "Set when a cap refused the request before anyone saw it: its config key, e.g. questions.max_pending",
      ),
  }),
]);
export type QuestionOutcome = z.infer<typeof QuestionOutcome>;

/** Marker that replaces a secret value anywhere it would otherwise be shown or stored. */
export const REDACTED = "[redacted secret]";

/** Why the broker refused a reply, decline or touch (questions/broker.ts); surfaces map these codes. */
export type ReplyErrorCode =
  | "unknown_request"
  | "already_settled"
  | "cancelled"
  | "wrong_thread"
  | "invalid_reply"
  /** Another process (cluster node) runs the thread now; nothing was recorded: send it again. */
  | "lease_lost";
export type ReplyFailure = { ok: false; code: ReplyErrorCode; message: string };
/** `outcome` is always the redacted one: a replier never gets secret values back. */
export type ReplyResult = { ok: true; outcome: QuestionOutcome; duplicate?: boolean } | ReplyFailure;
/** `deadline` is the new deadline (null for a `wait` request, which has nothing to snooze). */
export type TouchResult = { ok: true; deadline: number | null } | ReplyFailure;
