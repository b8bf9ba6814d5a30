/**
 * Answering from a chat (README "Answer from a chat") through real processes: `tandem serve`
 * with a `notify` program and `tandem mock-model`. A simulated chat bot reads the notify payload,
 * shows `question-text` and posts the user's reply to `reply-url`; the model's next request
 * carries the option. The link answers its one question and nothing else, and dies with it.
 */
import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { until } from "../helpers/http.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { bearerApi, recordingNotifier } from "../helpers/notifier.js";

const TOKEN = "reply-link-serve-token-0123456789";

const ask = (call_id: string, prompt: string, secret = false) => ({
  output: [
    {
      type: "function_call" as const,
      name: "request_user_input",
      call_id,
      arguments: {
        questions: [
          secret
            ? { id: "key", header: "Key", question: prompt, secret: true }
            : {
                id: "pick",
                header: "Colour",
                question: prompt,
                options: [
                  { label: "Red", description: "warm" },
                  { label: "Blue", description: "cool" },
                  { label: "Green", description: "calm" },
                ],
              },
        ],
      },
    },
  ],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

interface Rig {
  url: string;
  mock: MockProcess;
  payloads(): any[];
  hookInputs(): any[];
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** Starts a thread whose turn asks; resolves with the notify payload of its question. */
  asking(): Promise<{ thread: string; payload: any }>;
  stderr(): string;
  home: string;
  /** The notify program's last argument, and its $TANDEM_REPLY_URL, one per run. */
  argv(): any[];
  envUrls(): string[];
}

describe("reply links through tandem serve", () => {
  let mock: MockProcess | undefined;
  let proc: ChildProcess | undefined;
  const outsides: string[] = [];
  afterEach(async () => {
    for (const d of outsides.splice(0)) rmSync(d, { recursive: true, force: true });
    proc?.kill("SIGKILL");
    await mock?.stop();
    mock = undefined;
    proc = undefined;
  });

  async function start(steps: unknown[]): Promise<Rig> {
    const outside = outsideDir("tandem-reply-out-");
    outsides.push(outside);
    const notifier = recordingNotifier(outside);
    mock = await startMockProcess({ steps });
    const home = tempDir("tandem-reply-home-");
    writeFileSync(join(home, "config.toml"), `notify = ["${notifier.program}"]\n`);
    const hooked = join(outside, "hooked.jsonl");
    const hook = join(outside, "hook.sh");
    writeFileSync(hook, `#!/bin/sh\ncat >> ${hooked}\necho >> ${hooked}\n`);
    chmodSync(hook, 0o755);
    writeFileSync(
      join(home, "hooks.json"),
      JSON.stringify({
        hooks: {
          Notification: [{ matcher: "question_prompt", hooks: [{ type: "command", command: hook }] }],
        },
      }),
    );
    const run = await spawnServe(
      [
        "--port",
        "0",
        "--responder",
        "-c",
        `openai_base_url="${mock.url}"`,
        "--log-file",
        join(home, "serve.log"),
      ],
      { TANDEM_HOME: home, OPENAI_API_KEY: "k", TANDEM_SERVE_TOKEN: TOKEN, TANDEM_LOG: "trace" },
    );
    proc = run.proc;
    const url = /listening on (\S+)/.exec(run.lines[0])![1];
    const hookInputs = () =>
      existsSync(hooked)
        ? readFileSync(hooked, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    const { payloads, argv, envUrls } = notifier;
    const api = bearerApi(() => url, TOKEN);
    const asking = async () => {
      const thread = (await api("POST", "/thread", { cwd: tempDir(), mode: "plan" })).json.id as string;
      await api("POST", `/thread/${thread}/turn`, { text: "go" });
      let payload: any;
      await until(() => {
        payload = payloads().find((p) => p.type === "question-requested" && p["thread-id"] === thread);
        return !!payload;
      }, 15_000);
      return { thread, payload };
    };
    return { url, mock, payloads, hookInputs, api, asking, stderr: run.stderr, home, argv, envUrls };
  }

  const post = (url: string, body: string, type = "text/plain") =>
    fetch(url, { method: "POST", headers: { "content-type": type }, body });
  const pendingIds = async (rig: Rig) =>
    (await rig.api("GET", "/question")).json.questions.map((q: any) => q.request_id as string);
  const output = (rig: Rig, callId: string) =>
    readFileSync(rig.mock.log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .flatMap((b) => b.input ?? [])
      .find((i: any) => i.type === "function_call_output" && i.call_id === callId)?.output;

  // Fails if the payload has no question text or reply link, if the link needs (or takes) the
  // server's token, if a bad reply is not refused with the parser's message or settles the
  // question, if a reply does not reach the model as the option, or if the link outlives it.
  it("a chat bot posts 2 to reply-url: the model gets that option; a bad reply gets the parser's message", async () => {
    const rig = await start([ask("ask1", "Which colour?"), say("done")]);
    const { thread, payload } = await rig.asking();
    expect(payload["question-text"]).toBe(
      [
        "Colour: Which colour?",
        "  1. Red — warm",
        "  2. Blue — cool",
        "  3. Green — calm",
        '  Reply: a number 1-3, a label, or "other: <text>" (add " -- note" for a note)',
        "",
      ].join("\n"),
    );
    const link: string = payload["reply-url"];
    expect(link).toMatch(new RegExp(`^${rig.url}/reply/[A-Za-z0-9_-]{43}$`));
    const replyToken = link.split("/").at(-1)!;
    expect(JSON.stringify(payload)).not.toContain(TOKEN);
    // The program's argument (any local user can read it in /proc/PID/cmdline) is the payload
    // without the link; the link is on stdin and in $TANDEM_REPLY_URL only.
    const { "reply-url": _, ...rest } = payload;
    // The notifier writes stdin's copy first, then its argument and environment.
    await until(() => rig.envUrls().includes(link));
    expect(rig.argv().find((a) => a["question-id"] === payload["question-id"])).toEqual(rest);
    expect(JSON.stringify(rig.argv())).not.toContain(replyToken);
    expect(rig.envUrls()).toContain(link);

    // The Notification hook event gets the same text and link.
    await until(() => rig.hookInputs().length > 0);
    expect(rig.hookInputs()[0]).toMatchObject({
      hook_event_name: "Notification",
      question_id: payload["question-id"],
      question_text: payload["question-text"],
      reply_url: link,
    });

    const shown = await fetch(link);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("content-type")).toContain("text/plain");
    expect(await shown.text()).toBe(payload["question-text"]);

    // A bad reply: the parser's message, and the question waits on.
    const bad = await post(link, "7");
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("there is no option 7; expected a number 1-3");
    const [asked] = await pendingIds(rig);
    expect(asked).toBe(payload["question-id"]);

    // The reply token is no bearer token, in a header or a query, and the server's token is no reply token.
    for (const r of [
      await fetch(`${rig.url}/thread`, { headers: { authorization: `Bearer ${replyToken}` } }),
      await fetch(`${rig.url}/question?token=${replyToken}`),
      await fetch(`${rig.url}/event?token=${replyToken}`),
    ])
      expect(r.status).toBe(401);
    const withBearer = await fetch(`${rig.url}/reply/${TOKEN}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(withBearer.status).toBe(404);
    const dead = await withBearer.text();
    expect(dead).not.toContain(TOKEN);
    for (const path of [
      "/reply",
      "/reply/",
      `/reply/${replyToken}/thread`,
      `/reply/${replyToken}/x/decline`,
    ]) {
      const r = await fetch(`${rig.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(await r.text(), path).toBe(dead);
    }

    const answered = await post(link, "2 -- from the chat");
    expect(answered.status).toBe(200);
    await until(() => rig.payloads().some((p) => p.type === "agent-turn-complete"), 15_000);
    const seen = output(rig, "ask1");
    expect(seen).toContain("Blue");
    expect(seen).toContain("from the chat");
    expect(seen).not.toContain("Red");
    expect(thread).toBe(payload["thread-id"]);

    // Dead with its question: the same 404 as a link that never was.
    for (const r of [await fetch(link), await post(link, "1"), await post(`${link}/decline`, "")]) {
      expect(r.status).toBe(404);
      expect(await r.text()).toBe(dead);
    }
    // Never in the debug log, though trace logs every request's path and headers.
    const logged = readFileSync(join(rig.home, "serve.log"), "utf8");
    expect(logged).toContain("/reply/[redacted]");
    expect(logged).not.toContain(replyToken);
  });

  // Fails if a token reaches another question (whatever the request names), if it survives its
  // question being answered through the API, or if a secret question is offered a link.
  it("a token answers its one question only, dies when it is answered elsewhere; no link for a secret", async () => {
    const rig = await start([
      ask("a1", "First?"),
      ask("b1", "Second?"),
      say("a done"),
      say("b done"),
      ask("s1", "Your API key?", true),
    ]);
    const first = await rig.asking();
    const second = await rig.asking();
    const linkA: string = first.payload["reply-url"];
    const linkB: string = second.payload["reply-url"];
    const qA = first.payload["question-id"];
    const qB = second.payload["question-id"];
    expect(linkA).not.toBe(linkB);
    expect((await pendingIds(rig)).sort()).toEqual([qA, qB].sort());

    // Naming the other question or thread changes nothing: A's token answers A.
    const named = await fetch(`${linkA}?request_id=${encodeURIComponent(qB)}&thread_id=${second.thread}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "1", request_id: qB, thread_id: second.thread }),
    });
    expect(named.status).toBe(200);
    expect(await pendingIds(rig)).toEqual([qB]);
    // Spent, A's token cannot reach B either: B still waits.
    for (const r of [await post(linkA, "1"), await post(`${linkA}/decline`, ""), await fetch(linkA)])
      expect(r.status).toBe(404);
    expect(await pendingIds(rig)).toEqual([qB]);

    // B answered through the normal API: its link dies.
    const viaApi = await rig.api("POST", `/question/${encodeURIComponent(qB)}/reply`, {
      thread_id: second.thread,
      text: { pick: "3" },
    });
    expect(viaApi.status).toBe(200);
    for (const r of [await fetch(linkB), await post(linkB, "2")]) expect(r.status).toBe(404);
    await until(() => !!output(rig, "b1"));
    expect(output(rig, "a1")).toContain("Red");
    expect(output(rig, "b1")).toContain("Green");

    // A secret question: notified, but with neither a link nor its text.
    const secret = await rig.asking();
    expect(secret.payload["question-id"]).toEqual(expect.any(String));
    expect(secret.payload["reply-url"]).toBeUndefined();
    expect(secret.payload["question-text"]).toBeUndefined();
  });
});
