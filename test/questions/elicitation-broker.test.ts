/**
 * Typed questions from an MCP elicitation, end to end (README "MCP servers"): a tool that plays the
 * MCP client's part (`elicitationRequest` → `ctx.ask` → `outcomeToElicitResult`, exactly the
 * calls src/tools/mcp makes) runs in a real Runtime driven by the scripted model over HTTP. The
 * typed request is answered through the real HTTP API and through exec's `--answer` text
 * replies; a restart with the elicitation pending settles it as cancelled (real SQLite store).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { validateReply } from "../../src/questions/reply.js";
import { threadInternals } from "../../src/runtime/internals.testing.js";
import { collectAnswers, replyFromAnswers } from "../../src/surfaces/exec/answers.js";
import { elicitationRequest, outcomeToElicitResult } from "../../src/tools/mcp/elicitation.js";
import { defineTool } from "../../src/tools/types.js";
import { type Served, serve } from "../helpers/http.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

const FORM = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2 },
    email: { type: "string", format: "email", title: "Email" },
    age: { type: "integer", minimum: 0, maximum: 150, title: "Age" },
    agree: { type: "boolean", title: "Agree to the terms" },
    color: {
      type: "string",
      oneOf: [
        { const: "r", title: "Red" },
        { const: "g", title: "Green" },
      ],
      default: "g",
    },
    tools: {
      type: "array",
      minItems: 1,
      maxItems: 2,
      items: { anyOf: ["vim", "emacs", "nano"].map((c) => ({ const: c, title: c.toUpperCase() })) },
    },
  },
  required: ["name", "age", "agree"],
};
const TOOL = "mcp__demo__form";

/** What each form call answered its (pretend) MCP server, in order. */
const sent: unknown[] = [];

/** The MCP client's part for one `elicitation/create`, as a registered tool. */
function formTool(schema: unknown) {
  return defineTool({
    kind: "function",
    name: TOOL,
    description: "Asks the user for a form (test MCP tool)",
    parameters: z.object({}),
    async execute(_args, ctx) {
      const { questions, elicitation } = elicitationRequest("demo", {
        message: "Please fill in the form",
        requestedSchema: schema,
      } as never);
      const outcome = await ctx.ask(questions, { source: "internal", elicitation });
      const result = outcomeToElicitResult(questions, outcome, elicitation.mode);
      sent.push(result);
      return { output: JSON.stringify(result), success: true };
    },
  });
}

const script = {
  steps: [
    { output: [{ type: "function_call" as const, name: TOOL, arguments: {}, call_id: "call_form" }] },
    { output: [{ type: "message" as const, text: "thanks" }] },
  ],
};
const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

/** The tool output the model got for the form call, parsed. */
function outputFor(h: Harness): any {
  for (const body of h.model.requests as any[]) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === "call_form");
    if (out) return out.output.startsWith("{") ? JSON.parse(out.output) : out.output;
  }
  return undefined;
}

let served: Served | undefined;
let hs: Harness[] = [];
afterEach(async () => {
  await served?.close();
  served = undefined;
  for (const h of hs) await h.close();
  hs = [];
});

describe("an MCP elicitation through the broker", () => {
  it("HTTP: typed validation errors are 400 with validateReply's text; the accepted reply reaches the tool typed", async () => {
    served = await serve({ script });
    const { h, call } = served;
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    threadInternals(h.runtime, thread.id).registry.register(formTool(FORM));
    const turn = thread.startTurn("fill the form");
    const ev = await h.waitFor(requested);
    const { request } = ev;
    // fails if the runtime's ask drops the elicitation info or the typed fields on the way
    expect(request.source).toBe("internal");
    expect(request.elicitation).toEqual({ server: "demo", mode: "form", message: "Please fill in the form" });
    expect(request.questions.map((q) => [q.id, q.kind, q.required])).toEqual([
      ["name", "text", true],
      ["email", "text", false],
      ["age", "number", true],
      ["agree", "boolean", true],
      ["color", "single", false],
      ["tools", "multi", false],
    ]);
    const listed = await call("GET", `/question?thread=${thread.id}`);
    // fails if the HTTP inbox loses the typed fields (zod schema not carried to the wire)
    expect(listed.json.questions[0].questions[2]).toMatchObject({ integer: true, minimum: 0, maximum: 150 });
    expect(listed.json.questions[0].elicitation.server).toBe("demo");

    // fails if the OpenAPI document does not describe the typed fields (it derives them from zod)
    const doc = (await call("GET", "/openapi.json")).json;
    const schema = doc.components.schemas.QuestionRequest.properties;
    expect(schema.elicitation.properties.mode.enum).toEqual(["form", "url"]);
    expect(schema.questions.items.properties.kind.enum).toEqual([
      "single",
      "multi",
      "text",
      "boolean",
      "number",
    ]);
    expect(schema.questions.items.properties.format.enum).toContain("date-time");
    expect(Object.keys(schema.questions.items.properties)).toEqual(
      expect.arrayContaining([
        "integer",
        "minimum",
        "maximum",
        "min_items",
        "max_items",
        "default",
        "required",
      ]),
    );

    const path = `/question/${request.request_id}/reply`;
    const bad = { name: { other: "Ada" }, age: { other: "200" }, agree: { selected: ["Yes"] } };
    const r1 = await call("POST", path, { thread_id: thread.id, answers: bad });
    // fails if HTTP validates differently from validateReply (every surface must say the same)
    const expected = validateReply(request.questions, { answers: bad as never });
    expect(r1.status).toBe(400);
    expect(r1.json.error.message).toBe((expected as { message: string }).message);
    expect(r1.json.error.message).toBe(
      'question "age": "200" is out of range; expected a whole number from 0 to 150',
    );
    // fails if a required question may be left out
    const r2 = await call("POST", path, { thread_id: thread.id, answers: { name: { other: "Ada" } } });
    expect(r2.status).toBe(400);
    expect(r2.json.error.message).toMatch(/^question "age" is required/);
    // text replies over HTTP take the same grammar as exec
    const r3 = await call("POST", path, {
      thread_id: thread.id,
      text: { name: "Ada", email: "ada@example.com", age: "42", agree: "yes", tools: "1,3" },
    });
    expect(r3.status).toBe(200);
    // fails if the number is not normalised or the default is not filled in
    expect(r3.json.outcome.answers).toMatchObject({ age: { other: "42" }, color: { selected: ["Green"] } });
    await turn.done;
    // fails if the server would get labels, strings for numbers/booleans, or no default
    expect(outputFor(h)).toEqual({
      action: "accept",
      content: {
        name: "Ada",
        email: "ada@example.com",
        age: 42,
        agree: true,
        color: "g",
        tools: ["vim", "nano"],
      },
    });
  });

  it("exec --answer text replies: typed errors name the question; yes/no and numbers answer", async () => {
    const h = await harness({ script });
    hs.push(h);
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    threadInternals(h.runtime, thread.id).registry.register(formTool(FORM));
    const turn = thread.startTurn("fill the form");
    const { request } = await h.waitFor(requested);

    const badArgs = await collectAnswers({ answers: ["name=Ada", "age=old", "agree=perhaps", "email=nope"] });
    if (!badArgs.ok) throw new Error(badArgs.error);
    // fails if exec parses typed answers with its own rules instead of the shared ones
    expect(replyFromAnswers(request, badArgs.given).errors).toEqual([
      '--answer age: question "age": "old" is not a number; expected a whole number from 0 to 150',
      '--answer agree: question "agree": "perhaps" is neither yes nor no; expected "yes" or "no"',
      '--answer email: question "email": "nope" is not an email address (e.g. name@example.com)',
    ]);

    const good = await collectAnswers({ answers: ["name=Bo", "age=7", "agree=false", "color=Red"] });
    if (!good.ok) throw new Error(good.error);
    const { reply, errors } = replyFromAnswers(request, good.given);
    expect(errors).toEqual([]);
    const r = h.runtime.questions.reply(thread.id, request.request_id, reply!, { kind: "exec" });
    expect(r.ok).toBe(true);
    await turn.done;
    // fails if "false" is read as true, the number stays a string, or a title goes back instead of the const
    expect(outputFor(h)).toEqual({
      action: "accept",
      content: { name: "Bo", age: 7, agree: false, color: "r" },
    });
  });

  it("decline and interrupt reach the server as decline and cancel", async () => {
    const h = await harness({ script: { steps: [...script.steps, script.steps[0]] } });
    hs.push(h);
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    threadInternals(h.runtime, thread.id).registry.register(formTool(FORM));
    const turn = thread.startTurn("fill the form");
    const { request } = await h.waitFor(requested);
    h.runtime.questions.decline(thread.id, request.request_id, { kind: "tui" });
    await turn.done;
    // fails if a declined question is sent as cancel or accept
    expect(outputFor(h)).toEqual({ action: "decline" });

    sent.length = 0;
    const t2 = h.runtime.threads.start({ cwd: h.cwd });
    threadInternals(h.runtime, t2.id).registry.register(formTool(FORM));
    const turn2 = t2.startTurn("again");
    await h.waitFor((e) => requested(e) && e.thread_id === t2.id);
    t2.interrupt();
    await turn2.done;
    await vi.waitFor(() => expect(sent).toHaveLength(1), { timeout: 5000 });
    // fails if an interrupted elicitation is not answered `cancel` (the server would wait forever)
    expect(sent).toEqual([{ action: "cancel" }]);
  });

  it("a restart with the elicitation pending settles it cancelled and the tool output says why", async () => {
    const home = tempDir("tandem-home-");
    const first = await harness({ script, home });
    const thread = first.runtime.threads.start({ cwd: first.cwd });
    threadInternals(first.runtime, thread.id).registry.register(formTool(FORM));
    thread.startTurn("fill the form");
    const { request } = await first.waitFor(requested);
    await first.close(); // shutdown: the question stays pending in the store (Q11)
    expect(first.model.requests).toHaveLength(1);

    const second = await harness({
      script: { steps: [{ output: [{ type: "message", text: "ok" }] }] },
      home,
    });
    hs.push(second);
    expect(second.runtime.questions.get(request.request_id)?.outcome).toBeFalsy();
    const again = second.runtime.threads.open(thread.id);
    await again.active?.done;
    // fails if the elicitation is re-asked (its server request is gone) instead of settling
    expect(second.events.some((s) => s.event.type === "question.requested")).toBe(false);
    const stored = second.runtime.questions.get(request.request_id);
    expect(stored?.outcome).toMatchObject({
      status: "cancelled",
      reason: expect.stringContaining("did not survive the restart"),
    });
    const cancelled = second.events.find((s) => s.event.type === "question.cancelled");
    expect(cancelled?.event).toMatchObject({ request_id: request.request_id });
    // fails if the model is not told why the tool call ended
    expect(outputFor(second)).toMatch(
      /^MCP server "demo" asked for input \(elicitation\) but Tandem restarted/,
    );
    expect(second.runtime.questions.stored(thread.id)).toEqual([]);
  });
});
