/**
 * The Responses API streaming dialect (`event: <type>\ndata: <json>\n\n`), shaped like
 * OpenAI's so the `openai` SDK (including `responses.stream()` accumulation) parses it.
 *
 * Event grammar of one answer: response.created, response.in_progress, then per item
 * output_item.added → (item-specific start / deltas / done) → output_item.done with the
 * full item, then response.completed carrying every item and the usage. Every event
 * carries `type` and a `sequence_number` counting from 0.
 */
import {
  type AnswerContext,
  type Frame,
  type PlannedItem,
  type PlannedStep,
  type PlannedUsage,
  type Rendered,
  splitArguments,
  splitTokens,
  type Wire,
} from "./output.js";

type Emit = (type: string, payload: Record<string, unknown>, delta?: boolean) => void;

function sequencer(frames: Frame[]): Emit {
  let seq = 0;
  return (type, payload, delta = false) => {
    const data = JSON.stringify({ type, sequence_number: seq++, ...payload });
    frames.push({ text: `event: ${type}\ndata: ${data}\n\n`, delta });
  };
}

function envelope(ctx: AnswerContext, status: string, extra: Record<string, unknown> = {}) {
  return {
    id: `resp_${ctx.ordinal}`,
    object: "response",
    created_at: ctx.createdAt,
    status,
    error: null,
    incomplete_details: null,
    model: ctx.model,
    output: [],
    usage: null,
    ...extra,
  };
}

/** The complete item, as sent in output_item.done and response.completed. */
export function fullItem(item: PlannedItem): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return {
        type: "message",
        id: item.id,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
    case "reasoning": {
      const summary = item.summary ? [{ type: "summary_text", text: item.summary }] : [];
      const full: Record<string, unknown> = { type: "reasoning", id: item.id, summary };
      if (item.encrypted_content !== undefined) full.encrypted_content = item.encrypted_content;
      return full;
    }
    case "function_call":
      return { ...item, status: "completed" };
    case "custom_tool_call":
      return { ...item, status: "completed" };
  }
}

/** The item as first announced in output_item.added: same ids, empty content. */
function startedItem(item: PlannedItem): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return { type: "message", id: item.id, role: "assistant", status: "in_progress", content: [] };
    case "reasoning":
      return { type: "reasoning", id: item.id, summary: [] };
    case "function_call":
      return { ...item, arguments: "", status: "in_progress" };
    case "custom_tool_call":
      return { ...item, input: "", status: "in_progress" };
  }
}

function emitItem(emit: Emit, item: PlannedItem, output_index: number): void {
  const at = { item_id: item.id, output_index };
  emit("response.output_item.added", { output_index, item: startedItem(item) });
  if (item.type === "message") {
    const part = { type: "output_text", text: "", annotations: [] };
    emit("response.content_part.added", { ...at, content_index: 0, part });
    for (const delta of splitTokens(item.text)) {
      emit("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] }, true);
    }
    emit("response.output_text.done", { ...at, content_index: 0, text: item.text, logprobs: [] });
    emit("response.content_part.done", { ...at, content_index: 0, part: { ...part, text: item.text } });
  } else if (item.type === "reasoning" && item.summary) {
    const part = { type: "summary_text", text: "" };
    emit("response.reasoning_summary_part.added", { ...at, summary_index: 0, part });
    for (const delta of splitTokens(item.summary)) {
      emit("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta }, true);
    }
    emit("response.reasoning_summary_text.done", { ...at, summary_index: 0, text: item.summary });
    emit("response.reasoning_summary_part.done", {
      ...at,
      summary_index: 0,
      part: { ...part, text: item.summary },
    });
  } else if (item.type === "function_call") {
    for (const delta of splitArguments(item.arguments)) {
      emit("response.function_call_arguments.delta", { ...at, delta }, true);
    }
    emit("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.arguments });
  } else if (item.type === "custom_tool_call") {
    for (const delta of splitArguments(item.input)) {
      emit("response.custom_tool_call_input.delta", { ...at, delta }, true);
    }
    emit("response.custom_tool_call_input.done", { ...at, input: item.input });
  }
  emit("response.output_item.done", { output_index, item: fullItem(item) });
}

function wireUsage(u: PlannedUsage) {
  return {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens },
    total_tokens: u.total_tokens,
  };
}

function start(ctx: AnswerContext): { frames: Frame[]; emit: Emit } {
  const frames: Frame[] = [];
  const emit = sequencer(frames);
  emit("response.created", { response: envelope(ctx, "in_progress") });
  emit("response.in_progress", { response: envelope(ctx, "in_progress") });
  return { frames, emit };
}

export const responsesWire: Wire = {
  answer(ctx: AnswerContext, plan: PlannedStep): Rendered {
    const { frames, emit } = start(ctx);
    for (const [index, item] of plan.items.entries()) emitItem(emit, item, index);
    const terminal = frames.length;
    const output = plan.items.map(fullItem);
    emit("response.completed", {
      response: envelope(ctx, "completed", { output, usage: wireUsage(plan.usage) }),
    });
    return { frames, terminal };
  },

  failed(ctx: AnswerContext, code: string, message: string): Rendered {
    const { frames, emit } = start(ctx);
    const terminal = frames.length;
    emit("response.failed", { response: envelope(ctx, "failed", { error: { code, message } }) });
    return { frames, terminal };
  },

  hang(ctx: AnswerContext): Rendered {
    const frames: Frame[] = [];
    sequencer(frames)("response.created", { response: envelope(ctx, "in_progress") });
    return { frames, terminal: frames.length };
  },
};
