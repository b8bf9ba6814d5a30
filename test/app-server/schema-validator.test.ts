/** The schema validator used by every app-server test has teeth: it rejects wrong shapes. */
import { describe, expect, it } from "vitest";
import { codexValidator } from "../helpers/codex-schema.js";

describe("Codex schema validator", () => {
  const v = codexValidator();
  const turn = { id: "t", items: [], status: "completed" };

  it("accepts valid messages of every direction", () => {
    expect(
      v.clientRequest({ id: 1, method: "turn/interrupt", params: { threadId: "a", turnId: "b" } }),
    ).toEqual([]);
    expect(v.serverResponse("turn/interrupt", { id: 1, result: {} })).toEqual([]);
    expect(v.serverNotification({ method: "turn/completed", params: { threadId: "a", turn } })).toEqual([]);
    const params = { threadId: "a", turnId: "b", itemId: "c", questions: [], isBlocking: true };
    expect(v.serverRequest({ id: "q", method: "item/tool/requestUserInput", params })).toEqual([]);
    expect(v.clientResponse("item/tool/requestUserInput", { id: "q", result: { answers: {} } })).toEqual([]);
    expect(v.clientNotification({ method: "initialized" })).toEqual([]);
    expect(v.serverResponse("thread/list", { id: 2, error: { code: -32600, message: "x" } })).toEqual([]);
  });

  it("rejects wrong shapes and unknown methods", () => {
    expect(
      v.serverNotification({
        method: "turn/completed",
        params: { threadId: "a", turn: { ...turn, status: "done" } },
      }),
    ).not.toEqual([]);
    const noBlocking = { threadId: "a", turnId: "b", itemId: "c", questions: [] };
    expect(
      v.serverRequest({ id: "q", method: "item/tool/requestUserInput", params: noBlocking }),
    ).not.toEqual([]);
    expect(
      v.clientResponse("item/tool/requestUserInput", { id: "q", result: { answers: { a: ["x"] } } }),
    ).not.toEqual([]);
    expect(v.serverResponse("thread/start", { id: 1, result: { thread: {} } })).not.toEqual([]);
    expect(v.serverNotification({ method: "thread/exploded", params: {} })).toEqual([
      "thread/exploded is not a Codex server notification",
    ]);
    expect(v.serverNotification({ method: "tandem/question/settled", params: { threadId: 1 } })).not.toEqual(
      [],
    );
  });

  // Fails if tandem/* messages pass unchecked (unknown methods, wrong params or results).
  it("checks Tandem's own methods too", () => {
    expect(v.serverNotification({ method: "tandem/question/exploded", params: {} })).toEqual([
      "tandem/question/exploded is not a Tandem method",
    ]);
    expect(v.clientRequest({ id: 1, method: "tandem/question/touch", params: { requestId: "r" } })).toEqual(
      [],
    );
    expect(v.clientRequest({ id: 1, method: "tandem/question/touch", params: {} })).not.toEqual([]);
    expect(v.clientRequest({ id: 1, method: "tandem/nope", params: {} })).not.toEqual([]);
    expect(v.serverResponse("tandem/question/touch", { id: 1, result: { deadline: null } })).toEqual([]);
    expect(v.serverResponse("tandem/question/touch", { id: 1, result: { deadline: "soon" } })).not.toEqual(
      [],
    );
    expect(v.serverResponse("tandem/question/reply", { id: 1, result: { duplicate: false } })).not.toEqual(
      [],
    );
  });
});
