/**
 * Builds the Responses request body from a Prompt (requirements L2, L3, L12). We own the body field
 * for field: key order follows the seed's R1 fixture, absent options are omitted (never null),
 * and base instructions become a developer message at the front of `input`.
 */
import type { ResponseItem } from "../protocol/items.js";
import { cachedJson } from "../util/json-cache.js";
import type { Prompt } from "./types.js";

/** Base-instructions items built, by id and text: the same object for the same thread's base,
 * so the serialisation cache (bodyJson) and the WebSocket continuation check (identity first)
 * hit. Bounded: the oldest entry goes past 256 (threads of one process). */
const bases = new Map<string, ResponseItem>();

export function baseInstructionsItem(base: NonNullable<Prompt["baseInstructions"]>): ResponseItem {
  const key = `${base.id ?? ""}\u0000${base.text}`;
  const known = bases.get(key);
  if (known) return known;
  const item: Record<string, unknown> = { type: "message" };
  if (base.id) item.id = base.id;
  item.role = "developer";
  item.content = [{ type: "input_text", text: base.text }];
  bases.set(key, item as ResponseItem);
  if (bases.size > 256) bases.delete(bases.keys().next().value as string);
  return item as ResponseItem;
}

/**
 * `JSON.stringify(body)`, byte for byte, for plain JSON data (what buildResponsesBody makes: no
 * array holes, no `toJSON`), with the elements of its `input` and `tools` arrays serialised once
 * per object across requests: a turn's history is re-sent on every round
 * trip, and re-serialising it was most of the client's share of the loop (bench/core.ts).
 */
export function bodyJson(body: Record<string, unknown>): string {
  let out = "{";
  for (const key of Object.keys(body)) {
    const value = body[key];
    let text: string | undefined;
    if ((key === "input" || key === "tools") && Array.isArray(value)) {
      text = `[${value.map(cachedJson).join(",")}]`;
    } else {
      text = JSON.stringify(value);
      if (text === undefined) continue; // undefined and functions are left out, as stringify does
    }
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}

export function buildResponsesBody(prompt: Prompt): Record<string, unknown> {
  const input: unknown[] = [];
  if (prompt.lite) {
    input.push({
      type: "additional_tools",
      role: "developer",
      tools: [{ type: "namespace", name: "functions", description: "", tools: prompt.tools }],
    });
  }
  if (prompt.baseInstructions?.text) input.push(baseInstructionsItem(prompt.baseInstructions));
  for (const item of prompt.input) input.push(item);

  const body: Record<string, unknown> = { model: prompt.model, stream: true };
  if (prompt.serviceTier) body.service_tier = prompt.serviceTier;
  body.input = input;
  if (!prompt.lite) body.tools = prompt.tools;
  body.tool_choice = "auto";
  body.parallel_tool_calls = prompt.lite ? false : prompt.parallelToolCalls;
  if (prompt.effort || prompt.summary || prompt.lite) {
    const reasoning: Record<string, unknown> = {};
    if (prompt.effort) reasoning.effort = prompt.effort;
    if (prompt.summary) reasoning.summary = prompt.summary;
    if (prompt.lite) reasoning.context = "all_turns";
    body.reasoning = reasoning;
  }
  body.store = false;
  body.include = ["reasoning.encrypted_content"];
  body.prompt_cache_key = prompt.promptCacheKey;
  body.client_metadata = prompt.clientMetadata;
  if (prompt.outputSchema) {
    body.text = {
      format: { type: "json_schema", name: "output", strict: true, schema: prompt.outputSchema },
    };
  }
  return body;
}
