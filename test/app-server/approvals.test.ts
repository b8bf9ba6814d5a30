/**
 * Approvals over `tandem app-server` (requirements A2/A3, S3, Q16): a real app-server process, a real
 * scripted model process, real bubblewrap. An escalated `exec_command` reaches the client as
 * `item/commandExecution/requestApproval`, an `apply_patch` in a read-only thread as
 * `item/fileChange/requestApproval` — never as `item/tool/requestUserInput` — and the Codex
 * decision (accept, acceptForSession, acceptWithExecpolicyAmendment, decline, cancel, or a JSON-RPC
 * error) decides what runs, what the model sees and how the turn ends. Every Codex-named message is
 * validated against the Codex schema (ajv, see app-server-schema.ts).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { Scripts } from "../../src/mock-model/index.js";
import { modelRequests, PLAN_MODE, serverEnv } from "../helpers/app-server.js";
import { processStdio, type TestClient, wsClient, wsServer } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const COMMAND_APPROVAL = "item/commandExecution/requestApproval";
const FILE_CHANGE_APPROVAL = "item/fileChange/requestApproval";
const JUSTIFICATION = "Write the shared build log outside the workspace";

/** An escalated exec_command call (the sandbox would refuse the write outside the workspace). */
const escalated = (callId: string, cmd: string, extra: Record<string, unknown> = {}) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: callId,
  arguments: { cmd, sandbox_permissions: "require_escalated", justification: JUSTIFICATION, ...extra },
});
const patchCall = (callId: string, file: string, text: string) => ({
  type: "custom_tool_call" as const,
  name: "apply_patch",
  call_id: callId,
  input: `*** Begin Patch\n*** Add File: ${file}\n+${text}\n*** End Patch`,
});
const message = (text: string) => ({ type: "message" as const, text });

/** The output the model received for a call (first request that carries it). */
function callOutput(mock: MockProcess, callId: string): string {
  for (const body of modelRequests(mock)) {
    const out = body.input.find(
      (i: any) =>
        (i.type === "function_call_output" || i.type === "custom_tool_call_output") && i.call_id === callId,
    );
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return "";
}

/** Every call in the last model request has exactly one output, right after the calls of its batch. */
function expectPaired(mock: MockProcess): void {
  const input: any[] = modelRequests(mock).at(-1).input;
  const calls = input.filter((i) => i.type === "function_call" || i.type === "custom_tool_call");
  const outputs = input.filter(
    (i) => i.type === "function_call_output" || i.type === "custom_tool_call_output",
  );
  expect(outputs.map((o) => o.call_id).sort()).toEqual(calls.map((c) => c.call_id).sort());
}

describe("approvals over tandem app-server", () => {
  let mock: MockProcess | undefined;
  const clients: TestClient[] = [];
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) expect(c.violations).toEqual([]);
    for (const f of cleanup.splice(0).reverse()) await f();
    await mock?.stop();
    mock = undefined;
  });

  /** A directory outside the workspace and temp (/var/lib, never $HOME): only an escalated command may write it. */
  function freshOutside(): string {
    const dir = outsideDir("tandem-approval-");
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  async function serve(script: Script, args: string[] = []) {
    mock = await startMockProcess(script);
    const s = processStdio(serverEnv(mock), args);
    clients.push(s.client);
    cleanup.push(() => s.close());
    await s.client.initialize();
    return s;
  }

  async function startTurn(client: TestClient, threadParams: Record<string, unknown> = {}) {
    const cwd = tempDir("tandem-cwd-");
    const started = await client.request("thread/start", { cwd, ...threadParams });
    const threadId: string = started.thread.id;
    const turn = await client.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    return { threadId, turnId: turn.turn.id as string, cwd, started };
  }

  it.skipIf(missing("bwrap").length > 0)(
    "accept: the escalated command runs outside the sandbox and the model sees its output",
    async () => {
      const outside = freshOutside();
      const cmd = `echo ESC_$((6*7)) > ${outside}/a.txt && cat ${outside}/a.txt`;
      const { client } = await serve({
        steps: [
          { output: [escalated("e1", cmd)] },
          { expect: { input_contains: ["ESC_42"] }, output: [message("done")] },
        ],
      });
      const { threadId, turnId, cwd, started } = await startTurn(client);
      expect(started).toMatchObject({ approvalPolicy: "on-request", sandbox: { type: "workspaceWrite" } });

      const approval = await client.serverRequest(COMMAND_APPROVAL, (p) => p.threadId === threadId);
      expect(approval.id).toMatch(/^q_/);
      expect(approval.params).toEqual({
        threadId,
        turnId,
        itemId: "e1",
        approvalId: null,
        startedAtMs: expect.any(Number),
        reason: JUSTIFICATION,
        command: `${process.env.SHELL || "/bin/bash"} -c '${cmd}'`,
        commandActions: expect.any(Array),
        cwd,
        proposedExecpolicyAmendment: null,
        availableDecisions: ["accept", "acceptForSession", "decline", "cancel"],
      });
      // The command's item is announced before the approval; the thread waits on an approval.
      const order = client.received.map((m) => `${m.method}:${m.params?.item?.id ?? m.params?.itemId ?? ""}`);
      expect(order.indexOf("item/started:e1")).toBeGreaterThan(-1);
      expect(order.indexOf("item/started:e1")).toBeLessThan(order.indexOf(`${COMMAND_APPROVAL}:e1`));
      const waiting = await client.notification(
        "thread/status/changed",
        (p) => p.status.type === "active" && p.status.activeFlags.length > 0,
      );
      expect(waiting.status.activeFlags).toEqual(["waitingOnApproval"]);
      const listed = await client.request("tandem/question/list", { threadId });
      expect(listed.requests[0]).toMatchObject({
        request_id: approval.id,
        approval: { kind: "exec", command: cmd },
      });

      client.respond(approval, { decision: "accept" });
      await client.notification("serverRequest/resolved", (p) => p.requestId === approval.id);
      const settled = await client.notification(
        "tandem/question/settled",
        (p) => p.requestId === approval.id,
      );
      expect(settled.outcome).toMatchObject({
        status: "answered",
        answers: { decision: { selected: ["Accept"] } },
        responder: { kind: "app-server" },
      });
      const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
      expect(done.turn.status).toBe("completed");

      expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("ESC_42\n");
      expect(callOutput(mock!, "e1")).toMatch(/Process exited with code 0[\s\S]*ESC_42/);
      expect(client.serverRequests.map((r) => r.method)).toEqual([COMMAND_APPROVAL]);
      const item = await client.notification("item/completed", (p) => p.item.id === "e1");
      expect(item.item).toMatchObject({ type: "commandExecution", status: "completed", exitCode: 0 });
      expectPaired(mock!);
      const read = await client.request("thread/read", { threadId, includeTurns: true });
      expect(read.thread.turns[0].items.map((i: any) => i.type)).toEqual([
        "userMessage",
        "commandExecution",
        "agentMessage",
      ]);
    },
  );

  it("decline, and a JSON-RPC error reply: nothing runs and the model is told it was declined", async () => {
    const outside = freshOutside();
    const { client } = await serve({
      steps: [
        { output: [escalated("d1", `touch ${outside}/one`)] },
        { expect: { input_contains: ["declined"] }, output: [escalated("d2", `touch ${outside}/two`)] },
        { output: [message("understood")] },
      ],
    });
    const { threadId } = await startTurn(client);

    const first = await client.serverRequest(COMMAND_APPROVAL, (p) => p.itemId === "d1");
    // `touch <dir>/one` is a simple command: remembering it is offered.
    expect(first.params.proposedExecpolicyAmendment).toEqual(["touch", `${outside}/one`]);
    client.respond(first, { decision: "decline" });
    const second = await client.serverRequest(COMMAND_APPROVAL, (p) => p.itemId === "d2");
    client.respondError(second, -32000, "the user closed the dialog");
    await client.notification("serverRequest/resolved", (p) => p.requestId === second.id);
    const settled = await client.notification("tandem/question/settled", (p) => p.requestId === second.id);
    expect(settled.outcome).toMatchObject({ status: "declined", reason: "the user closed the dialog" });

    const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    expect(existsSync(join(outside, "one"))).toBe(false);
    expect(existsSync(join(outside, "two"))).toBe(false);
    expect(callOutput(mock!, "d1")).toMatch(/declined/);
    expect(callOutput(mock!, "d2")).toMatch(/declined/);
    const item = await client.notification("item/completed", (p) => p.item.id === "d1");
    expect(item.item).toMatchObject({ type: "commandExecution", status: "declined" });
    expectPaired(mock!);
  });

  it("cancel: the turn ends interrupted, the call is recorded as aborted, the next turn is well paired", async () => {
    const outside = freshOutside();
    const { client } = await serve({
      steps: [
        { output: [escalated("c1", `touch ${outside}/never`)] },
        { expect: { input_contains: ["again please"] }, output: [message("ok")] },
      ],
    });
    const { threadId, turnId } = await startTurn(client);
    const approval = await client.serverRequest(COMMAND_APPROVAL);
    client.respond(approval, { decision: "cancel" });
    await client.notification("serverRequest/resolved", (p) => p.requestId === approval.id);
    const done = await client.notification("turn/completed", (p) => p.turn.id === turnId);
    expect(done.turn.status).toBe("interrupted");
    expect(existsSync(join(outside, "never"))).toBe(false);
    expect(modelRequests(mock!)).toHaveLength(1);

    // The thread goes on: the next request carries the cancelled call with its aborted output.
    const next = await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "again please" }],
    });
    const after = await client.notification("turn/completed", (p) => p.turn.id === next.turn.id);
    expect(after.turn.status).toBe("completed");
    expect(callOutput(mock!, "c1")).toBe("aborted");
    expectPaired(mock!);
    const read = await client.request("thread/read", { threadId, includeTurns: true });
    expect(read.thread.turns.map((t: any) => t.status)).toEqual(["interrupted", "completed"]);
  });

  it("acceptForSession: the same escalated command runs again in the thread without a second request", async () => {
    const outside = freshOutside();
    const cmd = `echo SESSION_$((6*7)) >> ${outside}/log.txt`;
    const { client } = await serve({
      steps: [
        { output: [escalated("s1", cmd)] },
        { output: [escalated("s2", cmd)] },
        { output: [message("logged twice")] },
        { expect: { input_contains: ["again"] }, output: [escalated("s3", cmd)] },
        { output: [message("logged thrice")] },
      ],
    });
    const { threadId } = await startTurn(client);
    const approval = await client.serverRequest(COMMAND_APPROVAL);
    client.respond(approval, { decision: "acceptForSession" });
    const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    // A later turn of the same thread: still approved for the session.
    const next = await client.request("turn/start", { threadId, input: [{ type: "text", text: "again" }] });
    await client.notification("turn/completed", (p) => p.turn.id === next.turn.id);
    expect(client.serverRequests.filter((r) => r.method === COMMAND_APPROVAL)).toHaveLength(1);
    expect(readFileSync(join(outside, "log.txt"), "utf8")).toBe("SESSION_42\n".repeat(3));
    for (const id of ["s1", "s2", "s3"]) expect(callOutput(mock!, id)).toMatch(/Process exited with code 0/);
  });

  it("acceptWithExecpolicyAmendment remembers the proposed prefix rule; another rule is refused and asked again", async () => {
    const outside = freshOutside();
    const touch = (id: string, file: string) =>
      escalated(id, `touch ${outside}/${file}`, { prefix_rule: ["touch"] });
    const { client } = await serve({
      steps: [
        { output: [touch("r1", "one")] },
        { output: [touch("r2", "two")] },
        { output: [message("done")] },
      ],
    });
    const { threadId } = await startTurn(client);
    const approval = await client.serverRequest(COMMAND_APPROVAL);
    expect(approval.params.proposedExecpolicyAmendment).toEqual(["touch"]);
    expect(approval.params.availableDecisions).toContainEqual({
      acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch"] },
    });
    client.respond(approval, {
      decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["rm"] } },
    });
    const refused = await client.notification("tandem/question/replyRefused");
    expect(refused).toMatchObject({ requestId: approval.id, code: "invalid_reply" });
    expect(refused.message).toMatch(/\["touch"\]/);
    const again = await client.waitFor((m) => m.method === COMMAND_APPROVAL && m.id === `${approval.id}.2`);
    client.respond(again, {
      decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch"] } },
    });
    const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    expect(existsSync(join(outside, "one"))).toBe(true);
    expect(existsSync(join(outside, "two"))).toBe(true);
    expect(client.serverRequests.map((r) => r.id)).toEqual([approval.id, `${approval.id}.2`]);
  });

  it("a read-only thread asks before apply_patch with item/fileChange/requestApproval", async () => {
    const { client } = await serve({
      steps: [
        { output: [patchCall("p1", "a.txt", "hello")] },
        {
          expect: { input_contains: ["Success. Updated the following files"] },
          output: [patchCall("p2", "b.txt", "no")],
        },
        { expect: { input_contains: ["declined"] }, output: [message("ok")] },
      ],
    });
    const { threadId, turnId, cwd, started } = await startTurn(client, { sandbox: "read-only" });
    expect(started.sandbox).toEqual({ type: "readOnly", networkAccess: false });

    const first = await client.serverRequest(FILE_CHANGE_APPROVAL, (p) => p.itemId === "p1");
    expect(first.params).toEqual({
      threadId,
      turnId,
      itemId: "p1",
      startedAtMs: expect.any(Number),
      reason: `The sandbox is read-only; this patch would change files.\nFiles: ${join(cwd, "a.txt")}`,
      grantRoot: null,
    });
    // The fileChange item is announced before the approval, with the diff the patch would make
    // (Codex's TUI draws the approval from it).
    const startedItem = await client.notification("item/started", (p) => p.item.id === "p1");
    expect(startedItem.item).toEqual({
      type: "fileChange",
      id: "p1",
      status: "inProgress",
      changes: [{ path: "a.txt", kind: { type: "add" }, diff: expect.stringMatching(/\+\+\+ b\/a\.txt\n/) }],
    });
    const methods = client.received.map((m) => `${m.method}:${m.params?.item?.id ?? m.params?.itemId ?? ""}`);
    expect(methods.indexOf("item/started:p1")).toBeLessThan(methods.indexOf(`${FILE_CHANGE_APPROVAL}:p1`));
    client.respond(first, { decision: "accept" });

    const second = await client.serverRequest(FILE_CHANGE_APPROVAL, (p) => p.itemId === "p2");
    client.respond(second, { decision: "decline" });
    const done = await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");

    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n");
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
    const applied = await client.notification("item/completed", (p) => p.item.id === "p1");
    expect(applied.item).toMatchObject({
      type: "fileChange",
      status: "completed",
      changes: [{ path: "a.txt", kind: { type: "add" }, diff: expect.stringContaining("+hello") }],
    });
    const refused = await client.notification("item/completed", (p) => p.item.id === "p2");
    expect(refused.item).toMatchObject({ type: "fileChange", status: "failed" });
    expect(callOutput(mock!, "p2")).toMatch(/declined/);
    expectPaired(mock!);
    expect(client.serverRequests.map((r) => r.method)).toEqual([FILE_CHANGE_APPROVAL, FILE_CHANGE_APPROVAL]);
  });

  it("-c sandbox_mode=read-only on the command line does the same; turn/start sandboxPolicy overrides it", async () => {
    const { client } = await serve(
      {
        steps: [
          { output: [patchCall("p1", "a.txt", "x")] },
          { output: [message("one")] },
          { output: [patchCall("p2", "b.txt", "y")] },
          { output: [message("two")] },
        ],
      },
      ["-c", 'sandbox_mode="read-only"'],
    );
    const cwd = tempDir("tandem-cwd-");
    const started = await client.request("thread/start", { cwd });
    expect(started.sandbox).toEqual({ type: "readOnly", networkAccess: false });
    const threadId = started.thread.id;
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "one" }] });
    const approval = await client.serverRequest(FILE_CHANGE_APPROVAL);
    client.respond(approval, { decision: "accept" });
    await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(existsSync(join(cwd, "a.txt"))).toBe(true);

    // workspaceWrite for this turn and the next ones: the patch applies without asking.
    const next = await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "two" }],
      sandboxPolicy: { type: "workspaceWrite", networkAccess: false },
    });
    const done = await client.notification("turn/completed", (p) => p.turn.id === next.turn.id);
    expect(done.turn.status).toBe("completed");
    expect(existsSync(join(cwd, "b.txt"))).toBe(true);
    expect(client.serverRequests).toHaveLength(1);
    const resumed = await client.request("thread/resume", { threadId });
    expect(resumed.sandbox).toMatchObject({ type: "workspaceWrite" });
  });

  it("approvals go before questions: a client that attaches gets the approval first, and either client may decide", async () => {
    const outside = freshOutside();
    const [ask] = Scripts.questionDemo().steps;
    const mockScript: Script = {
      steps: [
        { output: [...(ask.output ?? []), escalated("e1", `touch ${outside}/q16`)] },
        { expect: { input_contains: ["Rust"] }, output: [message("done")] },
      ],
    };
    mock = await startMockProcess(mockScript);
    const { server, url } = await wsServer(serverEnv(mock));
    cleanup.push(() => server.stop());
    const a = await wsClient(url, "ws-a");
    const b = await wsClient(url, "ws-b");
    cleanup.push(
      () => a.close(),
      () => b.close(),
    );
    clients.push(a.client, b.client);
    await a.client.initialize();
    await b.client.initialize();

    const started = await a.client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    const threadId = started.thread.id;
    await a.client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "go" }],
      collaborationMode: PLAN_MODE,
    });
    const approvalA = await a.client.serverRequest(COMMAND_APPROVAL);
    const questionA = await a.client.serverRequest("item/tool/requestUserInput");
    await a.client.notification("thread/status/changed", (p) => p.status.activeFlags?.length === 2);

    await b.client.request("thread/resume", { threadId });
    const approvalB = await b.client.serverRequest(COMMAND_APPROVAL);
    await b.client.serverRequest("item/tool/requestUserInput");
    expect(b.client.serverRequests.map((r) => r.method)).toEqual([
      COMMAND_APPROVAL,
      "item/tool/requestUserInput",
    ]);
    expect(approvalB.id).toBe(approvalA.id);
    const listed = await b.client.request("tandem/question/list", { threadId });
    expect(listed.requests.map((r: any) => r.request_id)).toEqual([approvalA.id, questionA.id]);

    // B accepts; A sees the approval resolved; a late decision from A is refused, never applied.
    b.client.respond(approvalB, { decision: "accept" });
    await a.client.notification("serverRequest/resolved", (p) => p.requestId === approvalA.id);
    a.client.respond(approvalA, { decision: "decline" });
    const refused = await a.client.notification("tandem/question/replyRefused");
    expect(refused).toMatchObject({ requestId: approvalA.id, code: "already_settled" });

    a.client.respond(questionA, { answers: { stack: { answers: ["Rust"] }, name: { answers: ["demo"] } } });
    const done = await a.client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(done.turn.status).toBe("completed");
    expect(existsSync(join(outside, "q16"))).toBe(true);
    expect(callOutput(mock, "e1")).toMatch(/Process exited with code 0/);
  });
});
