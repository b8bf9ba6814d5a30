/**
 * The Chat Completions streaming dialect (`data: <chunk>\n\n` … `data: [DONE]\n\n`).
 *
 * Mapping of a step: reasoning summaries stream as `delta.reasoning_content` (the vLLM /
 * DeepSeek convention); messages as `delta.content`; function calls as `delta.tool_calls`
 * (first chunk carries index, id, type and name, later chunks argument pieces); custom tool
 * calls become function tool calls whose `arguments` is the raw input, since Chat
 * Completions streams have no freeform call. The finish chunk says `tool_calls` when the
 * step made calls, else `stop`; a usage chunk (empty `choices`) follows when the request
 * set `stream_options.include_usage`. A `failed` fault is an in-stream `{error}` chunk.
 */
import { errorTypeForCode } from "./errors.js";
import {
  type AnswerContext,
  type Frame,
  type PlannedStep,
  type Rendered,
  splitArguments,
  splitTokens,
  type Wire,
} from "./output.js";

function chunker(ctx: AnswerContext, frames: Frame[]) {
  const base = { id: `chatcmpl_${ctx.ordinal}`, object: "chat.completion.chunk", created: ctx.createdAt };
  return {
    delta(delta: Record<string, unknown>, isDelta = true, finish_reason: string | null = null) {
      const chunk = { ...base, model: ctx.model, choices: [{ index: 0, delta, finish_reason }] };
      frames.push({ text: `data: ${JSON.stringify(chunk)}\n\n`, delta: isDelta });
    },
    raw(value: unknown) {
      frames.push({ text: `data: ${JSON.stringify(value)}\n\n`, delta: false });
    },
    base,
  };
}

function includeUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  return options?.include_usage === true;
}

export const chatWire: Wire = {
  answer(ctx: AnswerContext, plan: PlannedStep, body: Record<string, unknown>): Rendered {
    const frames: Frame[] = [];
    const out = chunker(ctx, frames);
    out.delta({ role: "assistant", content: "" }, false);
    let toolIndex = 0;
    for (const item of plan.items) {
      if (item.type === "reasoning") {
        for (const piece of splitTokens(item.summary)) out.delta({ reasoning_content: piece });
      } else if (item.type === "message") {
        for (const piece of splitTokens(item.text)) out.delta({ content: piece });
      } else {
        const index = toolIndex++;
        const args = item.type === "function_call" ? item.arguments : item.input;
        const fn = { name: item.name, arguments: "" };
        out.delta({ tool_calls: [{ index, id: item.call_id, type: "function", function: fn }] }, false);
        for (const piece of splitArguments(args))
          out.delta({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
    const terminal = frames.length;
    out.delta({}, false, toolIndex > 0 ? "tool_calls" : "stop");
    if (includeUsage(body)) {
      const u = plan.usage;
      out.raw({
        ...out.base,
        model: ctx.model,
        choices: [],
        usage: {
          prompt_tokens: u.input_tokens,
          completion_tokens: u.output_tokens,
          total_tokens: u.total_tokens,
          prompt_tokens_details: { cached_tokens: u.cached_tokens },
          completion_tokens_details: { reasoning_tokens: u.reasoning_tokens },
        },
      });
    }
    frames.push({ text: "data: [DONE]\n\n", delta: false });
    return { frames, terminal };
  },

  failed(ctx: AnswerContext, code: string, message: string): Rendered {
    const frames: Frame[] = [];
    const out = chunker(ctx, frames);
    out.delta({ role: "assistant", content: "" }, false);
    const terminal = frames.length;
    out.raw({ error: { message, type: errorTypeForCode(code), code } });
    return { frames, terminal };
  },

  hang(ctx: AnswerContext): Rendered {
    const frames: Frame[] = [];
    chunker(ctx, frames).delta({ role: "assistant", content: "" }, false);
    return { frames, terminal: frames.length };
  },
};
