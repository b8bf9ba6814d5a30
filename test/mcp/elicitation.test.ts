/**
 * server-everything's `trigger-elicitation-request` form answered through Tandem's real HTTP API
 * (README "MCP servers"): the MCP client declares elicitation, the server's `elicitation/create` becomes
 * one question request through the broker, and the reply goes back typed — accepted, declined,
 * or cancelled by an interrupt. The text the server returns is what the model's next request holds.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { type Served, serve } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING, outputSent, stdio } from "../helpers/mcp.js";

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const ELICIT = "mcp__everything__trigger-elicitation-request";
const call = (name: string, args: Record<string, unknown>, call_id: string) => ({
  output: [{ type: "function_call" as const, name, arguments: args, call_id }],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

async function start(steps: unknown[]) {
  const home = tempDir("tandem-home-");
  writeFileSync(join(home, "config.toml"), stringify({ mcp_servers: { everything: stdio(EVERYTHING) } }));
  s = await serve({ script: { steps } as never, home });
  // As `tandem serve --responder`: someone can answer this process's questions.
  s.h.runtime.questions.attach("all", { kind: "http", id: "--responder" });
  const thread = s.h.runtime.threads.start({ cwd: s.h.cwd });
  const turn = thread.startTurn("go");
  const asked = (await s.h.waitFor(
    (e) => e.type === "question.requested" && e.request.elicitation !== undefined,
  )) as EventOf<"question.requested">;
  return { thread, turn, request: asked.request };
}

describe("MCP elicitation through the broker (server-everything, HTTP API)", () => {
  // Fails if elicitation is not declared (the tool would not exist), the form does not become
  // one typed question request, or the reply does not go back typed (integer as a number,
  // boolean as a boolean).
  it("accepted: the typed answers reach the server and its result reaches the model", async () => {
    const { turn, request, thread } = await start([call(ELICIT, {}, "el"), say("thanks")]);
    expect(request.source).toBe("internal");
    expect(request.call_id).toBe("el");
    expect(request.elicitation).toMatchObject({ server: "everything", mode: "form" });
    const ids = request.questions.map((q) => q.id);
    expect(ids).toEqual(expect.arrayContaining(["name", "check", "email", "integer", "legacyTitledEnum"]));
    const r = await s!.call("POST", `/question/${request.request_id}/reply`, {
      thread_id: thread.id,
      answers: { name: { other: "Ada Lovelace" }, check: { selected: ["Yes"] }, integer: { other: "7" } },
    });
    expect(r.status).toBe(200);
    expect((await turn.done).status).toBe("completed");
    const out = String(outputSent(s!.h, "el"));
    expect(out).toContain("User provided the requested information");
    expect(out).toContain("- Name: Ada Lovelace");
    expect(out).toContain("- Agreed to terms: true");
    expect(out).toMatch(/"integer": 7\b/);
  });

  // Fails if a decline is sent as cancel or accept.
  it("declined through POST /question/:id/reject: the server hears decline", async () => {
    const { turn, request, thread } = await start([call(ELICIT, {}, "el"), say("ok")]);
    const r = await s!.call("POST", `/question/${request.request_id}/reject`, { thread_id: thread.id });
    expect(r.status).toBe(200);
    expect((await turn.done).status).toBe("completed");
    expect(String(outputSent(s!.h, "el"))).toContain("User declined to provide the requested information");
  });

  // Fails if an interrupt leaves the question pending or breaks the connection: the question
  // settles cancelled, the turn ends interrupted, and the server still answers the next turn.
  it("cancelled by an interrupt: the question settles and the server keeps serving", async () => {
    const { turn, thread, request } = await start([
      call(ELICIT, {}, "el"),
      call("mcp__everything__echo", { message: "after" }, "next"),
      say("ok"),
    ]);
    thread.interrupt();
    expect((await turn.done).status).toBe("interrupted");
    await s!.h.waitFor((e) => e.type === "question.cancelled" && e.request_id === request.request_id);
    expect(s!.h.runtime.questions.pendingCount(thread.id)).toBe(0);
    expect((await thread.startTurn("again").done).status).toBe("completed");
    expect(outputSent(s!.h, "next")).toBe("Echo: after");
  });
});
