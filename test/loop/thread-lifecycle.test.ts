/**
 * README "Use it", end to end: a thread is stored only when its first turn starts (a thread
 * started and left without input leaves nothing), a thread read before that answers from memory,
 * `updated_at` moves when turns run, and a failed turn reads `failed` on every surface: `tandem
 * threads` (text and --json), the HTTP thread object (live and from the store) and the
 * app-server thread status (`systemError`, validated against the Codex schema). Real processes
 * (`./bin/tandem`, run `npm run build` first) or a real runtime in-process, a scripted model.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { openStore } from "../../src/store/index.js";
import { serverEnv } from "../helpers/app-server.js";
import { type Served as AppServed, inProcessStdio } from "../helpers/app-server-client.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { type Served, serve } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { waitUntil } from "../helpers/wait.js";

const FAIL = { fault: { type: "http", status: 400, message: "bad request from server" } };
const OK = { output: [{ type: "message", text: "All good." }] };

/** The stored threads of a TANDEM_HOME, read with the store directly. */
function storedThreads(home: string) {
  const store = openStore(join(home, "state.db"));
  try {
    return store.listThreads();
  } finally {
    store.close();
  }
}

describe("a failed turn reads failed; threads are stored with their first turn", () => {
  let mock: MockProcess | undefined;
  let sv: Served | undefined;
  let app: AppServed | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await sv?.close();
    sv = undefined;
    await mock?.stop();
    mock = undefined;
  });

  // Fails if `tandem threads` prints the stored status without the last turn's outcome (exec
  // closes the thread after the failed turn, so it read "closed"), if --json does the same, or
  // if a later turn that completes leaves the thread marked failed.
  it("tandem threads: an exec whose turn failed lists as failed (text and --json) until a turn completes", async () => {
    mock = await startMockProcess({ steps: [FAIL, OK] });
    const home = tempDir("tandem-home-");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const failed = await runTandem(["exec", "--json", "hi"], { env });
    expect(failed.code, failed.stderr).toBe(1);
    const id: string = jsonLines(failed.stdout)[0].thread_id;

    const listed = await runTandem(["threads"], { env });
    expect(listed.code).toBe(0);
    const line = listed.stdout.split("\n").find((l) => l.startsWith(id));
    expect(line, listed.stdout).toMatch(/ failed /);
    const json = await runTandem(["threads", "--json"], { env });
    expect(jsonLines(json.stdout).map((t) => [t.id, t.status])).toEqual([[id, "failed"]]);

    const again = await runTandem(["exec", "resume", id, "--json", "try again"], { env });
    expect(again.code, again.stderr).toBe(0);
    const after = jsonLines((await runTandem(["threads", "--json"], { env })).stdout);
    expect(after.map((t) => t.id)).toEqual([id]);
    expect(after[0].status).not.toBe("failed");
  });

  // Fails if POST /thread stores the thread at once (the store then holds it before any input),
  // if GET /thread or GET /thread/:id leave the not-yet-stored thread out (or 404), if the first turn does
  // not store it (row, context items, user message), if the live status after the failed turn is
  // idle, if the live `updated_at` stays at creation, or if a server that did not run the turn
  // reads the stored thread as idle/closed instead of failed.
  it("HTTP: a new thread answers from memory, is stored by its first turn; a failed turn reads failed live and after a restart", async () => {
    const home = tempDir("tandem-home-");
    sv = await serve({ script: { steps: [FAIL] } as Script, home });
    const created = await sv.call("POST", "/thread", {});
    expect(created.status).toBe(201);
    const id: string = created.json.id;
    // Listed by this server (from memory), not stored.
    expect((await sv.call("GET", "/thread")).json.threads.map((t: any) => t.id)).toEqual([id]);
    expect(sv.h.runtime.threads.stored(id)).toBeUndefined();
    const early = await sv.call("GET", `/thread/${id}`);
    expect(early.status).toBe(200);
    expect(early.json.thread).toMatchObject({ id, status: "idle", loaded: true });

    // The turn starts strictly after the thread was created, so a moved updated_at shows.
    await waitUntil(() => Date.now() > created.json.updated_at, "the clock to move");
    const turn = await sv.call("POST", `/thread/${id}/turn`, { text: "hi" });
    expect(turn.status).toBe(202);
    await sv.h.waitFor((e) => e.type === "turn.completed");
    const live = (await sv.call("GET", `/thread/${id}`)).json;
    expect(live.thread.status).toBe("failed");
    expect(live.thread.updated_at).toBeGreaterThan(created.json.updated_at);
    const listed = (await sv.call("GET", "/thread")).json.threads;
    expect(listed.map((t: any) => [t.id, t.status])).toEqual([[id, "failed"]]);
    const items = sv.h.runtime.threads.history(id).map((s) => s.item);
    expect(items.map((i: any) => i.role)).toEqual(["user", "user"]); // environment context, then "hi"
    expect(JSON.stringify(items[1])).toContain("hi");
    expect(sv.h.events.map((s) => s.event)).toContainEqual({
      type: "thread.status_changed",
      thread_id: id,
      status: "failed",
    });
    await sv.close();

    sv = await serve({ script: { steps: [] } as Script, home });
    const reread = (await sv.call("GET", `/thread/${id}`)).json.thread;
    expect(reread).toMatchObject({ id, status: "failed", loaded: false });
    expect(reread.updated_at).toBe(live.thread.updated_at);
  });

  // Fails if thread/start stores the thread (the store then holds it before any input), if
  // thread/list shows it before its first turn (Codex lists a thread from its first user message:
  // the Codex TUI's pickers filled with "Untitled"), if thread/read refuses it, if its turn/start
  // fails, if a failed turn is reported as idle
  // (the thread/status/changed notification and thread/read must say systemError), or if any
  // message breaks the Codex schema (the client validates each one).
  it("app-server: thread/start stores nothing until turn/start; a failed turn makes the thread systemError", async () => {
    mock = await startMockProcess({ steps: [FAIL] });
    const home = tempDir("tandem-home-");
    app = inProcessStdio(serverEnv(mock, home));
    const { client } = app;
    await client.initialize();
    const started = await client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
    const threadId: string = started.thread.id;
    // Not stored, and not listed until its first turn; thread/read answers from memory.
    expect((await client.request("thread/list", {})).data).toEqual([]);
    expect(storedThreads(home)).toEqual([]);
    const early = await client.request("thread/read", { threadId });
    expect(early.thread).toMatchObject({ id: threadId, status: { type: "idle" } });

    await client.request("turn/start", { threadId, input: [{ type: "text", text: "hi" }] });
    const completed = await client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(completed.turn.status).toBe("failed");
    await client.notification(
      "thread/status/changed",
      (p) => p.threadId === threadId && p.status.type === "systemError",
    );
    const read = await client.request("thread/read", { threadId, includeTurns: true });
    expect(read.thread.status).toEqual({ type: "systemError" });
    expect(read.thread.turns.map((t: any) => t.status)).toEqual(["failed"]);
    const list = (await client.request("thread/list", {})).data;
    expect(list.map((t: any) => t.id)).toEqual([threadId]);
    expect(storedThreads(home).map((t) => t.id)).toEqual([threadId]);
    expect(client.violations).toEqual([]);
  });

  // Fails if thread/start with a sandbox or approval policy writes the (not yet stored) thread's
  // settings to the store (updateThread of an unknown thread throws) or loses them when the
  // first turn stores the thread.
  it("app-server: thread/start settings of a not-yet-stored thread are stored with it", async () => {
    mock = await startMockProcess({ steps: [OK] });
    const home = tempDir("tandem-home-");
    app = inProcessStdio(serverEnv(mock, home));
    const { client } = app;
    await client.initialize();
    const started = await client.request("thread/start", {
      cwd: tempDir("tandem-cwd-"),
      sandbox: "read-only",
      approvalPolicy: "never",
    });
    const threadId: string = started.thread.id;
    await client.request("thread/name/set", { threadId, name: "named early" });
    expect(storedThreads(home)).toEqual([]);
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "hi" }] });
    await client.notification("turn/completed", (p) => p.threadId === threadId);
    const [stored] = storedThreads(home);
    expect(stored).toMatchObject({ id: threadId, title: "named early" });
    expect(stored.settings).toMatchObject({ sandbox_mode: "read-only", approval_policy: "never" });
    expect(client.violations).toEqual([]);
  });
});
