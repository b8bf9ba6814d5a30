/**
 * Red team: a hostile MCP server's elicitations starve approvals. Elicitations and approvals
 * were one "internal" allowance: a server that keeps `questions.max_pending_internal_per_thread`
 * forms open in a thread (or `max_pending_internal` across threads of a shared `tandem serve`)
 * made every approval there refused — the user is never asked, the command never runs.
 */
import { describe, expect, it } from "vitest";
import type { QuestionRequest } from "../protocol/questions.js";
import { createBus } from "../util/bus.js";
import { createBroker } from "./broker.js";
import type { QuestionLimits } from "./limits.js";

const limits: QuestionLimits = {
  max_pending_per_thread: 2,
  max_pending: 3,
  max_pending_internal_per_thread: 2,
  max_pending_internal: 3,
  max_request_bytes: 4_000,
  max_prompt_chars: 100,
  max_option_chars: 20,
  max_header_chars: 10,
};

const base = (id: string, thread: string): QuestionRequest => ({
  request_id: id,
  thread_id: thread,
  turn_id: "turn",
  call_id: id,
  source: "internal",
  questions: [
    { id: "q", header: "H", prompt: "Which?", kind: "text", options: [], allow_other: true, secret: false },
  ],
  policy: { type: "wait" },
  deadline: null,
  created_at: 1,
});
const elicitation = (id: string, thread: string): QuestionRequest => ({
  ...base(id, thread),
  elicitation: { server: "evil", mode: "form", message: "fill me" },
});
const approval = (id: string, thread: string): QuestionRequest => ({
  ...base(id, thread),
  approval: { kind: "exec", reason: "r", cwd: "/", command: "make" },
});

describe("red team: elicitations cannot starve approvals", () => {
  const signal = new AbortController().signal;
  const pendingOrRefused = (p: Promise<unknown>) => Promise.race([p, Promise.resolve("pending" as const)]);

  // Fails if elicitations and approvals share one allowance.
  it("a thread full of a server's forms still gets its approval asked; so does another thread", async () => {
    const broker = createBroker({ bus: createBus(), limits });
    void broker.ask(elicitation("e1", "A"), signal);
    void broker.ask(elicitation("e2", "A"), signal);
    // The server's own allowance is spent…
    expect(await pendingOrRefused(broker.ask(elicitation("e3", "A"), signal))).toMatchObject({
      status: "unavailable",
      limit: "questions.max_pending_internal_per_thread",
    });
    void broker.ask(elicitation("e4", "B"), signal);
    expect(await pendingOrRefused(broker.ask(elicitation("e5", "C"), signal))).toMatchObject({
      limit: "questions.max_pending_internal",
    });
    // …the approvals are not.
    expect(await pendingOrRefused(broker.ask(approval("a1", "A"), signal))).toBe("pending");
    expect(await pendingOrRefused(broker.ask(approval("c1", "C"), signal))).toBe("pending");
    expect(
      broker
        .list()
        .map((r) => r.request_id)
        .sort(),
    ).toEqual(["a1", "c1", "e1", "e2", "e4"]);
  });
});
