/**
 * One ACP session = one Tandem thread (the session id is the thread id, so `session/load` takes any
 * stored thread id).
 *
 * Contract:
 * - While the session is open the connection is a responder for its thread (requirements Q3): approvals and
 *   questions reach the client (asker.ts). Closing the session (or the connection) detaches; pending
 *   questions stay pending in the broker (Q11).
 * - `prompt` starts a turn with the prompt's text and images in the session's mode and resolves when
 *   the turn ends: completed → `end_turn`; interrupted (session/cancel, the prompt request cancelled,
 *   an approval answered "reject always") → `cancelled`; failed because the context or the output
 *   ran out → `max_tokens`, because the provider filtered the content → `refusal`; any other failure
 *   is a JSON-RPC error (-32603) naming what failed. A prompt while a turn runs is refused (-32600)
 *   and changes nothing.
 * - Slash commands (advertised with `available_commands_update` once the session is open):
 *   `/compact` alone as the prompt compacts the thread's context (README "Long sessions") instead of starting a
 *   turn, and resolves `end_turn` once done (`cancelled` if cancelled, an error if it failed).
 * - `cancel` interrupts the running turn: its pending questions settle as cancelled in the core and
 *   their client requests are cancelled; the prompt then resolves `cancelled`.
 * - Events of the thread are sent as `session/update`s (updates.ts), in bus order.
 */
import {
  type AgentContext,
  type ContentBlock,
  methods,
  type PromptResponse,
  RequestError,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import type { CollaborationMode, Event } from "../../protocol/events.js";
import type { Responder } from "../../protocol/questions.js";
import type { Runtime } from "../../runtime/core.js";
import type { ThreadHandle as Thread } from "../../runtime/types.js";
import { configOptions, modeState, promptInput } from "./modes.js";
import { SessionUpdates } from "./updates.js";

export interface SessionDeps {
  runtime: Runtime;
  client: () => AgentContext;
  responder: Responder;
  /** The connection to the client is closed (its requests are aborted, but nobody cancelled). */
  closed: () => boolean;
  log: (line: string) => void;
}

export class AcpSession {
  private readonly updates: SessionUpdates;
  private readonly detach: () => void;
  private prompting = false;

  constructor(
    readonly thread: Thread,
    private readonly deps: SessionDeps,
  ) {
    this.updates = new SessionUpdates(() => thread.active?.options.cwd ?? thread.record.cwd);
    this.detach = deps.runtime.questions.attach({ threadId: thread.id }, deps.responder);
  }

  get id(): string {
    return this.thread.id;
  }

  get mode(): CollaborationMode {
    return this.thread.record.mode;
  }

  onEvent(event: Event): void {
    for (const update of this.updates.map(event)) this.send(update);
  }

  send(update: SessionUpdate): void {
    this.deps
      .client()
      .notify(methods.client.session.update, { sessionId: this.id, update })
      .catch((err) => this.deps.log(`${this.id}: cannot send session/update: ${(err as Error).message}`));
  }

  async prompt(blocks: ContentBlock[], signal: AbortSignal): Promise<PromptResponse> {
    if (this.prompting || this.thread.active)
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        `session ${this.id} is already running a prompt; wait for its response or send session/cancel`,
      );
    const { text, images } = promptInput(blocks);
    const compact = images.length === 0 && text.trim() === "/compact";
    const turn = compact ? this.thread.compact() : this.thread.startTurn(text, { images });
    this.prompting = true;
    // The prompt request cancelled by the client interrupts; the connection closing does not (the
    // turn and its questions stay for the next process, like any shutdown, Q11).
    const stop = () => {
      if (!this.deps.closed()) this.thread.interrupt("cancelled by the client");
    };
    signal.addEventListener("abort", stop, { once: true });
    try {
      const outcome = await turn.done;
      return { stopReason: stopReason(outcome.status, outcome.error?.kind, outcome.error?.message) };
    } finally {
      signal.removeEventListener("abort", stop);
      this.prompting = false;
    }
  }

  cancel(): void {
    this.thread.interrupt("cancelled by the client");
  }

  /** Tells the client which slash commands a prompt may start with. */
  advertiseCommands(): void {
    this.send({ sessionUpdate: "available_commands_update", availableCommands: COMMANDS });
  }

  setMode(mode: CollaborationMode): void {
    if (mode === this.mode) return;
    this.deps.runtime.threads.updateSettings(this.id, { mode });
    this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
    this.send({ sessionUpdate: "config_option_update", configOptions: configOptions(mode) });
  }

  state() {
    return { modes: modeState(this.mode), configOptions: configOptions(this.mode) };
  }

  close(): void {
    this.detach();
  }
}

const COMMANDS = [
  {
    name: "compact",
    description: "Summarize the conversation so far to free context; the thread keeps its full history",
    input: null,
  },
];

function stopReason(status: string, kind?: string, message = ""): StopReason {
  if (status === "completed") return "end_turn";
  if (status === "interrupted") return "cancelled";
  if (kind === "context_length" || /incomplete: max_output_tokens/.test(message)) return "max_tokens";
  if (/incomplete: content_filter/.test(message)) return "refusal";
  throw new RequestError(-32603, `the turn failed: ${message || "unknown error"}`, { kind });
}
