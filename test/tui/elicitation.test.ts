/**
 * A typed MCP elicitation form answered in the TUI's question overlay (ink-testing-library) with
 * the real broker behind it: a number, a boolean, a multi-select and a single choice with a
 * default, the required check, and the broker's typed error shown inline (README "MCP servers").
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import type { Event, EventOf } from "../../src/protocol/events.js";
import type { QuestionRequest } from "../../src/protocol/questions.js";
import { threadInternals } from "../../src/runtime/internals.testing.js";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { type ActionResult, QuestionOverlay } from "../../src/surfaces/tui/overlay.js";
import { elicitationRequest, outcomeToElicitResult } from "../../src/tools/mcp/elicitation.js";
import { defineTool } from "../../src/tools/types.js";
import { type Harness, harness } from "../helpers/index.js";
import { inAct, pressKeys } from "../helpers/ink-act.js";

const FORM = {
  type: "object",
  properties: {
    age: { type: "integer", title: "Age", description: "How old are you?", minimum: 0, maximum: 150 },
    agree: { type: "boolean", title: "Terms", description: "Agree to the terms?" },
    tools: {
      type: "array",
      title: "Editors",
      description: "Which editors?",
      minItems: 1,
      maxItems: 2,
      items: { anyOf: ["vim", "emacs", "nano"].map((c) => ({ const: c, title: c.toUpperCase() })) },
    },
    color: {
      type: "string",
      title: "Color",
      oneOf: [
        { const: "r", title: "Red" },
        { const: "g", title: "Green" },
      ],
      default: "g",
    },
  },
  required: ["age", "agree"],
};
const KEY = { enter: "\r", left: "\x1b[D", bs: "\x7f" };

let hs: Harness | undefined;
let ink: ReturnType<typeof render> | undefined;
afterEach(async () => {
  ink?.unmount();
  ink = undefined;
  await hs?.close();
  hs = undefined;
});

describe("TUI overlay: a typed elicitation form", () => {
  it("answers number + boolean + multi; required and the broker's typed error show inline", async () => {
    let sent: unknown;
    hs = await harness({
      script: {
        steps: [
          {
            output: [{ type: "function_call", name: "mcp__demo__form", arguments: {}, call_id: "call_form" }],
          },
          { output: [{ type: "message", text: "thanks" }] },
        ],
      },
    });
    const thread = hs.runtime.threads.start({ cwd: hs.cwd });
    threadInternals(hs.runtime, thread.id).registry.register(
      defineTool({
        kind: "function",
        name: "mcp__demo__form",
        description: "test MCP form",
        parameters: z.object({}),
        async execute(_a, ctx) {
          const { questions, elicitation } = elicitationRequest("demo", {
            message: "Please fill in the form",
            requestedSchema: FORM,
          } as never);
          sent = outcomeToElicitResult(
            questions,
            await ctx.ask(questions, { source: "internal", elicitation }),
          );
          return { output: JSON.stringify(sent), success: true };
        },
      }),
    );
    const turn = thread.startTurn("form");
    const { request } = (await hs.waitFor(
      (e: Event) => e.type === "question.requested",
    )) as EventOf<"question.requested">;
    const runtime = hs.runtime;
    const onSubmit = (r: QuestionRequest, reply: unknown): ActionResult => {
      const res = runtime.questions.reply(r.thread_id, r.request_id, reply as never, { kind: "tui" });
      return res.ok ? { ok: true } : { ok: false, message: res.message };
    };
    ink = render(
      h(QuestionOverlay, {
        request,
        keymap: defaultKeymap,
        onSubmit,
        onDecline: (): ActionResult => ({ ok: true }),
        onTouch: () => {},
      }),
    );
    await inAct();
    const i = ink;
    const press = (...keys: string[]) => pressKeys(i.stdin, ...keys);

    let f = i.lastFrame()!;
    // fails if the overlay hides who asks, the server's message, or the number's bounds
    expect(f).toContain('(from MCP server "demo")');
    expect(f).toContain("Please fill in the form");
    expect(f).toContain("How old are you? — a whole number from 0 to 150");

    // Enter through everything: the boolean takes the highlighted Yes, the color its default,
    // but the required age is empty: the submit stops on it.
    await press(KEY.enter, KEY.enter, KEY.enter, KEY.enter);
    f = i.lastFrame()!;
    // fails if a required question can be skipped in the overlay
    expect(f).toContain('"Age" is required');
    expect(f).toContain("Question 1/4");

    await press("200", KEY.enter);
    expect(i.lastFrame()).toContain("1. (•) Yes");
    await press(KEY.enter, "1", "3");
    f = i.lastFrame()!;
    expect(f).toContain("1. [x] VIM");
    expect(f).toContain("3. [x] NANO");
    await press(KEY.enter);
    // fails if the default is not pre-selected
    expect(i.lastFrame()).toContain("2. (•) Green");
    await press(KEY.enter);
    // fails if the broker's typed refusal is not shown inline (the overlay stays open)
    expect(i.lastFrame()).toContain(
      'question "age": "200" is out of range; expected a whole number from 0 to 150',
    );

    await press(KEY.left, KEY.left, KEY.left, KEY.bs, KEY.bs, KEY.bs, "42");
    expect(i.lastFrame()).toContain("Answer: 42");
    await press(KEY.enter, KEY.enter, KEY.enter, KEY.enter);
    await turn.done;
    // fails if the overlay's answers do not reach the server typed, with option values
    expect(sent).toEqual({
      action: "accept",
      content: { age: 42, agree: true, tools: ["vim", "nano"], color: "g" },
    });
  });
});
