/**
 * What the Codex TUI shows of patches and plans, over a real `tandem app-server` (in-process
 * stdio) on the scripted model, every message validated against the in-repo Codex schema by the
 * test client: a patch approval carries the patch's diff (`item/fileChange/patchUpdated` before
 * the request), the turn's diff is `turn/diff/updated`, `update_plan` is `turn/plan/updated`
 * (never an item that does not complete), a `<proposed_plan>` block in Plan mode is a `plan`
 * item, history (`thread/read`) keeps the diffs and the plan item, and a settings update keeps
 * the reasoning effort it does not name.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { call, say } from "../helpers/agent-scripts.js";
import { PLAN_MODE, serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

const PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n*** End Patch";
const PLAN = {
  plan: [
    { step: "Write the schema", status: "completed" },
    { step: "Add the service", status: "in_progress" },
  ],
};

describe("tandem app-server: diffs and plans as Codex shows them", () => {
  const served: Served[] = [];
  const mocks: MockProcess[] = [];
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      await s.close();
    }
    for (const m of mocks.splice(0)) await m.stop();
  });

  async function start(script: Script) {
    const mock = await startMockProcess(script);
    mocks.push(mock);
    const home = tempDir("tandem-home-");
    sandboxFallback(home);
    const s = inProcessStdio(serverEnv(mock, home));
    served.push(s);
    await s.client.initialize();
    return s.client;
  }

  // Fails if the approval goes out without the diff, if turn/diff/updated or turn/plan/updated is
  // not sent, if update_plan becomes an item, or if thread/read drops the diff.
  it("a patch approval shows the diff; the turn diff and the plan follow; history keeps the diff", async () => {
    const client = await start({
      steps: [
        { output: [{ type: "custom_tool_call", name: "apply_patch", call_id: "p1", input: PATCH }] },
        { output: [call("update_plan", PLAN, "plan1")] },
        { output: [say("done")] },
      ],
    });
    const cwd = tempDir("tandem-cwd-");
    writeFileSync(join(cwd, "notes.txt"), "one\ntwo\n");
    const started = await client.request("thread/start", { cwd, sandbox: "read-only" });
    const threadId = started.thread.id;
    const turn = await client.request("turn/start", { threadId, input: [{ type: "text", text: "go" }] });
    const turnId = turn.turn.id;

    const approval = await client.serverRequest("item/fileChange/requestApproval", (p) => p.itemId === "p1");
    const preview = await client.notification("item/fileChange/patchUpdated", (p) => p.itemId === "p1");
    expect(preview).toEqual({
      threadId,
      turnId,
      itemId: "p1",
      changes: [{ path: "notes.txt", kind: { type: "update", move_path: null }, diff: expect.any(String) }],
    });
    expect(preview.changes[0].diff).toContain("-two\n+TWO");
    const order = client.received.map((m) => m.method);
    expect(order.indexOf("item/fileChange/patchUpdated")).toBeLessThan(
      order.indexOf("item/fileChange/requestApproval"),
    );
    client.respond(approval, { decision: "accept" });

    const diff = await client.notification("turn/diff/updated", (p) => p.turnId === turnId);
    expect(diff.diff).toContain("+TWO");
    const plan = await client.notification("turn/plan/updated", (p) => p.turnId === turnId);
    expect(plan).toEqual({
      threadId,
      turnId,
      explanation: null,
      plan: [
        { step: "Write the schema", status: "completed" },
        { step: "Add the service", status: "inProgress" },
      ],
    });
    await client.notification("turn/completed", (p) => p.threadId === threadId);
    const itemIds = client.received
      .filter((m) => m.method === "item/started" || m.method === "item/completed")
      .map((m) => m.params.item.id);
    expect(itemIds).not.toContain("plan1");

    const read = await client.request("thread/read", { threadId, includeTurns: true });
    const items = read.thread.turns[0].items;
    const change = items.find((i: any) => i.id === "p1");
    expect(change).toMatchObject({ type: "fileChange", status: "completed" });
    expect(change.changes[0].diff).toContain("-two\n+TWO");
    expect(items.map((i: any) => i.id)).not.toContain("plan1");
  });

  // Fails if the block stays in the agent message (no plan item: no "Implement this plan?").
  it("a <proposed_plan> block in Plan mode is Codex's plan item, live and in history", async () => {
    const text = "Here is the plan.\n\n<proposed_plan>\n# Service\n- add the schema\n</proposed_plan>\n";
    const client = await start({ steps: [{ output: [{ type: "message", text }] }] });
    const started = await client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    const threadId = started.thread.id;
    await client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "plan it" }],
      collaborationMode: PLAN_MODE,
    });
    const planDone = await client.notification("item/completed", (p) => p.item.type === "plan");
    expect(planDone.item.text).toBe("# Service\n- add the schema");
    const msg = await client.notification("item/completed", (p) => p.item.type === "agentMessage");
    expect(msg.item.text).toBe("Here is the plan.");
    await client.notification("turn/completed", (p) => p.threadId === threadId);
    const streamed = client.received
      .filter((m) => m.method === "item/agentMessage/delta")
      .map((m) => m.params.delta)
      .join("");
    expect(streamed).not.toContain("proposed_plan");
    const planDeltas = client.received
      .filter((m) => m.method === "item/plan/delta")
      .map((m) => m.params.delta)
      .join("");
    expect(planDeltas).toContain("add the schema");
    const planStarted = client.received.findIndex(
      (m) => m.method === "item/started" && m.params.item.type === "plan",
    );
    expect(planStarted).toBeGreaterThanOrEqual(0);

    const read = await client.request("thread/read", { threadId, includeTurns: true });
    const items = read.thread.turns[0].items;
    expect(items.filter((i: any) => i.type !== "userMessage")).toEqual([
      { type: "agentMessage", id: msg.item.id, text: "Here is the plan." },
      { type: "plan", id: planDone.item.id, text: "# Service\n- add the schema" },
    ]);
  });

  // Fails if a null `effort` (what `/permissions` sends) or a re-sent mode clears the effort.
  it("a settings update that does not name the effort keeps it", async () => {
    const client = await start({ steps: [] });
    const started = await client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    const threadId = started.thread.id;
    await client.request("thread/settings/update", { threadId, effort: "high" });
    await client.notification("thread/settings/updated", (p) => p.threadSettings.effort === "high");
    await client.request("thread/settings/update", {
      threadId,
      permissions: ":workspace",
      effort: null,
      model: null,
      collaborationMode: null,
    });
    const kept = await client.notification(
      "thread/settings/updated",
      (p) => p.threadSettings.activePermissionProfile?.id === ":workspace",
    );
    expect(kept.threadSettings.effort).toBe("high");
    await client.request("thread/settings/update", {
      threadId,
      approvalPolicy: "never",
      collaborationMode: {
        mode: "default",
        settings: { model: started.thread.model, reasoning_effort: null },
      },
    });
    const again = await client.notification(
      "thread/settings/updated",
      (p) => p.threadSettings.approvalPolicy === "never",
    );
    expect(again.threadSettings.effort).toBe("high");
  });
});
