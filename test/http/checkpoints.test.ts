/**
 * Undo, redo, fork and rewind over `tandem serve`'s HTTP API (routes/checkpoints.ts): real
 * server, real SQLite, scripted model. Undo waits for the user's answer given over HTTP
 * (`POST /question/:id/reply`) by a client connected as responder on `GET /event`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSse, type Served, type SseClient, serve, TOKEN } from "../helpers/http.js";

const PATCH = [
  "*** Begin Patch",
  "*** Update File: a.txt",
  "@@",
  "-one",
  "+two",
  "*** Add File: b.txt",
  "+bee",
  "*** End Patch",
].join("\n");

describe("HTTP undo / redo / fork / rewind", () => {
  let sv: Served | undefined;
  let sse: SseClient | undefined;
  afterEach(async () => {
    sse?.close();
    await sv?.close();
    sv = undefined;
  });

  it("undo asks over HTTP and restores; redo re-applies; fork and rewind answer with the new threads", async () => {
    sv = await serve({
      script: {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "p1" }] },
          { output: [{ type: "message", text: "done" }] },
        ],
      },
    });
    const cwd = sv.h.cwd;
    writeFileSync(join(cwd, "a.txt"), "one\n");
    const id = (await sv.call("POST", "/thread", {})).json.id;
    expect((await sv.call("POST", `/thread/${id}/turn`, { text: "edit" })).status).toBe(202);
    await sv.h.waitFor((e) => e.type === "turn.completed");
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");

    const cps = await sv.call("GET", `/thread/${id}/checkpoints`);
    expect(cps.json.checkpoints.map((c: { message: string; state: string }) => [c.message, c.state])).toEqual(
      [["edit", "live"]],
    );

    // No responder connected: refused, nothing written.
    const headless = await sv.call("POST", `/thread/${id}/undo`, {});
    expect([headless.status, headless.json.error.code]).toEqual([409, "no_responder"]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");

    sse = await openSse(`${sv.url}/event?thread=${id}&responder=web`, { authorization: `Bearer ${TOKEN}` });
    const used = new Set<unknown>();
    const answer = async (label: string) => {
      const frame = await sse!.next((f) => f.data.includes('"question.requested"') && !used.has(f));
      used.add(frame);
      const request = JSON.parse(frame.data).event.request;
      const r = await sv!.call("POST", `/question/${request.request_id}/reply`, {
        thread_id: id,
        answers: { restore: { selected: [label] } },
      });
      expect(r.status).toBe(200);
    };
    const undo = sv.call("POST", `/thread/${id}/undo`, {});
    await answer("Apply");
    const undone = await undo;
    expect(undone.status).toBe(200);
    expect(undone.json).toMatchObject({
      status: "applied",
      applied: ["a.txt", "b.txt"],
      skipped: [],
      failed: [],
    });
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);

    const nothing = await sv.call("POST", `/thread/${id}/undo`, {});
    expect([nothing.status, nothing.json.error.message]).toEqual([
      409,
      expect.stringMatching(/nothing to undo/),
    ]);

    const redo = sv.call("POST", `/thread/${id}/redo`, {});
    await answer("Apply");
    expect((await redo).json).toMatchObject({ status: "applied", applied: ["a.txt", "b.txt"] });
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("bee\n");

    const fork = await sv.call("POST", `/thread/${id}/fork`, { itemId: 0 });
    expect(fork.status).toBe(201);
    expect(fork.json.title).toBe("edit (fork)");
    expect((await sv.call("GET", `/thread/${fork.json.id}`)).json.items).toHaveLength(1);
    expect((await sv.call("POST", `/thread/${id}/fork`, { itemId: "x" })).status).toBe(400);

    const turnId = sv.h.runtime.threads.turns(id)[0].id;
    const rewound = await sv.call("POST", `/thread/${id}/rewind`, { turnId });
    expect(rewound.json.status).toBe("rewound");
    expect((await sv.call("GET", `/thread/${rewound.json.archived_id}`)).json.thread.title).toBe(
      "edit (rewound)",
    );
    expect((await sv.call("GET", `/thread/${id}`)).json.turns).toEqual([]);
    expect((await sv.call("POST", "/thread/nope/undo", {})).status).toBe(404);
  });
});
