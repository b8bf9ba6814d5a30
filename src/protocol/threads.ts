/**
 * Threads as they are stored and as surfaces read them: a thread's record and settings, its turns,
 * its stored items and questions. The settings are one zod schema: the stores parse them whenever
 * they read a thread (store/sqlite, store/postgres), so the runtime and the surfaces read them
 * typed; a surface changes them only through the runtime (`runtime.threads.updateSettings`, with a
 * `ThreadSettingsPatch`).
 *
 * Contract of `parseThreadSettings` (what a read gives for what is stored):
 * - Every key below comes back typed. A stored value that does not fit its key's schema (a hand-edited
 *   database) is dropped from what is read, so the configuration's value applies for it; nothing
 *   else of the thread is refused. Keys this version does not know are kept as they are.
 * - Anything but a JSON object reads as no settings at all.
 */
import * as z from "zod";
import { CollaborationMode, ThreadStatus, Usage } from "./events.js";
import { ResponseItem } from "./items.js";
import { QuestionOutcome, QuestionPolicy, QuestionRequest } from "./questions.js";

export const SandboxMode = z.enum(["read-only", "workspace-write", "danger-full-access"]);
export type SandboxMode = z.infer<typeof SandboxMode>;
export const ApprovalPolicy = z.enum(["never", "on-request", "on-failure", "untrusted"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;
export const HeadlessQuestions = z.enum(["defer", "stdin"]);

/** Who a sub-agent is (runtime/agents): stored in its thread's `settings.agent`. */
export const AgentSettings = z.object({
  nickname: z.string().describe("Its short name, unique under its root thread (Ada, Babbage…)"),
  role: z.string().catch("default").describe("Its role (`default` or a configured one)"),
  depth: z.number().int().positive().catch(1).describe("1 for a child of the root thread"),
  task: z.string().catch("").describe("The task it was spawned with"),
  root_id: z.string().describe("The root thread of its family"),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

/** A key that reads as absent when what is stored does not fit (see the contract). */
const kept = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

export const ThreadSettings = z.looseObject({
  base_id: kept(z.string()).describe("Id of the base-instructions item (kept for prompt caching)"),
  effort: kept(z.string()).describe("Reasoning effort of the thread's turns (else the config's)"),
  question_policy: kept(QuestionPolicy).describe("Question policy of the thread (else the config's)"),
  output_schema: kept(z.record(z.string(), z.unknown())).describe("JSON schema of the final message"),
  offer_questions: kept(z.boolean()).describe("false: request_user_input is never offered"),
  headless_questions: kept(HeadlessQuestions).describe("How a headless run answers (`exec --questions`)"),
  sandbox_mode: kept(SandboxMode).describe("Sandbox of the thread's commands (else the config's)"),
  writable_roots: kept(z.array(z.string())).describe("Extra writable roots of the workspace-write sandbox"),
  network_access: kept(z.boolean()).describe("Network in the workspace-write sandbox (else the config's)"),
  approval_policy: kept(ApprovalPolicy).describe("When commands ask for approval (else the config's)"),
  permission_profile: kept(z.string()).describe("The permission profile a client selected (app-server)"),
  ephemeral: kept(z.boolean()).describe("Never stored, never listed (a client's helper thread)"),
  disabled_tools: kept(z.array(z.string())).describe("Tools never offered nor run in this thread"),
  allowed_tools: kept(z.array(z.string())).describe("A sub-agent role's tools: no other tool is offered"),
  agent: kept(AgentSettings).describe("Set on a sub-agent's thread: who it is"),
  archived: kept(z.boolean()).describe("Hidden from the default thread lists (app-server thread/archive)"),
});
export type ThreadSettings = z.infer<typeof ThreadSettings>;

/** Reads stored settings (see the module contract); never throws. */
export function parseThreadSettings(raw: unknown): ThreadSettings {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return {};
  return ThreadSettings.parse(raw);
}

/**
 * A change of what a thread's later turns use: its model, mode and cwd, and the settings a client
 * may change. An absent key keeps what the thread has; `null` removes the thread's own value, so
 * the configuration's applies again.
 */
export const ThreadSettingsPatch = z
  .strictObject({
    model: z.string().min(1),
    mode: CollaborationMode,
    cwd: z.string().min(1),
    effort: z.string().nullable(),
    question_policy: QuestionPolicy.nullable(),
    offer_questions: z.boolean().nullable(),
    headless_questions: HeadlessQuestions.nullable(),
    sandbox_mode: SandboxMode.nullable(),
    writable_roots: z.array(z.string()).nullable(),
    network_access: z.boolean().nullable(),
    approval_policy: ApprovalPolicy.nullable(),
    permission_profile: z.string().nullable(),
  })
  .partial();
export type ThreadSettingsPatch = z.infer<typeof ThreadSettingsPatch>;

export const ThreadRecord = z.object({
  id: z.string(),
  session_id: z.string().describe("prompt_cache_key and client_metadata.session_id (the root's id)"),
  parent_id: z.string().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
  cwd: z.string(),
  model: z.string(),
  mode: CollaborationMode,
  title: z.string(),
  status: ThreadStatus,
  settings: ThreadSettings,
  usage: Usage.optional().describe(
    "Token totals of every model response of the thread, across processes (read only: written by " +
      "`Store.addUsage`, ignored by `createThread`/`updateThread`); absent before the first",
  ),
});
export type ThreadRecord = z.infer<typeof ThreadRecord>;

export const TurnRecord = z.object({
  id: z.string(),
  thread_id: z.string(),
  started_at: z.number(),
  ended_at: z.number().nullable(),
  status: z.enum(["running", "completed", "interrupted", "failed"]),
  usage: Usage.nullable(),
  error: z.string().nullable(),
  diff: z
    .string()
    .nullable()
    .optional()
    .describe(
      "The turn's net unified diff, secret-masked as emitted in `turn.diff`, written when the turn " +
        "ends; left out when there is none",
    ),
});
export type TurnRecord = z.infer<typeof TurnRecord>;

export const StoredItem = z.object({
  seq: z.number().describe("1-based, per thread"),
  thread_id: z.string(),
  turn_id: z.string().nullable(),
  item: ResponseItem,
  created_at: z.number(),
});
export type StoredItem = z.infer<typeof StoredItem>;

export const StoredQuestion = z.object({ request: QuestionRequest, outcome: QuestionOutcome.nullable() });
export type StoredQuestion = z.infer<typeof StoredQuestion>;

/**
 * Bounds of a thread search (`Store.searchThreads`, `runtime.threads.search`, `GET /thread?q=`).
 * `scanHits`: a search looks at the newest this many matching messages (and titles) only, so a
 * word found everywhere costs the same as a rare one; older hits of such a word are not listed.
 */
export const SEARCH_LIMITS = {
  defaultLimit: 20,
  maxLimit: 100,
  maxTerms: 8,
  maxTermChars: 64,
  scanHits: 2000,
} as const;

/** One thread a search found. */
export interface ThreadSearchHit {
  thread: ThreadRecord;
  /**
   * Part of the newest matching message (around the first term, at most 160 characters plus
   * ellipses); null when only the title matched.
   */
  snippet: string | null;
}
