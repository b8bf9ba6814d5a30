/**
 * The one asking policy (asker.ts) against a real broker and responder registry: what happens when a
 * client answers badly, cannot show a request, refuses it, goes away, or dismisses it, and when the
 * request settles elsewhere. The client is scripted (it stands for a surface's wire).
 */
import { describe, expect, it } from "vitest";
import { waitUntil } from "../../test/helpers/wait.js";
import {
  APPROVAL_LABELS,
  type Question,
  type QuestionOutcome,
  type QuestionRequest,
  type Responder,
} from "../protocol/questions.js";
import { createBus } from "../util/bus.js";
import {
  type AskClient,
  Asker,
  type AskHost,
  type ClientError,
  type Exchange,
  MAX_ATTEMPTS,
} from "./asker.js";
import { createBroker, requestIdFor } from "./broker.js";
import type { FormAnswer } from "./form.js";
import { createResponders } from "./responders.js";

const stack: Question = {
  id: "stack",
  header: "Stack",
  prompt: "Which stack?",
  kind: "single",
  options: [
    { label: "Rust", description: "" },
    { label: "Go", description: "" },
  ],
  allow_other: true,
  secret: false,
};
const me: Responder = { kind: "acp", id: "editor" };

function request(extra: Partial<QuestionRequest> = {}): QuestionRequest {
  return {
    request_id: requestIdFor("t1", "c1"),
    thread_id: "t1",
    turn_id: "turn1",
    call_id: "c1",
    source: "model",
    questions: [stack],
    policy: { type: "wait" },
    deadline: null,
    created_at: 0,
    ...extra,
  };
}

type Step = FormAnswer | { error: ClientError } | "hang";

/** A broker, the asker's host over it, and a client that plays `steps` one exchange at a time. */
function setup(steps: Step[]) {
  const broker = createBroker({ bus: createBus() });
  const responders = createResponders();
  responders.attach({ threadId: "t1" }, me);
  const interrupted: string[] = [];
  const host: AskHost = {
    pending: (r) => broker.list({ threadId: r.thread_id }).find((x) => x.request_id === r.request_id),
    reply: (r, reply, who) => broker.reply(r.thread_id, r.request_id, reply, who),
    decline: (r, who, reason) => broker.decline(r.thread_id, r.request_id, who, reason),
    unavailable: (r, reason) => broker.unavailable(r.thread_id, r.request_id, reason),
    expire: (r, reason) => ({ ok: true, outcome: broker.expire(r, reason) }),
    interrupt: (r, reason) => {
      interrupted.push(reason);
      broker.cancelAll({ turnId: r.turn_id }, reason);
      return true;
    },
    othersCanAnswer: (r, who) =>
      responders.list(r.thread_id).some((x) => x.kind !== who.kind || x.id !== who.id),
  };
  const shown: Exchange<undefined>[] = [];
  const refused: string[] = [];
  const logs: string[] = [];
  const client: AskClient<undefined> = {
    responder: me,
    log: (l) => logs.push(l),
    refused: (_r, code, message) => refused.push(`${code}: ${message}`),
    classify: (err) => (err as { meaning: ClientError }).meaning,
    exchange: (_r, x) => {
      shown.push(x);
      const step = steps.shift() ?? "hang";
      if (step === "hang")
        return new Promise((_, reject) => x.signal.addEventListener("abort", () => reject(x.signal.reason)));
      if ("error" in step)
        return Promise.reject(Object.assign(new Error("client error"), { meaning: step.error }));
      return Promise.resolve(step);
    },
  };
  const asker = new Asker(host, client);
  return { broker, responders, asker, shown, refused, logs, interrupted };
}

const ask = (s: ReturnType<typeof setup>, r = request()): Promise<QuestionOutcome> => {
  const outcome = s.broker.ask(r, new AbortController().signal);
  s.asker.ask(r, undefined);
  return outcome;
};
/** Waits until the asker has stopped asking (its run ended), then says whether `r` is still pending. */
async function stillPending(s: ReturnType<typeof setup>, r = request()): Promise<boolean> {
  await waitUntil(() => s.asker.size === 0, "the asker to stop asking");
  return s.broker.list().some((x) => x.request_id === r.request_id);
}
const wrong: FormAnswer = { kind: "reply", reply: { answers: { stack: { selected: ["Haskell"] } } } };

describe("Asker: the one asking policy", () => {
  // Fails if an invalid answer is lost instead of asked again with the reason, if the limit is not
  // MAX_ATTEMPTS, or if giving up is a decline (disguised as the user's) instead of unavailable.
  it("asks again after invalid answers, then settles unavailable when nobody else can answer", async () => {
    const s = setup([wrong, { kind: "invalid", message: "expected text" }, wrong]);
    const outcome = await ask(s);
    expect(s.shown.map((x) => [x.attempt, x.problem])).toEqual([
      [1, undefined],
      [2, expect.stringContaining('"Haskell" is not an option')],
      [3, "expected text"],
    ]);
    expect(MAX_ATTEMPTS).toBe(3);
    expect(s.refused).toHaveLength(3);
    expect(outcome).toEqual({
      status: "unavailable",
      reason: expect.stringMatching(
        /^nobody could answer: no valid answer after 3 attempts \(last: .*Haskell/,
      ),
    });
  });

  // Fails if a connection that gave up settles a request someone else could still answer.
  it("after giving up, the request stays pending while another responder can answer it", async () => {
    const s = setup([wrong, wrong, wrong]);
    s.responders.attach({ threadId: "t1" }, { kind: "web" });
    const outcome = ask(s);
    expect(await stillPending(s)).toBe(true);
    expect(s.shown).toHaveLength(3);
    expect(s.logs.at(-1)).toContain("stays pending for the other responders");
    expect(
      s.broker.reply(
        "t1",
        request().request_id,
        { answers: { stack: { selected: ["Go"] } } },
        { kind: "web" },
      ).ok,
    ).toBe(true);
    expect((await outcome).status).toBe("answered");
  });

  // Fails if a client that could not show the request makes it a decline, or waits for ever.
  it("a request the client cannot show is unavailable when it was the only responder", async () => {
    const s = setup([{ error: { kind: "unseen", reason: "method not found" } }]);
    expect(await ask(s)).toEqual({
      status: "unavailable",
      reason: "nobody could answer: the client could not show it: method not found",
    });
    expect(s.shown).toHaveLength(1);
  });

  // Fails if the protocol's refusal (a Codex client's error reply) is not a decline with its reason.
  it("a refusing error reply declines with the client's reason", async () => {
    const s = setup([{ error: { kind: "declined", reason: "user pressed Esc" } }]);
    expect(await ask(s)).toEqual({ status: "declined", responder: me, reason: "user pressed Esc" });
  });

  // Fails if a disconnect settles anything (README: a disconnect never settles a question).
  it("a closed connection settles nothing: the request stays pending", async () => {
    const s = setup([{ error: { kind: "gone" } }]);
    void ask(s);
    expect(await stillPending(s)).toBe(true);
    expect(s.shown).toHaveLength(1);
  });

  // Fails if a request settled elsewhere is not withdrawn from the client (its signal), or if the
  // asker keeps it.
  it("settled elsewhere: the client's request is withdrawn", async () => {
    const s = setup(["hang"]);
    const outcome = ask(s);
    await waitUntil(() => s.shown.length === 1, "the request to be shown");
    expect(s.shown[0].signal.aborted).toBe(false);
    s.broker.decline("t1", request().request_id, { kind: "tui" });
    s.asker.settled(request().request_id);
    expect(s.shown[0].signal.aborted).toBe(true);
    expect((await outcome).status).toBe("declined");
    expect(await stillPending(s)).toBe(false);
  });

  // Fails if cancel means anything but cancelling what asked: an MCP server's request settles
  // cancelled (the server hears cancel, nothing is interrupted), an approval gets its Cancel
  // decision, a model question stops its turn.
  it("cancel cancels what asked: the server's request, the approval (Cancel), the model's turn", async () => {
    const cancel: FormAnswer = { kind: "cancel", reason: "the user cancelled the form" };
    const el = setup([cancel]);
    const elicited = await ask(
      el,
      request({ source: "internal", elicitation: { server: "s", mode: "form", message: "m" } }),
    );
    expect(elicited).toEqual({ status: "cancelled", reason: "the user cancelled the form" });
    expect(el.interrupted).toEqual([]);

    const ap = setup([cancel]);
    const decision: Question = {
      ...stack,
      id: "decision",
      allow_other: false,
      options: Object.values(APPROVAL_LABELS).map((label) => ({ label, description: "" })),
    };
    const approved = await ask(
      ap,
      request({
        source: "internal",
        questions: [decision],
        approval: { kind: "exec", reason: "r", cwd: "/w" },
      }),
    );
    expect(approved).toMatchObject({ status: "answered", answers: { decision: { selected: ["Cancel"] } } });

    const mq = setup([cancel]);
    expect(await ask(mq)).toEqual({ status: "cancelled", reason: "the user cancelled the form" });
    expect(mq.interrupted).toEqual(["the user cancelled the form"]);
  });
});
