/**
 * Thread routes, the OpenAPI document checked against live responses, and a question that
 * survives a server restart (Q11) answered over HTTP.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as Ajv2020Module from "ajv/dist/2020.js";
import { afterEach, describe, expect, it } from "vitest";
import { type Script, Scripts } from "../../src/mock-model/index.js";
import { isEvent, openSse, type Served, serve, TOKEN } from "../helpers/http.js";

// CommonJS module: the class is `Ajv2020` (also `default`, depending on the interop).
const Ajv2020 = Ajv2020Module.Ajv2020;
const auth = { authorization: `Bearer ${TOKEN}` };
const hang: Script = { steps: [{ fault: { type: "hang" } }] };

let sv: Served | undefined;
afterEach(async () => {
  await sv?.close();
  sv = undefined;
});

describe("thread routes", () => {
  it("creates, lists and reads threads; refuses unknown ids and bad cwds", async () => {
    sv = await serve({ script: hang });
    mkdirSync(join(sv.h.cwd, "sub"));
    const a = await sv.call("POST", "/thread", { cwd: "sub", mode: "plan", effort: "low" });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ cwd: join(sv.h.cwd, "sub"), mode: "plan", status: "idle", loaded: true });
    const b = await sv.call("POST", "/thread");
    expect(b.status).toBe(201);
    expect(b.json.cwd).toBe(sv.h.cwd);
    const list = await sv.call("GET", "/thread");
    expect(list.json.threads.map((t: any) => t.id).sort()).toEqual([a.json.id, b.json.id].sort());
    expect((await sv.call("GET", "/thread?limit=1")).json.threads).toHaveLength(1);
    expect((await sv.call("GET", "/thread?limit=0")).status).toBe(400);

    const detail = await sv.call("GET", `/thread/${a.json.id}`);
    expect(detail.json.thread.id).toBe(a.json.id);
    expect(Array.isArray(detail.json.items)).toBe(true);
    expect(detail.json.questions).toEqual([]);

    const missing = await sv.call("POST", "/thread", { cwd: "/definitely/not/here" });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toContain("not a directory");
    for (const [method, path, body] of [
      ["GET", "/thread/nope", undefined],
      ["POST", "/thread/nope/turn", { text: "hi" }],
      ["POST", "/thread/nope/steer", { text: "hi" }],
      ["POST", "/thread/nope/interrupt", undefined],
    ] as const) {
      const r = await sv.call(method, path, body);
      expect(r.status, path).toBe(404);
      expect(r.json.error.code).toBe("not_found");
    }
  });

  it("start turn, refuse a second one, steer, interrupt", async () => {
    sv = await serve({ script: hang });
    const id = (await sv.call("POST", "/thread", {})).json.id;
    const sse = await openSse(`${sv.url}/event?thread=${id}`, auth);
    const noTurn = await sv.call("POST", `/thread/${id}/steer`, { text: "more" });
    expect(noTurn.status).toBe(409);
    expect(noTurn.json.error.code).toBe("no_running_turn");
    const turn = await sv.call("POST", `/thread/${id}/turn`, { text: "go", options: { mode: "default" } });
    expect(turn.status).toBe(202);
    const busy = await sv.call("POST", `/thread/${id}/turn`, { text: "again" });
    expect(busy.status).toBe(409);
    expect(busy.json.error.code).toBe("turn_running");
    const steer = await sv.call("POST", `/thread/${id}/steer`, { text: "also this" });
    expect(steer.status).toBe(202);
    expect(steer.json.turn_id).toBe(turn.json.turn_id);
    await sse.next(isEvent("input.queued", (e) => e.text === "also this"));
    const summary = (await sv.call("GET", "/thread")).json.threads[0];
    expect(summary).toMatchObject({ status: "running", active_turn_id: turn.json.turn_id });
    expect((await sv.call("POST", `/thread/${id}/interrupt`)).json.interrupted).toBe(true);
    const done = await sse.next(isEvent("turn.completed"));
    expect(JSON.parse(done.data).event.status).toBe("interrupted");
    sse.close();
  });
});

describe("OpenAPI", () => {
  it("is OpenAPI 3.1 JSON listing every route, and live responses validate against it", async () => {
    sv = await serve({ script: Scripts.questionDemo() });
    const doc = (await sv.call("GET", "/openapi.json")).json;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/event",
      "/question",
      "/question/{id}/reject",
      "/question/{id}/reply",
      "/question/{id}/touch",
      "/reply/{token}",
      "/reply/{token}/decline",
      "/skills",
      "/thread",
      "/thread/{id}",
      "/thread/{id}/checkpoints",
      "/thread/{id}/compact",
      "/thread/{id}/files",
      "/thread/{id}/fork",
      "/thread/{id}/interrupt",
      "/thread/{id}/redo",
      "/thread/{id}/review",
      "/thread/{id}/rewind",
      "/thread/{id}/settings",
      "/thread/{id}/shell",
      "/thread/{id}/steer",
      "/thread/{id}/turn",
      "/thread/{id}/undo",
    ]);
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const r of refs) expect(doc.components.schemas[r.split("/").pop()!.slice(0, -1)], r).toBeDefined();

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ components: doc.components }, "api");
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`api#/components/schemas/${name}`)!;
      expect(validate(value), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    };
    const created = await sv.call("POST", "/thread", { mode: "plan" });
    check("ThreadSummary", created.json);
    check("CreateThreadBody", { mode: "plan", question_policy: { type: "wait" } });
    const sse = await openSse(`${sv.url}/event?responder=web`, auth);
    const turn = await sv.call("POST", `/thread/${created.json.id}/turn`, { text: "go" });
    check("TurnStarted", turn.json);
    await sse.next(isEvent("question.requested"));
    check("ThreadList", (await sv.call("GET", "/thread")).json);
    check("ThreadList", (await sv.call("GET", "/thread?q=go")).json);
    check("ThreadSettingsBody", { effort: null, model: "m" });
    check(
      "ThreadSummary",
      (await sv.call("PATCH", `/thread/${created.json.id}/settings`, { effort: "low" })).json,
    );
    check("ThreadDetail", (await sv.call("GET", `/thread/${created.json.id}`)).json);
    const list = (await sv.call("GET", "/question")).json;
    check("QuestionList", list);
    const body = { thread_id: created.json.id, text: { stack: "2" } };
    check("ReplyBody", body);
    const reply = await sv.call("POST", `/question/${list.questions[0].request_id}/reply`, body);
    check("ReplyResponse", reply.json);
    check("Error", (await sv.call("GET", "/thread/nope")).json);
    await sse.next(isEvent("turn.completed"));
    for (const e of sse.events()) check("StreamedEvent", e);
    sse.close();
  });
});

describe("GET /thread/:id turns", () => {
  // Fails if the turns field is missing or not in start order, if a turn's diff is not the final
  // turn.diff as emitted (masked; here it holds a file a shell command wrote, so an
  // apply_patch-only diff fails too), if a failed turn loses its status or error, if item_end
  // does not point just past each turn's items, or if any of it is lost when another server
  // process reads the thread from the store (not loaded there).
  it("lists each turn with status, error, final diff and where its items end, live and stored", async () => {
    const script: Script = {
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: "printf 'made by a command\\n' > made.txt" },
            },
          ],
        },
        { output: [{ type: "message", text: "made it" }] },
        { fault: { type: "http", status: 400, message: "the model refused" } },
      ],
    };
    sv = await serve({ script });
    const home = sv.h.home;
    const id = (await sv.call("POST", "/thread", {})).json.id;
    for (const text of ["make a file", "again"]) {
      const turnId = (await sv.call("POST", `/thread/${id}/turn`, { text })).json.turn_id;
      await sv.h.waitFor((e) => e.type === "turn.completed" && e.turn_id === turnId);
    }
    const emitted = sv.h.events.map((s) => s.event).filter((e) => e.type === "turn.diff");
    const finalDiff = (emitted.at(-1) as { diff: string }).diff;
    expect(finalDiff).toContain("+made by a command");

    const check = (json: any) => {
      const { items, turns } = json;
      expect(turns.map((t: any) => [t.status, t.error, t.diff])).toEqual([
        ["completed", null, finalDiff],
        ["failed", expect.stringContaining("the model refused"), null],
      ]);
      for (const t of turns) expect(t.ended_at).toBeGreaterThanOrEqual(t.started_at);
      // Turn 1 ends with the model's answer; turn 2 with its user message (nothing after it).
      const [first, second] = turns.map((t: any) => t.item_end);
      expect(items[first - 1]).toMatchObject({ type: "message", role: "assistant" });
      expect(JSON.stringify(items[second - 1])).toContain("again");
      expect(second).toBe(items.length);
    };
    const live = await sv.call("GET", `/thread/${id}`);
    expect(live.json.thread.loaded).toBe(true);
    check(live.json);
    await sv.close();

    sv = await serve({ script: { steps: [] }, home });
    const stored = await sv.call("GET", `/thread/${id}`);
    expect(stored.json.thread).toMatchObject({ loaded: false, status: "failed" });
    check(stored.json);
  });
});

describe("durability over HTTP (Q11)", () => {
  it("a question pending when the server stopped is listed and answered by the next server", async () => {
    const demo = Scripts.questionDemo();
    sv = await serve({ script: { steps: [demo.steps[0]] } });
    const home = sv.h.home;
    const id = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
    const sse = await openSse(`${sv.url}/event?responder=web`, auth);
    await sv.call("POST", `/thread/${id}/turn`, { text: "go" });
    const requestId = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request
      .request_id;
    sse.close();
    await sv.close();

    const after: Script = {
      steps: [{ ...demo.steps[1], expect: { input_contains: ["Rust", "late-answer"] } }, demo.steps[2]],
    };
    sv = await serve({ script: after, home });
    const listed = await sv.call("GET", "/question");
    expect(listed.json.questions.map((q: any) => q.request_id)).toEqual([requestId]);
    const thread = (await sv.call("GET", "/thread")).json.threads.find((t: any) => t.id === id);
    expect(thread).toMatchObject({ loaded: false, status: "waiting_on_user", pending_questions: 1 });

    const reply = await sv.call("POST", `/question/${requestId}/reply`, {
      thread_id: id,
      text: { stack: "Rust", name: "late-answer" },
    });
    expect(reply.status).toBe(200);
    const done = await sv.h.waitFor((e) => e.type === "turn.completed");
    expect(done).toMatchObject({ status: "completed" });
    expect(sv.h.model.requests).toHaveLength(2);
  });
});
