import { describe, expect, it } from "vitest";
import type { QuestionAnswer, QuestionRequest, ReplyResult } from "../protocol/questions.js";
import { offered, ReplyLinks } from "./reply-links.js";

const request = (id: string, over: Partial<QuestionRequest> = {}): QuestionRequest => ({
  request_id: id,
  thread_id: "t1",
  turn_id: "u1",
  call_id: `call-${id}`,
  source: "model",
  questions: [
    {
      id: "pick",
      header: "Pick",
      prompt: "Which one?",
      kind: "single",
      options: [
        { label: "Red", description: "" },
        { label: "Blue", description: "" },
      ],
      allow_other: false,
      secret: false,
    },
  ],
  policy: { type: "wait" },
  deadline: null,
  created_at: 1,
  ...over,
});

/** A broker stand-in: pending requests, and the replies it got. */
function rig(opts: { ttlMs?: number; maxRejects?: number; maxLinks?: number } = {}) {
  const pending = new Map<string, QuestionRequest>();
  const replies: Array<{ id: string; answers?: Record<string, QuestionAnswer>; declined?: boolean }> = [];
  let now = 1000;
  const settle = (id: string): ReplyResult => {
    if (!pending.delete(id)) return { ok: false, code: "already_settled", message: "settled" };
    return { ok: true, outcome: { status: "declined", responder: { kind: "reply-link" } } };
  };
  const links = new ReplyLinks(
    {
      pending: (id) => pending.get(id),
      reply: (r, answers) => {
        replies.push({ id: r.request_id, answers });
        return settle(r.request_id);
      },
      decline: (r) => {
        replies.push({ id: r.request_id, declined: true });
        return settle(r.request_id);
      },
    },
    { ...opts, now: () => now },
  );
  const ask = (r: QuestionRequest) => {
    pending.set(r.request_id, r);
    return links.mint(r)!;
  };
  return { links, pending, replies, ask, tick: (ms: number) => (now += ms) };
}

describe("reply links", () => {
  it("a token is 32 random bytes in base64url; its link answers its one question through the parser", () => {
    const { links, replies, ask } = rig();
    const a = ask(request("q1"));
    const b = ask(request("q2"));
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(links.text(a)).toContain("  2. Blue");
    expect(links.answer(a, "2 -- because")).toMatchObject({ ok: true });
    expect(replies).toEqual([{ id: "q1", answers: { pick: { selected: ["Blue"], note: "because" } } }]);
    // Dead once answered; the other question's link is untouched.
    expect(links.text(a)).toBeUndefined();
    expect(links.answer(a, "1")).toEqual({ ok: false, code: "not_found" });
    expect(links.text(b)).toContain("Which one?");
  });

  it("a bad reply returns the parser's message and leaves the question pending; 20 of them kill the link", () => {
    const { links, pending, replies, ask } = rig();
    const t = ask(request("q1"));
    const bad = links.answer(t, "7");
    expect(bad).toEqual({
      ok: false,
      code: "invalid_reply",
      message: 'question "pick": there is no option 7; expected a number 1-2 or a label',
    });
    expect(pending.has("q1")).toBe(true);
    for (let i = 2; i < 20; i++) expect(links.answer(t, "nope").ok).toBe(false);
    expect(links.refuse(t, "too large")).toMatchObject({ code: "invalid_reply" });
    expect(links.answer(t, "1")).toEqual({ ok: false, code: "not_found" });
    expect(replies).toEqual([]);
    expect(pending.has("q1")).toBe(true);
  });

  it("dies when its question settles elsewhere, at its ttl, and when re-minted; unknown tokens are the same not_found", () => {
    const { links, pending, ask, tick } = rig({ ttlMs: 60_000 });
    const settled = ask(request("q1"));
    pending.delete("q1"); // answered on another surface
    expect(links.decline(settled)).toEqual({ ok: false, code: "not_found" });

    const byEvent = ask(request("q2"));
    links.onEvent({
      type: "question.cancelled",
      thread_id: "t1",
      turn_id: "u1",
      request_id: "q2",
      outcome: { status: "cancelled", reason: "interrupted" },
    });
    expect(links.size).toBe(0);
    expect(links.text(byEvent)).toBeUndefined();

    const old = ask(request("q3"));
    const fresh = ask(request("q3")); // re-asked
    expect(links.text(old)).toBeUndefined();
    expect(links.text(fresh)).toBeDefined();
    tick(60_000);
    expect(links.text(fresh)).toBeUndefined();

    for (const t of ["", "x", "A".repeat(43), `${fresh}A`, "../thread", fresh.toUpperCase()])
      expect(links.answer(t, "1")).toEqual({ ok: false, code: "not_found" });
  });

  it("declines; never offers approvals, Tandem's own questions or any request with a secret question", () => {
    const { links, replies, ask } = rig();
    expect(links.decline(ask(request("q1")))).toMatchObject({ ok: true });
    expect(replies).toEqual([{ id: "q1", declined: true }]);
    const secret = request("s", {
      questions: [
        { ...request("x").questions[0] },
        { ...request("x").questions[0], id: "key", secret: true },
      ],
    });
    expect(offered(secret)).toBe(false);
    expect(links.mint(secret)).toBeUndefined();
    expect(
      offered(request("a", { source: "internal", approval: { kind: "exec", reason: "", cwd: "/" } })),
    ).toBe(false);
    expect(offered(request("trust", { source: "internal" }))).toBe(false);
    expect(
      offered(request("e", { source: "internal", elicitation: { server: "s", mode: "form", message: "m" } })),
    ).toBe(true);
  });

  it("keeps at most maxLinks, the oldest dying first", () => {
    const { links, ask } = rig({ maxLinks: 2 });
    const first = ask(request("q1"));
    ask(request("q2"));
    ask(request("q3"));
    expect(links.size).toBe(2);
    expect(links.text(first)).toBeUndefined();
  });
});
