/**
 * The mock-model script: a JSON document listing, in order, what the scripted model answers
 * to each sampling request it receives. One step answers exactly one request, on either
 * wire (Responses or Chat Completions). Documented with examples in docs/mock-model.md.
 *
 * Contract: `parseScript` and `loadScriptFile` validate at the boundary and throw a
 * `MockModelScriptError` whose message names the file, the 1-based step and the field at
 * fault; everything downstream trusts the parsed `Script`.
 */
import { readFileSync } from "node:fs";
import * as z from "zod";

const Id = z.string().min(1);

export const MessageOutput = z.strictObject({
  type: z.literal("message"),
  text: z.string().describe("Assistant text; streamed as ~token deltas"),
  id: Id.optional().describe("Item id; default msg_<request>_<n>"),
});

export const ReasoningOutput = z.strictObject({
  type: z.literal("reasoning"),
  summary: z.string().default("").describe("Reasoning summary text; empty sends summary: []"),
  encrypted_content: z.string().optional(),
  id: Id.optional().describe("Item id; default rs_<request>_<n>"),
});

export const FunctionCallOutput = z.strictObject({
  type: z.literal("function_call"),
  name: z.string().min(1),
  arguments: z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .default({})
    .describe("An object is JSON.stringify'd; a string is sent verbatim (use it for non-JSON arguments)"),
  call_id: Id.optional().describe("Default call_<request>_<n>"),
  id: Id.optional().describe("Default fc_<request>_<n>"),
});

export const CustomToolCallOutput = z.strictObject({
  type: z.literal("custom_tool_call"),
  name: z.string().min(1),
  input: z.string(),
  call_id: Id.optional().describe("Default call_<request>_<n>"),
  id: Id.optional().describe("Default ctc_<request>_<n>"),
});

export const StepOutput = z.discriminatedUnion("type", [
  MessageOutput,
  ReasoningOutput,
  FunctionCallOutput,
  CustomToolCallOutput,
]);
export type StepOutput = z.output<typeof StepOutput>;

const Count = z.number().int().min(0);

export const UsageOverride = z.strictObject({
  input_tokens: Count.optional(),
  cached_tokens: Count.optional(),
  output_tokens: Count.optional(),
  reasoning_tokens: Count.optional(),
  total_tokens: Count.optional().describe("Default input_tokens + output_tokens"),
});

export const FailedCode = z.enum([
  "context_length_exceeded",
  "rate_limit_exceeded",
  "insufficient_quota",
  "server_error",
  "server_is_overloaded",
  "invalid_prompt",
]);
export type FailedCode = z.infer<typeof FailedCode>;

export const Fault = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("http"),
    status: z.number().int().min(400).max(599),
    retry_after: z.number().min(0).optional().describe("Seconds, sent as the retry-after header"),
    retry_after_ms: z.number().int().min(0).optional().describe("Sent as the retry-after-ms header"),
    message: z.string().optional().describe("error.message of the default OpenAI-style body"),
    code: z.string().optional().describe("error.code of the default OpenAI-style body"),
    body: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .describe("Replaces the whole body: a string verbatim, an object as JSON"),
  }),
  z.strictObject({
    type: z.literal("cut"),
    after_events: Count.optional().describe(
      "Events sent before the connection drops; default all but the last",
    ),
  }),
  z.strictObject({ type: z.literal("failed"), code: FailedCode, message: z.string().optional() }),
  z.strictObject({ type: z.literal("hang") }),
]);
export type Fault = z.infer<typeof Fault>;

export const Step = z.strictObject({
  note: z.string().optional().describe("Free text for the script's reader; ignored"),
  compaction: z
    .boolean()
    .optional()
    .describe("Answers the next compaction request instead of a step of the sequence (used once)"),
  output: z.array(StepOutput).default([]),
  usage: UsageOverride.optional(),
  delay_ms: Count.optional().describe("Wait before the first byte of the answer"),
  token_delay_ms: Count.optional().describe("Wait before each delta event"),
  fault: Fault.optional(),
  expect: z
    .strictObject({
      input_contains: z.array(z.string()).optional().describe("Strings the request body must contain"),
    })
    .optional(),
});
export type Step = z.output<typeof Step>;

/**
 * A side step answers every request that matches `when`, before and outside the main sequence:
 * requests a client sends besides the conversation (e.g. the Codex TUI's title writer) get their
 * answer without taking a step from it, whenever they arrive.
 */
export const SideStep = Step.extend({
  when: z.strictObject({
    input_contains: z.array(z.string()).min(1).describe("Strings a request must contain to match"),
  }),
});
export type SideStep = z.output<typeof SideStep>;

export const ScriptSchema = z.strictObject({
  description: z.string().optional(),
  steps: z.array(Step),
  side_steps: z
    .array(SideStep)
    .default([])
    .describe("Answer matching requests outside the sequence; the first match wins; reusable"),
  loop: z.boolean().optional().describe("Start over at step 1 when the steps run out"),
  model: z.string().optional().describe("Model id reported in answers and GET /v1/models"),
  api_key: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Require `Authorization: Bearer <api_key>` on every route but /health (else 401), as a provider does",
    ),
  ended_message: z
    .string()
    .optional()
    .describe("Assistant message answering every request after the steps ran out (instead of a 400)"),
});

/** A script as authored (defaults optional). */
export type Script = z.input<typeof ScriptSchema>;
/** A validated script with defaults applied. */
export type ParsedScript = z.output<typeof ScriptSchema>;

/** A local error: the script is unreadable or does not match the format. */
export class MockModelScriptError extends Error {
  override name = "MockModelScriptError";
  static isInstance(err: unknown): err is MockModelScriptError {
    return err instanceof Error && err.name === "MockModelScriptError";
  }
}

function formatPath(path: PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `${out ? "." : ""}${String(key)}`;
  return out || "(root)";
}

/** "step 3 (steps[2].output[0].name): message", or just "field: message" outside steps. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const [head, index] = issue.path;
  const where = formatPath(issue.path);
  if (head === "steps" && typeof index === "number") return `step ${index + 1} (${where}): ${issue.message}`;
  return `${where}: ${issue.message}`;
}

/**
 * Validates a script object. `source` names it in errors (a path, or "inline script").
 * @throws MockModelScriptError listing every problem, one per line.
 */
export function parseScript(value: unknown, source = "inline script"): ParsedScript {
  const result = ScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  - ${describeIssue(issue)}`);
  throw new MockModelScriptError(
    `mock-model: invalid script ${source}:\n${lines.join("\n")}\nSee docs/mock-model.md for the format.`,
  );
}

/**
 * Reads and validates a JSON script file.
 * @throws MockModelScriptError when the file is missing, is not JSON, or is not a valid script.
 */
export function loadScriptFile(path: string): ParsedScript {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new MockModelScriptError(`mock-model: cannot read script ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new MockModelScriptError(`mock-model: script ${path} is not valid JSON: ${(err as Error).message}`);
  }
  return parseScript(value, path);
}
