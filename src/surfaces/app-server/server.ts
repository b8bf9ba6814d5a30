/**
 * The app server: client sessions over any Transport, fed by one subscription to the runtime's
 * event bus. Thin by design (STYLE habit 9): questions, turns and threads live in the runtime; this
 * routes events to the connections attached to each thread and requests to the handlers.
 *
 * Contract:
 * - Each event of a thread goes to every session attached to it, as Codex notifications (mapping.ts)
 *   in bus order. `question.requested` becomes a server request per attached session
 *   (`item/tool/requestUserInput`, or for an approval `item/commandExecution/requestApproval` /
 *   `item/fileChange/requestApproval`) plus `tandem/question/requested`; a settled request becomes
 *   `serverRequest/resolved` (to every session that got it) plus `tandem/question/settled`.
 * - A failure while serving one session is logged and never reaches the publisher, other sessions or
 *   other threads.
 * - `close()` disconnects every session (questions stay pending, Q11) and unsubscribes; the runtime
 *   itself is the caller's to shut down.
 */

import { contextWindow } from "../../model/context-window.js";
import type { Event, Stamped } from "../../protocol/events.js";
import { SETTLED_EVENTS } from "../../questions/asker.js";
import type { Runtime } from "../../runtime/core.js";
import type { ServerContext } from "./context.js";
import { handleRequest } from "./handlers.js";
import { EventMapper, type Waiting } from "./mapping.js";
import { ClientSession } from "./session.js";
import { threadObject } from "./threads.js";
import type { Transport } from "./transport.js";

export interface AppServerOptions {
  runtime: Runtime;
  /** Tandem's version, reported as `cliVersion` and in the user agent. */
  version: string;
  /** $TANDEM_HOME, reported as `codexHome` by `initialize`. */
  home: string;
  log: (line: string) => void;
}

export class AppServer implements ServerContext {
  readonly runtime: Runtime;
  readonly mapper: EventMapper;
  private readonly sessions = new Set<ClientSession>();
  private readonly subscription: { unsubscribe(): void };
  private nextId = 1;

  constructor(readonly opts: AppServerOptions) {
    this.runtime = opts.runtime;
    this.mapper = new EventMapper(
      (threadId) => {
        const t = this.runtime.threads.get(threadId);
        return t?.active?.options.cwd ?? t?.record.cwd ?? process.cwd();
      },
      (threadId) => this.waiting(threadId),
      (threadId) => this.contextWindow(threadId),
    );
    this.subscription = this.runtime.subscribe((s) => this.onEvent(s));
  }

  /** The context window of the thread's model (config, else the built-in table), when known. */
  contextWindow(threadId: string): number | undefined {
    const t = this.runtime.threads.get(threadId);
    const model = t?.active?.options.model ?? t?.record.model ?? this.runtime.settings.model;
    return contextWindow(model, this.runtime.settings.model_context_window);
  }

  /** What the thread's pending requests wait for (thread status flags). */
  waiting(threadId: string): Waiting {
    const pending = this.runtime.questions.list({ threadId });
    return { approval: pending.some((r) => r.approval), question: pending.some((r) => !r.approval) };
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Sends a notification to every initialized session (e.g. `thread/archived`). */
  broadcast(method: string, params: Record<string, unknown>): void {
    for (const s of this.sessions) {
      if (!s.initialized) continue;
      try {
        s.notify(method, params);
      } catch (err) {
        this.opts.log(`${s.id}: cannot deliver ${method}: ${(err as Error)?.stack ?? err}`);
      }
    }
  }

  /** Serves one client over `transport`. Resolves once the transport started. */
  /** Sends a notification to every session attached to the thread, and to `also` (the caller). */
  notifyThread(
    threadId: string,
    method: string,
    params: Record<string, unknown>,
    also?: ClientSession,
  ): void {
    for (const s of this.sessions) {
      if (!s.initialized || (s !== also && !s.isAttached(threadId))) continue;
      try {
        s.notify(method, params);
      } catch (err) {
        this.opts.log(`${s.id}: cannot deliver ${method}: ${(err as Error)?.stack ?? err}`);
      }
    }
  }

  async connect(transport: Transport): Promise<ClientSession> {
    const session = new ClientSession(
      `conn_${this.nextId++}`,
      transport,
      this.runtime,
      (s, method, params) => handleRequest(this, s, method, params),
      this.opts.log,
    );
    this.sessions.add(session);
    void session.rpc.closed.then(() => {
      this.sessions.delete(session);
      session.dispose();
    });
    await session.rpc.start();
    return session;
  }

  async close(): Promise<void> {
    this.subscription.unsubscribe();
    await Promise.all([...this.sessions].map((s) => s.rpc.close()));
  }

  /** The last `mcp.status` of each MCP server, whichever thread started it (mcpServerStatus/list). */
  readonly mcpStatus = new Map<string, { status: "ready" | "failed"; error?: string }>();

  private onEvent({ event, time }: Stamped): void {
    if (event.type === "mcp.status")
      this.mcpStatus.set(event.server, { status: event.status, error: event.error });
    let notes: ReturnType<EventMapper["map"]>;
    try {
      notes = this.mapper.map(event, time);
    } catch (err) {
      this.opts.log(`cannot map ${event.type}: ${(err as Error)?.stack ?? err}`);
      return;
    }
    if (!("thread_id" in event) || event.thread_id === undefined) return;
    const threadId = event.thread_id;
    // A sub-agent's events — its questions and approvals (Q14), and its turns and items for a
    // Codex client's agent panel — go to the sessions of its ancestors too.
    const owners = this.runtime.agents.lineage(threadId);
    for (const s of this.sessions) {
      try {
        if (SETTLED_EVENTS.has(event.type) && "request_id" in event) s.onSettled(threadId, event.request_id);
        if (!owners.some((id) => s.isAttached(id))) continue;
        if (owners.length > 1 && !s.isAttached(threadId) && s.announce(threadId))
          this.announceChild(s, threadId);
        for (const n of notes) s.notify(n.method, n.params);
        this.questionEvent(s, event);
      } catch (err) {
        this.opts.log(`${s.id}: cannot deliver ${event.type}: ${(err as Error)?.stack ?? err}`);
      }
    }
  }

  /** `thread/started` for a sub-agent thread, the first time a session hears of it. */
  private announceChild(s: ClientSession, threadId: string): void {
    const record = this.runtime.threads.record(threadId);
    if (record) s.notify("thread/started", { thread: threadObject(this, record, false) });
  }

  private questionEvent(s: ClientSession, event: Event): void {
    switch (event.type) {
      case "question.requested":
        s.ask(event.request);
        return;
      case "question.deadline_changed":
        s.notify("tandem/question/deadlineChanged", {
          threadId: event.thread_id,
          turnId: event.turn_id,
          requestId: event.request_id,
          deadline: event.deadline,
        });
        return;
      case "question.answered":
      case "question.declined":
      case "question.timed_out":
      case "question.cancelled":
        s.notify("tandem/question/settled", {
          threadId: event.thread_id,
          turnId: event.turn_id,
          requestId: event.request_id,
          outcome: event.outcome,
        });
        return;
    }
  }
}
