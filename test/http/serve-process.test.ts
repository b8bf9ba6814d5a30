/**
 * `tandem serve` as a real process (`./bin/tandem`, run `npm run build` first) against
 * `tandem mock-model` as a real process: startup lines, token, a question answered over HTTP,
 * SIGTERM, and a question left pending by one process answered through the next (Q11).
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { type MockProcess, runTandem, spawnServe, startMockProcess } from "../helpers/cli.js";
import { isEvent, openSse } from "../helpers/http.js";
import { tempDir } from "../helpers/index.js";

interface ServeProcess {
  proc: ChildProcess;
  url: string;
  pageLine: string;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

async function startServe(args: string[], env: Record<string, string>): Promise<ServeProcess> {
  const { proc, lines, stderr } = await spawnServe(args, env);
  const m = /^tandem serve listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0]);
  if (!m) throw new Error(`unexpected first line: ${lines[0]}`);
  return {
    proc,
    url: m[1],
    pageLine: lines[1],
    stderr,
    stop: (signal = "SIGTERM") =>
      new Promise((r) => {
        if (proc.exitCode !== null) return r(proc.exitCode);
        proc.once("exit", (code) => r(code));
        proc.kill(signal);
      }),
  };
}

describe("tandem serve (processes)", () => {
  let mock: MockProcess | undefined;
  let server: ServeProcess | undefined;
  afterEach(async () => {
    await server?.stop("SIGKILL");
    await mock?.stop();
    server = undefined;
    mock = undefined;
  });

  it("prints the URL and a page link with a generated token; answers over HTTP; exits 143 on SIGTERM", async () => {
    const demo = Scripts.questionDemo();
    demo.steps[1] = { ...demo.steps[1], expect: { input_contains: ["Rust", "from-a-process"] } };
    mock = await startMockProcess(demo);
    const home = tempDir();
    server = await startServe(["--port", "0", "-c", `openai_base_url="${mock.url}"`], {
      TANDEM_HOME: home,
      OPENAI_API_KEY: "k",
      TANDEM_SERVE_TOKEN: "",
    });
    const token = /#token=([A-Za-z0-9_-]{43})$/.exec(server.pageLine)?.[1];
    expect(server.pageLine).toMatch(new RegExp(`^open ${server.url}/#token=`));
    expect(token).toBeDefined();
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${server.url}/thread`)).status).toBe(401);

    const json = { ...auth, "content-type": "application/json" };
    const thread = (await (
      await fetch(`${server.url}/thread`, { method: "POST", headers: json, body: '{"mode":"plan"}' })
    ).json()) as any;
    const sse = await openSse(`${server.url}/event?responder=web&thread=${thread.id}`, auth);
    await fetch(`${server.url}/thread/${thread.id}/turn`, {
      method: "POST",
      headers: json,
      body: '{"text":"go"}',
    });
    const asked = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request;
    const reply = await fetch(`${server.url}/question/${asked.request_id}/reply`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ thread_id: thread.id, text: { stack: "2", name: "from-a-process" } }),
    });
    expect(reply.status).toBe(200);
    const done = JSON.parse((await sse.next(isEvent("turn.completed"))).data).event;
    expect(done.status).toBe("completed");
    expect(readFileSync(mock.log, "utf8")).toContain("from-a-process");
    sse.close();

    expect(await server.stop()).toBe(143); // SIGTERM
    // Nothing on stderr but the one line saying the signal came (README "Stopping Tandem").
    expect(server.stderr()).toMatch(/^tandem serve: SIGTERM received, shutting down;[^\n]*\n$/);
  });

  it("a question pending at SIGINT is listed and answered by the next process (Q11)", async () => {
    const demo = Scripts.questionDemo();
    demo.steps[1] = { ...demo.steps[1], expect: { input_contains: ["later-answer"] } };
    mock = await startMockProcess(demo);
    const home = tempDir();
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", TANDEM_SERVE_TOKEN: "process-token-123" };
    const args = ["--port", "0", "-c", `openai_base_url="${mock.url}"`];
    const auth = { authorization: "Bearer process-token-123" };
    const json = { ...auth, "content-type": "application/json" };

    server = await startServe(args, env);
    expect(server.pageLine).toContain("#token=process-token-123");
    const thread = (await (
      await fetch(`${server.url}/thread`, { method: "POST", headers: json, body: '{"mode":"plan"}' })
    ).json()) as any;
    const sse = await openSse(`${server.url}/event?responder=web`, auth);
    await fetch(`${server.url}/thread/${thread.id}/turn`, {
      method: "POST",
      headers: json,
      body: '{"text":"go"}',
    });
    const asked = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request;
    sse.close();
    expect(await server.stop("SIGINT")).toBe(130);

    server = await startServe(args, env);
    const listed = (await (await fetch(`${server.url}/question`, { headers: auth })).json()) as any;
    expect(listed.questions.map((q: any) => q.request_id)).toEqual([asked.request_id]);
    const events = await openSse(`${server.url}/event`, auth);
    const reply = await fetch(`${server.url}/question/${asked.request_id}/reply`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ thread_id: thread.id, text: { stack: "1", name: "later-answer" } }),
    });
    expect(reply.status).toBe(200);
    const done = JSON.parse((await events.next(isEvent("turn.completed"))).data).event;
    expect(done.status).toBe("completed");
    events.close();
  });

  it("--responder: a script that only polls GET /question can answer; the question waits for it", async () => {
    const demo = Scripts.questionDemo();
    demo.steps[1] = { ...demo.steps[1], expect: { input_contains: ["polled-answer"] } };
    mock = await startMockProcess(demo);
    server = await startServe(
      ["--port", "0", "--token", "poll-token-123", "--responder", "-c", `openai_base_url="${mock.url}"`],
      {
        TANDEM_HOME: tempDir(),
        OPENAI_API_KEY: "k",
      },
    );
    const json = { authorization: "Bearer poll-token-123", "content-type": "application/json" };
    const thread = (await (
      await fetch(`${server.url}/thread`, { method: "POST", headers: json, body: '{"mode":"plan"}' })
    ).json()) as any;
    await fetch(`${server.url}/thread/${thread.id}/turn`, {
      method: "POST",
      headers: json,
      body: '{"text":"go"}',
    });
    let pending: any[] = [];
    for (let i = 0; i < 200 && pending.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      pending = (
        (await (await fetch(`${server.url}/question?thread=${thread.id}`, { headers: json })).json()) as any
      ).questions;
    }
    expect(pending).toHaveLength(1);
    const reply = await fetch(`${server.url}/question/${pending[0].request_id}/reply`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ thread_id: thread.id, text: { stack: "1", name: "polled-answer" } }),
    });
    expect(reply.status).toBe(200);
    let status = "";
    for (let i = 0; i < 200 && status !== "idle"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const detail = (await (
        await fetch(`${server.url}/thread/${thread.id}`, { headers: json })
      ).json()) as any;
      status = detail.thread.status;
    }
    expect(status).toBe("idle");
    expect(readFileSync(mock.log, "utf8")).toContain("polled-answer");
    expect(await server.stop()).toBe(143); // SIGTERM
  });

  it("bad usage exits 2, a missing key exits 1, with a message", async () => {
    const home = tempDir();
    const port = await runTandem(["serve", "--port", "http"], { env: { TANDEM_HOME: home } });
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port");
    const key = await runTandem(["serve"], { env: { TANDEM_HOME: home } });
    expect(key.code).toBe(1);
    expect(key.stderr).toContain("no API key");
  });
});
