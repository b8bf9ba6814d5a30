/**
 * The turn loop (requirements L1, L4, L6–L9). One call runs one turn to its end:
 *
 *   drain steer input → build prompt from history → stream one sampling request (retrying
 *   transient failures, rebuilt from history) → record the response's items → run its tool
 *   calls (concurrently when parallel) → record each output as its call finishes → repeat
 *   until a response has no tool calls and no input is pending.
 *
 * Contract: `runTurn` never throws; it returns a stop reason. Whatever happens — failure,
 * interrupt, a tool that throws — every call_id recorded in this turn gets exactly one output.
 * Interrupt is `env.signal`: it reaches the HTTP stream and every running tool.
 */

import type { ModelClient, ModelError, Prompt } from "../model/types.js";
import type { ErrorInfo, Event, TurnItem, Usage } from "../protocol/events.js";
import { addUsage, emptyUsage } from "../protocol/events.js";
import {
  isToolCall,
  type MessageItem,
  messageText,
  outputFor,
  type ResponseItem,
  type ToolCallItem,
} from "../protocol/items.js";
import type { DispatchResult, ToolRegistry } from "../tools/registry.js";
import type { ToolContext } from "../tools/types.js";
import { AbortError, sleep } from "../util/abort.js";
import { log } from "../util/log.js";
import type { Compactor } from "./compaction-run.js";
import { ABORTED_OUTPUT } from "./history.js";

export interface PendingInput {
  id: string;
  item: MessageItem;
  /** What surfaces show for it instead of the message's text (an attached skill's name, not its body). */
  display?: string;
}

/** A call carried over from an earlier run (e.g. a question pending across a restart). */
export interface ResumedCall {
  call: ToolCallItem;
  run(signal: AbortSignal): Promise<DispatchResult>;
}

export interface TurnEnv {
  threadId: string;
  turnId: string;
  signal: AbortSignal;
  model: ModelClient;
  registry: ToolRegistry;
  parallelToolCalls: boolean;
  maxRetries: number;
  retryBaseMs: number;
  /** Current history (already recorded items). */
  items(): ResponseItem[];
  /** Records one item durably and in memory. */
  record(item: ResponseItem): void;
  takePendingInput(): PendingInput[];
  prompt(history: ResponseItem[]): Prompt;
  toolContext(call: ToolCallItem, signal: AbortSignal): ToolContext;
  emit(event: Event): void;
  onUsage?(last: Usage): void;
  resumed?: ResumedCall[];
  /** Compacts before a request when due, and once after a context_length error (L14). */
  compactor?: Compactor;
  /** The turn only compacts (on-demand compaction of an idle thread). */
  compactOnly?: boolean;
}

export interface TurnOutcome {
  status: "completed" | "interrupted" | "failed";
  usage: Usage;
  error?: ErrorInfo;
  lastMessage?: string;
}

/**
 * `partial` (an interrupted request only): the assistant text the user already saw — messages the
 * model finished and the one it was streaming, cut where it stopped — recorded so the history (and
 * a resumed view) holds what the live session showed. Tool calls of the request are not kept: a
 * call without its output would be a call the model never got an answer to.
 */
type SampleResult =
  | { ok: true; items: ResponseItem[]; usage?: Usage }
  | { ok: false; error: ModelError; partial?: MessageItem[] };

export async function runTurn(env: TurnEnv): Promise<TurnOutcome> {
  const usage = emptyUsage();
  const base = { thread_id: env.threadId, turn_id: env.turnId };
  let lastMessage: string | undefined;
  const interrupted = (): TurnOutcome => ({ status: "interrupted", usage, lastMessage });

  try {
    if (env.compactOnly && env.compactor) {
      const c = await env.compactor.compact("manual", env.turnId, env.signal);
      if (c.ok) return { status: "completed", usage };
      if (c.error.kind === "interrupted" || env.signal.aborted) return interrupted();
      return { status: "failed", usage, error: { kind: c.error.kind, message: c.error.message } };
    }
    // Tools that connect at thread start (MCP servers) are offered from the first request and
    // can run resumed calls; bounded by their startup timeouts (ToolRegistry.loadingUntil).
    // Without any, resumed calls start synchronously: a re-asked question is pending as soon as
    // the thread is open (Q11).
    if (env.registry.loadingTools) await env.registry.ready(env.signal);
    if (env.resumed?.length) {
      await runCalls(
        env,
        env.resumed.map((r) => r.call),
        env.resumed.map((r) => () => r.run(env.signal)),
      );
      if (env.signal.aborted) return interrupted();
    }
    while (true) {
      if (env.compactor) {
        const c = await env.compactor.beforeSample(env.turnId, env.signal);
        if (!c.ok) {
          if (c.error.kind === "interrupted" || env.signal.aborted) return interrupted();
          const error: ErrorInfo = { kind: c.error.kind, message: c.error.message };
          return { status: "failed", usage, error, lastMessage };
        }
      }
      for (const p of env.takePendingInput()) {
        env.record(p.item);
        env.emit({
          type: "item.completed",
          ...base,
          item: { id: p.id, type: "user_message", text: p.display ?? messageText(p.item) },
        });
      }
      if (env.signal.aborted) return interrupted();

      let sampled = await sampleWithRetry(env);
      if (!sampled.ok && sampled.error.kind === "context_length" && env.compactor && !env.signal.aborted) {
        // The window was exceeded: compact once and retry; a second overflow fails the turn.
        const c = await env.compactor.compact("context_length", env.turnId, env.signal);
        if (c.ok && c.compacted) sampled = await sampleWithRetry(env);
      }
      if (!sampled.ok) {
        if (sampled.error.kind === "interrupted" || env.signal.aborted) {
          for (const m of sampled.partial ?? []) {
            env.record(m);
            lastMessage = messageText(m);
          }
          return interrupted();
        }
        const error: ErrorInfo = { kind: sampled.error.kind, message: sampled.error.message };
        env.emit({ type: "error", ...base, error, will_retry: false });
        return { status: "failed", usage, error, lastMessage };
      }
      if (sampled.usage) {
        addUsage(usage, sampled.usage);
        env.onUsage?.(sampled.usage);
      }
      const calls: ToolCallItem[] = [];
      for (const item of sampled.items) {
        env.record(item);
        if (isToolCall(item)) calls.push(item);
        else if (item.type === "message" && item.role === "assistant") lastMessage = messageText(item);
      }
      env.compactor?.observe(sampled.usage);
      if (calls.length) {
        await runCalls(
          env,
          calls,
          calls.map((c) => (signal: AbortSignal) => env.registry.dispatch(c, env.toolContext(c, signal))),
        );
        if (env.signal.aborted) return interrupted();
        continue;
      }
      const pending = env.takePendingInput();
      if (pending.length === 0) return { status: "completed", usage, lastMessage };
      for (const p of pending) {
        env.record(p.item);
        env.emit({
          type: "item.completed",
          ...base,
          item: { id: p.id, type: "user_message", text: p.display ?? messageText(p.item) },
        });
      }
    }
  } catch (err) {
    // Defensive: runTurn's contract is to never throw. Anything here is a bug in the loop.
    if (env.signal.aborted || AbortError.isInstance(err)) return interrupted();
    const error: ErrorInfo = { kind: "other", message: `internal error: ${(err as Error)?.message ?? err}` };
    env.emit({ type: "error", ...base, error, will_retry: false });
    return { status: "failed", usage, error, lastMessage };
  }
}

/** Backoff for attempt n (0-based): retry-after when given, else base·2ⁿ with ±20% jitter. */
function backoffMs(env: TurnEnv, attempt: number, error: ModelError): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const raw = env.retryBaseMs * 2 ** attempt;
  return Math.round(raw * (0.8 + Math.random() * 0.4));
}

async function sampleWithRetry(env: TurnEnv): Promise<SampleResult> {
  for (let attempt = 0; ; attempt++) {
    const r = await sampleOnce(env);
    if (r.ok || !r.error.retryable || attempt >= env.maxRetries || env.signal.aborted) return r;
    const delay = backoffMs(env, attempt, r.error);
    log.debug("model", "retry", {
      thread_id: env.threadId,
      attempt: attempt + 1,
      delay_ms: delay,
      error: r.error,
    });
    env.emit({
      type: "error",
      thread_id: env.threadId,
      turn_id: env.turnId,
      error: { kind: r.error.kind, message: `${r.error.message}; retrying in ${delay} ms` },
      will_retry: true,
      attempt: attempt + 1,
    });
    try {
      await sleep(delay, env.signal);
    } catch {
      return { ok: false, error: { kind: "interrupted", message: "interrupted", retryable: false } };
    }
  }
}

/** Streams one request; buffers output items so a failed attempt records nothing. */
async function sampleOnce(env: TurnEnv): Promise<SampleResult> {
  const base = { thread_id: env.threadId, turn_id: env.turnId };
  const prompt = env.prompt(env.items());
  const items: ResponseItem[] = [];
  const started = new Set<string>();
  /** Text streamed per item not yet completed (what an interrupt keeps). */
  const streaming = new Map<string, string>();
  const cut = (): SampleResult => ({
    ok: false,
    error: { kind: "interrupted", message: "interrupted", retryable: false },
    partial: partialMessages(env, items, streaming),
  });
  try {
    for await (const ev of env.model.stream(prompt, env.signal)) {
      switch (ev.type) {
        case "text_delta":
          if (!started.has(ev.itemId)) {
            started.add(ev.itemId);
            env.emit({
              type: "item.started",
              ...base,
              item: { id: ev.itemId, type: "agent_message", text: "" },
            });
          }
          streaming.set(ev.itemId, (streaming.get(ev.itemId) ?? "") + ev.delta);
          env.emit({ type: "agent_message.delta", ...base, item_id: ev.itemId, delta: ev.delta });
          break;
        case "reasoning_delta":
          env.emit({ type: "reasoning.delta", ...base, item_id: ev.itemId, delta: ev.delta });
          break;
        case "item_done": {
          items.push(ev.item);
          // Items without an id (Chat Completions) keep the id their deltas streamed under.
          const streamedId = [...started].pop();
          const display = displayOf(ev.item, items.length, streamedId);
          if (display) env.emit({ type: "item.completed", ...base, item: display });
          if (ev.item.type === "message") streaming.delete(ev.item.id ?? streamedId ?? "");
          break;
        }
        case "completed":
          return { ok: true, items, usage: ev.usage };
        case "failed":
          return ev.error.kind === "interrupted" || env.signal.aborted
            ? cut()
            : { ok: false, error: ev.error };
      }
    }
  } catch (err) {
    if (env.signal.aborted || AbortError.isInstance(err)) return cut();
    throw err;
  }
  if (env.signal.aborted) return cut();
  return {
    ok: false,
    error: { kind: "stream", message: "model stream ended without a result", retryable: true },
  };
}

/**
 * The interrupted request's assistant messages: those it finished, then each one cut mid-stream
 * (completed in the live view too, so every surface shows the text it already drew as final).
 */
function partialMessages(env: TurnEnv, items: ResponseItem[], streaming: Map<string, string>): MessageItem[] {
  const done = items.filter((i): i is MessageItem => i.type === "message" && i.role === "assistant");
  const cutOff: MessageItem[] = [];
  for (const [id, text] of streaming) {
    if (!text) continue;
    const item: MessageItem = {
      type: "message",
      role: "assistant",
      id,
      content: [{ type: "output_text", text }],
    };
    cutOff.push(item);
    env.emit({
      type: "item.completed",
      thread_id: env.threadId,
      turn_id: env.turnId,
      item: { id, type: "agent_message", text },
    });
  }
  return [...done, ...cutOff];
}

function displayOf(item: ResponseItem, n: number, streamedId?: string): TurnItem | undefined {
  if (item.type === "message" && item.role === "assistant")
    return { id: item.id ?? streamedId ?? `msg_${n}`, type: "agent_message", text: messageText(item) };
  if (item.type === "reasoning") {
    const text = item.summary.map((s) => s.text).join("\n\n");
    return text ? { id: item.id ?? `rs_${n}`, type: "reasoning", text } : undefined;
  }
  return undefined;
}

function parseArgsForDisplay(call: ToolCallItem): unknown {
  if (call.type === "custom_tool_call") return call.input;
  try {
    return JSON.parse(call.arguments);
  } catch {
    return undefined;
  }
}

/**
 * Runs calls (concurrently when parallel tool calls are on) and records each output as soon
 * as its call is done (so possibly out of call order). Each call gets its own abort scope
 * tied to the turn signal.
 */
async function runCalls(
  env: TurnEnv,
  calls: ToolCallItem[],
  runners: Array<(signal: AbortSignal) => Promise<DispatchResult>>,
): Promise<void> {
  const base = { thread_id: env.threadId, turn_id: env.turnId };
  const starts: TurnItem[] = calls.map((call) => {
    const tool = env.registry.get(call.name);
    const args = parseArgsForDisplay(call);
    if (tool?.displayStart && args !== undefined) {
      try {
        return tool.displayStart(args, call.call_id);
      } catch {
        /* fall through to the generic item */
      }
    }
    const argText = call.type === "function_call" ? call.arguments : call.input;
    return {
      id: call.call_id,
      type: "tool_call",
      tool: call.name,
      arguments: argText,
      status: "in_progress",
    };
  });
  // Each output is recorded the moment its call finishes, not behind earlier calls still
  // running (e.g. a pending question): a crash then never loses a call that ran, so resume
  // does not label it "aborted" and the model does not run its side effect twice. The prompt
  // builder (history.ts) restores call order.
  const finish = (i: number, r: DispatchResult) => {
    const call = calls[i];
    if (log.enabled("debug")) logCallEnd(env, call, r);
    if (r.aborted) {
      // An interrupted command keeps what it printed, with the interruption noted (its partial).
      const output = r.partial ? r.partial.output : ABORTED_OUTPUT;
      env.record(outputFor(call, output));
      const text = typeof output === "string" ? output : JSON.stringify(output);
      const patch = { status: "failed", ...(r.partial?.display ?? {}) };
      env.emit({ type: "item.completed", ...base, item: finishDisplay(starts[i], patch, text) });
      return;
    }
    env.record(outputFor(call, r.result.output));
    const text = typeof r.result.output === "string" ? r.result.output : JSON.stringify(r.result.output);
    const patch = { status: r.result.success ? "completed" : "failed", ...(r.result.display ?? {}) };
    env.emit({ type: "item.completed", ...base, item: finishDisplay(starts[i], patch, text) });
  };
  const launch = (i: number): Promise<void> => {
    if (log.enabled("debug")) logCallStart(env, calls[i]);
    env.emit({ type: "item.started", ...base, item: starts[i] });
    return runners[i](env.signal)
      .catch((): DispatchResult => ({ aborted: true }))
      .then((r) => finish(i, r));
  };
  let done: Array<Promise<void>>;
  if (env.parallelToolCalls) done = calls.map((_, i) => launch(i));
  else {
    done = [];
    let prev: Promise<unknown> = Promise.resolve();
    for (let i = 0; i < calls.length; i++) {
      const p = prev.then(() => (env.signal.aborted ? finish(i, { aborted: true }) : launch(i)));
      done.push(p);
      prev = p.catch(() => {});
    }
  }
  // Settle every call before reporting a failure to record, so none is left running unpaired.
  const settled = await Promise.allSettled(done);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
}

function finishDisplay(start: TurnItem, patch: Record<string, unknown>, output: string): TurnItem {
  // A tool may finish as a richer item than it started (apply_patch → file_change).
  if (typeof patch.type === "string" && patch.type !== start.type)
    return { ...patch, id: start.id } as TurnItem;
  if (start.type === "tool_call") return { ...start, output, ...patch } as TurnItem;
  if (start.type === "command_execution") {
    const known = ["aggregated_output", "exit_code", "status", "session_id", "interrupted"];
    const picked: Record<string, unknown> = {};
    for (const k of known) if (k in patch) picked[k] = patch[k];
    return { ...start, ...picked } as TurnItem;
  }
  return start;
}

/** Debug log (util/log.ts): a tool call starting; its arguments at trace. */
function logCallStart(env: TurnEnv, call: ToolCallItem): void {
  const args = log.enabled("trace")
    ? call.type === "function_call"
      ? call.arguments
      : call.input
    : undefined;
  log.debug("tool", "call started", {
    thread_id: env.threadId,
    call_id: call.call_id,
    name: call.name,
    args,
  });
}

/** Debug log: a tool call's end and status; its output (as the model gets it) at trace. */
function logCallEnd(env: TurnEnv, call: ToolCallItem, r: DispatchResult): void {
  const status = r.aborted ? "aborted" : r.result.success ? "completed" : "failed";
  const output = !r.aborted && log.enabled("trace") ? r.result.output : undefined;
  log.debug("tool", "call finished", {
    thread_id: env.threadId,
    call_id: call.call_id,
    name: call.name,
    status,
    output,
  });
}
