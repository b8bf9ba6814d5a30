/**
 * Turns one script step into concrete output: items with ids and string arguments, usage
 * numbers, and the chunking of text into deltas. Both wire renderers (responses-wire.ts,
 * chat-wire.ts) consume this, so one step means the same thing on either wire.
 *
 * Determinism contract: for the same script and the same sequence of request bodies, every
 * id, chunk and usage number is identical across runs. Default ids embed the 1-based
 * request ordinal (`call_<ordinal>_<n>`), so they are unique across a run even when looping.
 */
import { type Answers, answersIn, fillAnswers, fillDeep } from "./answers.js";
import type { Step, StepOutput } from "./script.js";

export type PlannedItem =
  | { type: "message"; id: string; text: string }
  | { type: "reasoning"; id: string; summary: string; encrypted_content?: string }
  | { type: "function_call"; id: string; call_id: string; name: string; arguments: string }
  | { type: "custom_tool_call"; id: string; call_id: string; name: string; input: string };

export interface PlannedUsage {
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
}

export interface PlannedStep {
  items: PlannedItem[];
  usage: PlannedUsage;
}

/**
 * Resolves ids, arguments and usage of `step`, answering request number `ordinal` (1-based).
 * `{{answer:ID}}` placeholders are filled from the answers in `body` (answers.ts).
 */
export function planStep(step: Step, ordinal: number | string, body: Record<string, unknown>): PlannedStep {
  // Only steps that use a placeholder pay for reading the request's tool outputs.
  const answers = JSON.stringify(step.output).includes("{{answer:") ? answersIn(body) : new Map();
  const items = step.output.map((out, index) => planItem(out, ordinal, index + 1, answers));
  return { items, usage: planUsage(step, items, body) };
}

const jsonEscape = (v: string) => JSON.stringify(v).slice(1, -1);

function planItem(out: StepOutput, ordinal: number | string, n: number, answers: Answers): PlannedItem {
  if (out.type === "message")
    return { type: "message", id: out.id ?? `msg_${ordinal}_${n}`, text: fillAnswers(out.text, answers) };
  if (out.type === "reasoning") {
    const item: PlannedItem = { type: "reasoning", id: out.id ?? `rs_${ordinal}_${n}`, summary: out.summary };
    if (out.encrypted_content !== undefined) item.encrypted_content = out.encrypted_content;
    return item;
  }
  if (out.type === "function_call") {
    return {
      type: "function_call",
      id: out.id ?? `fc_${ordinal}_${n}`,
      call_id: out.call_id ?? `call_${ordinal}_${n}`,
      name: out.name,
      // A verbatim string is JSON text: inserted values are escaped as JSON string content.
      arguments:
        typeof out.arguments === "string"
          ? fillAnswers(out.arguments, answers, jsonEscape)
          : JSON.stringify(fillDeep(out.arguments, answers)),
    };
  }
  return {
    type: "custom_tool_call",
    id: out.id ?? `ctc_${ordinal}_${n}`,
    call_id: out.call_id ?? `call_${ordinal}_${n}`,
    name: out.name,
    input: fillAnswers(out.input, answers),
  };
}

const tokensOf = (chars: number) => Math.ceil(chars / 4);

/** JSON length of arrays already measured, or built by appending to a measured one. */
const lengthOf = new WeakMap<unknown[], number>();

/** `JSON.stringify(value).length` (0 when it serialises to nothing); known arrays cost nothing. */
export function jsonLength(value: unknown): number {
  if (!Array.isArray(value)) return JSON.stringify(value)?.length ?? 0;
  let n = lengthOf.get(value);
  if (n === undefined) {
    n = JSON.stringify(value).length;
    lengthOf.set(value, n);
  }
  return n;
}

/**
 * `[...prefix, ...extra]`, its JSON length recorded from the prefix's and the extra items'
 * alone: a WebSocket chain re-presents the whole logical input on every request, and only
 * its new tail needs serialising.
 */
export function appendMeasured(prefix: unknown[], extra: unknown[]): unknown[] {
  const out = [...prefix, ...extra];
  let n = jsonLength(prefix);
  for (const [i, item] of extra.entries()) {
    n += (prefix.length + i > 0 ? 1 : 0) + (JSON.stringify(item)?.length ?? 4);
  }
  lengthOf.set(out, n);
  return out;
}

/**
 * Default usage: input = JSON length of the request's `input` (or chat `messages`) / 4,
 * output = length of everything emitted / 4, reasoning = summary length / 4, cached 0.
 * Any field of `step.usage` overrides; total defaults to input + output.
 */
function planUsage(step: Step, items: PlannedItem[], body: Record<string, unknown>): PlannedUsage {
  const prompt = body.input ?? body.messages ?? body;
  let outputChars = 0;
  let reasoningChars = 0;
  for (const item of items) {
    if (item.type === "message") outputChars += item.text.length;
    else if (item.type === "function_call") outputChars += item.name.length + item.arguments.length;
    else if (item.type === "custom_tool_call") outputChars += item.name.length + item.input.length;
    else reasoningChars += item.summary.length + (item.encrypted_content?.length ?? 0);
  }
  const o = step.usage ?? {};
  const input = o.input_tokens ?? tokensOf(jsonLength(prompt));
  const reasoning = o.reasoning_tokens ?? tokensOf(reasoningChars);
  const output = o.output_tokens ?? tokensOf(outputChars) + reasoning;
  return {
    input_tokens: input,
    cached_tokens: o.cached_tokens ?? 0,
    output_tokens: output,
    reasoning_tokens: reasoning,
    total_tokens: o.total_tokens ?? input + output,
  };
}

// One CJK/full-width character, or a run of other non-space characters with its trailing
// whitespace, or a run of whitespace. Every character matches one alternative, so the
// chunks always concatenate back to the input.
const TOKEN =
  /[\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]|[^\s\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef]+\s*|\s+/gu;

/** Splits display text into ~token chunks (words, CJK characters). `join("")` restores it. */
export function splitTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Splits tool arguments into fixed-size code-point chunks. `join("")` restores it. */
export function splitArguments(text: string, size = 16): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** One SSE event, as the exact bytes to write. Delta frames are paced by `token_delay_ms`. */
export interface Frame {
  text: string;
  delta: boolean;
}

/** An answer as frames; `frames.slice(terminal)` are the ones that complete it. */
export interface Rendered {
  frames: Frame[];
  terminal: number;
}

export interface AnswerContext {
  /** 1-based number of the step-consuming request being answered. */
  /** Request ordinal used in default ids; side steps use "s<N>" so their ids never collide. */
  ordinal: number | string;
  model: string;
  /** Unix seconds. */
  createdAt: number;
}

/** A wire dialect: how a planned step, a `failed` fault and a `hang` fault look as SSE. */
export interface Wire {
  answer(ctx: AnswerContext, plan: PlannedStep, body: Record<string, unknown>): Rendered;
  failed(ctx: AnswerContext, code: string, message: string): Rendered;
  /** The frames sent before a hang: the stream visibly starts, then nothing follows. */
  hang(ctx: AnswerContext): Rendered;
}
