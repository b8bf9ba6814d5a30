/**
 * server-everything's `trigger-elicitation-request` form answered by a Codex-style client of a real
 * `tandem app-server` process (README "MCP servers", "How we will know"): server-everything is configured as
 * `[mcp_servers.everything]` in a temp TANDEM_HOME, the scripted model calls the tool, and the
 * client receives `mcpServer/elicitation/request` (validated against the Codex schema, like every
 * message the test client sees). What server-everything echoes back is read from the model's next
 * request, so each assertion is about a value that crossed both protocols.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { elicitationLabel } from "../../src/protocol/questions.js";
import { modelRequests, serverEnv } from "../helpers/app-server.js";
import { processStdio, type TestClient } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { EVERYTHING, stdio } from "../helpers/mcp.js";

const ELICIT = "mcp__everything__trigger-elicitation-request";
const METHOD = "mcpServer/elicitation/request";
const SLOW = 60_000;
const call = (name: string, args: Record<string, unknown>, call_id: string) => ({
  output: [{ type: "function_call" as const, name, arguments: args, call_id }],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

type Json = Record<string, any>;

/** A real app-server with server-everything configured; a turn started; the elicitation received. */
async function start(steps: Script["steps"]) {
  const mock = await startMockProcess({ steps } satisfies Script);
  cleanup.push(() => mock.stop());
  const home = tempDir("tandem-home-");
  // A generous startup timeout: on a loaded machine server-everything can take seconds to boot,
  // and a server that misses it is left out (the elicitation would never come).
  const everything = { ...stdio(EVERYTHING), startup_timeout_sec: 60 };
  writeFileSync(join(home, "config.toml"), stringify({ mcp_servers: { everything } }));
  const s = processStdio(serverEnv(mock, home));
  cleanup.push(() => s.server.stop());
  const client = s.client;
  await client.initialize();
  const started = await client.request("thread/start", { cwd: tempDir("tandem-cwd-") });
  const threadId: string = started.thread.id;
  const turn = await client.request("turn/start", {
    threadId,
    input: [{ type: "text", text: "fill in the form" }],
  });
  // Fails fast, saying why, when no form will come: the turn ends without one (the server was
  // left out, or the call failed) or the app-server exits — instead of waiting out SLOW.
  const callId = (steps[0] as { output: { call_id: string }[] }).output[0].call_id;
  const exited = new Promise<number | null>((r) => s.server.proc.once("exit", (code) => r(code)));
  const asked = await firstOf(
    client.serverRequest(METHOD, (p) => p.threadId === threadId, SLOW),
    [
      client
        .notification("turn/completed", (p) => p.threadId === threadId, SLOW)
        .then((done) => {
          throw new Error(
            `the turn ended (${done.turn.status}) without ${METHOD}; the model got for ${callId}: ` +
              `${outputFor(mock, callId)}; stderr: ${s.stderr()}`,
          );
        }),
      exited.then((code) => {
        throw new Error(`the app-server exited (${code}) before ${METHOD}; stderr: ${s.stderr()}`);
      }),
    ],
  );
  return { mock, client, threadId, turnId: turn.turn.id as string, asked, stderr: s.stderr };
}

/** `awaited`, unless one of `failures` rejects first (they never resolve); losers are silenced. */
function firstOf<T>(awaited: Promise<T>, failures: Promise<never>[]): Promise<T> {
  for (const f of failures) f.catch(() => {});
  awaited.catch(() => {});
  return Promise.race([awaited, ...failures]);
}

/** The const of the `oneOf`/`anyOf` entry titled `title` in property `prop` of the sent schema. */
function constFor(asked: Json, prop: string, title: string): string {
  const p = asked.params.requestedSchema.properties[prop];
  const entries: Json[] = p.oneOf ?? p.items?.anyOf ?? [];
  const hit = entries.find((e) => e.title === title);
  if (!hit) throw new Error(`no option titled ${title} in ${prop}: ${JSON.stringify(p)}`);
  return hit.const;
}

/** The output the model got for `callId`. */
function outputFor(mock: MockProcess, callId: string): string | undefined {
  for (const body of modelRequests(mock)) {
    const out = body.input?.find((i: Json) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return undefined;
}

/** server-everything's "Raw result:" — the ElicitResult it received from Tandem. */
function rawResult(out: string): Json {
  return JSON.parse(out.slice(out.indexOf("Raw result:") + "Raw result:".length));
}

async function finished(client: TestClient, threadId: string): Promise<string> {
  const done = await client.notification("turn/completed", (p) => p.threadId === threadId, SLOW);
  return done.turn.status;
}

describe("app-server: server-everything's elicitation form as mcpServer/elicitation/request", {
  timeout: 120_000,
}, () => {
  // Fails if the form is not sent as a schema-valid Codex request naming the server, if a field's
  // type or default is lost on the way out, or if the typed content does not reach the server
  // typed (integer as a number, boolean as a boolean, titled choices as the server's values).
  it("accepted with typed content: the server echoes the typed values to the model", async () => {
    const { mock, client, threadId, turnId, asked } = await start([
      call(ELICIT, {}, "el"),
      say("thanks for the form"),
    ]);
    expect(asked.params).toMatchObject({
      threadId,
      turnId,
      serverName: "everything",
      mode: "form",
      // The one label (who asks, who sees the answer), then the server's own message.
      message: `${elicitationLabel({ server: "everything", mode: "form" })}\n\nPlease provide inputs for the following fields:`,
    });
    const props = asked.params.requestedSchema.properties;
    expect(Object.keys(props)).toHaveLength(13);
    expect(props.integer).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 42 });
    expect(props.check.type).toBe("boolean");
    expect(props.email).toMatchObject({ type: "string", format: "email" });
    expect(asked.params.requestedSchema.required).toEqual(["name"]);

    client.respond(asked, {
      action: "accept",
      content: {
        name: "Ada Lovelace",
        check: true,
        email: "ada@example.com",
        birthdate: "1815-12-10",
        integer: 7,
        number: 2.5,
        untitledMultipleSelectEnum: [
          constFor(asked, "untitledMultipleSelectEnum", "Piano"),
          constFor(asked, "untitledMultipleSelectEnum", "Drums"),
        ],
        titledSingleSelectEnum: constFor(asked, "titledSingleSelectEnum", "Wonder Woman"),
        legacyTitledEnum: constFor(asked, "legacyTitledEnum", "Dogs"),
      },
    });
    await client.notification("serverRequest/resolved", (p) => p.requestId === asked.id, SLOW);
    expect(await finished(client, threadId)).toBe("completed");
    const out = outputFor(mock, "el")!;
    expect(out).toContain("User provided the requested information");
    // Fields the client left out take the server's defaults (questions/reply.ts); homepage has none.
    expect(rawResult(out)).toEqual({
      action: "accept",
      content: {
        name: "Ada Lovelace",
        check: true,
        firstLine: "It was a dark and stormy night.",
        email: "ada@example.com",
        birthdate: "1815-12-10",
        integer: 7,
        number: 2.5,
        untitledSingleSelectEnum: "Monica",
        untitledMultipleSelectEnum: ["Piano", "Drums"],
        titledSingleSelectEnum: "hero-3",
        titledMultipleSelectEnum: ["fish-1"],
        legacyTitledEnum: "pet-2",
      },
    });
    expect(client.violations).toEqual([]);
  });

  // Fails if a wrongly typed answer is passed on (the server would get "seven"), settles the
  // request, or is dropped silently: the client is told (replyRefused), asked again under a new
  // id, and its corrected answer is the one the server receives.
  it("a wrong type is refused, the client is asked again, and the corrected answer goes through", async () => {
    const { mock, client, threadId, asked } = await start([call(ELICIT, {}, "el"), say("ok")]);
    client.respond(asked, { action: "accept", content: { name: "Ada", integer: "seven", check: "yes" } });
    const refused = await client.notification("tandem/question/replyRefused", () => true, SLOW);
    expect(refused).toMatchObject({ threadId, requestId: asked.id, code: "invalid_reply" });
    expect(refused.message).toMatch(/integer|check/);
    const again = await client.waitFor((m) => m.method === METHOD && m.id === `${asked.id}.2`, SLOW);
    expect(again.params.requestedSchema).toEqual(asked.params.requestedSchema);
    expect(outputFor(mock, "el")).toBeUndefined(); // nothing reached the model yet
    client.respond(again, { action: "accept", content: { name: "Ada", integer: 8, check: false } });
    expect(await finished(client, threadId)).toBe("completed");
    const raw = rawResult(outputFor(mock, "el")!);
    expect(raw.action).toBe("accept");
    expect(raw.content).toMatchObject({ name: "Ada", integer: 8, check: false });
    expect(client.violations).toEqual([]);
  });

  // Fails if a decline is sent to the server as accept or cancel.
  it("declined: the server hears decline and the turn completes", async () => {
    const { mock, client, threadId, asked } = await start([call(ELICIT, {}, "el"), say("ok")]);
    client.respond(asked, { action: "decline" });
    expect(await finished(client, threadId)).toBe("completed");
    const out = outputFor(mock, "el")!;
    expect(out).toContain("User declined to provide the requested information");
    expect(rawResult(out)).toEqual({ action: "decline" });
    expect(client.violations).toEqual([]);
  });

  // Fails if the client's cancel is taken as an answer, reaches the server as decline, or leaves
  // the turn waiting (src/surfaces/app-server/elicitation.ts: cancel passes through as cancel).
  it("cancelled by the client: no answer reaches the server, the turn completes", async () => {
    const { mock, client, threadId, asked } = await start([call(ELICIT, {}, "el"), say("ok")]);
    client.respond(asked, { action: "cancel" });
    expect(await finished(client, threadId)).toBe("completed");
    const raw = rawResult(outputFor(mock, "el")!);
    expect(raw.action).toBe("cancel");
    expect(raw.content).toBeUndefined();
    expect(client.violations).toEqual([]);
  });

  // Fails if turn/interrupt with the form pending leaves the request open (no serverRequest/resolved),
  // hangs the turn, or breaks the server connection (the next turn calls the same server's echo).
  it("cancelled by turn/interrupt: the request is resolved, the server keeps serving", async () => {
    const { mock, client, threadId, turnId, asked } = await start([
      call(ELICIT, {}, "el"),
      call("mcp__everything__echo", { message: "after the cancel" }, "next"),
      say("still here"),
    ]);
    await client.request("turn/interrupt", { threadId, turnId });
    await client.notification("serverRequest/resolved", (p) => p.requestId === asked.id, SLOW);
    expect(await finished(client, threadId)).toBe("interrupted");
    await client.request("turn/start", { threadId, input: [{ type: "text", text: "again" }] });
    const done = await client.notification(
      "turn/completed",
      (p) => p.threadId === threadId && p.turn.id !== turnId,
      SLOW,
    );
    expect(done.turn.status).toBe("completed");
    expect(outputFor(mock, "next")).toBe("Echo: after the cancel");
    expect(outputFor(mock, "el")).toBe("aborted");
    expect(client.violations).toEqual([]);
  });
});
