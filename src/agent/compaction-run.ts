/**
 * The compactor of one thread (requirements L14): decides when to compact and runs the compaction.
 *
 * A compaction is one sampling request: the current prompt view (agent/compaction.ts), minus
 * calls still open, plus the written compaction prompt (compaction-prompt.ts), with no tools.
 * The model's text becomes a summary item appended to history; nothing is removed from history.
 *
 * When: `beforeSample` runs before every sampling request of a turn — it waits for a compaction
 * already running, runs one that was asked for (`request`), or one the budget calls for (the
 * estimate of the next prompt reaches the limit; at most once per response observed, so a view
 * that stays large does not compact in a loop). `compact` runs one now (on demand; after a
 * `context_length` error). Only one compaction runs at a time; a second caller shares it.
 *
 * Contract: never throws; failures come back as `{ok:false}` with a classified ModelError
 * (`interrupted` when the signal fired). Events: `context.compacting` then `context.compacted`.
 */
import type { RemoteCompact } from "../model/compact-remote.js";
import type { ModelClient, ModelError, Prompt } from "../model/types.js";
import type { Event, Usage } from "../protocol/events.js";
import { messageText, type ResponseItem, userMessage } from "../protocol/items.js";
import { sleep } from "../util/abort.js";
import {
  approxTokens,
  type CompactionMeta,
  type CompactionReason,
  ContextBudget,
  compactedView,
  isContextItem,
  type SummaryItem,
} from "./compaction.js";
import { COMPACTION_PROMPT, summaryText } from "./compaction-prompt.js";
import { normalizeForPrompt, orphanCalls } from "./history.js";

export interface CompactionHost {
  threadId: string;
  model: ModelClient;
  items(): ResponseItem[];
  record(item: ResponseItem, turnId: string): void;
  emit(event: Event): void;
  /** The request the thread would send with `input` as its history (model, instructions…). */
  prompt(input: ResponseItem[], turnId: string): Prompt;
  /** Token limit that triggers auto compaction; undefined: never automatically. */
  limit(): number | undefined;
  /** Characters the prompt builder adds to every request (base instructions). */
  extraChars(): number;
  newItemId(): string;
  /** Set for `compaction = "server"`: the provider's /responses/compact (model/compact-remote.ts). */
  remote?: RemoteCompact;
  /** The compaction request's token usage (counted with the thread's). */
  onUsage?(usage: Usage, turnId: string): void;
  maxRetries: number;
  retryBaseMs: number;
}

export type CompactResult = { ok: true; compacted: boolean } | { ok: false; error: ModelError };

const MAX_TRIMS = 3;
/** What a server-side compaction's marker item says (its summary is encrypted in the output). */
const REMOTE_SUMMARY = "(Compacted by the provider: the summary travels as an encrypted compaction item.)";

export class Compactor {
  readonly budget = new ContextBudget();
  private requested = false;
  /** False after an auto compaction until the next response: no compaction loops. */
  private armed = true;
  private running: Promise<CompactResult> | undefined;

  constructor(private readonly host: CompactionHost) {}

  /** Asks for a compaction before the running turn's next request. */
  request(): void {
    this.requested = true;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** After a response's items are recorded. */
  observe(usage: Parameters<ContextBudget["observe"]>[0] | undefined): void {
    if (usage) this.budget.observe(usage, this.host.items().length);
    this.armed = true;
  }

  /** The estimated size of the next prompt, in tokens. */
  estimate(): number {
    return this.budget.estimate(this.host.items(), this.host.extraChars());
  }

  async beforeSample(turnId: string, signal: AbortSignal): Promise<CompactResult> {
    if (this.running) {
      const r = await this.running;
      // A failed on-demand compaction was reported when it failed; the turn goes on uncompacted.
      if (!r.ok && r.error.kind === "interrupted" && signal.aborted) return r;
    }
    if (this.requested) return this.compact("manual", turnId, signal);
    const limit = this.host.limit();
    if (limit === undefined || !this.armed) return { ok: true, compacted: false };
    if (this.estimate() < limit) return { ok: true, compacted: false };
    return this.compact("auto", turnId, signal);
  }

  /** Runs a compaction now (or joins the one running). */
  compact(reason: CompactionReason, turnId: string, signal: AbortSignal): Promise<CompactResult> {
    if (!this.running)
      this.running = this.run(reason, turnId, signal).finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async run(reason: CompactionReason, turnId: string, signal: AbortSignal): Promise<CompactResult> {
    const host = this.host;
    this.requested = false;
    const history = host.items();
    const covered = history.length;
    const open = orphanCalls(history).map((c) => c.call_id);
    const openSet = new Set(open);
    // Open calls (a pending question) are kept whole after the summary, not summarised.
    let input = normalizeForPrompt(
      compactedView(history).filter((it) => !("call_id" in it && openSet.has(it.call_id))),
    );
    if (!input.some((it) => !isContextItem(it))) return { ok: true, compacted: false };
    const before = this.estimate();
    const itemId = host.newItemId();
    const base = { thread_id: host.threadId, turn_id: turnId, item_id: itemId };
    host.emit({ type: "context.compacting", ...base, reason });

    let text: string | undefined;
    let replacement: Array<Record<string, unknown>> | undefined;
    for (let attempt = 0, trims = 0; ; ) {
      const prompt: Prompt = {
        ...host.prompt(input, turnId),
        input: [...input, userMessage(COMPACTION_PROMPT)],
        tools: [],
        parallelToolCalls: false,
        outputSchema: undefined,
      };
      const r = host.remote
        ? await host.remote(
            { model: prompt.model, input, instructions: prompt.baseInstructions?.text },
            signal,
          )
        : await sample(host.model, prompt, signal);
      if (r.ok) {
        if ("text" in r) text = r.text;
        else {
          replacement = r.output;
          text = REMOTE_SUMMARY;
        }
        if (r.usage) host.onUsage?.(r.usage, turnId);
        break;
      }
      const error = signal.aborted ? { ...r.error, kind: "interrupted" as const, retryable: false } : r.error;
      const trimmed = error.kind === "context_length" && trims < MAX_TRIMS ? trimOldest(input) : input;
      if (trimmed.length < input.length) {
        // The compaction request itself is too long: drop the oldest part and try again.
        trims++;
        input = trimmed;
        continue;
      }
      if (!error.retryable || attempt >= host.maxRetries) return this.failed(base, error);
      try {
        await sleep(error.retryAfterMs ?? host.retryBaseMs * 2 ** attempt++, signal);
      } catch {
        return this.failed(base, { kind: "interrupted", message: "interrupted", retryable: false });
      }
    }
    if (!text?.trim())
      return this.failed(base, {
        kind: "other",
        message: "compaction failed: the model answered without summary text",
        retryable: false,
      });
    const content = [{ type: "input_text" as const, text: summaryText(text) }];
    const meta: CompactionMeta = {
      ...(replacement ? { replacement } : {}),
      reason,
      carried_call_ids: open,
      before_tokens: before,
      after_tokens: 0,
      covered_items: covered,
    };
    const item: SummaryItem = { type: "message", role: "user", content, tandem_compaction: meta };
    const after = approxTokens(compactedView([...host.items(), item])) + Math.ceil(host.extraChars() / 4);
    meta.after_tokens = after;
    host.record(item, turnId);
    this.budget.reset();
    this.armed = false;
    host.emit({
      type: "context.compacted",
      ...base,
      reason,
      before_tokens: before,
      after_tokens: after,
      summary: text.trim(),
    });
    return { ok: true, compacted: true };
  }

  private failed(
    base: { thread_id: string; turn_id: string; item_id: string },
    error: ModelError,
  ): CompactResult {
    const message = error.message.startsWith("compaction")
      ? error.message
      : `compaction failed: ${error.message}`;
    if (error.kind !== "interrupted")
      this.host.emit({
        type: "error",
        thread_id: base.thread_id,
        turn_id: base.turn_id,
        error: { kind: error.kind, message },
        will_retry: false,
      });
    this.host.emit({ type: "context.compaction_failed", ...base, message });
    return { ok: false, error: { ...error, message } };
  }
}

type Sampled = { ok: true; text: string; usage?: Usage } | { ok: false; error: ModelError };

/** One compaction request: the assistant text of the answer. */
async function sample(model: ModelClient, prompt: Prompt, signal: AbortSignal): Promise<Sampled> {
  let text = "";
  for await (const ev of model.stream(prompt, signal)) {
    if (ev.type === "item_done" && ev.item.type === "message" && ev.item.role === "assistant")
      text += messageText(ev.item);
    else if (ev.type === "completed") return { ok: true, text, usage: ev.usage };
    else if (ev.type === "failed") return { ok: false, error: ev.error };
  }
  return { ok: false, error: { kind: "stream", message: "stream ended without a result", retryable: true } };
}

/** Drops the oldest third of the non-context items, starting the rest at a user message or call. */
function trimOldest(input: ResponseItem[]): ResponseItem[] {
  const context = input.filter(isContextItem);
  const rest = input.filter((it) => !isContextItem(it));
  let from = Math.ceil(rest.length / 3);
  while (from < rest.length && rest[from].type !== "message" && rest[from].type !== "function_call") from++;
  return normalizeForPrompt([...context, ...rest.slice(Math.min(from, rest.length - 1))]);
}
