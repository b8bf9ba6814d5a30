/**
 * Tool contract (requirements T4, STYLE habit 8). A tool is declarative: a name, a model-facing
 * description and parameter schema, and `execute(args, ctx)`.
 *
 * Contract for `execute`:
 * - `args` is already parsed and validated against `parameters` by the registry; a parse or
 *   schema failure never reaches the tool (the registry answers the model instead).
 * - It must honour `ctx.signal`: on abort, stop work (kill processes, settle questions) and
 *   return or throw promptly. Whatever it does, the registry records exactly one output.
 * - Throwing is allowed: the registry turns a thrown error into an error output for the call.
 * - `output` is what the model sees; `display` patches what surfaces show (never the model).
 */
import type { z } from "zod";
import type { TurnItem } from "../protocol/events.js";
import type { ToolOutputPayload } from "../protocol/items.js";
import type { ElicitationInfo, Question, QuestionOutcome, QuestionPolicy } from "../protocol/questions.js";
import type { PauseClock } from "../util/pause-clock.js";

export interface ToolUpdate {
  /** Live output chunk of a command, for surfaces. */
  stream: "stdout" | "stderr";
  chunk: string;
}

/** Secrets of one thread (Q10): expand handles into a child env; mask known values in text. */
export interface SecretView {
  /** Environment entries `TANDEM_SECRET_<id>=value` for every secret the thread holds. */
  env(): Record<string, string>;
  /** Replaces every known secret value in `text` with a redaction marker. */
  mask(text: string): string;
  /**
   * For text arriving in pieces: the largest cut ≤ `at` (default: the end) before which `text`
   * can be masked and shown without showing part of a secret; keep the rest for the next piece.
   * Optional for test fakes; without it streams cut where they like.
   */
  safeCut?(text: string, at?: number): number;
}

export interface AskOptions {
  source: "model" | "internal";
  policy?: QuestionPolicy;
  /** Set when an MCP server's `elicitation/create` asks (stored on the request; see ElicitationInfo). */
  elicitation?: ElicitationInfo;
}

export interface ToolContext {
  signal: AbortSignal;
  callId: string;
  threadId: string;
  turnId: string;
  cwd: string;
  /** Collaboration mode of the current turn. */
  mode: "default" | "plan";
  /** True when this thread is a sub-agent (not the root thread). */
  isSubAgent: boolean;
  /** Asks the user through the broker; settles on reply, decline, timeout or abort. */
  ask(questions: Question[], opts: AskOptions): Promise<QuestionOutcome>;
  onUpdate(update: ToolUpdate): void;
  secrets: SecretView;
  pause: PauseClock;
  /** Facts the question tool's availability gate (Q3) checks, in order. */
  questions: QuestionGate;
  /** Sandbox and approval policy for tools with side effects (requirements A1–A3). */
  safety: SafetyContext;
}

/**
 * `unavailable`: nobody could be asked or nobody saw it (headless, or the client cannot show it);
 * nothing runs, as for `decline`, but the model is told no one decided (never "the user declined").
 */
export type ApprovalDecision =
  | "accept"
  | "accept_for_session"
  | "accept_and_remember"
  | "decline"
  | "cancel"
  | "unavailable";

/** What the model is told when an approval could not be asked (see ApprovalDecision). */
export const APPROVAL_UNAVAILABLE =
  "No one could approve this: nobody who can answer approvals saw the request (headless run, or a client that cannot show it), so it did not run. Work within the sandbox, or ask the user to run it.";

/** What a tool asks the user to approve. */
export interface ApprovalAsk {
  kind: "exec" | "file_change";
  /** Why approval is needed (shown to the user). */
  reason: string;
  command?: string;
  cwd: string;
  justification?: string;
  prefix_rule?: string[];
  paths?: string[];
  /** file_change: the patch's would-be changes per file, with unified diffs (shown, not applied). */
  changes?: Array<{
    path: string;
    kind: "add" | "update" | "delete" | "move";
    move_path?: string;
    diff: string;
  }>;
}

export interface SafetyContext {
  sandbox: {
    mode: "read-only" | "workspace-write" | "danger-full-access";
    writableRoots: string[];
    network: boolean;
    /**
     * Absolute paths never writable from the sandbox or by patches, whatever the writable
     * roots (requirements A4): Tandem's home and its store. Each writable root's `.git` is protected too.
     */
    protectedPaths: string[];
    /**
     * Paths sandboxed commands cannot see at all (README "What the sandbox guarantees"): Tandem's
     * home (an empty, unlistable directory in the sandbox) and the store's files (unreadable).
     * Empty when `sandbox_workspace_write.readable_home` is set.
     */
    hiddenPaths?: string[];
  };
  approvalPolicy: "never" | "on-request" | "on-failure" | "untrusted";
  /**
   * Only tools that cannot change anything run (a review turn, protocol/review.ts): commands in
   * the read-only sandbox, plans, questions; MCP tools (they run outside the sandbox), sub-agents
   * (their own sandbox), write_stdin (a session an earlier turn started) and patches are refused.
   */
  readOnlyTools?: boolean;
  /**
   * Asks the user through the broker's queue (approvals before questions). Resolves with
   * the decision; already-approved commands (this session, or a remembered prefix rule)
   * resolve `accept` without asking. `cancel` also interrupts the turn. With no responder
   * attached (headless), resolves `unavailable`: the policy decides, nobody waits.
   */
  requestApproval(ask: ApprovalAsk): Promise<ApprovalDecision>;
}

export interface QuestionGate {
  /** Tool enabled in config. */
  enabled: boolean;
  /** Sub-agent questions: `relay` to the parent's surfaces, or `deny`. */
  subAgentPolicy: "relay" | "deny";
  /** Whether `default` mode allows questions (plan always does). */
  defaultModeAllowed: boolean;
  /** True when a responder is attached to this thread, or the run defers questions. */
  hasResponder(): boolean;
  /** Effective policy for this turn (thread/turn/config), used when the tool asks. */
  policy: QuestionPolicy;
}

export interface ToolResult {
  output: ToolOutputPayload;
  /** false marks an error output (shown as failed; the model sees the text either way). */
  success: boolean;
  /** Patch for the display item (e.g. exit_code, status for command_execution). */
  display?: Partial<TurnItem> & Record<string, unknown>;
}

interface ToolBase {
  name: string;
  description: string;
  /** Surfaces show the call with this item while it runs (default: a generic tool_call item). */
  displayStart?(args: unknown, callId: string): TurnItem;
}

export interface FunctionTool<A = any> extends ToolBase {
  kind: "function";
  parameters: z.ZodType<A>;
  /** Exact JSON Schema sent to the model; default derives it from `parameters`. */
  wireParameters?: Record<string, unknown>;
  execute(args: A, ctx: ToolContext): Promise<ToolResult>;
}

export interface CustomTool extends ToolBase {
  kind: "custom";
  /** Freeform input format (e.g. a Lark grammar) sent with the tool definition. */
  format?: { type: "grammar"; syntax: "lark" | "regex"; definition: string } | { type: "text" };
  execute(input: string, ctx: ToolContext): Promise<ToolResult>;
}

export type Tool = FunctionTool | CustomTool;

export function defineTool<A>(tool: FunctionTool<A>): FunctionTool<A> {
  return tool;
}
