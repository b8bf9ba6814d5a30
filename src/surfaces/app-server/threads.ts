/**
 * Codex `thread/*` methods over the runtime: start, resume, list, read (the others: manage.ts).
 *
 * Contract:
 * - `thread/start` and `thread/resume` attach the connection to the thread as a responder (Q3).
 *   `thread/resume` attaches *before* opening the thread, so a turn it resumes and the questions it
 *   re-asks (Q11) reach this client — after the response (see rpc.ts ordering) — and then sends any
 *   other question of the thread still pending, so a client that resumes always gets them.
 * - Thread objects report what Tandem has: `ephemeral` (thread/start `ephemeral: true`: never
 *   stored, never listed, gone with the process — the Codex TUI's title writer), `source` is
 *   `appServer`, the status says whether the thread waits on an approval or a question.
 * - A thread is stored by its first turn (Thread.persist); until then thread/read answers
 *   from the live record and thread/list does not show it (as Codex: no user message, no entry).
 * - `thread/start` `config` may switch tools off (thread-config.ts) and set the question policy.
 * - `thread/list` lists archived threads (thread settings `archived`, see manage.ts) only when asked
 *   with `archived: true`, and only those then.
 * - `thread/start` `sandbox`, `permissions` and `approvalPolicy` become the thread's own settings (safety.ts; the
 *   runtime enforces them); responses report the settings in force for the thread. Params Tandem
 *   does not support (instructions, personality, …) are accepted and ignored.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  type CodexThread,
  ThreadListParams,
  ThreadReadParams,
  ThreadResumeParams,
  ThreadStartParams,
} from "../../protocol/app-server.js";
import type { ThreadRecord } from "../../protocol/threads.js";
import { agentsMdFiles } from "../../runtime/context.js";
import { ThreadInUseError } from "../../runtime/errors.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import type { ServerContext } from "./context.js";
import { codexTurns, threadPreview } from "./history.js";
import { codexThread, tokenUsage } from "./mapping.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { activeProfile, applySafety, safetyOf, safetyPatch } from "./safety.js";
import { effortOf, threadConfig } from "./thread-config.js";

const DEFAULT_PAGE = 50;
const SUB_AGENT_KINDS = ["subAgent", "subAgentThreadSpawn"];
const MAX_PAGE = 200;

/** The Codex Thread for a stored or loaded thread; `turns` only when asked. */
export function threadObject(server: ServerContext, record: ThreadRecord, withTurns: boolean): CodexThread {
  const { runtime } = server;
  const live = runtime.threads.get(record.id);
  const items = runtime.threads.history(record.id);
  const current = live?.record ?? record;
  return codexThread(
    {
      record: current,
      status: live?.status,
      ...(live ? { waiting: server.waiting(record.id) } : {}),
      preview: threadPreview(items),
      turns: withTurns
        ? codexTurns(runtime.threads.turns(record.id), items, current.cwd, (callId) =>
            runtime.questions.ofCall(record.id, callId),
          )
        : [],
    },
    {
      version: server.opts.version,
      provider: runtime.provider.id,
      effort: runtime.settings.model_reasoning_effort ?? null,
    },
  );
}

/** The settings part shared by thread/start, thread/resume and thread/fork responses. */
export function settingsOf(server: ServerContext, thread: Thread) {
  const { record } = thread;
  return {
    model: record.model,
    modelProvider: server.runtime.provider.id,
    serviceTier: server.runtime.settings.service_tier ?? null,
    cwd: record.cwd,
    runtimeWorkspaceRoots: [record.cwd],
    instructionSources: server.runtime.settings.include_agents_md ? agentsMdFiles(record.cwd) : [],
    approvalsReviewer: "user",
    ...safetyOf(thread),
    activePermissionProfile: activeProfile(thread),
    reasoningEffort: effortOf(server, thread),
  };
}

/** Whether the thread is archived (`runtime.threads.archive`; the live record wins over the stored one). */
export function isArchived(server: ServerContext, record: ThreadRecord): boolean {
  const current = server.runtime.threads.get(record.id)?.record ?? record;
  return current.settings.archived === true;
}

export function requireThread(server: ServerContext, threadId: string): Readonly<ThreadRecord> {
  const record = server.runtime.threads.record(threadId);
  if (!record)
    throw new RpcError(
      ErrorCode.ThreadNotFound,
      `no thread with id ${threadId}; thread/list shows the stored threads`,
      { threadId },
    );
  return record;
}

const start = method(ThreadStartParams, ({ server, session }: Ctx, p) => {
  const cwd = resolve(p.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory())
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for thread/start: cwd ${cwd} is not a directory`,
    );
  const config = threadConfig(p.config ?? {});
  const safety = safetyPatch(p, "thread/start");
  const thread = server.runtime.threads.start({
    cwd,
    model: p.model ?? undefined,
    questionPolicy: config.questionPolicy,
    disabledTools: config.disabledTools,
    ephemeral: p.ephemeral ?? false,
  });
  applySafety(server.runtime, thread, safety);
  session.attach(thread.id);
  const object = threadObject(server, thread.record, false);
  session.notify("thread/started", { thread: object });
  return { thread: object, ...settingsOf(server, thread) };
});

const resume = method(ThreadResumeParams, ({ server, session }: Ctx, p) => {
  requireThread(server, p.threadId);
  const attached = session.attach(p.threadId);
  let thread: Thread;
  try {
    thread = server.runtime.threads.open(p.threadId, p.model ? { model: p.model } : {});
  } catch (err) {
    if (attached) session.detach(p.threadId);
    throw inUseOr(err, ErrorCode.ThreadNotFound, p.threadId);
  }
  session.askPending(p.threadId);
  notifyStoredUsage(server, session, thread);
  return { thread: threadObject(server, thread.record, true), ...settingsOf(server, thread) };
});

/**
 * The thread's stored token totals, as Codex reports them after a resume (sent after the
 * response): `total` is the whole thread's, `last` its last turn's. Nothing before any usage.
 */
function notifyStoredUsage(server: ServerContext, session: Ctx["session"], thread: Thread): void {
  if (!thread.record.usage) return;
  const last = server.runtime.threads
    .turns(thread.id)
    .filter((t) => t.usage)
    .at(-1);
  if (!last?.usage) return;
  session.notify("thread/tokenUsage/updated", {
    threadId: thread.id,
    turnId: last.id,
    tokenUsage: {
      last: tokenUsage(last.usage),
      total: tokenUsage(thread.totalUsage),
      modelContextWindow: server.contextWindow(thread.id) ?? null,
    },
  });
}

const list = method(ThreadListParams, ({ server }: Ctx, p) => {
  const limit = Math.min(p.limit || DEFAULT_PAGE, MAX_PAGE);
  const offset = p.cursor ? Number(p.cursor) : 0;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RpcError(
      ErrorCode.InvalidParams,
      "invalid params for thread/list: cursor: not a cursor from nextCursor",
    );
  const archived = p.archived ?? false;
  const cwds =
    p.cwd === undefined || p.cwd === null ? undefined : new Set([p.cwd].flat().map((c) => resolve(c)));
  // Only stored threads: one started here is stored by its first turn (a thread nobody wrote to
  // is not listed, as in Codex); ephemeral threads never are.
  // Tandem does not record which client started a thread: a root thread matches every
  // interactive source kind (the Codex TUI's resume picker asks for ["cli", "vscode"]), a
  // sub-agent the sub-agent kinds.
  const kinds = p.sourceKinds?.length ? new Set(p.sourceKinds) : undefined;
  const kindOf = (r: ThreadRecord) =>
    r.parent_id ? SUB_AGENT_KINDS : ["cli", "vscode", "exec", "appServer", "unknown"];
  const descends = (r: ThreadRecord) =>
    !p.ancestorThreadId ||
    (r.id !== p.ancestorThreadId && server.runtime.agents.lineage(r.id).includes(p.ancestorThreadId));
  const records = server.runtime.threads
    .list()
    .filter(
      (r) =>
        isArchived(server, r) === archived &&
        (!cwds || cwds.has(r.cwd)) &&
        (!p.parentThreadId || r.parent_id === p.parentThreadId) &&
        descends(r) &&
        (!kinds || kindOf(r).some((k) => kinds.has(k))),
    );
  const page = records.slice(offset, offset + limit);
  return {
    data: page.map((r) => threadObject(server, r, false)),
    nextCursor: records.length > offset + limit ? String(offset + limit) : null,
  };
});

const read = method(ThreadReadParams, ({ server }: Ctx, p) => ({
  thread: threadObject(server, requireThread(server, p.threadId), p.includeTurns ?? false),
}));

export const THREAD_METHODS: Record<string, Method<any>> = {
  "thread/start": start,
  "thread/resume": resume,
  "thread/list": list,
  "thread/read": read,
};

/** `ThreadInUseError` (another process's lease) as ThreadInUse; anything else as `code`. */
export function inUseOr(err: unknown, code: number, threadId: string): RpcError {
  if (err instanceof RpcError) return err;
  const message = (err as Error).message;
  if (err instanceof ThreadInUseError) return new RpcError(ErrorCode.ThreadInUse, message, { threadId });
  return new RpcError(code, message, { threadId });
}
