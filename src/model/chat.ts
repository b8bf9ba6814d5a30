/**
 * Chat Completions client (requirements L11): any Chat-Completions-compatible server (Ollama, vLLM,
 * llama.cpp server, OpenRouter) by translating history items to messages and streamed
 * chunks back to items. Same contract as the Responses client: `stream()` never throws.
 *
 * Translation: developer/system text → system message; user/assistant messages keep their
 * role; consecutive function calls become one assistant message with `tool_calls`; outputs
 * become `tool` messages; reasoning items are dropped (chat has no portable reasoning
 * input); custom (freeform) tools travel as function tools taking `{input: string}`.
 */
import type OpenAI from "openai";
import type { ContentItem, ResponseItem } from "../protocol/items.js";
import { classifyThrown } from "./errors.js";
import { baseInstructionsItem } from "./request.js";
import { nextOrIdle, toUsage } from "./responses.js";
import type { ModelClient, ModelEvent, Prompt, WireTool } from "./types.js";
import * as WireLog from "./wire-log.js";

type ChatMessage = Record<string, unknown>;

function textOf(content: ContentItem[]): string {
  return content.map((c) => (c.type === "input_image" ? "" : c.text)).join("");
}

function outputText(output: string | ContentItem[]): string {
  return typeof output === "string" ? output : textOf(output);
}

export function toChatMessages(items: ResponseItem[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pendingCalls: ChatMessage | undefined;
  const flush = () => {
    if (pendingCalls) out.push(pendingCalls);
    pendingCalls = undefined;
  };
  for (const it of items) {
    switch (it.type) {
      case "message": {
        flush();
        const role = it.role === "developer" || it.role === "system" ? "system" : it.role;
        const images = it.content.filter((c) => c.type === "input_image");
        if (role === "user" && images.length) {
          out.push({
            role,
            content: it.content.map((c) =>
              c.type === "input_image"
                ? { type: "image_url", image_url: { url: c.image_url } }
                : { type: "text", text: c.text },
            ),
          });
        } else out.push({ role, content: textOf(it.content) });
        break;
      }
      case "function_call":
      case "custom_tool_call": {
        pendingCalls ??= { role: "assistant", content: null, tool_calls: [] };
        const args = it.type === "function_call" ? it.arguments : JSON.stringify({ input: it.input });
        (pendingCalls.tool_calls as unknown[]).push({
          id: it.call_id,
          type: "function",
          function: { name: it.name, arguments: args },
        });
        break;
      }
      case "function_call_output":
      case "custom_tool_call_output":
        flush();
        out.push({ role: "tool", tool_call_id: it.call_id, content: outputText(it.output) });
        break;
      case "reasoning":
        break;
    }
  }
  flush();
  return out;
}

export function toChatTools(tools: WireTool[]): unknown[] {
  return tools.map((t) => ({
    type: "function",
    function: {
      name: t.name,
      description: t.description,
      parameters:
        t.type === "function"
          ? t.parameters
          : {
              type: "object",
              properties: { input: { type: "string" } },
              required: ["input"],
              additionalProperties: false,
            },
    },
  }));
}

export function buildChatBody(prompt: Prompt): Record<string, unknown> {
  const input = prompt.baseInstructions?.text
    ? [baseInstructionsItem(prompt.baseInstructions), ...prompt.input]
    : prompt.input;
  const body: Record<string, unknown> = {
    model: prompt.model,
    stream: true,
    stream_options: { include_usage: true },
    messages: toChatMessages(input),
  };
  if (prompt.tools.length) {
    body.tools = toChatTools(prompt.tools);
    body.tool_choice = "auto";
    body.parallel_tool_calls = prompt.parallelToolCalls;
  }
  if (prompt.effort) body.reasoning_effort = prompt.effort;
  if (prompt.outputSchema)
    body.response_format = {
      type: "json_schema",
      json_schema: { name: "output", strict: true, schema: prompt.outputSchema },
    };
  return body;
}

export function createChatClient(opts: {
  baseUrl: string;
  apiKey: string;
  idleTimeoutMs?: number;
}): ModelClient {
  const idleMs = opts.idleTimeoutMs ?? 300_000;
  // The SDK is loaded on the first request, not at start-up.
  let client: Promise<OpenAI> | undefined;
  const sdk = () =>
    (client ??= import("openai").then(
      ({ default: OpenAI }) => new OpenAI({ baseURL: opts.baseUrl, apiKey: opts.apiKey, maxRetries: 0 }),
    ));
  return WireLog.loggedClient("chat", opts, {
    async *stream(prompt: Prompt, signal: AbortSignal): AsyncIterable<ModelEvent> {
      const custom = new Set(prompt.tools.filter((t) => t.type === "custom").map((t) => t.name));
      const interrupted: ModelEvent = {
        type: "failed",
        error: { kind: "interrupted", message: "interrupted", retryable: false },
      };
      let text = "";
      let reasoning = "";
      const calls: Array<{ id: string; name: string; args: string }> = [];
      let usage: ReturnType<typeof toUsage>;
      let finished = false;
      // Our own controller: aborts on the caller's signal and when the stream goes idle.
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const api = await sdk();
        const body = buildChatBody(prompt);
        const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
        const started = WireLog.request("POST", url, body);
        const { data: stream, response } = (await api.chat.completions
          .create(body as any, { signal: ctrl.signal })
          .withResponse()) as any;
        WireLog.status(url, response.status, started);
        const it: AsyncIterator<any> = stream[Symbol.asyncIterator]();
        while (true) {
          const r = await nextOrIdle(it, idleMs);
          if (r === "idle") {
            ctrl.abort();
            yield {
              type: "failed",
              error: { kind: "timeout", message: `stream idle for ${idleMs} ms`, retryable: true },
            };
            return;
          }
          if (r.done) break;
          const chunk = r.value;
          WireLog.event(chunk);
          if (chunk.usage) usage = toUsage(chunk.usage);
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const d = choice.delta ?? {};
          if (d.content) {
            text += d.content;
            yield { type: "text_delta", itemId: "msg_chat", delta: d.content };
          }
          if (d.reasoning_content) {
            reasoning += d.reasoning_content;
            yield { type: "reasoning_delta", itemId: "rs_chat", delta: d.reasoning_content };
          }
          for (const tc of d.tool_calls ?? []) {
            const index = tc.index ?? 0;
            calls[index] ??= { id: "", name: "", args: "" };
            const slot = calls[index];
            if (tc.id) slot.id = tc.id;
            if (tc.function?.name) slot.name += tc.function.name;
            if (tc.function?.arguments) slot.args += tc.function.arguments;
          }
          if (choice.finish_reason) finished = true;
        }
      } catch (err) {
        yield signal.aborted ? interrupted : { type: "failed", error: classifyThrown(err, opts.baseUrl) };
        return;
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
      if (!finished) {
        yield signal.aborted
          ? interrupted
          : {
              type: "failed",
              error: { kind: "stream", message: "stream closed before the final chunk", retryable: true },
            };
        return;
      }
      if (reasoning)
        yield {
          type: "item_done",
          item: { type: "reasoning", summary: [{ type: "summary_text", text: reasoning }] },
        };
      if (text)
        yield {
          type: "item_done",
          item: { type: "message", role: "assistant", content: [{ type: "output_text", text }] },
        };
      for (const [i, c] of calls.entries()) {
        if (!c) continue;
        const call_id = c.id || `call_chat_${i}`;
        if (custom.has(c.name)) {
          let input = c.args;
          try {
            input = String(JSON.parse(c.args).input ?? "");
          } catch {
            // not JSON: pass the raw text through as the freeform input
          }
          yield { type: "item_done", item: { type: "custom_tool_call", name: c.name, input, call_id } };
        } else {
          yield {
            type: "item_done",
            item: { type: "function_call", name: c.name, arguments: c.args, call_id },
          };
        }
      }
      yield { type: "completed", usage };
    },
  });
}
