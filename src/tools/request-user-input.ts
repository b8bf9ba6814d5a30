/**
 * `request_user_input`: the model asks the user 1-3 structured questions and waits (requirements Q1-Q3, Q6).
 *
 * Contract of `execute`:
 * - Availability gates run first, in requirements Q3 order, and never wait: (1) enabled in config,
 *   (2) root thread or sub-agent relay, (3) mode (plan always; default when configured),
 *   (4) someone can answer. Gates 1-3 return distinct error strings; gate 4 returns an
 *   `unavailable` result telling the model to proceed on its own judgement.
 * - Then the arguments are validated (precise error per mistake, see questions/model) and the
 *   questions go to `ctx.ask`, which owns waiting, timeouts and cancellation.
 * - Outcomes become the Q6 JSON. `cancelled` (interrupt, close, shutdown) throws an AbortError so
 *   the registry records the call as aborted. Secret answers are handed to `storeSecret` and the
 *   model only ever sees the returned handle; other free text is masked against known secrets.
 * - A request over a cap of `[questions]` is refused by the broker before anyone sees it: the
 *   output names the cap and its value (questions/limits.ts), `success` false.
 * - `success` is false for gate and validation errors and for `unavailable`; true otherwise
 *   (a decline or timeout is a real answer to the call, not a tool failure).
 */
import type { QuestionAnswer, QuestionOutcome, QuestionRequest } from "../protocol/questions.js";
import { REDACTED } from "../protocol/questions.js";
import {
  fromModelTool,
  MAX_QUESTIONS,
  RECOMMENDED_SUFFIX,
  RequestUserInputArgs,
  toModelResult,
  unavailableModelResult,
} from "../questions/model.js";
import { AbortError } from "../util/abort.js";
import type { FunctionTool, ToolContext, ToolResult } from "./types.js";

export type CollaborationMode = "plan" | "default";

export interface RequestUserInputToolOptions {
  /** Modes the tool is offered in (from config); only shapes the description — the gate reads `ctx`. */
  availableModes: CollaborationMode[];
  /**
   * Stores a secret answer in the thread's secret store and returns the handle the model sees
   * (e.g. `$TANDEM_SECRET_API_KEY`). Without it a secret answer reaches the model as a redaction
   * marker only. Must not log or publish `value`.
   */
  storeSecret?: (questionId: string, value: string, ctx: ToolContext) => string | Promise<string>;
}

export const TOOL_NAME = "request_user_input";

export const DISABLED_ERROR = "request_user_input is disabled in this configuration";
export const ROOT_THREAD_ERROR = "request_user_input can only be used by the root thread";

const MODE_NAMES: Record<CollaborationMode, string> = { plan: "Plan", default: "Default" };

/** "Available in Plan mode only." / "Available in Plan and Default modes." — from config. */
export function availabilitySentence(modes: CollaborationMode[]): string {
  const names = (["plan", "default"] as const).filter((m) => modes.includes(m)).map((m) => MODE_NAMES[m]);
  if (names.length === 0) return "Not available in any mode in this configuration.";
  if (names.length === 1) return `Available in ${names[0]} mode only.`;
  return `Available in ${names.join(" and ")} modes.`;
}

/** The model-facing description; the limits it states are the ones `validateModelQuestions` enforces. */
export function describeTool(modes: CollaborationMode[]): string {
  return [
    `Ask the user 1-${MAX_QUESTIONS} short structured questions and wait for the answers.`,
    "Use it when a decision materially changes what you will do and you cannot find the answer yourself:",
    "ambiguous requirements, a tradeoff between approaches, or facts only the user knows.",
    "Do not use it for things you can learn by reading files or running commands.",
    "",
    "- Prefer 1 question; never more than 3.",
    "- Give 2-4 mutually exclusive options when the choices are known; omit options for a free-text question.",
    '- Do not add an "Other" option: the user can always type a free answer instead of picking one.',
    `- If you recommend an option, make it the first option and end its label with "${RECOMMENDED_SUFFIX}";`,
    "  only one option may carry it.",
    "- To ask for a credential (API key, token, password) use a free-text question with secret: true.",
    "  You receive a handle such as $TANDEM_SECRET_API_KEY instead of the value; use it as an",
    "  environment variable in commands. Never ask for secrets in a normal question.",
    "",
    'The result is JSON: {"status": "answered"|"declined"|"timed_out"|"unavailable"|"withheld",',
    '"answers": {id: {"selected": [labels], "other"?: text, "note"?: text}}, "unanswered": [ids]}.',
    "Anything but answers means: proceed on your best judgement and state your assumptions.",
    "",
    availabilitySentence(modes),
  ].join("\n");
}

/** Gates 1-3 of requirements Q3, in order; the error for the model, or undefined when the call may proceed. */
export function gateError(ctx: ToolContext): string | undefined {
  const gate = ctx.questions;
  if (!gate.enabled) return DISABLED_ERROR;
  if (ctx.isSubAgent && gate.subAgentPolicy === "deny") return ROOT_THREAD_ERROR;
  if (ctx.mode === "default" && !gate.defaultModeAllowed)
    return (
      "request_user_input is unavailable in Default mode; it can be used in Plan mode only. " +
      "Proceed on your best judgement and state your assumptions."
    );
  return undefined;
}

export function createRequestUserInputTool(
  opts: RequestUserInputToolOptions,
): FunctionTool<RequestUserInputArgs> {
  return {
    kind: "function",
    name: TOOL_NAME,
    description: describeTool(opts.availableModes),
    parameters: RequestUserInputArgs,
    async execute(args, ctx): Promise<ToolResult> {
      const blocked = gateError(ctx);
      if (blocked) return { output: blocked, success: false };
      if (!ctx.questions.hasResponder())
        return { output: unavailableModelResult(args.questions.map((q) => q.id)), success: false };

      const ids = { threadId: ctx.threadId, turnId: ctx.turnId, callId: ctx.callId };
      const built = fromModelTool(args, ids, ctx.questions.policy);
      if (!built.ok) return { output: built.error, success: false };
      const request = built.request;

      if (ctx.signal.aborted) throw new AbortError("request_user_input was interrupted before asking");
      const outcome = await ctx.ask(request.questions, { source: "model", policy: ctx.questions.policy });
      if (outcome.status === "cancelled")
        throw new AbortError(`request_user_input was cancelled: ${outcome.reason}`);
      // Over a cap (questions/limits.ts): nobody saw it; the model learns which cap and its value.
      if (outcome.status === "unavailable" && outcome.limit)
        return { output: `request_user_input refused, ${outcome.reason}`, success: false };

      const handles = await storeSecrets(outcome, request, ctx, opts.storeSecret);
      const output = toModelResult(
        maskOutcome(outcome, request, ctx),
        request,
        (id) => handles.get(id) ?? REDACTED,
      );
      return { output, success: outcome.status !== "unavailable" };
    },
  };
}

/** Hands every non-empty secret answer to `store`; returns question id → handle. */
async function storeSecrets(
  outcome: QuestionOutcome,
  request: QuestionRequest,
  ctx: ToolContext,
  store: RequestUserInputToolOptions["storeSecret"],
): Promise<Map<string, string>> {
  const handles = new Map<string, string>();
  if (outcome.status !== "answered" && outcome.status !== "timed_out") return handles;
  for (const q of request.questions) {
    const value = q.secret ? own(outcome.answers, q.id)?.other : undefined;
    if (!value) continue;
    handles.set(q.id, store ? await store(q.id, value, ctx) : REDACTED);
  }
  return handles;
}

/** Masks known secret values in the free text of non-secret answers (a user may paste one anywhere). */
function maskOutcome(outcome: QuestionOutcome, request: QuestionRequest, ctx: ToolContext): QuestionOutcome {
  if (outcome.status !== "answered" && outcome.status !== "timed_out") return outcome;
  const answers: Record<string, QuestionAnswer> = {};
  for (const q of request.questions) {
    const a = own(outcome.answers, q.id);
    if (!a) continue;
    if (q.secret) {
      answers[q.id] = a; // replaced by its handle in toModelResult
      continue;
    }
    const masked: QuestionAnswer = { ...a, selected: [...(a.selected ?? [])] };
    if (a.other !== undefined) masked.other = ctx.secrets.mask(a.other);
    if (a.note !== undefined) masked.note = ctx.secrets.mask(a.note);
    answers[q.id] = masked;
  }
  return { ...outcome, answers };
}

/** `answers[id]` without reaching into the prototype (a question may be called `constructor`). */
function own(answers: Record<string, QuestionAnswer>, id: string): QuestionAnswer | undefined {
  return Object.hasOwn(answers, id) ? answers[id] : undefined;
}
