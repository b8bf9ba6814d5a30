/**
 * The web page's state module (web/src/state.ts): events of the selected thread that arrive while
 * its history loads are kept — also when a second load of the same thread starts before the first
 * returns (the stream's `ready` or a `gap` refetches while the selection's own load is in flight),
 * whichever of the two answers first. The module runs as in the browser, over stand-ins for what
 * the browser gives it (EventSource, fetch, storage); the server's answers are held back and
 * released by the test, so the race is played out exactly, not by timing.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Event } from "../../src/protocol/events.js";
import type { Transcript } from "../../web/src/lib/transcript.js";
import { waitUntil } from "../helpers/wait.js";

type Json = Record<string, any>;

/** An EventSource the test drives: `emit` a named event, `message` a stamped event. */
class FakeSource {
  static CLOSED = 2;
  static last: FakeSource | undefined;
  readyState = 1;
  onmessage: ((m: { data: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  private listeners = new Map<string, Array<(m: { data: string }) => void>>();
  constructor(readonly url: string) {
    FakeSource.last = this;
  }
  addEventListener(type: string, fn: (m: { data: string }) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  emit(type: string, data: Json = {}) {
    for (const fn of this.listeners.get(type) ?? []) fn({ data: JSON.stringify(data) });
  }
  message(seq: number, event: Event) {
    this.onmessage?.({ data: JSON.stringify({ seq, event }) });
  }
  close() {
    this.readyState = FakeSource.CLOSED;
  }
}

const THREAD = "t-load-1";
const summary = {
  id: THREAD,
  parent_id: null,
  cwd: "/w",
  model: "m",
  mode: "default",
  title: "a thread",
  status: "running",
  loaded: true,
  active_turn_id: "turn1",
  pending_questions: 0,
  created_at: 1,
  updated_at: 1,
  usage: null,
};
const userItem = (text: string) => ({
  type: "message",
  role: "user",
  content: [{ type: "input_text", text }],
});
const said = (id: string, text: string): Event => ({
  type: "item.completed",
  thread_id: THREAD,
  turn_id: "turn1",
  item: { id, type: "agent_message", text },
});

/** Loads state.ts afresh over the stand-ins; `/thread/:id` answers wait for `release`. */
async function page() {
  const store = () => {
    const m = new Map<string, string>([["tandem.thread", THREAD]]);
    return {
      getItem: (k: string) => m.get(k) ?? null,
      setItem: (k: string, v: string) => void m.set(k, v),
      removeItem: (k: string) => void m.delete(k),
    };
  };
  const details: Array<(items: Json[]) => void> = [];
  vi.stubGlobal("sessionStorage", store());
  vi.stubGlobal("localStorage", store());
  vi.stubGlobal("document", { hidden: false, activeElement: null, getElementById: () => null });
  vi.stubGlobal("EventSource", FakeSource);
  vi.stubGlobal("fetch", async (path: string) => {
    const ok = (data: unknown) => ({ ok: true, status: 200, json: async () => data });
    if (path === "/thread") return ok({ threads: [summary] });
    if (path === "/question") return ok({ questions: [], server_time: Date.now() });
    if (path === `/thread/${THREAD}`)
      return new Promise((resolve) =>
        details.push((items) => resolve(ok({ thread: summary, items, questions: [], turns: [] }))),
      );
    throw new Error(`unexpected fetch ${path}`);
  });
  vi.resetModules();
  // Imported by URL: the root typecheck (no DOM library) must not follow it; `tsc -p web` checks it.
  const state = (await import(new URL("../../web/src/state.ts", import.meta.url).href)) as WebState;
  return { state, details };
}

/** What the test uses of web/src/state.ts. */
interface WebState {
  app: { transcript: Transcript };
  connect(): void;
}

const texts = (state: WebState) => state.app.transcript.entries.map((e) => ("text" in e ? e.text : ""));

describe("web state: events while a thread's history loads", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  // Fails if a second load of the same thread drops what the first held (one shared buffer reset
  // by the second), or if the first load, answering last, puts its older history over the newer.
  it.each(["first answers first", "second answers first"])(
    "two loads of the selected thread: nothing that arrived meanwhile is lost (%s)",
    async (order) => {
      const { state, details } = await page();
      state.connect();
      const source = FakeSource.last!;
      source.emit("ready", { server_time: Date.now() });
      await waitUntil(() => details.length === 1, "the selected thread's history to be asked for");
      source.message(1, said("m1", "during the first load"));
      source.emit("gap");
      await waitUntil(() => details.length === 2, "the refetch to ask for the history again");
      source.message(2, said("m2", "during the second load"));
      // The second answer is newer: it already holds m1 (stored before it was read); the first
      // holds neither. Whatever the order, m1 and m2 are both shown, each once.
      const [first, second] = details;
      const answers = [() => first([userItem("older history")]), () => second([userItem("newer history")])];
      if (order === "second answers first") answers.reverse();
      for (const answer of answers) {
        answer();
        await new Promise((r) => setImmediate(r));
      }
      source.message(3, said("m3", "after the loads"));
      const shown = texts(state);
      expect(shown).toContain("newer history");
      expect(shown).not.toContain("older history");
      expect(shown.filter((t) => t === "during the second load")).toHaveLength(1);
      expect(shown).toContain("after the loads");
    },
  );

  it("one load: an event during it is applied after the history, once", async () => {
    const { state, details } = await page();
    state.connect();
    FakeSource.last!.emit("ready", { server_time: Date.now() });
    await waitUntil(() => details.length === 1, "the history to be asked for");
    FakeSource.last!.message(1, said("m1", "while loading"));
    expect(texts(state)).toEqual([]);
    details[0]([userItem("history")]);
    await waitUntil(() => texts(state).includes("while loading"), "the held event to be applied");
    expect(texts(state).filter((t) => t === "while loading")).toHaveLength(1);
    expect(texts(state)).toContain("history");
  });
});
