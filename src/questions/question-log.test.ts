/**
 * The broker's debug-log hooks (question-log.ts) and the secret store's: a question's life cycle
 * is logged without any secret answer, and values the secret store learns — answered here or
 * loaded for a resumed family — are masked in every later record.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { QuestionRequest } from "../protocol/questions.js";
import { createBus } from "../util/bus.js";
import { log, stopLog } from "../util/log.js";
import { startLog } from "../util/log-file.js";
import { createBroker } from "./broker.js";
import { createSecretStore } from "./secrets.js";

function open(): () => any[] {
  const file = join(mkdtempSync(join(tmpdir(), "tandem-qlog-")), "q.log");
  startLog({ surface: "test", file, env: { TANDEM_LOG: "trace" }, warn: () => {} });
  return () =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
}

const request = (secret: boolean): QuestionRequest => ({
  request_id: "q_test",
  thread_id: "t1",
  turn_id: "u1",
  call_id: "c1",
  source: "model",
  policy: { type: "wait" },
  deadline: null,
  created_at: 0,
  questions: [
    { id: "pw", header: "Pw", prompt: "Password?", kind: "text", options: [], allow_other: true, secret },
    {
      id: "name",
      header: "Name",
      prompt: "Name?",
      kind: "text",
      options: [],
      allow_other: true,
      secret: false,
    },
  ],
});

afterEach(() => stopLog());

describe("question life cycle in the debug log", () => {
  it("asked and answered (by whom), the secret answer never written, its value masked afterwards", async () => {
    const read = open();
    const broker = createBroker({ bus: createBus() });
    const asked = broker.ask(request(true), new AbortController().signal);
    const r = broker.reply(
      "t1",
      "q_test",
      { answers: { pw: { selected: [], other: "hunter2-secret" }, name: { selected: [], other: "Ada" } } },
      { kind: "tui" },
    );
    expect(r.ok).toBe(true);
    expect((await asked).status).toBe("answered");
    log.debug("later", "a frame quoting it", { text: "pw was hunter2-secret" });
    const text = readFileSync(log.file!, "utf8");
    expect(text).not.toContain("hunter2");
    const recs = read();
    const q = recs.filter((x) => x.area === "question");
    expect(q.map((x) => x.msg)).toEqual(["asked", "answered"]);
    expect(q[0].questions[0]).toEqual({ id: "pw", kind: "text", secret: true });
    expect(q[1].responder).toEqual({ kind: "tui" });
    expect(q[1].outcome.answers).toEqual({ pw: "[redacted]", name: { selected: [], other: "Ada" } });
    expect(recs.at(-1).text).toBe("pw was [redacted]");
  });

  it("declined and cancelled are logged with their reason", async () => {
    const read = open();
    const broker = createBroker({ bus: createBus() });
    const first = broker.ask(request(false), new AbortController().signal);
    broker.decline("t1", "q_test", { kind: "web" }, "not now");
    await first;
    const ctrl = new AbortController();
    const second = broker.ask({ ...request(false), request_id: "q_two" }, ctrl.signal);
    ctrl.abort();
    await second;
    const q = read().filter((x) => x.area === "question");
    expect(q.map((x) => [x.msg, x.request_id, x.reason ?? null])).toEqual([
      ["asked", "q_test", null],
      ["declined", "q_test", "not now"],
      ["asked", "q_two", null],
      ["cancelled", "q_two", "interrupted"],
    ]);
    expect(q[1].responder).toEqual({ kind: "web" });
  });

  it("the secret store's values are masked, also those a resumed family loads from its vault", () => {
    open();
    const vault = { load: () => ["vault-loaded-value"], save: () => {} };
    const store = createSecretStore({ vault });
    store.put("t1", "token", "put-here-value");
    store.view("t2").mask("x"); // a family seen for the first time: its vault values are loaded
    log.debug("t", "quoting", { a: "put-here-value", b: "vault-loaded-value" });
    const text = readFileSync(log.file!, "utf8");
    expect(text).not.toContain("put-here-value");
    expect(text).not.toContain("vault-loaded-value");
  });
});
