/**
 * History normalisation for the prompt (SPEC L6). Pure functions over item lists.
 *
 * - every tool call gets exactly one output: an orphan call gets an "aborted" output inserted
 *   right after it (or after its parallel siblings); outputs without a call are dropped;
 * - unsupported modalities (images, when the model takes none) are dropped.
 * The stored history is never rewritten here; the runtime repairs stored orphans on load.
 */
import {
  isToolCall,
  isToolOutput,
  outputFor,
  type ResponseItem,
  type ToolCallItem,
} from "../protocol/items.js";

export const ABORTED_OUTPUT = "aborted";

export function normalizeForPrompt(items: ResponseItem[], opts: { images?: boolean } = {}): ResponseItem[] {
  const callIds = new Set<string>();
  const outputIds = new Set<string>();
  for (const it of items) {
    if (isToolCall(it)) callIds.add(it.call_id);
    else if (isToolOutput(it)) outputIds.add(it.call_id);
  }
  const images = opts.images ?? true;
  const out: ResponseItem[] = [];
  let pendingOrphans: ToolCallItem[] = [];
  const flush = () => {
    for (const c of pendingOrphans) out.push(outputFor(c, ABORTED_OUTPUT));
    pendingOrphans = [];
  };
  for (const it of items) {
    if (isToolCall(it)) {
      out.push(it);
      if (!outputIds.has(it.call_id)) pendingOrphans.push(it);
      continue;
    }
    if (isToolOutput(it)) {
      if (!callIds.has(it.call_id)) continue;
      out.push(it);
      continue;
    }
    flush();
    if (!images && it.type === "message" && it.content.some((c) => c.type === "input_image")) {
      const content = it.content.filter((c) => c.type !== "input_image");
      if (content.length) out.push({ ...it, content });
      continue;
    }
    out.push(it);
  }
  flush();
  return out;
}

/** Tool calls in `items` that have no output (used to repair history after a crash). */
export function orphanCalls(items: ResponseItem[]): ToolCallItem[] {
  const outputs = new Set<string>();
  for (const it of items) if (isToolOutput(it)) outputs.add(it.call_id);
  return items.filter((it): it is ToolCallItem => isToolCall(it) && !outputs.has(it.call_id));
}
