/**
 * What a thread sends the model: the prompt of a turn (history as the model sees it, tools,
 * instructions, effort, client metadata) and the compactor that keeps it within the model's window
 * (agent/compaction-run.ts). Functions of the thread's host and the thread, nothing else.
 */
import { autoCompactLimit, compactedView } from "../agent/compaction.js";
import { Compactor } from "../agent/compaction-run.js";
import { normalizeForPrompt } from "../agent/history.js";
import { remoteCompact } from "../model/compact-remote.js";
import { contextWindow } from "../model/context-window.js";
import type { Prompt } from "../model/types.js";
import type { Event, Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";
import type { ThreadRecord } from "../protocol/threads.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ThreadHost } from "./host.js";
import { offeredTools } from "./tool-context.js";
import type { ActiveTurn } from "./types.js";

export type ModelHost = Pick<
  ThreadHost,
  "settings" | "provider" | "model" | "ids" | "windowId" | "installationId" | "baseInstructions"
>;

/** What the prompt and the compactor read of a thread. */
export interface ModelThread {
  readonly id: string;
  readonly record: Readonly<ThreadRecord>;
  readonly registry: Pick<ToolRegistry, "wire">;
}

/** The request of one sampling step of `turn` with `history` as the model's input. */
export function promptFor(
  host: ModelHost,
  thread: ModelThread,
  history: ResponseItem[],
  turn: ActiveTurn,
): Prompt {
  const s = host.settings;
  const { settings } = thread.record;
  return {
    model: turn.options.model ?? thread.record.model,
    input: normalizeForPrompt(compactedView(history)),
    tools: offeredTools(s, thread.record, thread.registry),
    parallelToolCalls: s.parallel_tool_calls,
    baseInstructions: { text: host.baseInstructions, id: settings.base_id },
    effort: turn.options.effort ?? settings.effort ?? s.model_reasoning_effort,
    summary:
      s.model_reasoning_summary && s.model_reasoning_summary !== "none"
        ? s.model_reasoning_summary
        : undefined,
    serviceTier: s.service_tier,
    outputSchema: turn.options.output_schema ?? settings.output_schema,
    promptCacheKey: thread.record.session_id,
    clientMetadata: {
      "x-tandem-installation-id": host.installationId,
      session_id: thread.record.session_id,
      thread_id: thread.id,
      "x-tandem-window-id": host.windowId,
      turn_id: turn.id,
    },
    lite: host.provider.lite,
  };
}

/** The thread's compactor; `turnFor` is the running turn or a stand-in for `turnId`. */
export function compactorFor(
  host: ModelHost,
  thread: ModelThread,
  io: {
    items(): ResponseItem[];
    record(item: ResponseItem, turnId: string): void;
    emit(event: Event): void;
    countUsage(turnId: string, usage: Usage): void;
    turnFor(turnId: string): ActiveTurn;
  },
): Compactor {
  const s = host.settings;
  const { provider } = host;
  return new Compactor({
    threadId: thread.id,
    model: host.model,
    items: io.items,
    record: io.record,
    emit: io.emit,
    prompt: (input, turnId) => ({ ...promptFor(host, thread, [], io.turnFor(turnId)), input }),
    limit: () =>
      autoCompactLimit(
        contextWindow(thread.record.model, s.model_context_window),
        s.model_auto_compact_token_limit,
      ),
    extraChars: () => host.baseInstructions.length,
    newItemId: () => host.ids.item("compaction"),
    // Server-side compaction needs the Responses API; on the Chat wire, compaction is local.
    remote:
      s.compaction === "server" && provider.wire !== "chat"
        ? remoteCompact({ baseUrl: provider.baseUrl, apiKey: provider.apiKey })
        : undefined,
    onUsage: (usage, turnId) => io.countUsage(turnId, usage),
    maxRetries: s.stream_max_retries,
    retryBaseMs: s.retry_base_ms,
  });
}
