import { describe, expect, it } from "vitest";
import type { Question, QuestionOutcome, QuestionPolicy } from "../protocol/questions.js";
import type { RequestUserInputArgs } from "../questions/model.js";
import type { PauseClock } from "../util/pause-clock.js";
import {
  availabilitySentence,
  createRequestUserInputTool,
  DISABLED_ERROR,
  ROOT_THREAD_ERROR,
} from "./request-user-input.js";
import type { AskOptions, QuestionGate, ToolContext } from "./types.js";

interface Harness {
  ctx: ToolContext;
  asked: Array<{ questions: Question[]; opts: AskOptions }>;
}

/** A plain ToolContext whose `ask` resolves a canned outcome and records what it was asked. */
function harness(
  over: {
    gate?: Partial<QuestionGate>;
    responder?: boolean;
    mode?: ToolContext["mode"];
    isSubAgent?: boolean;
    outcome?: QuestionOutcome;
    signal?: AbortSignal;
    secrets?: string[];
  } = {},
): Harness {
  const asked: Harness["asked"] = [];
  const secrets = over.secrets ?? [];
  const policy: QuestionPolicy = { type: "wait" };
  const ctx: ToolContext = {
    signal: over.signal ?? new AbortController().signal,
    callId: "call_1",
    threadId: "thread_1",
    turnId: "turn_1",
    cwd: "/tmp",
    mode: over.mode ?? "plan",
    isSubAgent: over.isSubAgent ?? false,
    async ask(questions, opts) {
      asked.push({ questions, opts });
      return over.outcome ?? { status: "answered", answers: {}, unanswered: [], responder: { kind: "tui" } };
    },
    onUpdate() {},
    secrets: {
      env: () => ({}),
      mask: (text) => secrets.reduce((t, s) => t.split(s).join("[redacted secret]"), text),
    },
    pause: {} as PauseClock,
    questions: {
      enabled: true,
      subAgentPolicy: "relay",
      defaultModeAllowed: false,
      hasResponder: () => over.responder ?? true,
      policy,
      ...over.gate,
    },
    safety: {
      sandbox: { mode: "danger-full-access", writableRoots: [], network: true, protectedPaths: [] },
      approvalPolicy: "never",
      requestApproval: async () => "decline",
    },
  };
  return { ctx, asked };
}

const args: RequestUserInputArgs = {
  questions: [
    {
      id: "db_engine",
      header: "Database",
      question: "Which database?",
      options: [
        { label: "Postgres (Recommended)", description: "Already in the stack" },
        { label: "SQLite", description: "Zero ops" },
      ],
    },
  ],
};
const secretArgs: RequestUserInputArgs = {
  questions: [
    args.questions[0],
    { id: "api_key", header: "API key", question: "Paste the API key", secret: true },
    { id: "comment", header: "Comment", question: "Anything else?" },
  ],
};

const tool = createRequestUserInputTool({ availableModes: ["plan"] });

describe("createRequestUserInputTool", () => {
  it("is a function tool named request_user_input whose parameters are the args schema", () => {
    expect(tool.kind).toBe("function");
    expect(tool.name).toBe("request_user_input");
    expect(tool.parameters.safeParse(args).success).toBe(true);
  });

  it("describes its purpose, the Other and (Recommended) rules, secrets, and the modes", () => {
    expect(tool.description).toContain("Prefer 1 question");
    expect(tool.description).toContain('Do not add an "Other" option');
    expect(tool.description).toContain('end its label with " (Recommended)"');
    expect(tool.description).toContain("secret: true");
    expect(tool.description).toMatch(/Available in Plan mode only\.$/);
    const both = createRequestUserInputTool({ availableModes: ["default", "plan"] });
    expect(both.description).toMatch(/Available in Plan and Default modes\.$/);
  });

  it.each([
    [[], "Not available in any mode in this configuration."],
    [["plan"], "Available in Plan mode only."],
    [["default"], "Available in Default mode only."],
    [["plan", "default"], "Available in Plan and Default modes."],
  ] as const)("availabilitySentence(%j)", (modes, sentence) => {
    expect(availabilitySentence([...modes])).toBe(sentence);
  });
});

describe("availability gate (Q3), in order, never asking", () => {
  const DEFAULT_MODE_ERROR =
    "request_user_input is unavailable in Default mode; it can be used in Plan mode only. " +
    "Proceed on your best judgement and state your assumptions.";

  const cases: Array<[string, Parameters<typeof harness>[0], string]> = [
    [
      "disabled beats everything",
      {
        gate: { enabled: false, subAgentPolicy: "deny" },
        isSubAgent: true,
        mode: "default",
        responder: false,
      },
      DISABLED_ERROR,
    ],
    [
      "a denied sub-agent in default mode gets the root-thread error first",
      { gate: { subAgentPolicy: "deny" }, isSubAgent: true, mode: "default", responder: false },
      ROOT_THREAD_ERROR,
    ],
    [
      "a denied sub-agent in plan mode",
      { gate: { subAgentPolicy: "deny" }, isSubAgent: true },
      ROOT_THREAD_ERROR,
    ],
    [
      "default mode when not allowed, before the responder check",
      { mode: "default", responder: false },
      DEFAULT_MODE_ERROR,
    ],
  ];
  it.each(cases)("%s", async (_name, over, error) => {
    const h = harness(over);
    expect(await tool.execute(args, h.ctx)).toEqual({ output: error, success: false });
    expect(h.asked).toEqual([]);
  });

  it("gives each gate a distinct message", () => {
    expect(new Set([DISABLED_ERROR, ROOT_THREAD_ERROR, DEFAULT_MODE_ERROR]).size).toBe(3);
  });

  it("lets a relayed sub-agent ask, and default mode when configured", async () => {
    for (const over of [
      { isSubAgent: true },
      { mode: "default" as const, gate: { defaultModeAllowed: true } },
    ]) {
      const h = harness(over);
      expect((await tool.execute(args, h.ctx)).success).toBe(true);
      expect(h.asked).toHaveLength(1);
    }
  });

  it("without a responder returns an unavailable result at once", async () => {
    const h = harness({ responder: false });
    const r = await tool.execute(args, h.ctx);
    expect(r.success).toBe(false);
    const out = JSON.parse(r.output as string);
    expect(out).toMatchObject({ status: "unavailable", answers: {}, unanswered: ["db_engine"] });
    expect(out.message).toContain("non-interactive");
    expect(out.message).toContain("state the assumptions");
    expect(h.asked).toEqual([]);
  });

  it("checks the gates before validating the arguments", async () => {
    const h = harness({ gate: { enabled: false } });
    expect((await tool.execute({ questions: [] }, h.ctx)).output).toBe(DISABLED_ERROR);
  });
});

describe("execute", () => {
  it("returns the precise validation error without asking", async () => {
    const h = harness();
    const bad = { questions: [{ ...args.questions[0], header: "Database engine" }] };
    const r = await tool.execute(bad, h.ctx);
    expect(r).toEqual({
      output:
        'Invalid request_user_input arguments:\n- questions[0] ("db_engine"): header "Database engine" is 15 characters; the limit is 12',
      success: false,
    });
    expect(h.asked).toEqual([]);
  });

  it("asks the protocol questions with source model and the gate's policy", async () => {
    const h = harness({ gate: { policy: { type: "timeout", ms: 1000, on_timeout: "decline" } } });
    await tool.execute(args, h.ctx);
    expect(h.asked).toHaveLength(1);
    expect(h.asked[0].opts).toEqual({
      source: "model",
      policy: { type: "timeout", ms: 1000, on_timeout: "decline" },
    });
    expect(h.asked[0].questions).toEqual([
      {
        id: "db_engine",
        header: "Database",
        prompt: "Which database?",
        kind: "single",
        options: args.questions[0].options,
        allow_other: true,
        secret: false,
      },
    ]);
  });

  it.each<[QuestionOutcome, object, boolean]>([
    [
      {
        status: "answered",
        answers: { db_engine: { selected: ["SQLite"], note: "tiny" } },
        unanswered: [],
        responder: { kind: "web" },
      },
      { status: "answered", answers: { db_engine: { selected: ["SQLite"], note: "tiny" } }, unanswered: [] },
      true,
    ],
    [
      { status: "declined", responder: { kind: "tui" } },
      { status: "declined", answers: {}, unanswered: ["db_engine"] },
      true,
    ],
    [
      {
        status: "timed_out",
        policy: { type: "timeout", ms: 10, on_timeout: "recommended" },
        answers: { db_engine: { selected: ["Postgres (Recommended)"] } },
        unanswered: [],
      },
      {
        status: "timed_out",
        policy: { type: "timeout", ms: 10, on_timeout: "recommended" },
        answers: { db_engine: { selected: ["Postgres (Recommended)"] } },
        unanswered: [],
      },
      true,
    ],
    [
      { status: "unavailable", reason: "responder detached" },
      { status: "unavailable", answers: {}, unanswered: ["db_engine"] },
      false,
    ],
  ])("maps outcome %j to the Q6 JSON", async (outcome, shape, success) => {
    const r = await tool.execute(args, harness({ outcome }).ctx);
    expect(r.success).toBe(success);
    expect(JSON.parse(r.output as string)).toMatchObject(shape);
  });

  it("throws an AbortError on cancelled, so the call is recorded as aborted", async () => {
    const h = harness({ outcome: { status: "cancelled", reason: "interrupted" } });
    await expect(tool.execute(args, h.ctx)).rejects.toMatchObject({
      name: "AbortError",
      message: "request_user_input was cancelled: interrupted",
    });
  });

  it("throws an AbortError without asking when the signal is already aborted", async () => {
    const ac = new AbortController();
    ac.abort();
    const h = harness({ signal: ac.signal });
    await expect(tool.execute(args, h.ctx)).rejects.toMatchObject({ name: "AbortError" });
    expect(h.asked).toEqual([]);
  });
});

describe("secrets (Q10)", () => {
  const answered: QuestionOutcome = {
    status: "answered",
    answers: {
      db_engine: { selected: ["SQLite"], note: "key is sk-live-123" },
      api_key: { selected: [], other: "sk-live-123" },
      comment: { selected: [], other: "I pasted sk-live-123 above" },
    },
    unanswered: [],
    responder: { kind: "tui" },
  };

  it("stores the secret and gives the model only the handle; masks it elsewhere", async () => {
    const stored: Array<[string, string, string]> = [];
    const withStore = createRequestUserInputTool({
      availableModes: ["plan"],
      storeSecret: (id, value, ctx) => {
        stored.push([id, value, ctx.threadId]);
        return `$TANDEM_SECRET_${id.toUpperCase()}`;
      },
    });
    const r = await withStore.execute(
      secretArgs,
      harness({ outcome: answered, secrets: ["sk-live-123"] }).ctx,
    );
    expect(stored).toEqual([["api_key", "sk-live-123", "thread_1"]]);
    expect(r.output).not.toContain("sk-live-123");
    expect(JSON.parse(r.output as string).answers).toEqual({
      db_engine: { selected: ["SQLite"], note: "key is [redacted secret]" },
      api_key: { selected: [], other: "$TANDEM_SECRET_API_KEY" },
      comment: { selected: [], other: "I pasted [redacted secret] above" },
    });
  });

  it("awaits an async store, and stores secrets from a timed-out outcome too", async () => {
    const withStore = createRequestUserInputTool({
      availableModes: ["plan"],
      storeSecret: async (id) => `$TANDEM_SECRET_${id.toUpperCase()}`,
    });
    const outcome: QuestionOutcome = {
      status: "timed_out",
      policy: { type: "timeout", ms: 5, on_timeout: "empty" },
      answers: { api_key: { selected: [], other: "hunter2" } },
      unanswered: ["db_engine", "comment"],
    };
    const r = await withStore.execute(secretArgs, harness({ outcome }).ctx);
    expect(r.output).not.toContain("hunter2");
    expect(JSON.parse(r.output as string).answers.api_key.other).toBe("$TANDEM_SECRET_API_KEY");
  });

  it("without a store the model gets a redaction marker, never the value", async () => {
    const r = await tool.execute(secretArgs, harness({ outcome: answered }).ctx);
    expect(r.output).not.toContain('"sk-live-123"');
    expect(JSON.parse(r.output as string).answers.api_key).toEqual({
      selected: [],
      other: "[redacted secret]",
    });
  });

  it("asks the secret question as a free-text secret question", async () => {
    const h = harness({ outcome: answered });
    await tool.execute(secretArgs, h.ctx);
    expect(h.asked[0].questions[1]).toMatchObject({ id: "api_key", kind: "text", secret: true, options: [] });
  });
});
