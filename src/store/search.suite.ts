/**
 * The `Store.searchThreads` contract (./search.ts), run against SQLite and PostgreSQL by
 * ./contract.test.ts beside the main store contract: what is searched, how words match, order,
 * limits, that titles and new messages are indexed as they are written, and that a store
 * reopened finds what an earlier process wrote.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResponseItem } from "../protocol/items.js";
import { openStore, type Store } from "./index.js";
import { SNIPPET_CHARS } from "./search.js";
import type { ThreadRecord } from "./types.js";

export function searchContract(newTarget: () => string): void {
  let target: string;
  const open: Store[] = [];
  function store(t = target): Store {
    const s = openStore(t);
    open.push(s);
    return s;
  }
  beforeEach(() => {
    target = newTarget();
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  const ids = (s: Store, q: string, limit?: number) => s.searchThreads(q, { limit }).map((h) => h.thread.id);

  describe("searchThreads", () => {
    it("finds titles and user and assistant messages by word prefix, any case, every word", () => {
      const s = store();
      s.createThread(thread("a", { title: "Fix the Login page" }));
      s.createThread(thread("b"));
      s.appendItem("b", null, message("user", "Please refactor the parser module"));
      s.appendItem("b", null, message("assistant", "Done: the tokenizer is now separate."));
      s.createThread(thread("c"));
      s.appendItem("c", null, message("user", "nothing of interest"));

      expect(ids(s, "login")).toEqual(["a"]);
      expect(ids(s, "LOG pa")).toEqual(["a"]);
      expect(ids(s, "parse")).toEqual(["b"]);
      expect(ids(s, "tokenizer separate")).toEqual(["b"]);
      // Every word, within one message or the title: these are in different messages.
      expect(ids(s, "parser tokenizer")).toEqual([]);
      // A prefix of a word, never the middle of one.
      expect(ids(s, "arser")).toEqual([]);
      const [hit] = s.searchThreads("tokenizer");
      expect(hit.snippet).toBe("Done: the tokenizer is now separate.");
      expect(hit.thread).toMatchObject({ id: "b", cwd: "/work", model: "gpt-test" });
      expect(s.searchThreads("login")[0].snippet).toBeNull();
    });

    it("skips context messages, developer messages, tool calls and outputs", () => {
      const s = store();
      s.createThread(thread("a"));
      s.appendItem("a", null, message("user", "<environment_context>\n  <cwd>/secretproject</cwd>"));
      s.appendItem("a", null, message("user", "# AGENTS.md instructions for /w\nuse zebras"));
      s.appendItem("a", null, message("developer", "developer notes about giraffes"));
      s.appendItem("a", null, {
        type: "function_call",
        name: "exec_command",
        arguments: '{"cmd":"echo walrus"}',
        call_id: "c1",
      });
      s.appendItem("a", null, { type: "function_call_output", call_id: "c1", output: "walrus" });
      for (const q of ["secretproject", "zebras", "giraffes", "walrus"]) expect(ids(s, q), q).toEqual([]);
    });

    it("follows title changes, orders by last update, honours the limit, finds nothing without words", () => {
      const s = store();
      s.createThread(thread("old", { title: "alpha draft", updated_at: 10 }));
      s.createThread(thread("new", { title: "alpha final", updated_at: 30 }));
      s.createThread(thread("mid", { title: "beta", updated_at: 20 }));
      expect(ids(s, "alpha")).toEqual(["new", "old"]);
      s.updateThread("mid", { title: "alpha renamed", updated_at: 25 });
      s.updateThread("old", { title: "gamma", updated_at: 5 });
      expect(ids(s, "alpha")).toEqual(["new", "mid"]);
      expect(ids(s, "draft")).toEqual([]);
      expect(ids(s, "gamma")).toEqual(["old"]);
      expect(ids(s, "alpha", 1)).toEqual(["new"]);
      expect(ids(s, "")).toEqual([]);
      expect(ids(s, " --- ")).toEqual([]);
    });

    it("treats query syntax as plain text: quotes, stars, operators and parentheses never throw", () => {
      const s = store();
      s.createThread(thread("a", { title: "release notes (draft)" }));
      for (const q of [
        '"release',
        "notes*",
        "release OR x",
        "NOT notes",
        "(draft",
        "a & b | !c",
        "'",
        "\\",
        "%_",
      ])
        expect(() => s.searchThreads(q), q).not.toThrow();
      expect(ids(s, '"release" (draft)')).toEqual(["a"]);
      expect(ids(s, "release-notes")).toEqual(["a"]);
    });

    it("cuts a long message to a snippet around the first word found", () => {
      const s = store();
      s.createThread(thread("a"));
      const long = `${"lorem ipsum ".repeat(40)}the needle sits here ${"dolor sit ".repeat(40)}`;
      s.appendItem("a", null, message("assistant", long));
      const [hit] = s.searchThreads("NEEDLE");
      expect(hit.snippet).toContain("the needle sits here");
      expect(hit.snippet!.length).toBeLessThanOrEqual(SNIPPET_CHARS + 2);
      expect(hit.snippet!.startsWith("…")).toBe(true);
    });

    // Fails if truncateHistory leaves the cut messages in the index (a rewound thread found by
    // words it no longer holds), or if appending after the cut collides with their index rows.
    it("forgets the messages truncateHistory cut away and indexes what is appended after", () => {
      const s = store();
      s.createThread(thread("a"));
      s.appendItem("a", "turn_1", message("user", "keep the walrus"));
      s.appendItem("a", "turn_2", message("user", "drop the narwhal"));
      s.appendItem("a", "turn_2", message("assistant", "narwhal dropped"));
      s.truncateHistory("a", 1, ["turn_2"]);
      expect(ids(s, "walrus")).toEqual(["a"]);
      expect(ids(s, "narwhal")).toEqual([]);
      s.appendItem("a", "turn_3", message("user", "now the octopus"));
      expect(ids(s, "octopus")).toEqual(["a"]);
      expect(s.searchThreads("octopus")[0].snippet).toBe("now the octopus");
      expect(ids(s, "narwhal")).toEqual([]);
    });

    it("a reopened store finds what an earlier one wrote", () => {
      const first = store();
      first.createThread(thread("a", { title: "persisted title" }));
      first.appendItem("a", null, message("user", "a durable message"));
      first.close();
      const again = store();
      expect(ids(again, "persisted")).toEqual(["a"]);
      expect(ids(again, "durable")).toEqual(["a"]);
    });
  });
}

function thread(id: string, over: Partial<ThreadRecord> = {}): ThreadRecord {
  return {
    id,
    session_id: id,
    parent_id: null,
    created_at: 1000,
    updated_at: 1000,
    cwd: "/work",
    model: "gpt-test",
    mode: "default",
    title: "",
    status: "idle",
    settings: {},
    ...over,
  };
}

function message(role: "user" | "assistant" | "developer", text: string): ResponseItem {
  return {
    type: "message",
    role,
    content: [{ type: role === "assistant" ? "output_text" : "input_text", text }],
  };
}
