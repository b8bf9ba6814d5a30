/**
 * Red team round 3, commit 7b51a2e (src/runtime/host.ts storageFor, src/store/postgres/bridge.ts
 * `soon`): a thread's `update` (status) and `updateTurn` no longer block, so a fenced refusal no
 * longer throws into the turn loop; `fenced()` runs when the refusal arrives. The commit's claim:
 * "its next item append is refused anyway, so nothing runs on a lost lease".
 *
 * Attacked here: the end of a turn, where no item is appended after the last store call that
 * used to throw. Thread.run (src/runtime/thread.ts ~425-457) ends with updateTurn (now queued),
 * setStatus (queued; emits thread.status_changed) and emit(turn.completed). Before 7b51a2e a
 * lease lost before that point made updateTurn throw `fenced`, so the stale copy published
 * neither; ownership.ts says a fenced thread is given up "quietly (its failing turn's own events
 * would tell clients it failed while it goes on elsewhere)", and node.ts: "A thread lost here is
 * another node's now: its stale copy's events stay local".
 *
 * The window is made wide with a user Stop hook ($TANDEM_HOME/hooks.json) that waits for a file;
 * the lease is moved while it waits (moveLeaseBehindOwner: the stale node learns of it only at
 * its next renewal, TTL/5 = 12 s here). Real `tandem serve` nodes on PostgreSQL + nats-server.
 *
 * Fixed since: only in-turn status changes (`running`, `waiting_on_user`) are queued; the turn's
 * record and every status that ends a turn wait again (runtime/host.ts storageFor).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  CLUSTER_TOKEN,
  clusterRig,
  moveLeaseBehindOwner,
  startServeNode,
  waitFor,
} from "../helpers/cluster.js";
import { openSse, type SseClient } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { sql } from "../helpers/pg-rig.js";
import { missing } from "../helpers/system-tools.js";

const skip = missing("postgres", "nats-server").length > 0;
const auth = { authorization: `Bearer ${CLUSTER_TOKEN}` };

describe.skipIf(skip)("red team 3: a stale owner's queued status writes and its turn's last events", () => {
  const rig = clusterRig();
  const streams: SseClient[] = [];
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  // Broke in round 3, fixed since: failed because node A, whose lease moved to node B while the turn's Stop hook ran,
  // still publishes thread.status_changed(idle) and turn.completed(status "completed") for the
  // thread: they are logged in the cluster's event log and reach B's SSE clients, while the
  // store refused A's queued updateTurn/updateThread (fenced) — the turn row stays "running" and
  // the thread row "running". Clients are told the turn completed while the store (and the
  // owner that takes the thread: orphan scan / open with continueWorking → resumeThread, which
  // re-runs a last turn still "running") says it did not. Before 7b51a2e updateTurn threw
  // `fenced` synchronously and run() ended before either event.
  it("a node that lost the lease during the turn's last step publishes no turn.completed for it", async () => {
    const mock = await rig.mock({ steps: [{ output: [{ type: "message", text: "all done" }] }] });
    const db = rig.pg.createDatabase("redteam3_fenced_tail");
    const home = tempDir("tandem-rt3-home-");
    const flags = tempDir("tandem-rt3-flags-");
    mkdirSync(home, { recursive: true });
    const started = join(flags, "stop-started");
    const go = join(flags, "go");
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({
        hooks: {
          Stop: [
            {
              hooks: [
                {
                  type: "command",
                  command: `touch '${started}'; while [ ! -f '${go}' ]; do sleep 0.05; done`,
                  timeout: 60,
                },
              ],
            },
          ],
        },
      }),
    );
    const opts = { db, bus: rig.nats.url, mock, ttlMs: 60_000 };
    const a = await startServeNode("a", { ...opts, env: { TANDEM_HOME: home } });
    const b = await startServeNode("b", opts);
    rig.nodes.push(a, b);
    const all = await openSse(`${b.url}/event`, auth);
    streams.push(all);
    const id = (await a.post("/thread", {})).body.id as string;
    const turn = await a.post(`/thread/${id}/turn`, { text: "go" });
    expect(turn.status).toBe(202);
    const turnId = turn.body.turn_id as string;
    await waitFor(
      "the Stop hook to start on A",
      async () => (existsSync(started) ? true : undefined),
      20_000,
    );
    // Another node owns the thread now; A does not know yet (its next renewal is seconds away).
    await moveLeaseBehindOwner(db, id, "b");
    writeFileSync(go, "");
    await new Promise((r) => setTimeout(r, 2500));
    const logged = (await sql(db, "SELECT stamped FROM events WHERE thread_id = $1 ORDER BY seq", [id])).map(
      (r) => JSON.parse(r.stamped).event,
    );
    const after = logged.filter(
      (e) =>
        (e.type === "turn.completed" && e.turn_id === turnId) ||
        (e.type === "thread.status_changed" && e.status === "idle"),
    );
    const seenOnB = all
      .events()
      .map((s) => s.event)
      .filter(
        (e) => e.thread_id === id && (e.type === "turn.completed" || e.type === "thread.status_changed"),
      );
    const [turnRow] = await sql(db, "SELECT status FROM turns WHERE id = $1", [turnId]);
    const [threadRow] = await sql(db, "SELECT status FROM threads WHERE id = $1", [id]);
    console.log(
      "[redteam3] stale owner's tail:",
      JSON.stringify({
        logged: after.map((e) => `${e.type}:${e.status ?? ""}`),
        seenOnB: seenOnB.map((e) => `${e.type}:${e.status ?? ""}`),
        turnRow: turnRow?.status,
        threadRow: threadRow?.status,
        aLog: a
          .stderr()
          .split("\n")
          .filter((l) => /lease|fenced/.test(l)),
      }),
    );
    expect(turnRow?.status, "the store refused A's write (fenced)").toBe("running");
    expect(
      after.map((e) => e.type),
      "the stale owner's turn.completed / status idle were logged for the cluster",
    ).toEqual([]);
    expect(
      seenOnB.filter((e) => e.type === "turn.completed"),
      "node B's client was told the turn completed",
    ).toEqual([]);
  });
});
