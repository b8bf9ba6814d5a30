import { describe, expect, it } from "vitest";
import type { ResponseItem } from "../protocol/items.js";
import { userMessage } from "../protocol/items.js";
import { ContextBudget, compactedView, RECENT_USER_CHARS, type SummaryItem } from "./compaction.js";
import { summaryText } from "./compaction-prompt.js";
import { normalizeForPrompt } from "./history.js";

const env = userMessage("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>");
const agents = userMessage("# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>");
const call = (id: string): ResponseItem => ({
  type: "function_call",
  name: "t",
  arguments: "{}",
  call_id: id,
});
const out = (id: string, output = "ok"): ResponseItem => ({
  type: "function_call_output",
  call_id: id,
  output,
});
const said = (text: string): ResponseItem => ({
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text }],
});
const summary = (carried: string[] = []): SummaryItem => ({
  ...userMessage(summaryText("SUMMARY")),
  tandem_compaction: {
    reason: "manual",
    carried_call_ids: carried,
    before_tokens: 10,
    after_tokens: 5,
    covered_items: 0,
  },
});
const texts = (items: ResponseItem[]) =>
  items.map((i) =>
    i.type === "message" ? i.content.map((c) => ("text" in c ? c.text.slice(0, 12) : "")).join("") : i.type,
  );

describe("compactedView", () => {
  // fails if: a history without a summary is changed by the view.
  it("is the history itself until the first compaction", () => {
    const h = [env, userMessage("hi"), said("hello")];
    expect(compactedView(h)).toBe(h);
  });

  // fails if: context items or recent user messages are dropped, old calls/answers survive, the
  // summary keeps its metadata on the wire, or items after the summary are lost.
  it("keeps context, recent user messages, the summary and what follows it", () => {
    const h = [env, agents, userMessage("task one"), call("a"), out("a"), said("did one"), summary()];
    h.push(userMessage("task two"), call("b"), out("b"));
    const v = compactedView(h);
    expect(texts(v)).toEqual([
      "<environment",
      "# AGENTS.md ",
      "task one",
      "<tandem:cont",
      "task two",
      "function_call",
      "function_call_output",
    ]);
    expect(v.some((i) => "call_id" in i && i.call_id === "a")).toBe(false);
    expect("tandem_compaction" in v[3]).toBe(false);
  });

  // fails if: a call still open at compaction time (a pending question) is dropped or separated
  // from its output recorded after the summary.
  it("keeps a carried call whole, right after the summary", () => {
    const h = [env, userMessage("ask me"), call("q"), summary(["q"]), out("q", "teal")];
    const v = normalizeForPrompt(compactedView(h));
    const at = v.findIndex((i) => i.type === "function_call");
    expect(v[at + 1]).toEqual(out("q", "teal"));
    expect(v.filter((i) => i.type === "function_call_output")).toHaveLength(1);
  });

  // fails if: the recent-user budget is not applied (old long messages would all be kept).
  it("bounds the user messages kept", () => {
    const long = "y".repeat(RECENT_USER_CHARS - 10);
    const h = [userMessage("oldest"), userMessage(long), userMessage("newest 123456789"), summary()];
    const v = compactedView(h);
    const kept = v.filter((i) => i.type === "message").map((i: any) => i.content[0].text as string);
    expect(kept.some((t) => t === "oldest")).toBe(false);
    expect(kept.at(-2)).toBe("newest 123456789");
    const users = kept.filter((t) => !t.startsWith("<tandem:"));
    expect(users.join("").length).toBeLessThan(RECENT_USER_CHARS + 100);
  });

  // fails if: an old message too long for what is left of the budget is dropped instead of cut,
  // cut at the wrong end (its beginning kept: the most recent words matter most), cut to the wrong
  // length, left without the omission marker, or moved out of its place before the newer one.
  it("cuts an old over-long user message to its end, to exactly what the budget leaves", () => {
    const newest = "newest request";
    const long = `HEAD-of-the-old-message ${"x".repeat(3 * RECENT_USER_CHARS)} end-of-the-old-message-TAIL`;
    const h = [userMessage("older still"), userMessage(long), userMessage(newest), summary()];
    const kept = compactedView(h)
      .filter((i) => i.type === "message")
      .map((i: any) => i.content[0].text as string);
    expect(kept).toHaveLength(3); // the cut one, the newest, the summary
    const [cut, last] = kept;
    expect(last).toBe(newest);
    const marker = "[… earlier text omitted by compaction]\n";
    expect(cut.startsWith(marker)).toBe(true);
    const body = cut.slice(marker.length);
    expect(body).toBe(long.slice(long.length - (RECENT_USER_CHARS - newest.length)));
    expect(body.endsWith("end-of-the-old-message-TAIL")).toBe(true);
    expect(cut.includes("HEAD-of-the-old-message")).toBe(false);
  });

  // fails if: a server-side compaction's replacement history is not sent verbatim in place of
  // the recent user messages and summary text, or the context items are sent twice.
  it("sends a server compaction's replacement instead of the summary text", () => {
    const s = summary();
    const compaction = { type: "compaction", id: "cmp_1", encrypted_content: "opaque" };
    s.tandem_compaction!.replacement = [env, userMessage("kept by server"), compaction];
    const h = [env, userMessage("old"), call("a"), out("a"), s, userMessage("next")];
    const v = compactedView(h);
    expect(v).toEqual([env, userMessage("kept by server"), compaction, userMessage("next")]);
  });

  // fails if: the latest summary does not win over an earlier one.
  it("builds from the last summary only", () => {
    const h = [userMessage("u1"), summary(), userMessage("u2"), said("x"), summary()];
    const v = compactedView(h);
    expect(texts(v)).toEqual(["u1", "u2", "<tandem:cont"]);
  });
});

describe("ContextBudget", () => {
  // fails if: items added since the last response are not counted, or usage is ignored.
  it("estimates from the last usage plus what was added since", () => {
    const b = new ContextBudget();
    const h: ResponseItem[] = [userMessage("hi")];
    b.observe(
      {
        input_tokens: 100,
        cached_input_tokens: 0,
        output_tokens: 20,
        reasoning_output_tokens: 0,
        total_tokens: 120,
      },
      1,
    );
    expect(b.estimate(h)).toBe(120);
    h.push(out("a", "z".repeat(400)));
    expect(b.estimate(h)).toBeGreaterThan(220);
    b.reset();
    expect(b.estimate(h)).toBeLessThan(200);
  });
});
