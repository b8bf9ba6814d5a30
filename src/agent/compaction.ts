/**
 * Compacted prompt view and context budget (requirements L14). Pure functions over stored history.
 *
 * Stored history keeps every item: a compaction appends one summary item (a user message whose
 * text starts with SUMMARY_MARKER, carrying `tandem_compaction` metadata) and rewrites nothing.
 * The prompt is built from the view after the LAST summary item:
 *
 *   context items (environment context, AGENTS.md)
 *   → the most recent user messages before the summary (at most RECENT_USER_CHARS of text)
 *   → the summary item (as a plain user message: the metadata never reaches the wire)
 *   → calls that were still open when the compaction started (e.g. a pending question), each
 *     followed by its output wherever it was recorded — a call and its output are never split
 *   → every item recorded after the summary.
 *
 * Base/developer instructions are not history: the prompt builder adds them to every request.
 * A resume rebuilds the same view from the stored items alone.
 */
import type { Usage } from "../protocol/events.js";
import {
  isToolCall,
  isToolOutput,
  type MessageItem,
  messageText,
  type ResponseItem,
} from "../protocol/items.js";
import { CATALOG_MARKER as SKILLS_CATALOG_MARKER } from "../skills/catalog.js";
import { cachedJson } from "../util/json-cache.js";
import { SUMMARY_MARKER } from "./compaction-prompt.js";

/** Text budget of the user messages kept before the summary (~5k tokens). */
export const RECENT_USER_CHARS = 20_000;

export type CompactionReason = "auto" | "manual" | "context_length";

/** Stored with the summary item; stripped from the prompt. */
export interface CompactionMeta {
  reason: CompactionReason;
  /** Calls without output when the compaction started: kept whole after the summary. */
  carried_call_ids: string[];
  before_tokens: number;
  after_tokens: number;
  /** History length the summary covers (items before it, at the time it started). */
  covered_items: number;
  /**
   * Server-side compaction (`compaction = "server"`): the provider's replacement history,
   * verbatim (retained messages and its encrypted `compaction` item). Sent instead of the
   * recent user messages and the summary text.
   */
  replacement?: Array<Record<string, unknown>>;
}

export type SummaryItem = MessageItem & { tandem_compaction?: CompactionMeta };

function firstText(item: ResponseItem): string | undefined {
  if (item.type !== "message" || item.role !== "user") return undefined;
  const c = item.content[0];
  return c && c.type === "input_text" ? c.text : undefined;
}

export function isSummaryItem(item: ResponseItem): item is SummaryItem {
  return firstText(item)?.startsWith(SUMMARY_MARKER) === true;
}

/** Context items recorded at thread start (runtime/context.ts): kept by every compaction. */
export function isContextItem(item: ResponseItem): boolean {
  const t = firstText(item);
  return (
    t !== undefined &&
    (t.startsWith("<environment_context>") ||
      t.startsWith("# AGENTS.md instructions") ||
      t.startsWith(SKILLS_CATALOG_MARKER))
  );
}

/** Index of the last summary item, or -1. */
export function lastSummaryIndex(history: ResponseItem[]): number {
  for (let i = history.length - 1; i >= 0; i--) if (isSummaryItem(history[i])) return i;
  return -1;
}

/** The prompt view of `history` (see the module contract); `history` itself when never compacted. */
export function compactedView(history: ResponseItem[]): ResponseItem[] {
  const k = lastSummaryIndex(history);
  if (k < 0) return history;
  const summary = history[k] as SummaryItem;
  const carried = new Set(summary.tandem_compaction?.carried_call_ids ?? []);
  const context: ResponseItem[] = [];
  const users: MessageItem[] = [];
  for (let i = 0; i < k; i++) {
    const it = history[i];
    if (isContextItem(it)) context.push(it);
    else if (it.type === "message" && it.role === "user" && !isSummaryItem(it)) users.push(it);
  }
  const carriedCalls: ResponseItem[] = [];
  const carriedOutputs: ResponseItem[] = [];
  if (carried.size)
    for (const it of history) {
      if (isToolCall(it) && carried.has(it.call_id)) carriedCalls.push(it);
      else if (isToolOutput(it) && carried.has(it.call_id)) carriedOutputs.push(it);
    }
  const tail = history.slice(k + 1).filter((it) => !(isToolOutput(it) && carried.has(it.call_id)));
  const replacement = summary.tandem_compaction?.replacement;
  if (replacement) {
    const kept = (replacement as ResponseItem[]).filter((it) => !isContextItem(it));
    return [...context, ...kept, ...carriedCalls, ...carriedOutputs, ...tail];
  }
  const clean: MessageItem = { type: "message", role: "user", content: summary.content };
  return [...context, ...recentUsers(users), clean, ...carriedCalls, ...carriedOutputs, ...tail];
}

/** The last user messages whose text fits RECENT_USER_CHARS; the oldest kept one may be cut. */
function recentUsers(users: MessageItem[]): MessageItem[] {
  const out: MessageItem[] = [];
  let left = RECENT_USER_CHARS;
  for (let i = users.length - 1; i >= 0 && left > 0; i--) {
    const text = messageText(users[i]);
    if (text.length <= left) {
      out.unshift(users[i]);
      left -= text.length;
      continue;
    }
    // Keep the end of an over-long message: the most recent words matter most.
    const cut = `[… earlier text omitted by compaction]\n${text.slice(text.length - left)}`;
    out.unshift({ type: "message", role: "user", content: [{ type: "input_text", text: cut }] });
    break;
  }
  return out;
}

/** Rough token count of items as sent: ~4 characters per token of their JSON. */
export function approxTokens(items: ResponseItem[]): number {
  let chars = 0;
  for (const it of items) chars += cachedJson(it).length;
  return Math.ceil(chars / 4);
}

/**
 * Estimates the next prompt's size: the last response's input + output tokens plus the items
 * recorded since; without a response to go by (new thread, resume, just compacted), the view's
 * own size. `extraChars` covers what the builder adds (base instructions).
 */
export class ContextBudget {
  private last: { tokens: number; mark: number } | undefined;

  /** After a response's items are recorded: `historyLength` is the history length then. */
  observe(usage: Usage, historyLength: number): void {
    this.last = { tokens: usage.input_tokens + usage.output_tokens, mark: historyLength };
  }

  reset(): void {
    this.last = undefined;
  }

  estimate(history: ResponseItem[], extraChars = 0): number {
    const last = this.last;
    if (!last || last.mark > history.length)
      return approxTokens(compactedView(history)) + Math.ceil(extraChars / 4);
    return last.tokens + approxTokens(history.slice(last.mark));
  }
}

/** The auto-compaction trigger: the configured limit, else 90% of a known window, else none. */
export function autoCompactLimit(window: number | undefined, configured?: number): number | undefined {
  if (configured !== undefined) return configured;
  return window === undefined ? undefined : Math.floor(window * 0.9);
}
