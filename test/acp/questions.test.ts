/**
 * Questions over `tandem acp` (README "MCP servers", requirements S5): a real agent process, a real scripted
 * model, and the SDK's client side as the editor. With form elicitation a Plan-mode question is an
 * `elicitation/create` form whose typed answer reaches the model; without it single-choice questions
 * are permission requests and anything else is "no responder"; session/cancel settles a pending
 * question without a hang.
 */
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { Scripts } from "../../src/mock-model/index.js";
import { OTHER_LABEL, SECRET_META } from "../../src/protocol/form-rules.js";
import { elicitationLabel } from "../../src/protocol/questions.js";
import { type AcpRun, startAcp, textOf } from "../helpers/acp-client.js";
import { modelRequests } from "../helpers/app-server.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING, HOSTILE } from "../helpers/mcp.js";

const message = (text: string) => ({ type: "message" as const, text });
const ask = (callId: string, questions: unknown[]) => ({
  type: "function_call" as const,
  name: "request_user_input",
  call_id: callId,
  arguments: { questions },
});
const STACK = {
  id: "stack",
  header: "Stack",
  question: "Which stack?",
  options: [
    { label: "TypeScript (Recommended)", description: "Node 20" },
    { label: "Rust", description: "cargo" },
  ],
};

/** The output the model received for a call. */
function callOutput(mock: MockProcess, callId: string): string {
  for (const body of modelRequests(mock)) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return "";
}

describe("tandem acp: questions", () => {
  let mock: MockProcess | undefined;
  const runs: AcpRun[] = [];
  afterEach(async () => {
    for (const r of runs.splice(0)) await r.close();
    await mock?.stop();
    mock = undefined;
  });

  async function planSession(script: Script, caps: acp.ClientCapabilities) {
    mock = await startMockProcess(script);
    const run = startAcp(mock);
    runs.push(run);
    await run.initialize(caps);
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [],
    });
    await run.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    expect(run.of(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("plan");
    return { run, sessionId };
  }

  // fails if a Plan-mode question does not go out as a form tied to the session and tool call, if
  // options are not titled oneOf or the explicit "Other…" choice is missing (or a free-text field
  // is added beside it), if an invalid answer is lost instead of re-asked with the reason, or if the
  // typed answer does not reach the model.
  it("a Plan-mode question is answered through elicitation/create and the model gets the typed answer", async () => {
    const demo = Scripts.questionDemo();
    const [askStep, write, report] = demo.steps;
    const { run, sessionId } = await planSession(
      { ...demo, steps: [askStep, { ...write, expect: { input_contains: ["demo-app", "Rust"] } }, report] },
      { elicitation: { form: {} } },
    );
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Set up the demo project" }],
    });
    const form = await run.elicitations.next("elicitation");
    const params = form.params as Extract<acp.CreateElicitationRequest, { mode: "form" }> & {
      sessionId: string;
      toolCallId: string;
    };
    expect(params).toMatchObject({ mode: "form", sessionId, toolCallId: "call_q01" });
    expect(params.message).toContain("Which stack should the demo project use?");
    const props = params.requestedSchema.properties!;
    expect(props.stack).toMatchObject({
      type: "string",
      title: "Stack",
      oneOf: [
        { const: "TypeScript (Recommended)", title: "TypeScript (Recommended)" },
        { const: "Rust", title: "Rust" },
        { const: OTHER_LABEL, title: OTHER_LABEL },
      ],
    });
    expect(Object.keys(props)).toEqual(["stack", "name"]);
    expect(props.name).toMatchObject({ type: "string", title: "Name" });
    // The tool call the form belongs to was announced.
    expect(run.of(sessionId, "tool_call").some((u) => u.toolCallId === "call_q01")).toBe(true);

    // Two choices for a single-choice question: refused by the broker, asked again with the reason.
    form.respond({ action: "accept", content: { stack: ["Rust", "TypeScript (Recommended)"] } } as never);
    const again = await run.elicitations.next("elicitation asked again");
    expect(again.params.message).toContain("Your previous answer was not used");
    again.respond({ action: "accept", content: { stack: "Rust", name: "demo-app" } });

    expect((await prompt).stopReason).toBe("end_turn");
    expect(JSON.parse(callOutput(mock!, "call_q01"))).toMatchObject({
      status: "answered",
      answers: { stack: { selected: ["Rust"] }, name: { other: "demo-app" } },
    });
  });

  // fails if choosing "Other…" does not lead to a second form asking only for that question's text
  // (a required field named by its id), or if the typed text does not reach the model as `other`
  // (with nothing selected) — or if text could be given without choosing "Other…".
  it('"Other…" is chosen in the form, its text asked in a second form, and the model gets it as other', async () => {
    const { run, sessionId } = await planSession(
      {
        steps: [
          { output: [ask("q1", [STACK])] },
          { expect: { input_contains: ["Zig"] }, output: [message("Zig it is")] },
        ],
      },
      { elicitation: { form: {} } },
    );
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    const first = await run.elicitations.next("the question's form");
    const schema = (first.params as any).requestedSchema;
    expect(Object.keys(schema.properties)).toEqual(["stack"]);
    first.respond({ action: "accept", content: { stack: OTHER_LABEL } });
    const second = await run.elicitations.next("the Other… text form");
    expect(second.params).toMatchObject({ mode: "form", sessionId, toolCallId: "q1" });
    expect((second.params as any).requestedSchema).toEqual({
      type: "object",
      properties: { stack: expect.objectContaining({ type: "string", minLength: 1 }) },
      required: ["stack"],
    });
    second.respond({ action: "accept", content: { stack: "Zig" } });
    expect((await prompt).stopReason).toBe("end_turn");
    expect(JSON.parse(callOutput(mock!, "q1"))).toMatchObject({
      status: "answered",
      answers: { stack: { selected: [], other: "Zig" } },
    });
    expect(run.elicitations.size).toBe(0);
  });

  // fails if multi-select is not an array of titled anyOf items, if secret questions are not marked
  // for masking, or if the secret value (not its handle) reaches the model.
  it("multi-select as an array, secrets marked and never shown to the model", async () => {
    const features = {
      id: "features",
      header: "Features",
      question: "Which features?",
      multi_select: true,
      options: [
        { label: "Lint", description: "biome" },
        { label: "Tests", description: "vitest" },
        { label: "Docs", description: "typedoc" },
      ],
    };
    const token = { id: "token", header: "Token", question: "Your API token?", secret: true };
    const { run, sessionId } = await planSession(
      {
        steps: [
          { output: [ask("q1", [features, token])] },
          { expect: { input_contains: ["Lint", "TANDEM_SECRET_TOKEN"] }, output: [message("noted")] },
        ],
      },
      { elicitation: { form: {} } },
    );
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "configure" }],
    });
    const form = await run.elicitations.next("elicitation");
    const props = (form.params as any).requestedSchema.properties;
    expect(props.features).toMatchObject({
      type: "array",
      items: {
        anyOf: [
          { const: "Lint", title: "Lint" },
          { const: "Tests" },
          { const: "Docs" },
          { const: OTHER_LABEL },
        ],
      },
    });
    // Secrets are marked as on every form (protocol/form-rules.ts): listed in the form's _meta, and
    // the field's description says so.
    expect((form.params as any)._meta).toEqual({ [SECRET_META]: ["token"] });
    expect(props.token).toMatchObject({ type: "string", description: expect.stringContaining("Secret:") });
    form.respond({ action: "accept", content: { features: ["Lint", "Tests"], token: "s3cr3t-value-123" } });
    expect((await prompt).stopReason).toBe("end_turn");
    const output = JSON.parse(callOutput(mock!, "q1"));
    expect(output.answers.features.selected).toEqual(["Lint", "Tests"]);
    expect(output.answers.token.other).toBe("$TANDEM_SECRET_TOKEN");
    expect(JSON.stringify(modelRequests(mock!))).not.toContain("s3cr3t-value-123");
    expect(run.stderr()).not.toContain("s3cr3t-value-123");
  });

  // fails if a client without elicitation does not get single-choice questions as permission
  // requests (option picked → selected label), or if a free-text question waits instead of telling
  // the model no one can answer.
  it("without form elicitation: single choice as request_permission, free text is no responder", async () => {
    const name = { id: "name", header: "Name", question: "What name?" };
    const { run, sessionId } = await planSession(
      {
        steps: [
          { output: [ask("q1", [STACK])] },
          { expect: { input_contains: ["Rust"] }, output: [ask("q2", [name])] },
          { expect: { input_contains: ["unavailable"] }, output: [message("going on alone")] },
        ],
      },
      {},
    );
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    const perm = await run.permissions.next("permission request");
    expect(perm.params.toolCall).toMatchObject({ toolCallId: "q1" });
    expect(perm.params.toolCall.title).toContain("Which stack?");
    expect(perm.params.options.map((o) => o.name)).toEqual([
      "TypeScript (Recommended)",
      "Rust",
      "Skip (do not answer)",
    ]);
    const rust = perm.params.options.find((o) => o.name === "Rust")!;
    perm.respond({ outcome: { outcome: "selected", optionId: rust.optionId } });
    expect((await prompt).stopReason).toBe("end_turn");
    expect(JSON.parse(callOutput(mock!, "q1"))).toMatchObject({
      status: "answered",
      answers: { stack: { selected: ["Rust"] } },
    });
    const noResponder = callOutput(mock!, "q2");
    expect(noResponder).toContain('"status":"unavailable"');
    expect(noResponder).toContain("no form elicitation");
    expect(run.permissions.size).toBe(0);
    expect(run.elicitations.size).toBe(0);
  });

  // fails if a question pending when the editor went away is lost instead of asked again after
  // session/load in a new process (Q11), or if its late answer does not complete the turn.
  it("a question pending when the agent exits is asked again after session/load", async () => {
    const demo = Scripts.questionDemo();
    const [askStep, write, report] = demo.steps;
    const { run, sessionId } = await planSession(
      { ...demo, steps: [askStep, { ...write, expect: { input_contains: ["late-app"] } }, report] },
      { elicitation: { form: {} } },
    );
    const prompt = run.agent
      .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Set up" }] })
      .catch((e) => e);
    await run.elicitations.next("elicitation");
    expect(await run.close()).toBe(0);
    runs.splice(0);
    await prompt;

    const again = startAcp(mock!, [], run.home);
    runs.push(again);
    await again.initialize({ elicitation: { form: {} } });
    const loaded = await again.agent.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: tempDir(),
      mcpServers: [],
    });
    expect(loaded?.modes?.currentModeId).toBe("plan");
    const form = await again.elicitations.next("elicitation asked again").catch((e) => {
      throw new Error(`${e.message}; stderr: ${again.stderr()} updates: ${JSON.stringify(again.updates)}`);
    });
    expect(form.params).toMatchObject({ sessionId, toolCallId: "call_q01" });
    form.respond({ action: "accept", content: { stack: "Rust", name: "late-app" } });
    await expect
      .poll(() => again.of(sessionId, "agent_message_chunk").map(textOf).join(""), { timeout: 10_000 })
      .toContain("Created README.md");
    expect(JSON.parse(callOutput(mock!, "call_q01"))).toMatchObject({
      status: "answered",
      answers: { stack: { selected: ["Rust"] }, name: { other: "late-app" } },
    });
  });

  // fails if an MCP server's elicitation relayed through Tandem loses its types on the way to the
  // editor (boolean, integer bounds and default, formats, titled choices, required), or if the
  // editor's typed answer does not reach the server typed (integer as a number, boolean as a boolean).
  it("an MCP server's form reaches the editor with its types, and the typed answer reaches the server", async () => {
    mock = await startMockProcess({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "mcp__everything__trigger-elicitation-request",
              call_id: "el",
              arguments: {},
            },
          ],
        },
        { output: [message("thanks")] },
      ],
    });
    const run = startAcp(mock);
    runs.push(run);
    await run.initialize({ elicitation: { form: {} } });
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [{ name: "everything", command: process.execPath, args: [EVERYTHING], env: [] }],
    });
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "fill the form" }],
    });
    const form = await run.elicitations.next("MCP form");
    const params = form.params as any;
    expect(params).toMatchObject({ mode: "form", sessionId, toolCallId: "el" });
    // The one label (who asks, who sees the answer), then the server's own message.
    expect(params.message).toBe(
      `${elicitationLabel({ server: "everything", mode: "form" })}\n\nPlease provide inputs for the following fields:`,
    );
    const props = params.requestedSchema.properties;
    expect(props.check).toMatchObject({ type: "boolean" });
    expect(props.integer).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 42 });
    expect(props.email).toMatchObject({ type: "string", format: "email" });
    expect(props.titledSingleSelectEnum.oneOf.map((o: { title: string }) => o.title)).toEqual([
      "Superman",
      "Green Lantern",
      "Wonder Woman",
    ]);
    expect(props.titledMultipleSelectEnum).toMatchObject({ type: "array", minItems: 1, maxItems: 3 });
    expect(params.requestedSchema.required).toEqual(["name"]);
    expect(acp.CreateElicitationRequest.isForm(params)).toBe(true);
    const hero = props.titledSingleSelectEnum.oneOf[1].const;
    form.respond({
      action: "accept",
      content: { name: "Ada Lovelace", check: true, integer: 7, titledSingleSelectEnum: hero },
    });
    expect((await prompt).stopReason).toBe("end_turn");
    const out = callOutput(mock!, "el");
    expect(out).toContain("- Name: Ada Lovelace");
    expect(out).toContain("- Agreed to terms: true");
    expect(out).toMatch(/"integer": 7\b/);
    expect(out).toContain('"titledSingleSelectEnum": "hero-2"');
  });

  // fails if an MCP server's URL elicitation does not go out in URL mode with the checked URL and
  // the label, or if the editor's accept does not reach the server as accept.
  it("an MCP server's URL elicitation goes out in URL mode, labelled; accept reaches the server", async () => {
    const params = {
      mode: "url",
      message: "Sign in",
      url: "HTTPS://Login.Example.com/a",
      elicitationId: "e9",
    };
    mock = await startMockProcess({
      steps: [
        {
          output: [{ type: "function_call", name: "mcp__hostile__ask", call_id: "u", arguments: { params } }],
        },
        { output: [message("thanks")] },
      ],
    });
    const run = startAcp(mock);
    runs.push(run);
    await run.initialize({ elicitation: { form: {}, url: {} } });
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [{ name: "hostile", command: process.execPath, args: [HOSTILE], env: [] }],
    });
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "sign in" }],
    });
    const req = await run.elicitations.next("URL elicitation");
    expect(req.params).toMatchObject({
      mode: "url",
      sessionId,
      toolCallId: "u",
      url: "https://login.example.com/a",
      message: `${elicitationLabel({ server: "hostile", mode: "url" })}\n\nSign in`,
    });
    req.respond({ action: "accept" } as never);
    expect((await prompt).stopReason).toBe("end_turn");
    expect(JSON.parse(callOutput(mock!, "u"))).toEqual({ result: { action: "accept" } });
  });

  // fails if session/cancel with a question pending hangs, does not resolve the prompt `cancelled`,
  // leaves the client's form request open, or leaves the agent unable to serve the next prompt.
  it("session/cancel with a question pending: prompt cancelled, form withdrawn, agent still serves", async () => {
    const demo = Scripts.questionDemo();
    const { run, sessionId } = await planSession(
      { steps: [demo.steps[0], { output: [message("fresh start")] }] },
      { elicitation: { form: {} } },
    );
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Set up the demo project" }],
    });
    const form = await run.elicitations.next("elicitation");
    await run.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await expect.poll(() => form.signal.aborted, { timeout: 5000 }).toBe(true);
    const done = run.of(sessionId, "tool_call_update").filter((u) => u.toolCallId === "call_q01");
    expect(done.at(-1)?.status).toBe("failed");
    const next = await run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "try again" }],
    });
    expect(next.stopReason).toBe("end_turn");
    // The model saw the question call aborted, never answered.
    expect(callOutput(mock!, "call_q01")).toBe("aborted");
  });
});
