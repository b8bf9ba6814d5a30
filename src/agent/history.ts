/**
 * History normalisation for the prompt (requirements L6). Pure functions over item lists.
 *
 * - every tool call gets exactly one output: an orphan call gets an "aborted" output inserted
 *   right after it (or after its parallel siblings); outputs without a call and second outputs
 *   for one call are dropped;
 * - outputs are in call order: the turn loop stores each output as soon as its call finishes
 *   (so a crash never loses a finished call), which may be out of call order; each run of
 *   consecutive outputs is put back in the order of its calls;
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
  /** Position of each call in `items`: the sort key that restores call order. */
  const callAt = new Map<string, number>();
  const outputIds = new Set<string>();
  items.forEach((it, i) => {
    if (isToolCall(it)) callAt.set(it.call_id, i);
    else if (isToolOutput(it)) outputIds.add(it.call_id);
  });
  const images = opts.images ?? true;
  const out: ResponseItem[] = [];
  const paired = new Set<string>();
  /** Outputs (stored ones, and "aborted" for orphans) waiting to be emitted in call order. */
  let run: ResponseItem[] = [];
  let orphans: ToolCallItem[] = [];
  const key = (o: ResponseItem) => callAt.get((o as { call_id: string }).call_id) ?? 0;
  const flush = () => {
    for (const c of orphans) run.push(outputFor(c, ABORTED_OUTPUT));
    out.push(...run.sort((a, b) => key(a) - key(b)));
    orphans = [];
    run = [];
  };
  for (const it of items) {
    if (isToolCall(it)) {
      // Calls after outputs start the next response's group.
      if (run.length) flush();
      out.push(it);
      if (!outputIds.has(it.call_id)) orphans.push(it);
      continue;
    }
    if (isToolOutput(it)) {
      if (!callAt.has(it.call_id) || paired.has(it.call_id)) continue;
      paired.add(it.call_id);
      run.push(it);
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
