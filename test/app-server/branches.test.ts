/**
 * Codex `thread/fork` and `thread/revert` on `tandem app-server` (surfaces/app-server/branches.ts):
 * every message is validated against Codex's schema by the test client. A fork holds the source's
 * turns up to the point asked; a revert cuts history before a turn and leaves files alone.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serverEnv } from "../helpers/app-server.js";
import { inProcessStdio, RpcFailure, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";

const PATCH = ["*** Begin Patch", "*** Update File: a.txt", "@@", "-one", "+two", "*** End Patch"].join("\n");

describe("tandem app-server: thread/fork and thread/revert", () => {
  const served: Served[] = [];
  let model: MockProcess | undefined;
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      expect(await s.close()).toBe(0);
    }
    await model?.stop();
  });

  it("forks before or through a turn, and reverts history without touching files", async () => {
    model = await startMockProcess({
      steps: [
        { output: [{ type: "message", text: "first answer" }] },
        { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "p1" }] },
        { output: [{ type: "message", text: "patched" }] },
      ],
    });
    const s = inProcessStdio(serverEnv(model));
    served.push(s);
    const client = s.client;
    await client.initialize();
    const cwd = tempDir();
    writeFileSync(join(cwd, "a.txt"), "one\n");
    const threadId = (await client.request("thread/start", { cwd })).thread.id;
    const turnIds: string[] = [];
    for (const text of ["first", "second"]) {
      turnIds.push(
        (await client.request("turn/start", { threadId, input: [{ type: "text", text }] })).turn.id,
      );
      await client.notification("turn/completed", (p) => p.turn?.id === turnIds.at(-1));
    }
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");

    const before = await client.request("thread/fork", { threadId, beforeTurnId: turnIds[1] });
    expect(before.thread.id).not.toBe(threadId);
    expect(before.cwd).toBe(cwd);
    expect(before.thread.turns).toHaveLength(1);
    const started = await client.notification("thread/started", (p) => p.thread.id === before.thread.id);
    expect(started.thread.id).toBe(before.thread.id);
    const through = await client.request("thread/fork", {
      threadId,
      lastTurnId: turnIds[1],
      excludeTurns: true,
    });
    expect(through.thread.turns).toEqual([]);
    const full = await client.request("thread/read", { threadId: through.thread.id, includeTurns: true });
    expect(full.thread.turns).toHaveLength(2);
    const both = await client
      .request("thread/fork", { threadId, beforeTurnId: turnIds[1], lastTurnId: turnIds[0] })
      .then(
        () => undefined,
        (e) => e,
      );
    expect(both).toBeInstanceOf(RpcFailure);
    expect(both.code).toBe(-32602);

    const reverted = await client.request("thread/revert", { threadId, beforeTurnId: turnIds[1] });
    expect(reverted.thread.id).toBe(threadId);
    expect(reverted.thread.turns).toEqual([]);
    expect(await client.notification("thread/reverted")).toEqual({ threadId });
    const read = await client.request("thread/read", { threadId, includeTurns: true });
    expect(read.thread.turns.map((t: { id: string }) => t.id)).toEqual([turnIds[0]]);
    // History only: the file the reverted turn patched stays as it is.
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");
    // The part cut away is an archived thread.
    const archived = (await client.request("thread/list", { archived: true })).data;
    expect(archived).toHaveLength(1);
    const bad = await client.request("thread/revert", { threadId, beforeTurnId: "turn_nope" }).then(
      () => undefined,
      (e) => e,
    );
    expect(bad.code).toBe(-32602);
  });
});

describe("tandem app-server: thread/rollback (older Codex clients)", () => {
  const served: Served[] = [];
  let model: MockProcess | undefined;
  afterEach(async () => {
    for (const s of served.splice(0)) expect(await s.close()).toBe(0);
    await model?.stop();
  });

  // Fails if rollback drops the wrong turns (or none), or takes a count it cannot honour.
  it("drops the last numTurns turns from history, and refuses a count out of range", async () => {
    model = await startMockProcess({
      steps: [
        { output: [{ type: "message", text: "first answer" }] },
        { output: [{ type: "message", text: "second answer" }] },
      ],
    });
    const s = inProcessStdio(serverEnv(model));
    served.push(s);
    const client = s.client;
    await client.initialize();
    const { thread } = await client.request("thread/start", { cwd: tempDir() });
    for (const text of ["one", "two"]) {
      const { turn } = await client.request("turn/start", {
        threadId: thread.id,
        input: [{ type: "text", text }],
      });
      await client.notification("turn/completed", (p) => p.turn.id === turn.id);
    }
    await expect(
      client.request("thread/rollback", { threadId: thread.id, numTurns: 3 }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    const rolled = await client.request("thread/rollback", { threadId: thread.id, numTurns: 1 });
    expect(rolled.thread.id).toBe(thread.id);
    const read = await client.request("thread/read", { threadId: thread.id, includeTurns: true });
    const texts = read.thread.turns.flatMap((t: any) =>
      t.items.filter((i: any) => i.type === "agentMessage").map((i: any) => i.text),
    );
    expect(texts).toEqual(["first answer"]);
    // Only the method itself is outside Codex 0.171's schema; everything else validates.
    expect(client.violations.filter((v) => !v.includes("thread/rollback"))).toEqual([]);
  });
});
