/**
 * Compaction end to end (README "Long sessions", requirements L14): a real Runtime against `tandem
 * mock-model` over HTTP. Every assertion reads what reached the model (request bodies) or the
 * store, never a value the test wrote itself.
 */
import { afterEach, describe, expect, it } from "vitest";
import { COMPACTION_MARKER, SUMMARY_MARKER } from "../../src/agent/compaction-prompt.js";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { type Harness, harness } from "../helpers/index.js";

type Body = { input: any[] };
const textOf = (item: any): string =>
  Array.isArray(item?.content) ? item.content.map((c: any) => c.text ?? "").join("") : "";
const isCompaction = (b: Body) => textOf(b.input[b.input.length - 1]).startsWith(COMPACTION_MARKER);
const hasSummary = (b: Body) =>
  b.input.some((i) => i.type === "message" && i.role === "user" && textOf(i).startsWith(SUMMARY_MARKER));
const size = (b: Body) => JSON.stringify(b.input).length;

/** Every call has exactly one output in the same request, after it, and no output is orphaned. */
function expectPaired(b: Body): void {
  const calls = new Map<string, number>();
  b.input.forEach((i, n) => {
    if (i.type === "function_call") calls.set(i.call_id, n);
  });
  const outputs = b.input.filter((i) => i.type === "function_call_output");
  for (const o of outputs) expect(calls.get(o.call_id), `output ${o.call_id} has its call`).toBeDefined();
  for (const [id, at] of calls) {
    const outs = b.input
      .map((i, n) => [i, n] as const)
      .filter(([i]) => i.type === "function_call_output" && i.call_id === id);
    expect(outs.length, `call ${id} has one output`).toBe(1);
    expect(outs[0][1]).toBeGreaterThan(at);
  }
}

/** A command printing `n` characters: a big tool output without a big script. */
const big = (call_id: string, n: number) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: { cmd: `head -c ${n} /dev/zero | tr '\\0' x; echo ${call_id}` },
  call_id,
});
const say = (text: string) => ({ type: "message" as const, text });
const compacted = (e: Event): e is EventOf<"context.compacted"> => e.type === "context.compacted";

describe("compaction", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // fails if: the budget never triggers (no compaction request), the prompt is not built from the
  // compacted view (requests do not shrink, no summary), a call/output pair is split by the view,
  // or stored history loses items (export would no longer show every call).
  // Over HTTP and over the WebSocket transport (the mock rebuilds each continuation's logical
  // body, so `requests` holds what reached the model either way).
  it.each([
    ["HTTP", []],
    ["WebSocket", ['model_providers.openai={ wire = "responses_websocket" }']],
  ])(
    "a thread driven past a small model_context_window compacts automatically and completes (%s)",
    async (_, wire) => {
      const calls = ["c1", "c2", "c3", "c4", "c5", "c6"];
      h = await harness({
        script: { steps: [...calls.map((c) => ({ output: [big(c, 2400)] })), { output: [say("all done")] }] },
        overrides: ["model_context_window=3000", 'sandbox_mode="danger-full-access"', ...wire],
      });
      const thread = h.runtime.threads.start({ cwd: h.cwd });
      const turn = thread.startTurn("print six large blocks, please");
      const outcome = await turn.done;
      expect(outcome.status).toBe("completed");
      expect(outcome.lastMessage).toBe("all done");

      const bodies = h.model.requests as Body[];
      const compactions = bodies.map((b, i) => (isCompaction(b) ? i : -1)).filter((i) => i >= 0);
      expect(compactions.length).toBeGreaterThan(0);
      for (const i of compactions) {
        // The request after a compaction is smaller than the one before it, and carries the summary.
        const before = bodies[i - 1];
        const after = bodies[i + 1];
        expect(size(after)).toBeLessThan(size(before));
        expect(hasSummary(after)).toBe(true);
        // The compaction request has no tools: the model must answer in text.
        expect((bodies[i] as any).tools).toEqual([]);
      }
      for (const b of bodies) expectPaired(b);
      // The WebSocket run really crossed the socket (one frame per request).
      if (wire.length) expect(h.model.frames.length).toBe(bodies.length);
      // Compaction requests' tokens are counted too: one token.usage per request made.
      expect(h.events.filter((s) => s.event.type === "token.usage").length).toBe(bodies.length);
      // The user's request survives every compaction as a recent user message.
      expect(JSON.stringify(bodies.at(-1)!.input)).toContain("print six large blocks, please");
      // Stored history keeps everything: every call and output, plus the summary items.
      const stored = h.runtime.threads.history(thread.id).map((s) => s.item);
      const storedCalls = stored.filter((i) => i.type === "function_call").map((i: any) => i.call_id);
      expect(storedCalls).toEqual(calls);
      expect(stored.filter((i: any) => textOf(i).startsWith(SUMMARY_MARKER)).length).toBe(compactions.length);
      const ev = (await h.waitFor(compacted)) as EventOf<"context.compacted">;
      expect(ev.reason).toBe("auto");
      expect(ev.after_tokens).toBeLessThan(ev.before_tokens);
    },
  );

  // fails if: a context_length_exceeded error does not compact, or the failed request is not
  // retried after the compaction (the turn would fail instead of completing).
  it("a context_length_exceeded error compacts once and retries the request", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [big("k1", 500)] },
          { fault: { type: "failed", code: "context_length_exceeded" } },
          { output: [say("recovered")] },
        ],
      },
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    const outcome = await thread.startTurn("go").done;
    expect(outcome.status).toBe("completed");
    expect(outcome.lastMessage).toBe("recovered");
    const bodies = h.model.requests as Body[];
    expect(bodies.map(isCompaction)).toEqual([false, false, true, false]);
    expect(hasSummary(bodies[3])).toBe(true);
    expectPaired(bodies[3]);
    const ev = (await h.waitFor(compacted)) as EventOf<"context.compacted">;
    expect(ev.reason).toBe("context_length");
  });

  // fails if: a second overflow after the compaction is retried again (a loop) instead of
  // failing the turn with the context_length error.
  it("a second context_length_exceeded after compacting fails the turn", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [big("k1", 200)] },
          { fault: { type: "failed", code: "context_length_exceeded" } },
          { fault: { type: "failed", code: "context_length_exceeded" } },
          { output: [say("never")] },
        ],
      },
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    const outcome = await thread.startTurn("go").done;
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.kind).toBe("context_length");
    expect((h.model.requests as Body[]).filter(isCompaction).length).toBe(1);
  });

  // fails if: the open request_user_input call is summarised away or split from its output by
  // the compaction (the model would get the answer without its call, or under another call_id).
  it("a question pending across compaction is answered for the right call", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [say("let me ask")] },
          {
            output: [
              {
                type: "function_call",
                name: "request_user_input",
                call_id: "call_q",
                arguments: { questions: [{ id: "color", header: "Color", question: "Which color?" }] },
              },
            ],
          },
          { output: [say("painting it")] },
        ],
      },
      overrides: ["questions.default_mode=true"],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    await thread.startTurn("hello").done;
    const turn = thread.startTurn("paint the shed");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(thread.compact().id).toBe(turn.id);
    await h.waitFor(compacted);
    const r = h.runtime.questions.reply(
      thread.id,
      q.request.request_id,
      { answers: { color: { selected: [], other: "teal" } } },
      { kind: "test", id: "me" },
    );
    expect(r.ok).toBe(true);
    expect((await turn.done).status).toBe("completed");

    const bodies = h.model.requests as Body[];
    const ci = bodies.findIndex(isCompaction);
    // The compaction request never saw the open call (it is kept whole, not summarised).
    expect(JSON.stringify(bodies[ci].input)).not.toContain("call_q");
    const last = bodies.at(-1)!;
    expect(hasSummary(last)).toBe(true);
    const call = last.input.findIndex((i) => i.type === "function_call" && i.call_id === "call_q");
    const out = last.input.findIndex((i) => i.type === "function_call_output" && i.call_id === "call_q");
    expect(call).toBeGreaterThan(-1);
    expect(out).toBe(call + 1);
    expect(last.input[out].output).toContain("teal");
    expectPaired(last);
  });

  // fails if: a resumed thread rebuilds its prompt from the whole stored history instead of the
  // compacted view (the old outputs would reach the model again).
  it("a resumed thread sends the compacted view, not the whole stored history", async () => {
    const script = {
      steps: [
        { output: [big("r1", 3000)] },
        { output: [say("first done")] },
        { output: [say("second done")] },
      ],
    };
    h = await harness({ script, overrides: ['sandbox_mode="danger-full-access"'] });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("make a big block").done;
    const c = thread.compact();
    expect((await c.done).status).toBe("completed");
    const id = thread.id;
    const home = h.home;
    const cwd = h.cwd;
    await h.close();
    h = await harness({ script: { steps: [{ output: [say("resumed")] }] }, home, cwd });
    const resumed = h.runtime.threads.open(id);
    expect((await resumed.startTurn("and now?").done).status).toBe("completed");
    const body = (h.model.requests as Body[])[0];
    expect(hasSummary(body)).toBe(true);
    expect(JSON.stringify(body.input)).not.toContain("xxxxxxxxxxxxxxxxxxxx");
    expect(JSON.stringify(body.input)).toContain("make a big block");
    // Export still has the big output.
    expect(JSON.stringify(h.runtime.threads.history(id))).toContain("xxxxxxxxxxxxxxxxxxxx");
  });

  // fails if: a compaction request that itself overflows is not retried with its oldest part
  // dropped (the compaction would fail instead of completing).
  it("a compaction request that overflows is retried without its oldest part", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [big("t1", 800), big("t2", 800)] },
          { output: [big("t3", 800)] },
          { output: [say("done")] },
          { compaction: true, fault: { type: "failed", code: "context_length_exceeded" } },
        ],
      },
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("three blocks").done;
    expect((await thread.compact().done).status).toBe("completed");
    const compactions = (h.model.requests as Body[]).filter(isCompaction);
    expect(compactions).toHaveLength(2);
    expect(size(compactions[1])).toBeLessThan(size(compactions[0]));
    expectPaired(compactions[1]);
    expect(JSON.stringify(compactions[1].input)).toContain("t3");
  });

  // fails if: a script step marked "compaction" is played in the main sequence, or does not
  // answer the compaction request (the summary the model receives would be the generated one).
  it("a scripted compaction step answers the compaction request; the sequence is unchanged", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [say("one")] },
          { compaction: true, output: [say("SCRIPTED SUMMARY: the user said hi")] },
          { output: [say("two")] },
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    expect((await thread.startTurn("hi").done).lastMessage).toBe("one");
    expect((await thread.compact().done).status).toBe("completed");
    expect((await thread.startTurn("again").done).lastMessage).toBe("two");
    const last = (h.model.requests as Body[]).at(-1)!;
    expect(JSON.stringify(last.input)).toContain("SCRIPTED SUMMARY: the user said hi");
  });
});
