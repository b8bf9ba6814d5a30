/**
 * What a method handler is: a params schema and a synchronous `run` over a `Ctx` (context.ts).
 * Shared by handlers.ts, threads.ts and turns.ts.
 */
import type { z } from "zod";
import type { ReplyErrorCode, ReplyFailure } from "../../protocol/questions.js";
import type { Ctx } from "./context.js";
import { ErrorCode, RpcError } from "./rpc.js";

export type { Ctx } from "./context.js";

export interface Method<T> {
  params: z.ZodType<T>;
  run(ctx: Ctx, params: T): unknown;
}

/** Declares a method with its params schema (keeps `run`'s params typed). */
export const method = <T>(params: z.ZodType<T>, run: (ctx: Ctx, params: T) => unknown): Method<T> => ({
  params,
  run,
});

/** Parses params with `schema`; a failure is -32602 naming each bad field. */
export function parseParams<T>(name: string, schema: z.ZodType<T>, params: unknown): T {
  const r = schema.safeParse(params ?? {});
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
  const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  throw new RpcError(ErrorCode.InvalidParams, `invalid params for ${name}: ${text}`, { issues });
}

const BROKER_CODES: Record<ReplyErrorCode, number> = {
  unknown_request: ErrorCode.UnknownRequest,
  already_settled: ErrorCode.AlreadySettled,
  cancelled: ErrorCode.Cancelled,
  wrong_thread: ErrorCode.WrongThread,
  invalid_reply: ErrorCode.InvalidReply,
  lease_lost: ErrorCode.LeaseLost,
};

export function brokerError(r: ReplyFailure): RpcError {
  return new RpcError(BROKER_CODES[r.code], r.message, { reason: r.code });
}

/**
 * One page of `items` for the list methods: `cursor` is the offset a previous page returned as
 * `nextCursor`; a `limit` of 0 or absent means `defaultLimit` (all when undefined).
 */
export function pageOf<T>(
  name: string,
  items: T[],
  p: { limit?: number | null; cursor?: string | null },
  defaultLimit?: number,
): { data: T[]; nextCursor: string | null } {
  const offset = p.cursor ? Number(p.cursor) : 0;
  if (!Number.isSafeInteger(offset) || offset < 0 || String(offset) !== (p.cursor || "0"))
    throw new RpcError(
      ErrorCode.InvalidParams,
      `invalid params for ${name}: cursor: not a cursor from nextCursor`,
    );
  const limit = p.limit || defaultLimit || items.length;
  const end = offset + limit;
  return { data: items.slice(offset, end), nextCursor: end < items.length ? String(end) : null };
}
