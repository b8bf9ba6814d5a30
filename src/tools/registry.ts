/**
 * Tool registry and dispatch (requirements T4): look up → payload kind check → pre-tool hooks →
 * parse + validate → handler → post-tool hooks → exactly one output for the call_id.
 *
 * Contract of `dispatch`: never throws. Unknown tools, kind mismatches, malformed JSON,
 * schema errors, hook blocks and handler exceptions all become an error output the model
 * sees (L4). Abort is the one exception that is *reported*: `{aborted:true}` so the loop
 * records the call as "aborted".
 *
 * Every result — what the model sees and the display item every surface shows — is masked with
 * the thread's secrets (README "Secret answers") before it leaves: not only a command's output
 * holds text from files (an apply_patch mismatch quotes the file's most similar lines, its diff
 * shows context lines, an MCP tool may read a file), and masking what is already masked changes
 * nothing.
 */
import * as z from "zod";
import type { WireTool } from "../model/types.js";
import type { ToolCallItem, ToolOutputPayload } from "../protocol/items.js";
import { AbortError, raceAbort } from "../util/abort.js";
import type { Tool, ToolContext, ToolResult } from "./types.js";

export interface PreToolHookResult {
  /** Refuse the call; the model sees this reason. */
  block?: string;
  /** Replace the parsed arguments (function tools) before the handler runs. */
  args?: unknown;
}

export interface PostToolHookResult {
  /** Replace what the model sees (the interaction itself is not undone). */
  output?: ToolOutputPayload;
}

export interface ToolHooks {
  pre?(
    call: { name: string; callId: string; args: unknown },
    ctx: ToolContext,
  ): PreToolHookResult | undefined | Promise<PreToolHookResult | undefined>;
  post?(
    call: { name: string; callId: string; args: unknown; result: ToolResult },
    ctx: ToolContext,
  ): PostToolHookResult | undefined | Promise<PostToolHookResult | undefined>;
}

/** `partial`: what an interrupted call had done (AbortError.partial), kept as its output. */
export type DispatchResult =
  | { aborted: false; result: ToolResult; args: unknown }
  | { aborted: true; partial?: ToolResult };

function describeZodError(err: z.ZodError): string {
  return err.issues
    .map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`)
    .join("; ");
}

const errorResult = (message: string): ToolResult => ({ output: message, success: false });

export class ToolRegistry {
  private tools = new Map<string, Tool>();
  private hooks: ToolHooks[] = [];
  private wireCache: WireTool[] | undefined;

  constructor(tools: Tool[] = []) {
    for (const t of tools) this.register(t);
  }

  private loading: Array<Promise<unknown>> = [];

  /**
   * Tools still arriving (MCP servers connecting at thread start): `ready` waits for `p`. `p`
   * must settle in bounded time (the servers' startup timeouts); a rejection counts as settled.
   */
  loadingUntil(p: Promise<unknown>): void {
    this.loading.push(p.catch(() => {}));
  }

  /** Whether tools may still arrive (callers skip `ready`, and its tick, when nothing loads). */
  get loadingTools(): boolean {
    return this.loading.length > 0;
  }

  /** Resolves once every `loadingUntil` promise has settled, or when `signal` aborts. Never rejects. */
  async ready(signal: AbortSignal): Promise<void> {
    if (!this.loading.length) return;
    await raceAbort(Promise.all(this.loading), signal).catch(() => {});
  }

  register(tool: Tool): void {
    this.tools.set(tool.name, tool);
    this.wireCache = undefined;
  }

  addHooks(hooks: ToolHooks): () => void {
    this.hooks.push(hooks);
    return () => {
      this.hooks = this.hooks.filter((h) => h !== hooks);
    };
  }

  removeHooks(hooks: ToolHooks): void {
    this.hooks = this.hooks.filter((h) => h !== hooks);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Wire definitions in registration order (cached; tools rarely change within a thread). */
  wire(): WireTool[] {
    if (this.wireCache) return this.wireCache;
    this.wireCache = [...this.tools.values()].map((t): WireTool => {
      if (t.kind === "custom") {
        const w: WireTool = { type: "custom", name: t.name, description: t.description };
        if (t.format) w.format = t.format;
        return w;
      }
      const parameters = t.wireParameters ?? jsonSchemaOf(t.parameters);
      return { type: "function", name: t.name, description: t.description, strict: false, parameters };
    });
    return this.wireCache;
  }

  async dispatch(call: ToolCallItem, ctx: ToolContext): Promise<DispatchResult> {
    const r = await this.run(call, ctx);
    const mask = (t: string) => ctx.secrets.mask(t);
    if (r.aborted) return r.partial ? { aborted: true, partial: masked(r.partial, mask) } : r;
    return { ...r, result: masked(r.result, mask) };
  }

  private async run(call: ToolCallItem, ctx: ToolContext): Promise<DispatchResult> {
    try {
      const tool = this.tools.get(call.name);
      if (!tool)
        return done(errorResult(`unknown tool "${call.name}"; available tools: ${this.names().join(", ")}`));
      if (tool.kind === "function" && call.type !== "function_call")
        return done(errorResult(`tool "${call.name}" is a function tool; call it with JSON arguments`));
      if (tool.kind === "custom" && call.type !== "custom_tool_call")
        return done(errorResult(`tool "${call.name}" is a freeform tool; send its input as plain text`));

      let args: unknown;
      if (call.type === "function_call") {
        try {
          args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
        } catch (err) {
          return done(errorResult(`failed to parse function arguments: ${(err as Error).message}`));
        }
      } else {
        args = call.input;
      }
      for (const h of this.hooks) {
        const r = await h.pre?.({ name: call.name, callId: call.call_id, args }, ctx);
        if (r?.block) return done(errorResult(`blocked by hook: ${r.block}`), args);
        if (r && "args" in r && r.args !== undefined) args = r.args;
      }
      if (ctx.signal.aborted) return { aborted: true };

      let result: ToolResult;
      if (tool.kind === "function") {
        const parsed = tool.parameters.safeParse(args);
        if (!parsed.success)
          return done(
            errorResult(`invalid arguments for ${call.name}: ${describeZodError(parsed.error)}`),
            args,
          );
        result = await tool.execute(parsed.data, ctx);
      } else {
        result = await tool.execute(String(args), ctx);
      }
      for (const h of this.hooks) {
        const r = await h.post?.({ name: call.name, callId: call.call_id, args, result }, ctx);
        if (r?.output !== undefined) result = { ...result, output: r.output };
      }
      return done(result, args);
    } catch (err) {
      if (ctx.signal.aborted || AbortError.isInstance(err)) {
        const partial = AbortError.isInstance(err) ? err.partial : undefined;
        return partial ? { aborted: true, partial: partial as ToolResult } : { aborted: true };
      }
      return done(errorResult(`tool "${call.name}" failed: ${(err as Error)?.message ?? String(err)}`));
    }
  }
}

function done(result: ToolResult, args?: unknown): DispatchResult {
  return { aborted: false, result, args };
}

/** `result` with `mask` applied to every string of its output and display item. */
function masked(result: ToolResult, mask: (text: string) => string): ToolResult {
  const deep = (v: unknown): unknown => {
    if (typeof v === "string") return mask(v);
    if (Array.isArray(v)) return v.map(deep);
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, deep(x)]));
    return v;
  };
  return {
    ...result,
    output: deep(result.output) as ToolResult["output"],
    ...(result.display ? { display: deep(result.display) as ToolResult["display"] } : {}),
  };
}

/** JSON Schema for a zod parameters schema, without `$schema`, objects closed. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}
