/**
 * Red team, cluster perf changes, item 5: a thread family's saved secrets as one node knows them.
 * A `born(threadId)` shortcut (reverted) marked a thread this process stored as having nothing in
 * the vault, on the premise "nothing can be saved under a new id" — but in a cluster another
 * process can: the thread moves to node B, a secret is answered there (B saves the family's
 * values in the shared store's vault), and the thread comes back to A. The same staleness came
 * from A's own earlier look at the vault ("nothing there", cached). Now opening a stored thread
 * refreshes its family (ThreadRegistry.open → SecretStore.refresh).
 *
 * First the mechanism with two secret stores on one vault (two processes, one database, one
 * key), then end to end: two real `tandem serve` nodes that share a vault key (both homes hold
 * the same secret.key), real PostgreSQL and nats-server, the thread handed A → B → A.
 */

import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pgClient from "pg";
import { describe, expect, it } from "vitest";
import { REDACTED } from "../../src/protocol/questions.js";
import { createSecretVault } from "../../src/questions/secret-vault.js";
import { createSecretStore } from "../../src/questions/secrets.js";
import type { MockProcess } from "../helpers/cli.js";
import { clusterRig, type ServeNode, startServeNode, waitFor } from "../helpers/cluster.js";
import { tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const SECRET = "sk-BORN-ON-A-5e1f0c77d2";

function memoryMeta() {
  const m = new Map<string, string>();
  return { getMeta: (k: string) => m.get(k), setMeta: (k: string, v: string) => void m.set(k, v) };
}

describe("red team: born() and a family whose secret is answered by another process", () => {
  // Was BROKEN (born): process A ran the thread, process B answers a secret in it (saved to the
  // shared vault), the thread comes back to A: A must read the vault again and mask the value.
  it("a thread run here masks a secret another process saved for it since", () => {
    const meta = memoryMeta();
    const keyFile = join(tempDir(), "home", "secret.key");
    const vault = () => createSecretVault({ store: meta, keyFile });
    const a = createSecretStore({ vault: vault() });
    const b = createSecretStore({ vault: vault() });
    expect(a.view("thr_1").mask(SECRET)).toBe(SECRET); // A ran the thread: nothing saved then
    b.put("thr_1", "api_key", SECRET); // the secret answered on B (saved to the vault)
    a.refresh("thr_1"); // the thread opens on A again (ThreadRegistry.open)
    // Control: a process that never saw the thread masks it (it reads the vault).
    expect(createSecretStore({ vault: vault() }).view("thr_1").mask(`KEY=${SECRET}`)).toBe(`KEY=${REDACTED}`);
    expect(a.view("thr_1").mask(`KEY=${SECRET}`), "A prints the secret B saved for the thread").toBe(
      `KEY=${REDACTED}`,
    );
  });
});

const skip = missing("postgres", "nats-server").length > 0;

describe.skipIf(skip)("red team: a secret answered on B for a thread born on A, back on A", () => {
  const rig = clusterRig();
  const nodes = rig.nodes;
  let mock: MockProcess | undefined;

  const call = (call_id: string, name: string, args: Record<string, unknown>) => ({
    type: "function_call" as const,
    name,
    arguments: args,
    call_id,
  });
  const askSecret = call("ask1", "request_user_input", {
    questions: [{ id: "api_key", header: "API key", question: "Your API key?", secret: true }],
  });
  const writeEnv = {
    expect: { input_contains: ["ask1"] },
    output: [call("w1", "exec_command", { cmd: "printf 'API_KEY=%s\\n' \"$TANDEM_SECRET_API_KEY\" > .env" })],
  };
  const backOnA = [
    { output: [call("CAT_A", "exec_command", { cmd: "cat .env" })] },
    { expect: { input_contains: ["CAT_A"] }, output: [{ type: "message", text: "read on A" }] },
  ];

  async function idle(node: ServeNode, id: string, marker: string) {
    await waitFor(`${marker} on ${node.name}`, async () => {
      const d = await node.get(`/thread/${id}`);
      return JSON.stringify(d.items ?? []).includes(marker) && d.status !== "running" ? d : undefined;
    });
  }
  async function pending(node: ServeNode, id: string, qid?: string): Promise<any> {
    const [q] = await waitFor(`a question on ${node.name}`, async () => {
      const qs = ((await node.get(`/question?thread=${id}`)).questions as any[]).filter(
        (x) => qid === undefined || x.request_id !== qid,
      );
      return qs.length ? qs : undefined;
    });
    return q;
  }

  /** Nodes a and b sharing one vault key (and c, fresh, for a control), thread cwd shared. */
  async function twoNodes(script: unknown, name: string) {
    mock = await rig.mock(script);
    const db = rig.pg.createDatabase(name);
    const key = randomBytes(32);
    const homes = [tempDir(), tempDir()];
    for (const h of homes) writeFileSync(join(h, "secret.key"), key, { mode: 0o600 });
    const cwd = tempDir("tandem-born-cwd-");
    const args = ["-c", 'sandbox_mode="danger-full-access"', "-c", 'approval_policy="never"'];
    const common = { db, bus: rig.nats.url, mock, ttlMs: 10_000, busArgs: args };
    const a = await startServeNode("a", { ...common, env: { TANDEM_HOME: homes[0] } });
    const b = await startServeNode("b", { ...common, env: { TANDEM_HOME: homes[1] } });
    nodes.push(a, b);
    return { db, cwd, a, b };
  }

  /** On B: the secret is answered and written into .env; then the thread goes back to A, which cats it. */
  async function secretOnBThenBackToA(db: string, cwd: string, a: ServeNode, b: ServeNode, id: string) {
    const q = await pending(b, id);
    const reply = await b.post(`/question/${q.request_id}/reply`, {
      thread_id: id,
      text: { api_key: SECRET },
    });
    expect(reply.status).toBe(200);
    await idle(b, id, "written on B");
    expect(readFileSync(join(cwd, ".env"), "utf8")).toContain(SECRET); // the command got it
    const c = new pgClient.Client({ connectionString: db });
    await c.connect();
    const saved = (await c.query("SELECT key FROM meta WHERE key LIKE 'secret_masks:%'")).rows;
    await c.end();
    expect(saved.map((r) => r.key)).toContain(`secret_masks:${id}`); // B sealed it in the shared vault

    expect((await b.post(`/thread/${id}/handover`, { to: "a" })).status).toBe(200);
    expect((await a.post(`/thread/${id}/turn`, { text: "check it" })).status).toBe(202);
    await idle(a, id, "read on A");

    const requests = readFileSync(mock!.log, "utf8");
    const detail = JSON.stringify(await a.get(`/thread/${id}`));
    expect(requests.includes("CAT_A")).toBe(true);
    expect(
      { inModelRequests: requests.includes(SECRET), inThreadOnA: detail.includes(SECRET) },
      "the value B's answer holds reached the model / A's history in clear",
    ).toEqual({ inModelRequests: false, inThreadOnA: false });
  }

  // Was broken by `born`: the thread is stored on A by a turn that is handed over while it waits
  // on a question, so A never masked anything for it, and `born` told it the vault was empty.
  it("a thread born on A, handed over mid-turn, comes back: B's secret stays masked on A", async () => {
    const script = {
      steps: [
        {
          output: [
            call("q0", "request_user_input", {
              questions: [{ id: "name", header: "Name", question: "Name?" }],
            }),
          ],
        },
        { expect: { input_contains: ["q0"] }, output: [askSecret] },
        writeEnv,
        { output: [{ type: "message", text: "written on B" }] },
        ...backOnA,
      ],
    };
    const { db, cwd, a, b } = await twoNodes(script, "redteam_born_midturn");
    const id = (await a.post("/thread", { mode: "plan", cwd })).body.id as string;
    expect((await a.post(`/thread/${id}/turn`, { text: "hi" })).status).toBe(202);
    const q0 = await pending(a, id);
    expect((await a.post(`/thread/${id}/handover`, { to: "b" })).status).toBe(200);
    // B opens the thread on the reply (it re-asks q0 with the same id) and goes on with the turn.
    const r0 = await b.post(`/question/${q0.request_id}/reply`, { thread_id: id, text: { name: "x" } });
    expect(r0.status).toBe(200);
    await pending(b, id, q0.request_id);
    await secretOnBThenBackToA(db, cwd, a, b, id);
  });

  // Was broken before the series too: A finished a turn of the thread first, and every finished
  // turn masks its diff, which loads the vault and cached "nothing there" (`empty`) for good.
  // Fails if ThreadRegistry.open stops refreshing the family (tried).
  it("a thread that finished a turn on A, then got a secret on B, comes back: masked on A", async () => {
    const script = {
      steps: [
        { output: [{ type: "message", text: "hello from A" }] },
        { output: [askSecret] },
        writeEnv,
        { output: [{ type: "message", text: "written on B" }] },
        ...backOnA,
      ],
    };
    const { db, cwd, a, b } = await twoNodes(script, "redteam_born_done");
    const id = (await a.post("/thread", { mode: "plan", cwd })).body.id as string;
    expect((await a.post(`/thread/${id}/turn`, { text: "hi" })).status).toBe(202);
    await idle(a, id, "hello from A");
    expect((await a.post(`/thread/${id}/handover`, { to: "b" })).status).toBe(200);
    expect((await b.post(`/thread/${id}/turn`, { text: "set it up" })).status).toBe(202);
    await secretOnBThenBackToA(db, cwd, a, b, id);
  });
});
