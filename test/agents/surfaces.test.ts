/**
 * Sub-agents on the real surfaces (README "Sub-agents"): `tandem serve` and `tandem mock-model` as
 * real processes (HTTP `GET /question` with attribution, an SSE responder on the ROOT thread only,
 * kill -9 with a child's question pending then resume), the app-server over stdio in process,
 * and `tandem exec --json` printing a child's events attributed.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startAcp } from "../helpers/acp-client.js";
import { askingChild, call, say, spawnCall } from "../helpers/agent-scripts.js";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { jsonLines, type MockProcess, runTandem, spawnServe, startMockProcess } from "../helpers/cli.js";
import { isEvent, openSse } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

/** Parent: spawn A and B at once, wait for both, then end naming what they found. */
const TWO_CHILDREN = {
  steps: [
    { output: [spawnCall("TASK-A: pick for A", "sa"), spawnCall("TASK-B: pick for B", "sb")] },
    { output: [call("wait_agent", { ids: ["Ada", "Babbage"] }, "w1")] },
    { expect: { input_contains: ["TASK-A done: Alpha", "TASK-B done: Beta"] }, output: [say("parent done")] },
  ],
  side_steps: [...askingChild("TASK-A", "qa"), ...askingChild("TASK-B", "qb")],
};

interface Serve {
  proc: ChildProcess;
  url: string;
  headers: Record<string, string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

async function startServe(home: string, mock: MockProcess, extra: string[] = []): Promise<Serve> {
  const { proc, lines } = await spawnServe(
    ["--port", "0", "--token", "agents-token-0123456789", "-c", `openai_base_url="${mock.url}"`, ...extra],
    { TANDEM_HOME: home, OPENAI_API_KEY: "k" },
  );
  const url = /listening on (\S+)$/.exec(lines[0])![1];
  return {
    proc,
    url,
    headers: { authorization: "Bearer agents-token-0123456789", "content-type": "application/json" },
    stop: (signal = "SIGTERM") =>
      new Promise((r) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return r();
        proc.once("exit", () => r());
        proc.kill(signal);
      }),
  };
}

async function poll<T>(get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("sub-agents on the surfaces", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
  });

  it("HTTP: a web responder on the root thread sees both children's questions (SSE and GET /question, attributed) and answers them", async () => {
    const mock = await startMockProcess(TWO_CHILDREN);
    cleanups.push(() => mock.stop());
    const s = await startServe(tempDir(), mock);
    cleanups.push(() => s.stop("SIGKILL"));
    const root = (await (
      await fetch(`${s.url}/thread`, { method: "POST", headers: s.headers, body: '{"mode":"plan"}' })
    ).json()) as any;
    // The only responder: a page attached to the ROOT thread.
    const sse = await openSse(`${s.url}/event?responder=web&thread=${root.id}`, s.headers);
    cleanups.push(async () => sse.close());
    await fetch(`${s.url}/thread/${root.id}/turn`, {
      method: "POST",
      headers: s.headers,
      body: '{"text":"go"}',
    });
    // fails if a child's question events are not routed to the root thread's SSE stream
    const first = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request;
    expect(first.agent.root_thread_id).toBe(root.id);
    const listed = await poll(
      async () =>
        ((await (await fetch(`${s.url}/question`, { headers: s.headers })).json()) as any).questions,
      (qs: any[]) => qs.length === 2,
    );
    // fails if GET /question drops the attribution
    expect(listed.map((q: any) => [q.agent.nickname, q.agent.task, q.agent.depth]).sort()).toEqual([
      ["Ada", "TASK-A: pick for A", 1],
      ["Babbage", "TASK-B: pick for B", 1],
    ]);
    const byRoot = (
      (await (await fetch(`${s.url}/question?thread=${root.id}`, { headers: s.headers })).json()) as any
    ).questions;
    expect(byRoot).toHaveLength(2);
    const a = listed.find((q: any) => q.agent.nickname === "Ada");
    const b = listed.find((q: any) => q.agent.nickname === "Babbage");
    // B first (naming the root thread), then A (naming its own thread): both are accepted.
    for (const [q, thread, text] of [
      [b, root.id, { qb: "2" }],
      [a, a.thread_id, { qa: "1" }],
    ] as const) {
      const r = await fetch(`${s.url}/question/${q.request_id}/reply`, {
        method: "POST",
        headers: s.headers,
        body: JSON.stringify({ thread_id: thread, text }),
      });
      expect(r.status, await r.clone().text()).toBe(200);
    }
    const done = await poll(
      async () =>
        ((await (await fetch(`${s.url}/thread/${root.id}`, { headers: s.headers })).json()) as any).thread,
      (t: any) => t.status === "idle",
    );
    expect(done.status).toBe("idle");
    const last = jsonLines(readFileSync(mock.log, "utf8")).at(-1);
    expect(JSON.stringify(last.input)).toContain("TASK-B done: Beta");
  });

  it("kill -9 with a child's question pending; the next process re-asks it (same id, attributed); the answer completes the child, then the parent", async () => {
    // The kill may land while the parent's next request is in flight (the mock counts it served),
    // so the parent's later steps are side steps keyed on what its history holds.
    const script = {
      steps: [{ output: [spawnCall("TASK-A: pick", "sa")] }],
      side_steps: [
        ...askingChild("TASK-A", "qa"),
        { when: { input_contains: ["TASK-A done: Beta"] }, output: [say("parent resumed and done")] },
        { when: { input_contains: ['"nickname":"Ada"'] }, output: [call("wait_agent", { ids: ["Ada"] })] },
      ],
    };
    const mock = await startMockProcess(script);
    cleanups.push(() => mock.stop());
    const home = tempDir();
    let s = await startServe(home, mock, ["--responder"]);
    cleanups.push(() => s.stop("SIGKILL"));
    const root = (await (
      await fetch(`${s.url}/thread`, { method: "POST", headers: s.headers, body: '{"mode":"plan"}' })
    ).json()) as any;
    await fetch(`${s.url}/thread/${root.id}/turn`, {
      method: "POST",
      headers: s.headers,
      body: '{"text":"go"}',
    });
    const [asked] = await poll(
      async () =>
        ((await (await fetch(`${s.url}/question`, { headers: s.headers })).json()) as any).questions,
      (qs: any[]) => qs.length === 1,
    );
    await s.stop("SIGKILL");

    s = await startServe(home, mock, ["--responder"]);
    cleanups.push(() => s.stop("SIGKILL"));
    // fails if the stored request loses its attribution
    const [stored] = ((await (await fetch(`${s.url}/question`, { headers: s.headers })).json()) as any)
      .questions;
    expect(stored.request_id).toBe(asked.request_id);
    expect(stored.agent).toMatchObject({ nickname: "Ada", root_thread_id: root.id });
    // Resume the root (opening it re-opens the working child, which asks again), then answer.
    const r = await fetch(`${s.url}/question/${asked.request_id}/reply`, {
      method: "POST",
      headers: s.headers,
      body: JSON.stringify({ thread_id: root.id, text: { qa: "2" } }),
    });
    expect(r.status, await r.clone().text()).toBe(200);
    // fails if the parent's wait_agent is marked aborted on resume instead of run again, or the
    // child is not reopened (the parent would never see "TASK-A done: Beta")
    const done = await poll(
      async () =>
        ((await (await fetch(`${s.url}/thread/${root.id}`, { headers: s.headers })).json()) as any).thread,
      (t: any) => t.status === "idle",
    );
    expect(done.status).toBe("idle");
    const last = jsonLines(readFileSync(mock.log, "utf8")).at(-1);
    expect(JSON.stringify(last.input)).toContain("TASK-A done: Beta");
  });

  it("app-server: a client attached to the root thread gets both children's requestUserInput, attributed, and its answers reach each child", async () => {
    const mock = await startMockProcess(TWO_CHILDREN);
    cleanups.push(() => mock.stop());
    const home = tempDir("tandem-home-");
    sandboxFallback(home);
    const served: Served = inProcessStdio(serverEnv(mock, home));
    cleanups.push(() => served.close());
    const { client } = served;
    await client.initialize();
    const started = await client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    const threadId: string = started.thread.id;
    await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "split the work" }],
      collaborationMode: { mode: "plan", settings: { model: "gpt-5.2-codex", reasoning_effort: "medium" } },
    });
    // fails if app-server routes a child's request only to sessions attached to the child
    const notes = await Promise.all([
      client.notification("tandem/question/requested", (p) => p.request.agent?.nickname === "Ada"),
      client.notification("tandem/question/requested", (p) => p.request.agent?.nickname === "Babbage"),
    ]);
    expect(notes.map((n: any) => n.request.agent.root_thread_id)).toEqual([threadId, threadId]);
    const reqA = await client.serverRequest(
      "item/tool/requestUserInput",
      (p) => p.questions?.[0]?.id === "qa",
    );
    const reqB = await client.serverRequest(
      "item/tool/requestUserInput",
      (p) => p.questions?.[0]?.id === "qb",
    );
    client.respond(reqB, { answers: { qb: { answers: ["Beta"] } } });
    client.respond(reqA, { answers: { qa: { answers: ["Alpha"] } } });
    const completed = await client.notification("turn/completed", (p) => p.threadId === threadId, 20_000);
    expect(completed.turn.status).toBe("completed");
    expect(client.violations).toEqual([]);
  });

  it("ACP: a child's question is asked in the ROOT's editor session (elicitation form) and its answer reaches the child", async () => {
    const mock = await startMockProcess({
      steps: [
        { output: [spawnCall("TASK-A: pick", "sa")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { expect: { input_contains: ["TASK-A done: Beta"] }, output: [say("parent done")] },
      ],
      side_steps: askingChild("TASK-A", "qa"),
    });
    cleanups.push(() => mock.stop());
    const run = startAcp(mock);
    cleanups.push(() => run.close());
    await run.initialize({ elicitation: { form: {} } });
    const { sessionId } = await run.agent.request(acp.methods.agent.session.new, {
      cwd: tempDir("tandem-acp-ws-"),
      mcpServers: [],
    });
    await run.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
    const prompt = run.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "split the work" }],
    });
    // fails if the child's request is sent with the child's thread as session id (unknown to the
    // editor) or not sent at all (it would wait on a responder that cannot see it)
    const form = await run.elicitations.next("the child's question");
    expect((form.params as { sessionId: string }).sessionId).toBe(sessionId);
    form.respond({ action: "accept", content: { qa: "Beta" } } as never);
    expect((await prompt).stopReason).toBe("end_turn");
  });

  it("exec --questions defer: a child's question stops the run (exit 3) attributed; exec resume ROOT --answer completes the child, then the parent", async () => {
    // The run stops while the parent's next request may be in flight (the mock counts it served),
    // so the parent's later steps are side steps keyed on what its history holds.
    const mock = await startMockProcess({
      steps: [{ output: [spawnCall("TASK-A: pick", "sa")] }],
      side_steps: [
        ...askingChild("TASK-A", "qa"),
        { when: { input_contains: ["TASK-A done: Beta"] }, output: [say("parent done after resume")] },
        { when: { input_contains: ['"nickname":"Ada"'] }, output: [call("wait_agent", { ids: ["Ada"] })] },
      ],
    });
    cleanups.push(() => mock.stop());
    const env = { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const first = await runTandem(["exec", "--json", "--mode", "plan", "--questions", "defer", "go"], {
      env,
    });
    expect(first.code, first.stderr).toBe(3);
    const q = jsonLines(first.stdout).find((l) => l.type === "question.requested");
    // fails if the deferred question is not the child's, or loses who asks
    expect(q.agent).toMatchObject({ nickname: "Ada", task: "TASK-A: pick" });
    const rootId = q.agent.root_thread_id;
    const human = await runTandem(["exec", "resume", rootId, "--questions", "defer"], { env });
    expect(human.code).toBe(3);
    expect(human.stderr).toContain("Sub-agent Ada (default, depth 1; task: TASK-A: pick) asks");
    const done = await runTandem(["exec", "resume", rootId, "--answer", "qa=Beta"], { env });
    // fails if resuming the root does not reopen the child and re-run the parent's wait_agent
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("parent done after resume");
  });

  it("exec --json prints the children's events attributed (subagent.event with nickname and thread ids)", async () => {
    const mock = await startMockProcess({
      steps: [
        { output: [spawnCall("TASK-Q: report", "sa")] },
        { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        { output: [say("all done")] },
      ],
      side_steps: [
        { when: { input_contains: ["<subagent_context>", "TASK-Q"] }, output: [say("child says hi")] },
      ],
    });
    cleanups.push(() => mock.stop());
    const home = tempDir();
    const r = await runTandem(["exec", "--json", "go"], {
      env: { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    const sub = lines.filter((l) => l.type === "subagent.event");
    // fails if a child's events are dropped, or printed as the parent's own (unwrapped) lines
    const msg = sub.find((l) => l.event.type === "item.completed" && l.event.item.type === "agent_message");
    expect(msg.event.item.text).toBe("child says hi");
    expect(msg.agent).toMatchObject({ nickname: "Ada", depth: 1, task: "TASK-Q: report" });
    expect(msg.agent.thread_id).toBe(msg.event.thread_id);
    expect(lines.filter((l) => l.type === "turn.completed")).toHaveLength(1);
    expect(lines.some((l) => l.type === "item.completed" && l.item.text === "child says hi")).toBe(false);
  });
});
