/**
 * Attacks on reply links (README "Answer from a chat") through real processes: `tandem serve`
 * with a `notify` program and `tandem mock-model`, requests written on a raw socket where `fetch`
 * would tidy the path. Each test names the attack it stands for; test/hooks/reply-link.test.ts
 * has the feature's own end-to-end test.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { until } from "../helpers/http.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { bearerApi, recordingNotifier } from "../helpers/notifier.js";

const TOKEN = "reply-attack-serve-token-0123456789";

const pick = (prompt: string, id = "pick") => ({
  id,
  header: "Colour",
  question: prompt,
  options: [
    { label: "Red", description: "warm" },
    { label: "Blue", description: "cool" },
  ],
});
const ask = (call_id: string, questions: unknown[]) => ({
  output: [{ type: "function_call" as const, name: "request_user_input", call_id, arguments: { questions } }],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });
const exec = (cmd: string, call_id: string) => ({
  output: [{ type: "function_call" as const, name: "exec_command", arguments: { cmd }, call_id }],
});

interface Rig {
  url: string;
  home: string;
  mock: MockProcess;
  payloads(): any[];
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** Starts a thread whose turn asks; resolves with the notify payload of its question. */
  asking(mode?: string): Promise<{ thread: string; payload: any; link: string; token: string }>;
  /** Sends `head` (request line and headers, CRLF-separated, no blank line) and `body` on a raw socket. */
  raw(head: string, body?: Buffer | string, waitMs?: number): Promise<string>;
  restart(): Promise<void>;
}

describe("reply link attacks through tandem serve", () => {
  let mock: MockProcess | undefined;
  let proc: ChildProcess | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    proc?.kill("SIGKILL");
    await mock?.stop();
    mock = undefined;
    proc = undefined;
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function start(steps: unknown[], overrides: string[] = []): Promise<Rig> {
    const outside = outsideDir("tandem-reply-attack-");
    dirs.push(outside);
    const notifier = recordingNotifier(outside);
    mock = await startMockProcess({ steps });
    const home = tempDir("tandem-reply-attack-home-");
    writeFileSync(join(home, "config.toml"), `notify = ["${notifier.program}"]\n`);
    const args = [
      "--port",
      "0",
      "--responder",
      "-c",
      `openai_base_url="${mock.url}"`,
      ...overrides.flatMap((o) => ["-c", o]),
      "--log-file",
      join(home, "serve.log"),
    ];
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", TANDEM_SERVE_TOKEN: TOKEN, TANDEM_LOG: "trace" };
    const spawn = async () => {
      const run = await spawnServe(args, env);
      proc = run.proc;
      return /listening on (\S+)/.exec(run.lines[0])![1];
    };
    let url = await spawn();
    const { payloads } = notifier;
    const api = bearerApi(() => url, TOKEN);
    const asking = async (mode = "plan") => {
      const thread = (await api("POST", "/thread", { cwd: tempDir(), mode })).json.id as string;
      await api("POST", `/thread/${thread}/turn`, { text: "go" });
      let payload: any;
      await until(() => {
        payload = payloads().find(
          (p) =>
            (p.type === "question-requested" || p.type === "approval-requested") && p["thread-id"] === thread,
        );
        return !!payload;
      }, 15_000);
      const link: string = payload["reply-url"] ?? "";
      return { thread, payload, link, token: link.split("/").at(-1) ?? "" };
    };
    const raw = (head: string, body: Buffer | string = "", waitMs = 3000) =>
      new Promise<string>((resolve) => {
        const u = new URL(url);
        let got = "";
        const s = connect(Number(u.port), u.hostname, () => {
          s.write(`${head}\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
          s.write(body);
        });
        const done = () => resolve(got);
        s.on("data", (d) => {
          got += d;
        });
        s.on("error", done);
        s.on("close", done);
        setTimeout(() => {
          s.destroy();
          resolve(`${got}[no response after ${waitMs} ms]`);
        }, waitMs);
      });
    const restart = async () => {
      proc!.kill("SIGKILL");
      await new Promise((r) => proc!.once("exit", r));
      url = await spawn();
    };
    return {
      get url() {
        return url;
      },
      home,
      mock,
      payloads,
      api,
      asking,
      raw,
      restart,
    };
  }

  /** A raw response without its Date header: what two responses must share byte for byte. */
  const undated = (res: string) => res.replace(/^Date: .*\r\n/im, "");
  const status = (res: string) => Number(res.split(" ")[1]);
  const bodyOf = (res: string) => res.slice(res.indexOf("\r\n\r\n") + 4);
  const post = (url: string, body: string, type = "text/plain") =>
    fetch(url, { method: "POST", headers: { "content-type": type }, body });
  const pending = async (rig: Rig) =>
    (await rig.api("GET", "/question")).json.questions.map((q: any) => q.request_id as string);

  // Fails if a path or method trick under /reply reaches an authenticated route without the
  // bearer token, reaches the question by another path than its one link, or if any dead link
  // (unknown, malformed, settled, rejected out, a wrong path or method) answers other than with
  // the one 404, byte for byte; or if the page is cacheable, sends a Referer, or opens CORS.
  it("path tricks, other methods and every dead link get the same 404; no route past /reply", async () => {
    const rig = await start([
      ask("a1", [pick("First?")]),
      ask("b1", [pick("Second?")]),
      ask("c1", [pick("Third?")]),
      say("a"),
      say("b"),
      say("c"),
    ]);
    const A = await rig.asking();
    const B = await rig.asking();
    const C = await rig.asking();
    const get = (path: string) => rig.raw(`GET ${path} HTTP/1.1`);
    const unknown = undated(await get(`/reply/${"A".repeat(43)}`));
    expect(status(unknown)).toBe(404);
    expect(unknown).not.toMatch(/access-control-allow/i);

    // Neither ".." (plain or encoded) nor an extra segment reaches an authenticated route.
    for (const path of [
      `/reply/${A.token}/../../thread`,
      `/reply/${A.token}/%2e%2e/%2e%2e/question`,
      "/reply/../thread",
      `/reply/${A.token}/..%2F..%2Fthread`,
      `/reply/${A.token}/thread`,
    ]) {
      const r = await get(path);
      expect([401, 404], path).toContain(status(r));
      expect(r, path).not.toContain(A.payload["question-id"]);
      expect(r, path).not.toContain(A.thread);
    }
    // Anything but the exact token is dead, with the one 404.
    for (const path of [
      `/reply/${A.token}/`,
      `/reply//${A.token}`,
      `/reply/${A.token}x`,
      `/reply/${A.token.slice(0, -1)}`,
      `/reply/${A.token.toUpperCase()}`,
      `/reply/${A.token}%2Fdecline`,
      `/reply/${A.token}/decline/`,
      `/reply/${A.token}%00`,
      `/reply/%20${A.token}`,
      `/reply/${"A".repeat(5000)}`,
    ])
      expect(undated(await get(path)), path).toBe(unknown);
    for (const method of ["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]) {
      const r = await rig.raw(
        `${method} /reply/${A.token} HTTP/1.1\r\nOrigin: https://evil.example\r\nAccess-Control-Request-Method: POST\r\nContent-Length: 1`,
        "1",
      );
      expect(undated(r), method).toBe(unknown);
    }
    expect((await pending(rig)).sort()).toEqual([A, B, C].map((x) => x.payload["question-id"]).sort());

    // The live page: no cache, no Referer, no CORS, and only the question.
    const page = await rig.raw(`GET /reply/${A.token} HTTP/1.1\r\nOrigin: https://evil.example`);
    expect(status(page)).toBe(200);
    expect(page).toMatch(/^cache-control: no-store\r$/im);
    expect(page).toMatch(/^referrer-policy: no-referrer\r$/im);
    expect(page).not.toMatch(/access-control-allow/i);
    expect(bodyOf(page)).toBe(A.payload["question-text"]);
    for (const other of [B, C]) expect(page).not.toContain(other.thread);
    expect(page).not.toContain(A.thread);
    expect(page).not.toContain(TOKEN);
    // Another Host or forwarding headers change nothing: refused before any route.
    const spoofed = await rig.raw(
      `GET /reply/${A.token} HTTP/1.0\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example`,
    );
    expect(status(spoofed)).toBe(421);

    // Settled, rejected out: dead like a link that never was.
    expect((await post(A.link, "1")).status).toBe(200);
    let last: Response | undefined;
    for (let i = 0; i < 20; i++) last = await post(B.link, "9");
    expect(last!.status).toBe(400);
    expect(await last!.text()).toContain("too many rejected replies");
    for (const dead of [A, B]) {
      expect(undated(await get(`/reply/${dead.token}`))).toBe(unknown);
      for (const path of [`/reply/${dead.token}`, `/reply/${dead.token}/decline`])
        expect(
          undated(
            await rig.raw(`POST ${path} HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 1`, "1"),
          ),
        ).toBe(unknown);
    }
    expect(await pending(rig)).toEqual(expect.arrayContaining([B.payload["question-id"]]));

    // The reply token opens nothing else: no listing, no thread, no event stream.
    for (const path of ["/thread", `/thread/${C.thread}`, "/question", "/event"]) {
      const r = await fetch(`${rig.url}${path}?token=${C.token}`, {
        headers: { authorization: `Bearer ${C.token}` },
      });
      expect(r.status, path).toBe(401);
    }
  });

  // Fails if the token reaches the log in a form that still reaches the question: a
  // percent-encoded character, a dot segment, an encoded "reply", an encoded slash.
  it("the token never reaches the log, whatever form of the path reaches the link", async () => {
    const rig = await start([ask("a1", [pick("Which?")]), say("a")]);
    const { token } = await rig.asking();
    const hex = (c: string) => `%${c.charCodeAt(0).toString(16)}`;
    const forms = [
      `/reply/${token}`,
      `/reply/${hex(token[0])}${token.slice(1)}`,
      `/reply/${token.slice(0, 20)}${hex(token[20])}${token.slice(21)}`,
      `/reply/${[...token].map(hex).join("")}`,
      `/reply/./${token}`,
      `/./reply/${token}`,
      `/%72eply/${token}`,
      `/re%70ly/${token}`,
      `/reply/x/..%2F${token}`,
      `/reply%2F${token}`,
      `/REPLY/${token}`,
    ];
    let reached = 0;
    for (const path of forms) if (status(await rig.raw(`GET ${path} HTTP/1.1`)) === 200) reached += 1;
    expect(reached).toBeGreaterThan(5);
    await until(() => readFileSync(join(rig.home, "serve.log"), "utf8").includes("/REPLY/"));
    const logged = readFileSync(join(rig.home, "serve.log"), "utf8");
    // Any 12 characters of the token in a row, in the clear.
    const pieces = Array.from({ length: token.length - 11 }, (_, i) => token.slice(i, i + 12));
    const leaks = logged
      .split("\n")
      .filter((l) => pieces.some((p) => l.includes(p)))
      .map((l) => JSON.parse(l).path ?? l.slice(0, 200));
    expect(leaks).toEqual([]);
    expect(logged).toContain("[redacted]");
  });

  // Fails if a body that is not UTF-8 is taken as an answer (its bytes replaced by U+FFFD), or is
  // not counted as a rejected reply.
  it("a reply that is not UTF-8 is refused, counted, and leaves the question pending", async () => {
    const rig = await start([ask("a1", [pick("Which?")]), say("a")]);
    const { payload, token } = await rig.asking();
    const bad = Buffer.from([0xff, 0xfe, 0x31]);
    const r = await rig.raw(
      `POST /reply/${token} HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: ${bad.length}`,
      bad,
    );
    expect(status(r)).toBe(400);
    expect(bodyOf(r)).toContain("UTF-8");
    expect(await pending(rig)).toEqual([payload["question-id"]]);
    // As JSON too.
    const json = Buffer.concat([Buffer.from('{"text":"'), bad, Buffer.from('"}')]);
    const j = await rig.raw(
      `POST /reply/${token} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${json.length}`,
      json,
    );
    expect(status(j)).toBe(400);
    expect(await pending(rig)).toEqual([payload["question-id"]]);
    // Counted like any rejected reply: the 20th kills the link.
    let last = "";
    for (let i = 2; i < 20; i++)
      last = await rig.raw(
        `POST /reply/${token} HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: ${bad.length}`,
        bad,
      );
    expect(bodyOf(last)).toContain("too many rejected replies");
    expect(status(await rig.raw(`GET /reply/${token} HTTP/1.1`))).toBe(404);
  });

  // Fails if two racing replies both answer, if a replay answers again, if a slow body holds the
  // question from other replies, or if a link survives a restart of `tandem serve`.
  it("racing and replayed replies answer once; a slow body holds nothing; a restart kills every link", async () => {
    const rig = await start([ask("a1", [pick("Which?")]), say("a"), ask("b1", [pick("Other?")]), say("b")]);
    const A = await rig.asking();
    const slow = rig.raw(
      `POST /reply/${A.token} HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 10`,
      "1",
      1500,
    );
    // The slow request is in (its token checked, its body being read) before the others.
    await new Promise((r) => setTimeout(r, 300));
    const replies = await Promise.all(
      ["1", "2", "1", "2", "1", "2"].map(async (b) => {
        const r = await post(A.link, b);
        return r.status;
      }),
    );
    expect(replies.filter((s) => s === 200)).toHaveLength(1);
    expect(replies.filter((s) => s === 404)).toHaveLength(5);
    expect(await slow).toContain("[no response after");
    expect((await post(A.link, "1")).status).toBe(404);
    expect(await pending(rig)).not.toContain(A.payload["question-id"]);

    const B = await rig.asking();
    expect((await fetch(B.link)).status).toBe(200);
    await rig.restart();
    const stale = `${rig.url}/reply/${B.token}`;
    for (const r of [await fetch(stale), await post(stale, "1"), await post(`${stale}/decline`, "")])
      expect(r.status).toBe(404);
  });

  // Fails if a request holding a secret question (alongside a normal one) or an approval gets a
  // reply link or its text, in the notify payload or the Notification hook input.
  it("no link for a request with a secret question beside a normal one, nor for an approval", async () => {
    const rig = await start(
      [
        ask("s1", [pick("Colour?"), { id: "key", header: "Key", question: "Your API key?", secret: true }]),
        exec("touch approved.txt", "e1"),
        say("done"),
      ],
      ['approval_policy="untrusted"'],
    );
    const secret = await rig.asking();
    expect(secret.payload["reply-url"]).toBeUndefined();
    expect(secret.payload["question-text"]).toBeUndefined();
    const approval = await rig.asking("default");
    expect(approval.payload.type).toBe("approval-requested");
    expect(approval.payload["reply-url"]).toBeUndefined();
    expect(JSON.stringify(rig.payloads())).not.toContain("/reply/");
  });
});
