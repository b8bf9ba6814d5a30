/**
 * Wire shapes of `tandem serve` (requirements S4): request and response bodies of the HTTP API, defined
 * once in zod. The server validates every body with these, and `GET /openapi.json` is generated
 * from the same definitions, so the document cannot drift from what is enforced.
 *
 * Conventions: JSON everywhere; snake_case fields like the rest of the protocol; an error is
 * always `{ error: { code, message } }` with a message that says what to do next. Secret answers
 * never appear in any response (the broker hands surfaces redacted outcomes only, Q10).
 */
import * as z from "zod";
import { CollaborationMode, Event, ThreadStatus, Usage } from "./events.js";
import { ResponseItem } from "./items.js";
import { TurnOptions } from "./ops.js";
import { QuestionAnswer, QuestionOutcome, QuestionPolicy, QuestionRequest } from "./questions.js";

const Effort = TurnOptions.shape.effort.unwrap();

/** Limits a client can see, so errors never surprise it. */
export const HTTP_LIMITS = {
  /** Largest accepted request body; bigger bodies get 413. */
  maxBodyBytes: 1024 * 1024,
  maxTextChars: 200_000,
  maxImages: 8,
} as const;

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export const CreateThreadBody = z
  .object({
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory of the thread (absolute, or relative to the server's cwd)"),
    model: z.string().min(1).optional().describe("Model id; defaults to the configured model"),
    mode: CollaborationMode.optional().describe("Default collaboration mode of the thread's turns"),
    effort: Effort.optional().describe("Reasoning effort"),
    question_policy: QuestionPolicy.optional().describe("How long questions wait (Q7): wait or timeout"),
    offer_questions: z
      .boolean()
      .optional()
      .describe("Offer request_user_input to the model in this thread (default true)"),
  })
  .strict();
export type CreateThreadBody = z.infer<typeof CreateThreadBody>;

export const StartTurnBody = z
  .object({
    text: z.string().min(1).max(HTTP_LIMITS.maxTextChars).describe("The user's message for this turn"),
    images: z
      .array(z.string().min(1))
      .max(HTTP_LIMITS.maxImages)
      .optional()
      .describe("Image URLs (data: or https:) attached to the message"),
    options: z
      .object({
        mode: CollaborationMode.optional(),
        model: z.string().min(1).optional(),
        effort: Effort.optional(),
        question_policy: QuestionPolicy.optional(),
      })
      .strict()
      .optional()
      .describe("Per-turn overrides of the thread's settings"),
  })
  .strict();
export type StartTurnBody = z.infer<typeof StartTurnBody>;

/** `PATCH /thread/:id/settings`: what later turns of the thread use; absent fields stay as they are. */
export const ThreadSettingsBody = z
  .object({
    model: z.string().min(1).max(200).optional().describe("Model id for the thread's later turns"),
    effort: Effort.nullable()
      .optional()
      .describe("Reasoning effort for later turns; null goes back to the configured one"),
    mode: CollaborationMode.optional().describe("Default collaboration mode of later turns"),
  })
  .strict()
  .refine((b) => b.model !== undefined || b.effort !== undefined || b.mode !== undefined, {
    message: 'give at least one of "model", "effort" or "mode"',
  });
export type ThreadSettingsBody = z.infer<typeof ThreadSettingsBody>;

export const SteerBody = z
  .object({ text: z.string().min(1).max(HTTP_LIMITS.maxTextChars).describe("Input for the running turn") })
  .strict();
export type SteerBody = z.infer<typeof SteerBody>;

/** `POST /thread/:id/shell`: the user's own command (README "Your own commands: `!`"). */
export const ShellBody = z
  .object({
    command: z.string().trim().min(1).max(100_000).describe("Shell command, run with full access"),
    timeout_ms: z.number().int().nonnegative().nullable().optional().describe("Default one hour"),
  })
  .strict();
export type ShellBody = z.infer<typeof ShellBody>;

export const ReviewBody = z
  .object({
    args: z
      .string()
      .max(10_000)
      .optional()
      .describe(
        "What /review was given: empty (uncommitted changes), `base BRANCH`, `commit SHA`, or instructions",
      ),
  })
  .strict();
export type ReviewBody = z.infer<typeof ReviewBody>;

/** Who is replying. Defaults to `{kind: "http"}`; the web page sends `{kind: "web", id}`. */
export const ReplyingClient = z
  .object({
    kind: z.enum(["http", "web"]).describe("Surface kind recorded as the responder"),
    id: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe("Client id, so a client can tell its own answers from answers given elsewhere"),
  })
  .strict();
export type ReplyingClient = z.infer<typeof ReplyingClient>;

const threadIdField = z.string().min(1).describe("Thread that asked the question");

/**
 * A reply, typed (`answers`) or as text per question (`text`, parsed with the shared text-reply
 * parser: "2", "1,3", a label, "other: …", "answer -- note"). Exactly one of the two.
 */
export const ReplyBody = z
  .object({
    thread_id: threadIdField,
    answers: z
      .record(z.string(), QuestionAnswer)
      .optional()
      .describe("Typed answers by question id; leave a question out to skip it"),
    text: z
      .record(z.string(), z.string().max(HTTP_LIMITS.maxTextChars))
      .optional()
      .describe('Text answers by question id, e.g. {"stack": "2"}'),
    responder: ReplyingClient.optional(),
  })
  .strict()
  .refine((b) => (b.answers === undefined) !== (b.text === undefined), {
    message: 'give exactly one of "answers" (typed) or "text" (parsed like a chat reply)',
  });
export type ReplyBody = z.infer<typeof ReplyBody>;

export const RejectBody = z
  .object({
    thread_id: threadIdField,
    reason: z.string().max(2000).optional().describe("Why the user declined (shown to the model)"),
    responder: ReplyingClient.optional(),
  })
  .strict();
export type RejectBody = z.infer<typeof RejectBody>;

export const TouchBody = z.object({ responder: ReplyingClient.optional() }).strict();
export type TouchBody = z.infer<typeof TouchBody>;

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

export const ErrorResponse = z.object({
  error: z.object({
    code: z.string().describe("Stable machine-readable code, e.g. unauthorized, not_found, already_settled"),
    message: z.string().describe("What happened and what to do"),
  }),
});
export type ErrorResponse = z.infer<typeof ErrorResponse>;

/** Who a sub-agent thread is (README "Sub-agents"): its `settings.agent`, for lists that nest children. */
export const ThreadAgent = z.object({
  nickname: z.string().describe("Its short name, e.g. Ada"),
  role: z.string().describe("Its role (`default` or an [agents.NAME] / .tandem/agents role)"),
  depth: z.number().int().positive().describe("1 for a child of the root, 2 for a grandchild…"),
  task: z.string().describe("The task message it was given (spawn_agent's message)"),
});
export type ThreadAgent = z.infer<typeof ThreadAgent>;

export const ThreadSummary = z.object({
  id: z.string(),
  parent_id: z.string().nullable(),
  agent: ThreadAgent.nullable()
    .optional()
    .describe("Set on a sub-agent's thread (parent_id is its parent): who it is"),
  created_at: z.number(),
  updated_at: z.number(),
  cwd: z.string(),
  model: z.string(),
  mode: CollaborationMode,
  effort: Effort.nullable()
    .optional()
    .describe("The thread's own reasoning effort; null when it uses the configured one"),
  title: z.string(),
  status: ThreadStatus.describe("Live status when loaded in this process, else the stored one"),
  loaded: z.boolean().describe("Whether this server process has the thread open"),
  active_turn_id: z.string().nullable(),
  pending_questions: z.number().int().describe("Questions waiting for an answer"),
  usage: Usage.nullable().describe("Token totals of the whole thread (stored); null before any"),
  snippet: z
    .string()
    .nullable()
    .optional()
    .describe("Search results only: part of the newest matching message; null when the title matched"),
});
export type ThreadSummary = z.infer<typeof ThreadSummary>;

export const ThreadList = z.object({
  threads: z.array(ThreadSummary),
  default_cwd: z.string().describe("The directory of threads created without a cwd (the server's)"),
});
export type ThreadList = z.infer<typeof ThreadList>;

export const TurnSummary = z.object({
  id: z.string(),
  status: z.enum(["running", "completed", "interrupted", "failed"]),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  error: z.string().nullable().describe("Why the turn failed or stopped"),
  diff: z
    .string()
    .nullable()
    .describe("The turn's net unified diff (patches and commands, secrets masked); null if none"),
  item_end: z
    .number()
    .int()
    .describe("Index in `items` just past this turn's last item: where its end and diff belong"),
});
export type TurnSummary = z.infer<typeof TurnSummary>;

export const SettledApproval = z.object({
  call_id: z.string().describe("The tool call the approval gated"),
  request: QuestionRequest,
  outcome: QuestionOutcome.describe("The decision (answered: the chosen option's label)"),
});
export type SettledApproval = z.infer<typeof SettledApproval>;

export const ThreadDetail = z.object({
  thread: ThreadSummary,
  items: z.array(ResponseItem).describe("History items, oldest first"),
  turns: z.array(TurnSummary).describe("Stored turns, oldest first (none for an ephemeral thread)"),
  questions: z.array(QuestionRequest).describe("Pending questions of this thread"),
  approvals: z
    .array(SettledApproval)
    .describe("Settled approvals of the history's tool calls, in call order (drawn before their call)"),
});
export type ThreadDetail = z.infer<typeof ThreadDetail>;

export const TurnStarted = z.object({ thread_id: z.string(), turn_id: z.string() });
export const FileMatches = z.object({
  files: z
    .array(
      z.object({
        path: z.string().describe("Relative to the thread's directory, `/`-separated"),
        score: z.number().describe("0..1000, higher is better"),
        indices: z.array(z.number()).describe("Positions in path that matched the query"),
      }),
    )
    .describe("Best first; .gitignore'd files are left out, hidden ones unless the query starts with '.'"),
});
export const Steered = z.object({ thread_id: z.string(), turn_id: z.string(), input_id: z.string() });
export const CompactStarted = z.object({
  thread_id: z.string(),
  turn_id: z
    .string()
    .describe("The turn that compacts: a new one when the thread was idle, else the running one"),
  when: z
    .enum(["now", "before_next_request"])
    .describe(
      "now: compacting (idle thread, or a turn waiting on a question); else before the turn's next request",
    ),
});
export const Interrupted = z.object({
  thread_id: z.string(),
  interrupted: z.boolean().describe("False when no turn was running"),
});

export const QuestionList = z.object({
  questions: z
    .array(QuestionRequest)
    .describe("Pending requests across threads: approvals first, then oldest first"),
  server_time: z.number().describe("Server clock (epoch ms), to show deadlines without clock skew"),
});
export type QuestionList = z.infer<typeof QuestionList>;

export const ReplyResponse = z.object({
  request_id: z.string(),
  outcome: QuestionOutcome.describe("The recorded outcome, secrets redacted"),
  duplicate: z.boolean().describe("True when this repeats an already accepted reply (idempotent)"),
});
export type ReplyResponse = z.infer<typeof ReplyResponse>;

export const TouchResponse = z.object({
  request_id: z.string(),
  deadline: z.number().nullable().describe("New deadline (epoch ms); null for wait policies"),
});

/** One SSE `data:` payload; the SSE `id:` is `seq`. */
export const StreamedEvent = z.object({
  seq: z.number().int().describe("Bus sequence number; send it back as Last-Event-ID to resume"),
  time: z.number(),
  event: Event,
});

/** Control messages on the SSE stream, sent with an SSE `event:` name and no `id:`. */
export const StreamControl = z.object({
  last_seq: z.number().int().describe("Latest bus seq when the message was sent"),
  server_time: z.number(),
  message: z.string().optional().describe("For `gap`: events were lost; refetch state over the API"),
});
