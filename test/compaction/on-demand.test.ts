/**
 * Compaction on demand and its events on every surface (README "Long sessions"): app-server
 * `thread/compact/start` (Codex `contextCompaction` item, `thread/compacted`), the HTTP route
 * `POST /thread/:id/compact`, the TUI's `/compact` (Ink on the real runtime) and `tandem exec
 * --json` (a process). All against the scripted model over real HTTP.
 */
import { render } from "ink-testing-library";
import { createElement as h } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_MARKER } from "../../src/agent/compaction-prompt.js";
import { type MockModel, startMockModel } from "../../src/mock-model/index.js";
import { App } from "../../src/surfaces/tui/app.js";
import { TuiController } from "../../src/surfaces/tui/controller.js";
import { defaultKeymap } from "../../src/surfaces/tui/keymap.js";
import { Transcript } from "../../web/src/lib/transcript.js";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { jsonLines, runTandem, startMockProcess } from "../helpers/cli.js";
import { serve } from "../helpers/http.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";
import { inAct, pressKeys } from "../helpers/ink-act.js";

const say = (text: string) => ({ type: "message" as const, text });
const textOf = (item: any): string =>
  Array.isArray(item?.content) ? item.content.map((c: any) => c.text ?? "").join("") : "";
const hasSummary = (body: any) =>
  body.input.some((i: any) => i.role === "user" && textOf(i).startsWith(SUMMARY_MARKER));

describe("compaction on demand", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  // fails if: thread/compact/start stays unsupported, answers anything but {}, the compaction is
  // not announced as a Codex contextCompaction item (item/started + item/completed) and
  // thread/compacted, any message breaks the Codex schema, or the next turn is not compacted.
  it("app-server thread/compact/start compacts an idle thread as a contextCompaction item", async () => {
    const mock: MockModel = await startMockModel({
      script: { steps: [{ output: [say("first answer")] }, { output: [say("second answer")] }] },
    });
    cleanup.push(() => mock.close());
    const home = tempDir("tandem-home-");
    const s: Served = inProcessStdio({ TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url });
    cleanup.push(async () => {
      expect(s.client.violations).toEqual([]);
      await s.close();
    });
    await s.client.initialize();
    const threadId = (await s.client.request("thread/start", { cwd: tempDir("tandem-cwd-") })).thread.id;
    await s.client.request("turn/start", { threadId, input: [{ type: "text", text: "remember: blue" }] });
    await s.client.notification("turn/completed", (p) => p.threadId === threadId);
    expect(await s.client.request("thread/compact/start", { threadId })).toEqual({});
    const started = await s.client.notification(
      "item/started",
      (p) => p.threadId === threadId && p.item.type === "contextCompaction",
    );
    const done = await s.client.notification(
      "item/completed",
      (p) => p.threadId === threadId && p.item.type === "contextCompaction",
    );
    expect(done.item.id).toBe(started.item.id);
    const compacted = await s.client.notification("thread/compacted", (p) => p.threadId === threadId);
    expect(compacted.turnId).toBe(started.turnId);
    await s.client.notification("turn/completed", (p) => p.turn.id === started.turnId);
    const next = await s.client.request("turn/start", {
      threadId,
      input: [{ type: "text", text: "what color?" }],
    });
    await s.client.notification("turn/completed", (p) => p.turn.id === next.turn.id);
    // A stored compaction reads back as Codex's contextCompaction item, not as user input.
    const read = await s.client.request("thread/read", { threadId, includeTurns: true });
    const items = read.thread.turns.flatMap((t: any) => t.items);
    expect(items.filter((i: any) => i.type === "contextCompaction")).toHaveLength(1);
    expect(JSON.stringify(items)).not.toContain(SUMMARY_MARKER);
    const last = mock.requests.at(-1) as any;
    expect(hasSummary(last)).toBe(true);
    expect(JSON.stringify(last.input)).toContain("remember: blue");
  });

  // fails if: the route is missing, answers without the compacting turn, or the compaction does
  // not reach the event stream and the thread's stored items.
  it("POST /thread/:id/compact compacts and the summary is stored", async () => {
    const s = await serve({ script: { steps: [{ output: [say("ok")] }] } });
    cleanup.push(() => s.close());
    const created = await s.call("POST", "/thread", { cwd: s.h.cwd });
    const id = created.json.id ?? created.json.thread_id;
    const t = await s.call("POST", `/thread/${id}/turn`, { text: "hello there" });
    expect(t.status).toBe(202);
    await s.h.waitFor((e) => e.type === "turn.completed");
    const r = await s.call("POST", `/thread/${id}/compact`);
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({ thread_id: id, when: "now" });
    const ev = await s.h.waitFor((e) => e.type === "context.compacted" && e.turn_id === r.json.turn_id);
    expect(ev).toMatchObject({ reason: "manual" });
    const detail = await s.call("GET", `/thread/${id}`);
    expect(detail.json.items.some((i: any) => textOf(i).startsWith(SUMMARY_MARKER))).toBe(true);
    const missing = await s.call("POST", "/thread/nope/compact");
    expect(missing.status).toBe(404);
    const doc = await s.call("GET", "/openapi.json");
    expect(doc.json.paths["/thread/{id}/compact"].post.responses["202"]).toBeDefined();
  });

  // fails if: /compact is not a TUI command, does not compact the thread, or the TUI shows no
  // line for the compaction.
  it("/compact in the TUI compacts the thread and shows a line", async () => {
    const hs: Harness = await harness({
      script: { steps: [{ output: [say("hi back")] }, { output: [say("after")] }] },
    });
    cleanup.push(() => hs.close());
    const ctl = new TuiController(hs.runtime, {
      cwd: hs.cwd,
      mode: "default",
      keymap: defaultKeymap,
      frameMs: 5,
    });
    const thread = ctl.startNew();
    const ui = render(h(App, { controller: ctl, keymap: defaultKeymap }));
    cleanup.push(async () => {
      ui.unmount();
      ctl.dispose();
    });
    await inAct();
    await pressKeys(ui.stdin, "hello", "\r");
    await hs.waitFor((e) => e.type === "turn.completed");
    await pressKeys(ui.stdin, "/compact", "\r");
    await hs.waitFor((e) => e.type === "context.compacted" && e.thread_id === thread.id);
    const end = Date.now() + 10_000;
    while (!ui.frames.join("").includes("context compacted (manual)") && Date.now() < end)
      await new Promise((r) => setTimeout(r, 15));
    expect(ui.frames.join("")).toContain("context compacted (manual)");
    expect(thread.items().some((i) => textOf(i).startsWith(SUMMARY_MARKER))).toBe(true);
  });

  // fails if: the web transcript shows no line for a compaction, live or after a reload, or shows
  // the stored summary as something the user typed.
  it("the web transcript shows a compaction line, live and after a reload", async () => {
    const hs: Harness = await harness({ script: { steps: [{ output: [say("hello")] }] } });
    cleanup.push(() => hs.close());
    const thread = hs.runtime.threads.start({ cwd: hs.cwd });
    const live = new Transcript();
    hs.runtime.subscribe((s) => {
      if ("thread_id" in s.event && s.event.thread_id === thread.id) live.apply(s.event);
    });
    await thread.startTurn("hi").done;
    await thread.compact().done;
    const lines = (t: Transcript) => t.entries.filter((e) => e.kind === "turn").map((e: any) => e.text);
    expect(lines(live).some((t) => t.startsWith("context compacted (manual)"))).toBe(true);
    const stored = new Transcript();
    stored.load([...thread.items()]);
    expect(lines(stored)).toContain("context compacted");
    const users = stored.entries.filter((e) => e.kind === "user").map((e: any) => e.text);
    expect(users).toEqual(["hi"]);
  });

  // fails if: exec --json prints no context_compaction item for an automatic compaction, or its
  // started/completed lines do not pair.
  it("tandem exec --json prints the compaction as a context_compaction item", async () => {
    const big = (id: string) => ({
      type: "function_call",
      name: "exec_command",
      arguments: { cmd: `head -c 2400 /dev/zero | tr '\\0' x; echo ${id}` },
      call_id: id,
    });
    const mock = await startMockProcess({
      steps: [
        { output: [big("e1")] },
        { output: [big("e2")] },
        { output: [big("e3")] },
        { output: [say("fin")] },
      ],
    });
    cleanup.push(() => mock.stop());
    const home = tempDir("tandem-home-");
    const r = await runTandem(
      [
        "exec",
        "--json",
        "-c",
        "model_context_window=2000",
        "-c",
        'sandbox_mode="danger-full-access"',
        "--cd",
        tempDir("tandem-cwd-"),
        "go",
      ],
      { env: { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url } },
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    const started = lines.filter((l) => l.type === "item.started" && l.item.type === "context_compaction");
    const completed = lines.filter(
      (l) => l.type === "item.completed" && l.item.type === "context_compaction",
    );
    expect(started.length).toBeGreaterThan(0);
    expect(completed.map((l) => l.item.id)).toEqual(started.map((l) => l.item.id));
    expect(completed[0].item.after_tokens).toBeLessThan(completed[0].item.before_tokens);
    expect(lines.at(-1).type).toBe("turn.completed");
    // `tandem export` still prints the whole stored history: every call, and the summary item.
    const threadId = lines.find((l) => l.type === "thread.started").thread_id;
    const exported = await runTandem(["export", threadId], { env: { TANDEM_HOME: home } });
    const items = jsonLines(exported.stdout);
    expect(items.filter((i) => i.type === "function_call").map((i) => i.call_id)).toEqual(["e1", "e2", "e3"]);
    expect(items.filter((i) => textOf(i).startsWith(SUMMARY_MARKER)).length).toBe(started.length);
  });
});
