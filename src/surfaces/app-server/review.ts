/**
 * Codex `review/start` (README "Review: `/review`"): params `{threadId, target, delivery?}` —
 * target `uncommittedChanges`, `baseBranch {branch}`, `commit {sha, title?}` or `custom
 * {instructions}`; delivery `inline` (the only one Codex 0.171 has: the review runs on the
 * supplied thread). Result `{reviewThreadId, turn}` at once. The review is a read-only turn
 * (runtime/review.ts); its items are Codex's: `enteredReviewMode {review: what}` for the request,
 * the commands it ran, then `exitedReviewMode {review: the findings as text}` for its answer (the
 * mapper, mapping.ts, swaps them in). A running turn is a conflict (TurnConflict, -32003).
 */
import * as z from "zod";
import {
  REVIEW_TURN,
  type ReviewTarget,
  reviewLabel,
  reviewPrompt,
  reviewRequestLine,
  targetProblem,
} from "../../protocol/review.js";
import { ThreadInUseError } from "../../runtime/errors.js";
import { type Ctx, type Method, method } from "./method.js";
import { ErrorCode, RpcError } from "./rpc.js";
import { inUseOr, requireThread } from "./threads.js";

const Target = z.discriminatedUnion("type", [
  z.object({ type: z.literal("uncommittedChanges") }),
  z.object({ type: z.literal("baseBranch"), branch: z.string() }),
  z.object({ type: z.literal("commit"), sha: z.string(), title: z.string().nullish() }),
  z.object({ type: z.literal("custom"), instructions: z.string() }),
]);

export const ReviewStartParams = z.object({
  threadId: z.string(),
  target: Target,
  delivery: z.literal("inline").nullish(),
});

const start = method(ReviewStartParams, ({ server, session }: Ctx, p) => {
  const target = p.target as ReviewTarget;
  const problem = targetProblem(target);
  if (problem) throw new RpcError(ErrorCode.InvalidParams, `invalid params: target: ${problem}`);
  requireThread(server, p.threadId);
  const attached = session.attach(p.threadId);
  try {
    const thread = server.runtime.threads.open(p.threadId);
    if (thread.active)
      throw new RpcError(
        ErrorCode.TurnConflict,
        `thread ${p.threadId} already runs turn ${thread.active.id}; review when it ends or stop it with turn/interrupt`,
        { threadId: p.threadId, activeTurnId: thread.active.id },
      );
    const label = reviewLabel(target);
    server.mapper.reviewNext(p.threadId, label);
    const turn = thread.startTurn(reviewPrompt(target), {
      options: REVIEW_TURN,
      mentions: false,
      display: reviewRequestLine(label),
    });
    return { reviewThreadId: p.threadId, turn: server.mapper.liveTurn(turn.id) };
  } catch (err) {
    server.mapper.reviewNext(p.threadId, undefined);
    if (attached && !server.runtime.threads.get(p.threadId)) session.detach(p.threadId);
    throw err instanceof ThreadInUseError ? inUseOr(err, ErrorCode.ThreadInUse, p.threadId) : err;
  }
});

export const REVIEW_METHODS: Record<string, Method<any>> = { "review/start": start };
