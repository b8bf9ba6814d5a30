/**
 * Wire shapes of `tandem app-server` (requirements S3): the subset of the Codex app-server v2 protocol Tandem
 * accepts and emits, plus Tandem's own `tandem/…` methods. One zod definition per shape; types are
 * inferred. The reference for every Codex name is `codex-app-server-v2.schemas.json`.
 *
 * Contract:
 * - Accepted params are parsed with these schemas at the connection boundary. Codex clients send many
 *   fields Tandem does not use (personality, instructions, …): unknown keys are dropped, never an
 *   error, and optional fields accept `null` as Codex clients send it.
 * - Emitted shapes carry only fields the Codex schema defines (plus the nullable ones it requires), so
 *   every Codex-named message validates against the reference bundle (tested with ajv).
 * - `tandem/…` methods use camelCase params like the rest of the wire, and carry Tandem's own protocol
 *   objects (`QuestionRequest`, `QuestionOutcome`, snake_case) verbatim rather than a second vocabulary.
 */
import * as z from "zod";
import { QuestionAnswer, QuestionOutcome, QuestionRequest } from "./questions.js";

/** JSON-RPC id: a string or an integer (Codex `RequestId`). */
export const RequestId = z.union([z.string(), z.number().int()]);
export type RequestId = z.infer<typeof RequestId>;

// ---------------------------------------------------------------------------------------------
// Client → server request params (Codex v2)
// ---------------------------------------------------------------------------------------------

export const InitializeParams = z.object({
  clientInfo: z.object({
    name: z.string().describe("Client name, e.g. codex_vscode"),
    title: z.string().nullish(),
    version: z.string(),
  }),
  capabilities: z
    .object({
      experimentalApi: z.boolean().optional(),
      optOutNotificationMethods: z
        .array(z.string())
        .nullish()
        .describe("Notification methods this connection never receives (tandem/* included)"),
      extensions: z
        .record(z.string(), z.unknown())
        .nullish()
        .describe('`{"tandem": {}}` opts into Tandem\'s own notifications (tandem/question/*)'),
    })
    .nullish(),
});
export type InitializeParams = z.infer<typeof InitializeParams>;

/** Codex `SandboxMode` (thread/start `sandbox`): the thread's sandbox, enforced by the OS. */
export const SandboxMode = z.enum(["read-only", "workspace-write", "danger-full-access"]);
export type SandboxMode = z.infer<typeof SandboxMode>;

/**
 * Codex `AskForApproval`. Tandem also takes `on-failure` (its config does); `granular` is reduced to
 * its `sandbox_approval` flag: true asks like `on-request`, false refuses escalations like `never`.
 */
export const AskForApproval = z.union([
  z.enum(["untrusted", "on-failure", "on-request", "never"]),
  z.object({ granular: z.object({ sandbox_approval: z.boolean() }) }),
]);
export type AskForApproval = z.infer<typeof AskForApproval>;

/** Codex `SandboxPolicy` (turn/start `sandboxPolicy`). */
export const SandboxPolicy = z.discriminatedUnion("type", [
  z.object({ type: z.literal("dangerFullAccess") }),
  z.object({ type: z.literal("readOnly"), networkAccess: z.boolean().nullish() }),
  z.object({
    type: z.literal("externalSandbox"),
    networkAccess: z.enum(["restricted", "enabled"]).nullish(),
  }),
  z.object({
    type: z.literal("workspaceWrite"),
    writableRoots: z.array(z.string()).nullish(),
    networkAccess: z.boolean().nullish(),
  }),
]);
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;

export const ThreadStartParams = z.object({
  cwd: z.string().nullish().describe("Working directory of the thread (default: the server's cwd)"),
  model: z.string().nullish(),
  sandbox: SandboxMode.nullish().describe("The thread's sandbox (default: sandbox_mode from the config)"),
  approvalPolicy: AskForApproval.nullish().describe("The thread's approval policy (default: the config's)"),
  permissions: z
    .string()
    .nullish()
    .describe("A permission profile id (permissionProfile/list); cannot be combined with sandbox"),
  ephemeral: z
    .boolean()
    .nullish()
    .describe("A temporary thread: never stored, never listed, gone when the server stops"),
  config: z
    .record(z.string(), z.unknown())
    .nullish()
    .describe('Per-thread settings; Tandem reads "questions.policy" (wait | timeout{ms,on_timeout})'),
});
export type ThreadStartParams = z.infer<typeof ThreadStartParams>;

export const ThreadResumeParams = z.object({
  threadId: z.string(),
  model: z.string().nullish(),
});
export type ThreadResumeParams = z.infer<typeof ThreadResumeParams>;

export const ThreadListParams = z.object({
  limit: z.number().int().min(0).nullish(),
  cursor: z.string().nullish().describe("Opaque cursor from a previous page's nextCursor"),
  cwd: z.union([z.string(), z.array(z.string())]).nullish(),
  archived: z.boolean().nullish(),
  parentThreadId: z.string().nullish().describe("Only the sub-agents this thread spawned"),
  ancestorThreadId: z.string().nullish().describe("Only the sub-agents below this thread, at any depth"),
  sourceKinds: z
    .array(z.string())
    .nullish()
    .describe(
      'Only these sources (empty: all); Tandem threads are "appServer", sub-agents "subAgentThreadSpawn"',
    ),
});
export type ThreadListParams = z.infer<typeof ThreadListParams>;

export const ThreadReadParams = z.object({
  threadId: z.string(),
  includeTurns: z.boolean().optional(),
});
export type ThreadReadParams = z.infer<typeof ThreadReadParams>;

/** Offset pagination shared by the list methods: `cursor` is a previous page's `nextCursor`. */
const Page = {
  limit: z.number().int().min(0).nullish().describe("Page size (0 or absent: the method's default)"),
  cursor: z.string().nullish().describe("Opaque cursor from a previous page's nextCursor"),
};

export const ThreadLoadedListParams = z.object(Page);
export type ThreadLoadedListParams = z.infer<typeof ThreadLoadedListParams>;

/** thread/unsubscribe, thread/archive and thread/unarchive: just the thread. */
export const ThreadIdParams = z.object({ threadId: z.string() });
export type ThreadIdParams = z.infer<typeof ThreadIdParams>;

export const ThreadSetNameParams = z.object({
  threadId: z.string(),
  name: z.string().describe("The thread's title; surrounding whitespace is trimmed, empty is refused"),
});
export type ThreadSetNameParams = z.infer<typeof ThreadSetNameParams>;

export const ModelListParams = z.object({
  ...Page,
  includeHidden: z.boolean().nullish(),
  modelProvider: z.string().nullish().describe("A configured provider id (default: the one in use)"),
});
export type ModelListParams = z.infer<typeof ModelListParams>;

export const ConfigReadParams = z.object({
  cwd: z.string().nullish().describe("Ignored: Tandem has no per-project config layers"),
  includeLayers: z.boolean().nullish(),
});
export type ConfigReadParams = z.infer<typeof ConfigReadParams>;

export const GetAccountParams = z.object({ refreshToken: z.boolean().nullish() });
export type GetAccountParams = z.infer<typeof GetAccountParams>;

/** The user input kinds Tandem accepts; mentions and audio are refused as invalid params. */
export const UserInput = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("skill"),
    name: z.string().describe("A skill of skills/list: its SKILL.md body is attached to the turn"),
    path: z.string(),
  }),
  z.object({ type: z.literal("image"), url: z.string().describe("https or data: URL") }),
  z.object({ type: z.literal("localImage"), path: z.string().describe("Image file read by the server") }),
]);
export type UserInput = z.infer<typeof UserInput>;

/** Codex `collaborationMode`, exactly as Codex clients send it on `turn/start`. */
export const CollaborationModeParam = z.object({
  mode: z.enum(["plan", "default"]),
  settings: z.object({
    model: z.string(),
    reasoning_effort: z.string().nullish(),
    developer_instructions: z.string().nullish(),
  }),
});
export type CollaborationModeParam = z.infer<typeof CollaborationModeParam>;

export const TurnStartParams = z.object({
  threadId: z.string(),
  input: z.array(UserInput),
  model: z.string().nullish(),
  cwd: z.string().nullish(),
  effort: z.string().nullish(),
  outputSchema: z.record(z.string(), z.unknown()).nullish(),
  collaborationMode: CollaborationModeParam.nullish(),
  approvalPolicy: AskForApproval.nullish().describe("For this turn and the thread's next turns"),
  sandboxPolicy: SandboxPolicy.nullish().describe("For this turn and the thread's next turns"),
  permissions: z
    .string()
    .nullish()
    .describe("A permission profile id for this turn and the thread's next turns"),
});
export type TurnStartParams = z.infer<typeof TurnStartParams>;

export const TurnSteerParams = z.object({
  threadId: z.string(),
  expectedTurnId: z.string(),
  input: z.array(UserInput),
});
export type TurnSteerParams = z.infer<typeof TurnSteerParams>;

export const TurnInterruptParams = z.object({ threadId: z.string(), turnId: z.string() });
export type TurnInterruptParams = z.infer<typeof TurnInterruptParams>;

/** The client's result for `item/tool/requestUserInput`. */
export const ToolRequestUserInputResponse = z.object({
  answers: z.record(
    z.string(),
    z.object({
      answers: z
        .array(z.string())
        .describe('Option labels, free text, and "user_note: …" entries for a note'),
    }),
  ),
});
export type ToolRequestUserInputResponse = z.infer<typeof ToolRequestUserInputResponse>;

/**
 * Codex `CommandExecutionApprovalDecision`. Tandem acts on accept, acceptForSession,
 * acceptWithExecpolicyAmendment (the proposed rule, remembered for the project), decline and cancel;
 * `applyNetworkPolicyAmendment` parses so that its refusal can say why.
 */
export const CommandExecutionApprovalDecision = z.union([
  z.enum(["accept", "acceptForSession", "decline", "cancel"]),
  z.object({
    acceptWithExecpolicyAmendment: z.object({ execpolicy_amendment: z.array(z.string()) }),
  }),
  z.object({ applyNetworkPolicyAmendment: z.record(z.string(), z.unknown()) }),
]);
export type CommandExecutionApprovalDecision = z.infer<typeof CommandExecutionApprovalDecision>;

/** The client's result for `item/commandExecution/requestApproval`. */
export const CommandExecutionRequestApprovalResponse = z.object({
  decision: CommandExecutionApprovalDecision,
});
export type CommandExecutionRequestApprovalResponse = z.infer<typeof CommandExecutionRequestApprovalResponse>;

/** Codex `FileChangeApprovalDecision`. */
export const FileChangeApprovalDecision = z.enum(["accept", "acceptForSession", "decline", "cancel"]);
export type FileChangeApprovalDecision = z.infer<typeof FileChangeApprovalDecision>;

/** The client's result for `item/fileChange/requestApproval`. */
export const FileChangeRequestApprovalResponse = z.object({ decision: FileChangeApprovalDecision });
export type FileChangeRequestApprovalResponse = z.infer<typeof FileChangeRequestApprovalResponse>;

// ---------------------------------------------------------------------------------------------
// Tandem additions (client → server)
// ---------------------------------------------------------------------------------------------

export const QuestionListParams = z.object({ threadId: z.string().nullish() });
export const QuestionReplyParams = z.object({
  threadId: z.string(),
  requestId: z.string(),
  answers: z.record(z.string(), QuestionAnswer).describe("Typed answers by question id; secrets allowed"),
});
export const QuestionDeclineParams = z.object({
  threadId: z.string(),
  requestId: z.string(),
  reason: z.string().nullish(),
});
export const QuestionTouchParams = z.object({ requestId: z.string() });

// ---------------------------------------------------------------------------------------------
// Emitted Codex shapes (subset of the v2 schema)
// ---------------------------------------------------------------------------------------------

export const CodexThreadStatus = z.discriminatedUnion("type", [
  z.object({ type: z.literal("notLoaded") }),
  z.object({ type: z.literal("idle") }),
  z.object({ type: z.literal("systemError") }),
  z.object({
    type: z.literal("active"),
    activeFlags: z.array(z.enum(["waitingOnApproval", "waitingOnUserInput"])),
  }),
]);
export type CodexThreadStatus = z.infer<typeof CodexThreadStatus>;

export const CodexErrorInfo = z.union([z.string(), z.record(z.string(), z.unknown())]);

export const CodexTurnError = z.object({
  message: z.string(),
  codexErrorInfo: CodexErrorInfo.nullable(),
  additionalDetails: z.string().nullable(),
});
export type CodexTurnError = z.infer<typeof CodexTurnError>;

const TextUserInput = z.object({
  type: z.literal("text"),
  text: z.string(),
  text_elements: z.array(z.never()),
});

const ItemStatus = z.enum(["inProgress", "completed", "failed"]);

/** Codex `CommandAction`: what a command does, read from its script (codex-command.ts). */
export const CommandAction = z.discriminatedUnion("type", [
  z.object({ type: z.literal("read"), command: z.string(), name: z.string(), path: z.string() }),
  z.object({ type: z.literal("listFiles"), command: z.string(), path: z.string().nullable() }),
  z.object({
    type: z.literal("search"),
    command: z.string(),
    query: z.string().nullable(),
    path: z.string().nullable(),
  }),
  z.object({ type: z.literal("unknown"), command: z.string() }),
]);

/** The ThreadItem kinds Tandem emits. Ids of tool items are the model's call ids. */
export const CodexThreadItem = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("userMessage"),
    id: z.string(),
    content: z.array(z.union([TextUserInput, z.object({ type: z.literal("image"), url: z.string() })])),
  }),
  z.object({ type: z.literal("agentMessage"), id: z.string(), text: z.string() }),
  z.object({ type: z.literal("plan"), id: z.string(), text: z.string() }),
  z.object({
    type: z.literal("reasoning"),
    id: z.string(),
    summary: z.array(z.string()),
    content: z.array(z.string()),
  }),
  z.object({
    type: z.literal("commandExecution"),
    id: z.string(),
    command: z.string(),
    commandActions: z.array(CommandAction),
    cwd: z.string(),
    processId: z.string().nullable(),
    status: z.enum(["inProgress", "completed", "failed", "declined"]),
    aggregatedOutput: z.string().nullable(),
    exitCode: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
  }),
  z.object({
    type: z.literal("fileChange"),
    id: z.string(),
    changes: z.array(
      z.object({
        path: z.string(),
        kind: z.discriminatedUnion("type", [
          z.object({ type: z.literal("add") }),
          z.object({ type: z.literal("delete") }),
          z.object({ type: z.literal("update"), move_path: z.string().nullable() }),
        ]),
        diff: z.string().describe("Unified diff; empty while the patch is not applied yet"),
      }),
    ),
    status: z.enum(["inProgress", "completed", "failed", "declined"]),
  }),
  z.object({
    type: z.literal("dynamicToolCall"),
    id: z.string(),
    tool: z.string(),
    namespace: z.string().nullable(),
    arguments: z.unknown(),
    status: ItemStatus,
    contentItems: z.array(z.object({ type: z.literal("inputText"), text: z.string() })).nullable(),
    success: z.boolean().nullable(),
    durationMs: z.number().int().nullable(),
  }),
]);
export type CodexThreadItem = z.infer<typeof CodexThreadItem>;

export const CodexTurn = z.object({
  id: z.string(),
  items: z.array(CodexThreadItem),
  status: z.enum(["completed", "interrupted", "failed", "inProgress"]),
  error: CodexTurnError.nullable(),
  startedAt: z.number().int().nullable().describe("Unix seconds"),
  completedAt: z.number().int().nullable().describe("Unix seconds"),
  durationMs: z.number().int().nullable(),
});
export type CodexTurn = z.infer<typeof CodexTurn>;

export const CodexThread = z.object({
  id: z.string(),
  sessionId: z.string(),
  parentThreadId: z.string().nullable(),
  cliVersion: z.string(),
  createdAt: z.number().int().describe("Unix seconds"),
  updatedAt: z.number().int().describe("Unix seconds"),
  cwd: z.string(),
  ephemeral: z.boolean(),
  model: z.string().nullable(),
  reasoningEffort: z.string().nullable().describe("The thread's configured reasoning effort"),
  modelProvider: z.string(),
  name: z.string().nullable(),
  preview: z.string().describe("First user message of the thread"),
  projectId: z.null(),
  path: z.null(),
  source: z
    .union([z.literal("appServer"), z.record(z.string(), z.unknown())])
    .describe('"appServer", or {subAgent: {thread_spawn: {parent_thread_id, depth, …}}} for a sub-agent'),
  agentNickname: z.string().nullable().optional(),
  agentRole: z.string().nullable().optional(),
  status: CodexThreadStatus,
  turns: z.array(CodexTurn),
});
export type CodexThread = z.infer<typeof CodexThread>;

/** Codex `Model` (model/list): the fields Tandem can fill truthfully. */
export const CodexModel = z.object({
  id: z.string(),
  model: z.string(),
  displayName: z.string(),
  description: z.string(),
  hidden: z.boolean(),
  isDefault: z.boolean(),
  defaultReasoningEffort: z.string().min(1),
  supportedReasoningEfforts: z.array(
    z.object({ reasoningEffort: z.string().min(1), description: z.string() }),
  ),
  inputModalities: z.array(z.enum(["text", "image"])),
});
export type CodexModel = z.infer<typeof CodexModel>;

/**
 * Codex `Config` (config/read): the Tandem settings that have a Codex counterpart, under Codex's
 * snake_case keys. Settings Tandem leaves unset are absent, never a made-up default.
 */
export const CodexConfig = z.object({
  model: z.string(),
  model_provider: z.string(),
  approval_policy: z.enum(["untrusted", "on-request", "never"]),
  approvals_reviewer: z.literal("user"),
  sandbox_mode: SandboxMode,
  sandbox_workspace_write: z.object({
    network_access: z.boolean(),
    writable_roots: z.array(z.string()),
  }),
  model_reasoning_effort: z.string().optional(),
  model_reasoning_summary: z.enum(["auto", "concise", "detailed", "none"]).optional(),
  service_tier: z.string().optional(),
  model_context_window: z.number().int().optional(),
});
export type CodexConfig = z.infer<typeof CodexConfig>;

/** Codex `GetAccountResponse`: Tandem has no account, only (maybe) an API key from the environment. */
export const CodexAccountResponse = z.object({
  account: z.object({ type: z.literal("apiKey") }).nullable(),
  requiresOpenaiAuth: z.boolean(),
});
export type CodexAccountResponse = z.infer<typeof CodexAccountResponse>;

export const TokenUsageBreakdown = z.object({
  inputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
  outputTokens: z.number().int(),
  reasoningOutputTokens: z.number().int(),
  totalTokens: z.number().int(),
});
export type TokenUsageBreakdown = z.infer<typeof TokenUsageBreakdown>;

export const CodexQuestion = z.object({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  isOther: z.boolean().describe("The client offers a free-text answer besides the options"),
  isSecret: z.boolean().describe("Mask the input; the value never reaches the model or logs"),
  options: z.array(z.object({ label: z.string(), description: z.string() })).nullable(),
});
export type CodexQuestion = z.infer<typeof CodexQuestion>;

/** Params of the server request `item/tool/requestUserInput`. */
export const ToolRequestUserInputParams = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string().describe("The model's call id"),
  questions: z.array(CodexQuestion),
  isBlocking: z.boolean().describe("The turn waits for this answer (Plan mode, or a `wait` policy)"),
  autoResolutionMs: z.number().int().nullable().describe("Milliseconds left before a timeout policy fires"),
});
export type ToolRequestUserInputParams = z.infer<typeof ToolRequestUserInputParams>;

/** Params of the server request `item/commandExecution/requestApproval` (the fields Tandem fills). */
export const CommandExecutionRequestApprovalParams = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string().describe("The exec_command call id (the commandExecution item)"),
  approvalId: z.null().describe("Codex sets it only for sub-command callbacks; one approval per call here"),
  startedAtMs: z.number().int(),
  reason: z.string().nullable().describe("The model's justification, else why Tandem asks"),
  command: z.string().nullable().describe("The argv Tandem runs, shell-quoted: /bin/bash -c '<script>'"),
  commandActions: z.array(CommandAction).nullable(),
  cwd: z.string().nullable(),
  proposedExecpolicyAmendment: z
    .array(z.string())
    .nullable()
    .describe("The prefix rule that acceptWithExecpolicyAmendment remembers for the project"),
  availableDecisions: z.array(CommandExecutionApprovalDecision).nullable(),
});
export type CommandExecutionRequestApprovalParams = z.infer<typeof CommandExecutionRequestApprovalParams>;

/** Params of the server request `item/fileChange/requestApproval`. */
export const FileChangeRequestApprovalParams = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string().describe("The apply_patch call id (the fileChange item)"),
  startedAtMs: z.number().int(),
  reason: z.string().nullable(),
  grantRoot: z.null(),
});
export type FileChangeRequestApprovalParams = z.infer<typeof FileChangeRequestApprovalParams>;

// ---------------------------------------------------------------------------------------------
// Tandem notifications (server → client)
// ---------------------------------------------------------------------------------------------

export const TandemNotifications = {
  "tandem/question/requested": z.object({ request: QuestionRequest }),
  "tandem/question/settled": z.object({
    threadId: z.string(),
    turnId: z.string(),
    requestId: z.string(),
    outcome: QuestionOutcome.describe("Who answered, or declined / timed_out (with policy) / cancelled"),
  }),
  "tandem/question/deadlineChanged": z.object({
    threadId: z.string(),
    turnId: z.string(),
    requestId: z.string(),
    deadline: z.number().nullable(),
  }),
  "tandem/question/replyRefused": z.object({
    threadId: z.string(),
    requestId: z.string(),
    code: z.string().describe("Broker error code: unknown_request, already_settled, cancelled, …"),
    message: z.string(),
  }),
} as const;
export type TandemNotificationMethod = keyof typeof TandemNotifications;
