/**
 * The ACP agent: the `AgentApp` handlers over one runtime, for one client connection (stdio).
 * Thin by design (STYLE habit 9): threads, turns and pending questions live in the runtime; this
 * routes requests to sessions and the runtime's events to the client.
 *
 * Contract:
 * - `initialize` records the client's capabilities (form elicitation decides how questions go out,
 *   asker.ts) and advertises `loadSession`, image and embedded-context prompts, no authentication.
 * - `mcpServers` of session/new and session/load (stdio and streamable HTTP; SSE or a malformed server
 *   is -32602, mcp.ts) run for that thread beside the configured `[mcp_servers]` (same name: the
 *   client's wins). A thread already open in this process keeps the servers it started with.
 * - `session/new` starts a thread in `cwd` (absolute, an existing directory); `session/load`
 *   opens a stored thread by its exact id, replays its history as `session/update`s
 *   (history.ts) before answering, then sends its pending questions again. An unknown session id
 *   anywhere is -32002 with `data.sessionId`; bad parameters are -32602 with what to change.
 * - `session/prompt`, `session/cancel`, `session/set_mode`, `session/set_config_option`: session.ts.
 * - Model questions in this connection's threads that the client cannot show (no form elicitation,
 *   and not every question single choice) are answered `unavailable` by a pre-tool hook before
 *   anything is asked (requirements Q3 "no responder"); the model is told no one can answer.
 * - `close()` detaches every session (questions stay pending, Q11), cancels outstanding client
 *   requests and removes the hook and the event subscription; the runtime is the caller's.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  type AgentApp,
  type AgentConnection,
  type AgentContext,
  agent,
  type ClientCapabilities,
  methods,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import * as z from "zod";
import type { McpServerConfig } from "../../config/schema.js";
import type { Stamped } from "../../protocol/events.js";
import type { Responder } from "../../protocol/questions.js";
import { SETTLED_EVENTS } from "../../questions/asker.js";
import { unavailableModelResult } from "../../questions/model.js";
import type { Runtime } from "../../runtime/core.js";
import { ThreadInUseError } from "../../runtime/errors.js";
import { type AcpAsker, acpAsker } from "./asker.js";
import { historyUpdates } from "./history.js";
import { clientMcpServers } from "./mcp.js";
import { isMode, MODE_CONFIG_ID, modeError } from "./modes.js";
import { permissionAnswerable } from "./questions.js";
import { AcpSession } from "./session.js";
import { QUESTION_TOOL } from "./updates.js";

/** session/fork's params (the protocol's ForkSessionRequest: the fields Tandem reads). */
const ForkParams = z
  .object({
    sessionId: z.string(),
    cwd: z.string(),
    mcpServers: z.array(z.unknown()).optional(),
  })
  .passthrough();
type ForkParams = z.infer<typeof ForkParams>;

export interface AcpAgentOptions {
  runtime: Runtime;
  version: string;
  log: (line: string) => void;
}

export class AcpAgent {
  readonly app: AgentApp;
  private connection: AgentConnection | undefined;
  private capabilities: ClientCapabilities = {};
  private clientName = "acp";
  private readonly sessions = new Map<string, AcpSession>();
  private readonly asker: AcpAsker;
  private readonly responder: Responder = { kind: "acp" };
  private readonly unsubscribe: () => void;
  private readonly removeHook: () => void;

  constructor(private readonly opts: AcpAgentOptions) {
    const { runtime } = opts;
    this.asker = acpAsker({
      runtime,
      client: () => this.client(),
      formElicitation: () => this.formElicitation(),
      urlElicitation: () => !!this.capabilities.elicitation?.url,
      responder: this.responder,
      closed: () => this.closed(),
      log: opts.log,
    });
    const sub = runtime.subscribe((s) => this.onEvent(s));
    this.unsubscribe = () => sub.unsubscribe();
    this.removeHook = runtime.addToolHooks({ pre: (call, ctx) => this.preTool(call, ctx.threadId) });
    this.app = this.build();
  }

  private client(): AgentContext {
    if (!this.connection) throw new Error("the ACP connection is not open");
    return this.connection.client;
  }

  private closed(): boolean {
    return !this.connection || this.connection.signal.aborted;
  }

  private formElicitation(): boolean {
    return !!this.capabilities.elicitation?.form;
  }

  private build(): AgentApp {
    return (
      agent({ name: "tandem" })
        .onConnect((c) => {
          this.connection = c;
        })
        .onRequest(methods.agent.initialize, ({ params }) => {
          this.capabilities = params.clientCapabilities ?? {};
          this.clientName = params.clientInfo?.name ?? "acp";
          this.responder.id = this.clientName;
          return {
            protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
            agentCapabilities: {
              loadSession: true,
              // `fork` is in the protocol's unstable schema only (the stable type does not name it).
              sessionCapabilities: { fork: {} } as Record<string, unknown>,
              promptCapabilities: { image: true, audio: false, embeddedContext: true },
              mcpCapabilities: { http: true, sse: false },
            },
            agentInfo: { name: "tandem", title: "Tandem", version: this.opts.version },
            authMethods: [],
          };
        })
        .onRequest(methods.agent.session.new, ({ params }) => {
          checkCwd(params.cwd);
          const mcpServers = clientMcpServers(params.mcpServers);
          // Stored now: the editor may session/load this id from a later process before prompting.
          const thread = this.opts.runtime.threads.start({ cwd: params.cwd, mcpServers, storeNow: true });
          const session = this.open(thread);
          setImmediate(() => session.advertiseCommands()); // once the client has the session id
          return { sessionId: session.id, ...session.state() };
        })
        .onRequest(methods.agent.session.load, ({ params }) =>
          this.load(params.sessionId, clientMcpServers(params.mcpServers)),
        )
        // ACP's session/fork (unstable in the protocol, advertised as sessionCapabilities.fork):
        // a new session holding the source's whole history (runtime.branches.fork), in `cwd`.
        .onRequest("session/fork", ForkParams, ({ params }) => this.fork(params))
        .onRequest(methods.agent.session.prompt, ({ params, signal }) =>
          this.session(params.sessionId).prompt(params.prompt, signal),
        )
        .onNotification(methods.agent.session.cancel, ({ params }) => {
          const session = this.sessions.get(params.sessionId);
          if (session) session.cancel();
          else this.opts.log(`session/cancel: unknown session ${params.sessionId} ignored`);
        })
        .onRequest(methods.agent.session.setMode, ({ params }) => {
          const session = this.session(params.sessionId);
          if (!isMode(params.modeId)) throw modeError(params.modeId);
          session.setMode(params.modeId);
          return {};
        })
        .onRequest(methods.agent.session.setConfigOption, ({ params }) => {
          const session = this.session(params.sessionId);
          if (params.configId !== MODE_CONFIG_ID)
            throw RequestError.invalidParams(
              { configId: params.configId },
              `unknown config option "${params.configId}"; the only option is "${MODE_CONFIG_ID}"`,
            );
          const value = String(params.value);
          if (!isMode(value)) throw modeError(value);
          session.setMode(value);
          return { configOptions: session.state().configOptions };
        })
    );
  }

  private open(thread: AcpSession["thread"]): AcpSession {
    let session = this.sessions.get(thread.id);
    if (!session) {
      session = new AcpSession(thread, {
        runtime: this.opts.runtime,
        client: () => this.client(),
        responder: this.responder,
        closed: () => this.closed(),
        log: this.opts.log,
      });
      this.sessions.set(thread.id, session);
    }
    return session;
  }

  private session(id: string): AcpSession {
    const session = this.sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  }

  private async load(ref: string, mcpServers: Record<string, McpServerConfig>) {
    const { runtime } = this.opts;
    // Exact ids only: the client goes on naming the session by the id it sent.
    if (!runtime.threads.record(ref)) throw RequestError.sessionNotFound(ref);
    let thread: AcpSession["thread"];
    try {
      thread = runtime.threads.open(ref, { mcpServers });
    } catch (err) {
      if (err instanceof ThreadInUseError)
        throw new RequestError(-32000, (err as Error).message, { sessionId: ref });
      throw err;
    }
    const session = this.open(thread);
    const items = runtime.threads.history(thread.id);
    for (const update of historyUpdates(items, thread.record.cwd, thread.active?.id)) session.send(update);
    // Questions pending since an earlier process are asked again once the client has the history.
    setImmediate(() => {
      session.advertiseCommands();
      for (const request of runtime.questions.list({ threadId: thread.id }))
        this.asker.ask(request, undefined);
    });
    return session.state();
  }

  /** session/fork: the source (stored, by exact id) copied into a new thread, opened as a session. */
  private fork(params: ForkParams) {
    const { runtime } = this.opts;
    checkCwd(params.cwd);
    if (!runtime.threads.record(params.sessionId)) throw RequestError.sessionNotFound(params.sessionId);
    const forked = runtime.branches.fork(params.sessionId);
    if (forked.cwd !== params.cwd) runtime.threads.updateSettings(forked.id, { cwd: params.cwd });
    const mcpServers = clientMcpServers((params.mcpServers ?? []) as Parameters<typeof clientMcpServers>[0]);
    const thread = runtime.threads.open(forked.id, { mcpServers });
    const session = this.open(thread);
    setImmediate(() => session.advertiseCommands());
    return { sessionId: session.id, ...session.state() };
  }

  /** requirements Q3 for clients without form elicitation: model questions they cannot show are unavailable. */
  private preTool(call: { name: string; args: unknown }, threadId: string) {
    const root = this.opts.runtime.agents.lineage(threadId).at(-1) ?? threadId;
    if (call.name !== QUESTION_TOOL || !this.sessions.has(root) || this.formElicitation()) return;
    const questions = (call.args as { questions?: unknown })?.questions;
    if (!Array.isArray(questions)) return; // the tool reports malformed arguments itself
    const shaped = questions.map((q: Record<string, unknown>) => ({
      kind: q?.multi_select
        ? ("multi" as const)
        : Array.isArray(q?.options)
          ? ("single" as const)
          : ("text" as const),
      options: Array.isArray(q?.options) ? q.options : [],
      secret: q?.secret === true,
    }));
    if (permissionAnswerable(shaped)) return;
    const ids = questions.map((q: Record<string, unknown>) => String(q?.id ?? ""));
    return {
      block: unavailableModelResult(
        ids,
        `the editor (${this.clientName}) cannot show free-text or multiple-choice questions: it has no form elicitation`,
      ),
    };
  }

  private onEvent({ event }: Stamped): void {
    if (!("thread_id" in event) || event.thread_id === undefined) return;
    // A sub-agent's questions are asked in its root thread's session (Q14); its other events are not shown.
    const root = event.type.startsWith("question.")
      ? this.opts.runtime.agents.lineage(event.thread_id).at(-1)
      : undefined;
    const session = this.sessions.get(event.thread_id) ?? (root ? this.sessions.get(root) : undefined);
    if (!session || !this.connection) return;
    try {
      if (event.type === "question.requested" || SETTLED_EVENTS.has(event.type))
        this.asker.follow(event, undefined);
      else session.onEvent(event);
    } catch (err) {
      this.opts.log(`cannot deliver ${event.type}: ${(err as Error)?.stack ?? err}`);
    }
  }

  close(): void {
    this.unsubscribe();
    this.removeHook();
    this.asker.close();
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
  }
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  let dir = false;
  try {
    dir = statSync(cwd).isDirectory();
  } catch {
    /* reported below */
  }
  if (!dir) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not an existing directory`);
}
