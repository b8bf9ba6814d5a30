/**
 * Caps on questions (README "Limits on questions"; config `[questions]`): how many may wait at
 * once and how large one may be. A hostile model could otherwise park hundreds of 20 KB
 * questions (every surface lists them, the store keeps them).
 *
 * Contract:
 * - Pending caps count requests per asking thread and in the whole process, separately for the
 *   model's requests (`request_user_input`), approvals and MCP elicitations (`allowanceOf`): the
 *   internal caps apply to approvals and to elicitations each on their own, so neither a flood of
 *   the model's questions nor a server that keeps forms open ever starves an approval.
 * - Size caps: every request as JSON (`max_request_bytes`); the header, text and each option's
 *   label and description of every question but an approval's (its text carries the command,
 *   bounded by the request cap).
 * - `refusal` returns the first cap a new request would break, as a message naming the config
 *   key and its value; the broker then asks nothing, stores nothing, publishes nothing.
 */
import type { QuestionRequest } from "../protocol/questions.js";

/** The `[questions]` caps (defaults in config/schema.ts). */
export interface QuestionLimits {
  max_pending_per_thread: number;
  max_pending: number;
  max_pending_internal_per_thread: number;
  max_pending_internal: number;
  max_request_bytes: number;
  max_prompt_chars: number;
  max_option_chars: number;
  max_header_chars: number;
}

export interface Refusal {
  /** The config key of the cap, e.g. `questions.max_pending_per_thread`. */
  limit: string;
  /** What the asker is told: which cap, its value, what to do. */
  reason: string;
}

/** Requests already waiting that count against `request`'s caps (same `allowanceOf`). */
export interface PendingCounts {
  /** … asked by the same thread. */
  thread: number;
  /** … in the whole process. */
  all: number;
}

const chars = (s: string) => [...s].length;

/** Which pending allowance a request draws on: the model's, approvals', or MCP elicitations'. */
export type Allowance = "model" | "approval" | "elicitation";

export function allowanceOf(request: QuestionRequest): Allowance {
  if (request.source !== "internal") return "model";
  return request.approval ? "approval" : "elicitation";
}

/** The first cap `request` breaks, given what is already pending of its source; else undefined. */
export function refusal(
  request: QuestionRequest,
  pending: PendingCounts,
  limits: QuestionLimits,
): Refusal | undefined {
  const internal = request.source === "internal";
  const [perThread, all] = internal
    ? (["max_pending_internal_per_thread", "max_pending_internal"] as const)
    : (["max_pending_per_thread", "max_pending"] as const);
  const kind = { model: "questions", approval: "approvals", elicitation: "server requests" }[
    allowanceOf(request)
  ];
  if (pending.thread >= limits[perThread])
    return refuse(
      perThread,
      limits,
      `this thread already has ${pending.thread} ${kind} waiting for the user`,
      "wait for answers before asking more",
    );
  if (pending.all >= limits[all])
    return refuse(
      all,
      limits,
      `${pending.all} ${kind} are already waiting for the user in this process`,
      "wait for answers before asking more",
    );
  return size(request, limits);
}

function size(request: QuestionRequest, limits: QuestionLimits): Refusal | undefined {
  if (!request.approval)
    for (const q of request.questions) {
      const at = `question "${q.id}"`;
      const header = chars(q.header);
      if (header > limits.max_header_chars)
        return refuse("max_header_chars", limits, `${at}: its header is ${header} characters`, "shorten it");
      const prompt = chars(q.prompt);
      if (prompt > limits.max_prompt_chars)
        return refuse("max_prompt_chars", limits, `${at}: its text is ${prompt} characters`, "shorten it");
      for (const [i, o] of q.options.entries())
        for (const field of ["label", "description"] as const) {
          const n = chars(o[field]);
          if (n > limits.max_option_chars)
            return refuse(
              "max_option_chars",
              limits,
              `${at}: option ${i + 1}'s ${field} is ${n} characters`,
              "shorten it",
            );
        }
    }
  const bytes = Buffer.byteLength(JSON.stringify(request));
  if (bytes > limits.max_request_bytes)
    return refuse("max_request_bytes", limits, `the request is ${bytes} bytes`, "ask shorter questions");
  return undefined;
}

function refuse(key: keyof QuestionLimits, limits: QuestionLimits, what: string, todo: string): Refusal {
  const limit = `questions.${key}`;
  return { limit, reason: `not asked: ${what} (limit: ${limit} = ${limits[key]}); ${todo}` };
}
