/**
 * Reply links (README "Answer from a chat"): a capability to answer or decline one waiting
 * question by text, for a chat bot or a teammate who has no access to Tandem. A notification of
 * a question carries `reply-url` = `<serve origin>/reply/<token>`; the route
 * (surfaces/http/routes/reply.ts) hands the token and the text here.
 *
 * Contract:
 * - `mint(request)` makes a random 32-byte token (base64url, 43 characters) for a request that
 *   may be offered (`offered`: asked by the model or an MCP server's elicitation, no secret
 *   question, not an approval or one of Tandem's own questions, whose answers grant more than the
 *   question: a stored rule, trusted hooks, a config change). Only the token's SHA-256 is kept,
 *   in memory: a restart kills every link. Minting again for the same request (a re-ask) replaces
 *   the old link.
 * - A token reaches its one request and nothing else. `text` is the request as text,
 *   `answer` parses the text with the one text-reply parser (questions/text-reply.ts) and replies
 *   through the runtime's answer path (responder kind `reply-link`), `decline` declines it.
 * - A link dies when its request settles (answered anywhere, declined, timed out, cancelled),
 *   after `maxRejects` rejected replies (a parse error, a reply the broker refuses, a body the
 *   route refuses), after `ttlMs`, and on restart. Every dead, unknown or malformed token gets
 *   the same `not_found`, in about the same time: a lookup by the token's hash, then a
 *   constant-time comparison.
 * - A rejected reply leaves the question pending and returns the parser's (or broker's) message.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Event } from "../protocol/events.js";
import type { QuestionAnswer, QuestionOutcome, QuestionRequest, ReplyResult } from "../protocol/questions.js";
import { parseRequestText, questionText } from "../questions/text-reply.js";

/** How a reply link answered (the route maps it to a status). */
export type ReplyLinkResult =
  | { ok: true; outcome: QuestionOutcome }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "invalid_reply"; message: string };

export interface ReplyLinksHost {
  /** The request if it is pending in this process's broker. */
  pending(requestId: string): QuestionRequest | undefined;
  reply(request: QuestionRequest, answers: Record<string, QuestionAnswer>): ReplyResult;
  decline(request: QuestionRequest): ReplyResult;
}

/** What surfaces may do with a token (`runtime.replyLinks`): never mint one. */
export type ReplyLinksApi = Pick<ReplyLinks, "text" | "answer" | "decline" | "refuse">;

export interface ReplyLinksOptions {
  /** Longest a link lives, even for a question that still waits (default a day). */
  ttlMs?: number;
  /** Rejected replies after which a link dies (default 20). */
  maxRejects?: number;
  /** Most live links; the oldest dies first (default 1000). */
  maxLinks?: number;
  now?: () => number;
}

interface Entry {
  hash: Buffer;
  requestId: string;
  expiresAt: number;
  rejects: number;
}

const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
export const REPLY_RESPONDER = { kind: "reply-link" } as const;

/** Whether `request` may be answered through a reply link (see the contract). */
export function offered(request: QuestionRequest): boolean {
  if (request.approval) return false;
  if (request.questions.some((q) => q.secret)) return false;
  return request.source === "model" || !!request.elicitation;
}

export class ReplyLinks {
  /** By the token's SHA-256 (hex); insertion order is age. */
  private readonly byHash = new Map<string, Entry>();
  private readonly byRequest = new Map<string, string>();
  private readonly ttlMs: number;
  private readonly maxRejects: number;
  private readonly maxLinks: number;
  private readonly now: () => number;

  constructor(
    private readonly host: ReplyLinksHost,
    opts: ReplyLinksOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 24 * 3_600_000;
    this.maxRejects = opts.maxRejects ?? 20;
    this.maxLinks = opts.maxLinks ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  /** A new token for `request`, or undefined when it may not be offered. */
  mint(request: QuestionRequest): string | undefined {
    if (!offered(request)) return undefined;
    this.revoke(request.request_id);
    const token = randomBytes(32).toString("base64url");
    const hash = sha256(token);
    const hex = hash.toString("hex");
    this.byHash.set(hex, {
      hash,
      requestId: request.request_id,
      expiresAt: this.now() + this.ttlMs,
      rejects: 0,
    });
    this.byRequest.set(request.request_id, hex);
    while (this.byHash.size > this.maxLinks) this.drop(this.byHash.keys().next().value!);
    return token;
  }

  /** Kills the link of `requestId`, if any (its request settled). */
  revoke(requestId: string): void {
    const hex = this.byRequest.get(requestId);
    if (hex) this.drop(hex);
  }

  /** Follows the bus: a request that settles takes its link with it. */
  onEvent(event: Event): void {
    if (
      event.type === "question.answered" ||
      event.type === "question.declined" ||
      event.type === "question.timed_out" ||
      event.type === "question.cancelled"
    )
      this.revoke(event.request_id);
  }

  /** How many links are alive (tests, diagnostics). */
  get size(): number {
    return this.byHash.size;
  }

  /** The request's text for the token, or undefined (a dead link). */
  text(token: string): string | undefined {
    const found = this.find(token);
    return found ? questionText(found.request) : undefined;
  }

  /** Answers the token's request with `text` (see the contract). */
  answer(token: string, text: string): ReplyLinkResult {
    const found = this.find(token);
    if (!found) return { ok: false, code: "not_found" };
    const parsed = parseRequestText(found.request, text);
    if (!parsed.ok) return this.rejected(found.entry, parsed.error);
    return this.settle(found.entry, this.host.reply(found.request, parsed.answers));
  }

  /** Declines the token's request. */
  decline(token: string): ReplyLinkResult {
    const found = this.find(token);
    if (!found) return { ok: false, code: "not_found" };
    return this.settle(found.entry, this.host.decline(found.request));
  }

  /**
   * Counts a reply the route refused (too large, not text) against the token's link; `not_found`
   * when the token is dead, so the route answers as for any dead link.
   */
  refuse(token: string, message: string): ReplyLinkResult {
    const found = this.find(token);
    if (!found) return { ok: false, code: "not_found" };
    return this.rejected(found.entry, message);
  }

  private settle(entry: Entry, r: ReplyResult): ReplyLinkResult {
    if (r.ok && !r.duplicate) {
      this.drop(sha(entry));
      return { ok: true, outcome: r.outcome };
    }
    if (!r.ok && r.code === "invalid_reply") return this.rejected(entry, r.message);
    // Settled meanwhile (a duplicate, elsewhere, cancelled): the link is dead.
    this.drop(sha(entry));
    return { ok: false, code: "not_found" };
  }

  private rejected(entry: Entry, message: string): ReplyLinkResult {
    entry.rejects += 1;
    if (entry.rejects >= this.maxRejects) {
      this.drop(sha(entry));
      return {
        ok: false,
        code: "invalid_reply",
        message: `${message} (too many rejected replies: this link no longer works; answer in Tandem)`,
      };
    }
    return { ok: false, code: "invalid_reply", message };
  }

  private find(token: string): { entry: Entry; request: QuestionRequest } | undefined {
    if (typeof token !== "string" || !TOKEN_RE.test(token)) return undefined;
    const hash = sha256(token);
    const entry = this.byHash.get(hash.toString("hex"));
    if (!entry || !timingSafeEqual(entry.hash, hash)) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.drop(sha(entry));
      return undefined;
    }
    const request = this.host.pending(entry.requestId);
    if (!request) {
      this.drop(sha(entry));
      return undefined;
    }
    return { entry, request };
  }

  private drop(hex: string): void {
    const entry = this.byHash.get(hex);
    if (!entry) return;
    this.byHash.delete(hex);
    if (this.byRequest.get(entry.requestId) === hex) this.byRequest.delete(entry.requestId);
  }
}

const sha256 = (token: string) => createHash("sha256").update(token, "utf8").digest();
const sha = (entry: Entry) => entry.hash.toString("hex");
