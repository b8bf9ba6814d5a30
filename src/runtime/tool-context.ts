/**
 * What a tool call of a thread gets (tools/types.ts `ToolContext`), and which tools a thread
 * offers the model: functions of the host, the thread, the turn and the call, nothing else.
 *
 * Contract:
 * - `toolContext`: `ask` builds the call's question request (an MCP elicitation gets a fresh id per
 *   ask, a call may elicit several times) with the turn's question policy and waits on the broker;
 *   `requestApproval` asks through approvals.ts; both honour `signal`. Exec output deltas are
 *   published as the call's `exec.output_delta` events.
 * - `offeredTools`: request_user_input only where the thread offers questions (`offer_questions`),
 *   and only `enabled_tools` when the configuration lists them.
 */
import { randomUUID } from "node:crypto";
import type { Settings } from "../config/schema.js";
import type { WireTool } from "../model/types.js";
import type { Event } from "../protocol/events.js";
import type { ToolCallItem } from "../protocol/items.js";
import type { ElicitationInfo, Question, QuestionPolicy, QuestionRequest } from "../protocol/questions.js";
import type { ApprovalPolicy, ThreadRecord } from "../protocol/threads.js";
import { requestIdFor } from "../questions/broker.js";
import type { ToolContext } from "../tools/types.js";
import type { PauseClock } from "../util/pause-clock.js";
import type { ToolContextHost } from "./host.js";
import type { ActiveTurn, SandboxInForce, TurnHandle } from "./types.js";

/** What the tool context reads of a thread. */
export interface ContextThread {
  readonly id: string;
  readonly record: Readonly<ThreadRecord>;
  readonly pause: PauseClock;
  emit(event: Event): void;
  interrupt(reason: string): boolean;
  questionPolicy(turn?: TurnHandle): QuestionPolicy;
  sandbox(turn?: TurnHandle): SandboxInForce;
  approvalPolicy(): ApprovalPolicy;
}

/** Whether the model may ask in Default mode too (config, or the thread's headless question mode). */
export function questionsInDefaultMode(settings: Settings, record: Readonly<ThreadRecord>): boolean {
  return settings.questions.default_mode || record.settings.headless_questions !== undefined;
}

/** Wire tools offered to the model by the thread's registry (see the contract). */
export function offeredTools(
  settings: Settings,
  record: Readonly<ThreadRecord>,
  registry: { wire(): WireTool[] },
): WireTool[] {
  const offer = record.settings.offer_questions !== false;
  const enabled = settings.enabled_tools;
  return registry
    .wire()
    .filter((t) => (t.name === "request_user_input" ? offer : true))
    .filter((t) => !enabled || enabled.includes(t.name));
}

export function toolContext(
  host: ToolContextHost,
  thread: ContextThread,
  turn: ActiveTurn,
  call: ToolCallItem,
  signal: AbortSignal,
): ToolContext {
  const { settings } = host;
  const offer = thread.record.settings.offer_questions !== false;
  return {
    signal,
    callId: call.call_id,
    threadId: thread.id,
    turnId: turn.id,
    cwd: turn.options.cwd ?? thread.record.cwd,
    mode: turn.mode,
    isSubAgent: thread.record.parent_id !== null,
    ask: (questions, opts) =>
      ask(host, thread.id, turn.id, call.call_id, {
        questions,
        policy: opts.policy ?? thread.questionPolicy(turn),
        source: opts.source,
        signal,
        elicitation: opts.elicitation,
      }),
    onUpdate: (u) =>
      thread.emit({
        type: "exec.output_delta",
        thread_id: thread.id,
        turn_id: turn.id,
        item_id: call.call_id,
        stream: u.stream,
        chunk: u.chunk,
      }),
    secrets: withSkillEnv(host.secrets.view(thread.id), () => host.skillEnv?.(thread.id) ?? {}),
    pause: thread.pause,
    questions: {
      enabled: settings.questions.enabled && offer,
      subAgentPolicy: settings.questions.sub_agents,
      defaultModeAllowed: questionsInDefaultMode(settings, thread.record),
      hasResponder: () => host.responders.has(thread.id),
      policy: thread.questionPolicy(turn),
    },
    safety: {
      sandbox: thread.sandbox(turn),
      approvalPolicy: turn.options.approval_policy ?? thread.approvalPolicy(),
      ...(turn.options.read_only_tools ? { readOnlyTools: true } : {}),
      requestApproval: (approval) =>
        host.requestApproval(thread, turn.id, call.call_id, approval, thread.questionPolicy(turn), signal),
    },
  };
}

/** Builds the call's request and waits on the broker. */
function ask(
  host: ToolContextHost,
  threadId: string,
  turnId: string,
  callId: string,
  q: {
    questions: Question[];
    policy: QuestionPolicy;
    source: "model" | "internal";
    signal: AbortSignal;
    elicitation?: ElicitationInfo;
  },
) {
  const request: QuestionRequest = {
    // An MCP tool call may elicit several times: each elicitation is its own request.
    request_id: requestIdFor(threadId, q.elicitation ? `${callId}#elicitation-${randomUUID()}` : callId),
    thread_id: threadId,
    turn_id: turnId,
    call_id: callId,
    source: q.source,
    questions: q.questions,
    policy: q.policy,
    deadline: null,
    created_at: Date.now(),
    ...(q.elicitation && { elicitation: q.elicitation }),
  };
  return host.questions.ask(request, q.signal);
}

/** The thread's secrets view whose `env()` also sets the variables its skills were given (skill-use.ts). */
function withSkillEnv(
  view: ToolContext["secrets"],
  skillEnv: () => Record<string, string>,
): ToolContext["secrets"] {
  return {
    env: () => ({ ...view.env(), ...skillEnv() }),
    mask: (text) => view.mask(text),
    ...(view.safeCut
      ? { safeCut: (text: string, at?: number) => view.safeCut?.(text, at) ?? text.length }
      : {}),
  };
}
