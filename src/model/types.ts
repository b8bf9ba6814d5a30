/**
 * Provider contract (STYLE: a plain type with one streaming method).
 *
 * `stream` must not throw: every failure — HTTP error, broken or truncated stream, idle
 * timeout, abort — is delivered as a final `{type:"failed"}` event with a classified error.
 * A successful stream ends with exactly one `{type:"completed"}` event.
 */
import type { ErrorKind, Usage } from "../protocol/events.js";
import type { ResponseItem } from "../protocol/items.js";

export interface WireTool {
  type: "function" | "custom";
  name: string;
  description: string;
  strict?: boolean;
  parameters?: Record<string, unknown>;
  format?: Record<string, unknown>;
}

/** Everything needed to build one sampling request (requirements L2). */
export interface Prompt {
  model: string;
  /** History for the prompt, already normalised (see agent/history.ts). */
  input: ResponseItem[];
  tools: WireTool[];
  parallelToolCalls: boolean;
  /** Becomes a developer message at the front of input (L3). */
  baseInstructions?: { text: string; id?: string };
  effort?: string;
  summary?: string;
  serviceTier?: string;
  outputSchema?: Record<string, unknown>;
  promptCacheKey: string;
  clientMetadata: Record<string, string>;
  /** Responses Lite (L12): tools travel in an additional_tools input item. */
  lite?: boolean;
}

export interface ModelError {
  kind: ErrorKind;
  message: string;
  retryable: boolean;
  /** Server-requested delay before retrying, from retry-after headers or the error body. */
  retryAfterMs?: number;
  status?: number;
}

export type ModelEvent =
  | { type: "created"; responseId?: string }
  | { type: "text_delta"; itemId: string; delta: string }
  | { type: "reasoning_delta"; itemId: string; delta: string }
  | { type: "item_done"; item: ResponseItem }
  | { type: "completed"; responseId?: string; usage?: Usage }
  | { type: "failed"; error: ModelError };

export interface ModelClient {
  stream(prompt: Prompt, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
