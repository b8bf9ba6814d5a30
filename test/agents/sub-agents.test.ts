/**
 * Sub-agents end to end (README "Sub-agents", requirements Q3, Q8, Q13, Q14, Q16): a real Runtime with the scripted
 * model over HTTP. The parent spawns children with spawn_agent; each child is a real thread whose
 * questions and approvals reach the ROOT thread's responders with attribution; answers return to
 * the asking child; wait_agent returns the children's results.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { askingChild, CHILD, call, outputOf, quietChild, say, spawnCall } from "../helpers/agent-scripts.js";
import { decide, type Harness, harness } from "../helpers/index.js";

const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";
const answer = (h: Harness, threadId: string, requestId: string, qid: string, label: string) =>
  h.runtime.questions.reply(
    threadId,
    requestId,
    { answers: { [qid]: { selected: [label] } } },
    { kind: "test" },
  );

describe("sub-agents", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("two children ask at once; both reach the root's responder attributed; answered in reverse order each gets its own; wait_agent returns both", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [spawnCall("TASK-A: pick for A", "sa"), spawnCall("TASK-B: pick for B", "sb")] },
          { output: [call("wait_agent", { ids: ["Ada", "Babbage"] }, "w1")] },
          {
            expect: { input_contains: ["TASK-A done: Alpha", "TASK-B done: Beta"] },
            output: [say("parent done")],
          },
        ],
        side_steps: [...askingChild("TASK-A", "qa"), ...askingChild("TASK-B", "qb")],
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: root.id }, { kind: "test" });
    // A subscriber of the root thread only (as a surface subscribes) sees the children's questions.
    const seenByRoot: Event[] = [];
    h.runtime.subscribe((s) => seenByRoot.push(s.event), { threadId: root.id });
    const turn = root.startTurn("split the work");
    await until(() => h!.runtime.questions.list({ threadId: root.id }).length === 2);
    const pending = h.runtime.questions.list({ threadId: root.id });
    const byTask = (m: string) => pending.find((p) => p.agent?.task.startsWith(m))!;
    const a = byTask("TASK-A");
    const b = byTask("TASK-B");
    // fails if requests are not attributed (agent missing) or attributed to the wrong child
    expect(a.agent).toMatchObject({ nickname: "Ada", role: "default", depth: 1, root_thread_id: root.id });
    expect(b.agent).toMatchObject({
      nickname: "Babbage",
      role: "default",
      depth: 1,
      parent_thread_id: root.id,
    });
    expect(a.thread_id).toBe(a.agent!.thread_id);
    expect(a.thread_id).not.toBe(root.id);
    // fails if the bus does not route a child's question events to the root's subscribers
    expect(
      seenByRoot
        .filter(requested)
        .map((e) => e.request.request_id)
        .sort(),
    ).toEqual([a.request_id, b.request_id].sort());
    // The children are real stored threads linked to the parent.
    const stored = h.runtime.threads.stored(a.thread_id)!;
    expect(stored.parent_id).toBe(root.id);
    expect(stored.settings.agent).toMatchObject({ nickname: "Ada", depth: 1, task: "TASK-A: pick for A" });
    // Reverse order; the reply names the ROOT thread (what a surface attached to it knows).
    expect(answer(h, root.id, b.request_id, "qb", "Beta").ok).toBe(true);
    expect(answer(h, root.id, a.request_id, "qa", "Alpha").ok).toBe(true);
    expect((await turn.done).status).toBe("completed");
    // fails if an answer reached the other child, or wait_agent returned before both finished
    const waited = outputOf(h.model.requests, "w1");
    expect(waited.timed_out).toBe(false);
    const results = Object.values(waited.status) as any[];
    expect(results.map((r) => [r.nickname, r.status, r.final_message]).sort()).toEqual([
      ["Ada", "completed", "TASK-A done: Alpha"],
      ["Babbage", "completed", "TASK-B done: Beta"],
    ]);
    // spawn_agent's result names the child
    expect(outputOf(h.model.requests, "sa")).toEqual({ agent_id: a.thread_id, nickname: "Ada" });
  });

  it("no responder on the root: the child is told at once (unavailable), nothing waits", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [spawnCall("TASK-A: pick", "sa")] },
          { output: [call("wait_agent", { ids: ["Ada"], timeout_ms: 20_000 }, "w1")] },
          { output: [say("ok")] },
        ],
        side_steps: askingChild("TASK-A", "qa"),
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    const t0 = Date.now();
    expect((await root.startTurn("go").done).status).toBe("completed");
    expect(Date.now() - t0).toBeLessThan(10_000);
    // fails if the responder lookup does not follow the lineage (would wait) or skips gate 4
    expect(findOutput(h, "request_user_input")).toMatchObject({ status: "unavailable" });
    expect(h.events.some((e) => e.event.type === "question.requested")).toBe(false);
  });

  it('sub_agents = "deny": the child gets the root-thread error, the root responder is never asked', async () => {
    h = await harness({
      overrides: ['questions.sub_agents="deny"'],
      script: {
        steps: [
          { output: [spawnCall("TASK-A: pick", "sa")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("ok")] },
        ],
        side_steps: askingChild("TASK-A", "qa"),
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: root.id }, { kind: "test" });
    expect((await root.startTurn("go").done).status).toBe("completed");
    // fails if deny is ignored for sub-agents
    expect(findOutput(h, "request_user_input")).toMatch(/only be used by the root thread/);
    expect(h.events.some((e) => e.event.type === "question.requested")).toBe(false);
  });

  it("limits: depth over agents.max_depth and more than agents.max_threads get clear errors", async () => {
    h = await harness({
      overrides: ["agents.max_depth=1", "agents.max_threads=2"],
      script: {
        steps: [
          {
            output: [
              spawnCall("TASK-A: nest", "s1"),
              spawnCall("TASK-B: quiet", "s2"),
              spawnCall("TASK-C: one too many", "s3"),
            ],
          },
          { output: [call("wait_agent", { ids: ["Ada", "Babbage"] }, "w1")] },
          { output: [say("ok")] },
        ],
        side_steps: [
          // The child (depth 1) tries to spawn a grandchild (depth 2 > max_depth 1).
          { when: { input_contains: [CHILD, "TASK-A", "function_call_output"] }, output: [say("A gave up")] },
          { when: { input_contains: [CHILD, "TASK-A"] }, output: [spawnCall("TASK-G: grandchild", "g1")] },
          ...quietChild("TASK-B"),
        ],
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    expect((await root.startTurn("go").done).status).toBe("completed");
    // fails if max_threads is not enforced (a third child would start)
    expect(outputOf(h.model.requests, "s3")).toMatch(/agents\.max_threads = 2/);
    // fails if max_depth is not enforced
    expect(outputOf(h.model.requests, "g1")).toMatch(/depth 2, over agents\.max_depth = 1/);
    expect(h.runtime.threads.list().filter((t) => t.parent_id !== null)).toHaveLength(2);
  });

  it("interrupting the parent interrupts its children and settles their questions (Q8)", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [spawnCall("TASK-A: pick", "sa")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        ],
        side_steps: askingChild("TASK-A", "qa"),
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: root.id }, { kind: "test" });
    const turn = root.startTurn("go");
    const ev = (await h.waitFor(requested)) as EventOf<"question.requested">;
    const child = h.runtime.threads.get(ev.thread_id)!;
    expect(child.active).toBeDefined();
    root.interrupt();
    expect((await turn.done).status).toBe("interrupted");
    // fails if the interrupt does not cascade: the child's turn would keep waiting on the user
    await until(() => !child.active);
    expect(child.lastOutcome?.status).toBe("interrupted");
    expect(h.runtime.questions.pendingCount()).toBe(0);
    expect(
      h.events.some((e) => e.event.type === "question.cancelled" && e.event.thread_id === child.id),
    ).toBe(true);
  });

  it("closing the parent closes its children (and cancels their questions)", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [spawnCall("TASK-A: pick", "sa")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
        ],
        side_steps: askingChild("TASK-A", "qa"),
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: root.id }, { kind: "test" });
    root.startTurn("go");
    const ev = (await h.waitFor(requested)) as EventOf<"question.requested">;
    await root.close();
    // fails if a closed parent leaves its child running (or its question pending)
    await until(() => h!.runtime.threads.get(ev.thread_id)?.status === "closed");
    expect(h.runtime.questions.pendingCount()).toBe(0);
  });

  it("a child's approval is relayed to the root's responder with attribution and declined: the command never runs", async () => {
    h = await harness({
      overrides: ['approval_policy="untrusted"'],
      script: {
        steps: [
          { output: [spawnCall("TASK-A: write a file", "sa")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("ok")] },
        ],
        side_steps: [
          {
            when: { input_contains: [CHILD, "TASK-A", "function_call_output"] },
            output: [say("A could not write")],
          },
          {
            when: { input_contains: [CHILD, "TASK-A"] },
            output: [call("exec_command", { cmd: "touch made-by-child" })],
          },
        ],
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: root.id }, { kind: "test" });
    const turn = root.startTurn("go");
    const ev = (await h.waitFor(
      (e) => requested(e) && !!e.request.approval,
    )) as EventOf<"question.requested">;
    // fails if approvals are not attributed or not listed under the root
    expect(ev.request.agent).toMatchObject({ nickname: "Ada", task: "TASK-A: write a file" });
    expect(h.runtime.questions.list({ threadId: root.id }).map((r) => r.request_id)).toEqual([
      ev.request.request_id,
    ]);
    decide(h, ev, "Decline");
    expect((await turn.done).status).toBe("completed");
    expect(existsSync(join(h.cwd, "made-by-child"))).toBe(false);
    const waited = outputOf(h.model.requests, "w1");
    expect(Object.values(waited.status)[0]).toMatchObject({
      status: "completed",
      final_message: "A could not write",
    });
  });

  it("list_agents, send_input (to an idle child), wait_agent with a timeout, close_agent: each result reflects the child's real state", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [spawnCall("TASK-Q: quick", "s1")] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [call("list_agents", {}, "l1")] },
          { output: [call("send_input", { id: "Ada", message: "FOLLOW-UP-1 and then stop" }, "i1")] },
          { output: [call("wait_agent", { ids: ["Ada"], timeout_ms: 100 }, "w2")] },
          { output: [call("close_agent", { id: "Ada" }, "c1")] },
          { output: [call("send_input", { id: "Nobody", message: "x" }, "i2")] },
          { output: [say("ok")] },
        ],
        side_steps: [
          { when: { input_contains: [CHILD, "FOLLOW-UP-1"] }, delay_ms: 5_000, output: [say("followed up")] },
          ...quietChild("TASK-Q"),
        ],
      },
    });
    const root = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    expect((await root.startTurn("go").done).status).toBe("completed");
    const agentId = outputOf(h.model.requests, "s1").agent_id;
    // fails if list_agents does not report the finished child with its task and status
    expect(outputOf(h.model.requests, "l1").agents).toEqual([
      expect.objectContaining({
        agent_id: agentId,
        nickname: "Ada",
        status: "completed",
        task: "TASK-Q: quick",
      }),
    ]);
    // fails if send_input to an idle child does not start a new turn with the message
    expect(outputOf(h.model.requests, "i1")).toEqual({ agent_id: agentId, delivered: "started" });
    expect(childRequest(h, "FOLLOW-UP-1")).toBeDefined();
    // fails if wait_agent ignores timeout_ms (the child's reply takes 5 s)
    const w2 = outputOf(h.model.requests, "w2");
    expect(w2.timed_out).toBe(true);
    expect(w2.status[agentId].status).toBe("running");
    // fails if close_agent leaves the child running
    expect(outputOf(h.model.requests, "c1")).toMatchObject({ status_before: "running", status: "closed" });
    expect(h.runtime.threads.get(agentId)?.status).toBe("closed");
    expect(outputOf(h.model.requests, "i2")).toMatch(
      /no sub-agent "Nobody" of yours; your sub-agents: .*\(Ada\)/,
    );
  });

  it("roles from .tandem/agents/*.md are listed in spawn_agent's description and narrow the child's tools", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const { tempDir } = await import("../helpers/index.js");
    const cwd = tempDir("tandem-cwd-");
    mkdirSync(join(cwd, ".tandem", "agents"), { recursive: true });
    writeFileSync(
      join(cwd, ".tandem", "agents", "scout.md"),
      "---\ndescription: Looks around read-only\ntools: [exec_command]\n---\nOnly read; never write.\n",
    );
    h = await harness({
      cwd,
      script: {
        steps: [
          { output: [spawnCall("TASK-S: look", "ss", { agent_type: "scout" })] },
          { output: [call("wait_agent", { ids: ["Ada"] }, "w1")] },
          { output: [say("ok")] },
        ],
        side_steps: quietChild("TASK-S"),
      },
    });
    const root = h.runtime.threads.start({ cwd, mode: "plan" });
    expect((await root.startTurn("go").done).status).toBe("completed");
    const first = h.model.requests[0] as any;
    const spawnTool = first.tools.find((t: any) => t.name === "spawn_agent");
    // fails if project roles are not listed to the model
    expect(spawnTool.description).toContain("- scout: Looks around read-only");
    const childReq = childRequest(h, "TASK-S") as any;
    // fails if the role's tool list is not applied, or its instructions not given
    expect(childReq.tools.map((t: any) => t.name)).toEqual(["exec_command"]);
    expect(JSON.stringify(childReq.input)).toContain("Only read; never write.");
  });
});

/** The first model request a child made (it carries the sub-agent context and its marker). */
function childRequest(h: Harness, marker: string): unknown {
  return (h.model.requests as any[]).find((r) => {
    const s = JSON.stringify(r.input);
    return s.includes(CHILD) && s.includes(marker);
  });
}

/** The output of the first call to tool `name` seen in any request. */
function findOutput(h: Harness, name: string): any {
  for (const body of h.model.requests as any[]) {
    const calls = (body.input ?? []).filter((i: any) => i.type === "function_call" && i.name === name);
    for (const c of calls) {
      const out = outputOf([body], c.call_id);
      if (out !== undefined) return out;
    }
  }
  return undefined;
}

async function until(pred: () => boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error("timed out waiting for a condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}
