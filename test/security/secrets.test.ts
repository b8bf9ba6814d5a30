/**
 * README "Sandbox and approvals": secret answers never leak through live output or other answers.
 *
 * Through the real loop (harness: real Runtime, real SQLite, scripted model over HTTP): the model
 * asks a Plan-mode secret question, then runs commands that print the secret through its
 * `$TANDEM_SECRET_…` handle in ways that used to slip past the mask — split across two output
 * reads right at the 4096-char streaming cut, under a PTY, across two reads of a write_stdin
 * session — and the user types the secret into the note or free text of another question.
 * Each test asserts the value (or its first half) reached no model request, no event (the feed of
 * every surface: app-server `outputDelta`, SSE and its replay buffer, the TUI), no byte of the
 * database files — and that the legitimate use still works (the command got the value). The
 * split print is also driven over the app-server (stdio, in process) and `tandem serve` SSE with a
 * Last-Event-ID replay.
 *
 * Sandboxing is not what these tests are about: they run danger-full-access so they also run
 * where bubblewrap is missing.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel } from "../../src/mock-model/index.js";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { REDACTED } from "../../src/protocol/questions.js";
import { serverEnv, startPlanTurn } from "../helpers/app-server.js";
import { inProcessStdio } from "../helpers/app-server-client.js";
import { checkpointBlobs, homeFiles } from "../helpers/checkpoints.js";
import { BIN, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { isEvent, openSse, serve, TOKEN } from "../helpers/http.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const SSE_AUTH = { authorization: `Bearer ${TOKEN}` };
const hasTmux = missing("tmux").length === 0;

const SECRET = "sk-SECRET-8f3a91c2d7e6";
const HEAD = SECRET.slice(0, 10); // "sk-SECRET-": what a split read used to show

type Q = {
  id: string;
  header: string;
  question: string;
  options?: { label: string; description: string }[];
  secret?: boolean;
};
const KEY_Q: Q = { id: "api_key", header: "API key", question: "Paste your API key", secret: true };
const STACK_Q: Q = {
  id: "stack",
  header: "Stack",
  question: "Which stack?",
  options: [
    { label: "TypeScript (Recommended)", description: "fast to start" },
    { label: "Rust", description: "fast to run" },
  ],
};
const NAME_Q: Q = { id: "name", header: "Name", question: "Project name?" };

const ask = (call_id: string, questions: Q[]) => ({
  type: "function_call" as const,
  name: "request_user_input",
  arguments: { questions },
  call_id,
});
const exec = (call_id: string, args: Record<string, unknown>) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: args,
  call_id,
});
const say = (text: string) => ({ type: "message" as const, text });
const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

/** Prints 4090 padding chars, then the secret in two writes 300 ms apart (a split read). */
const SPLIT_PRINT =
  "head -c 4090 /dev/zero | tr '\\0' x; " +
  'printf %s "$TANDEM_SECRET_API_KEY" | head -c 10; sleep 0.3; ' +
  'printf %s "$TANDEM_SECRET_API_KEY" | tail -c +11; ' +
  'printf %s "$TANDEM_SECRET_API_KEY" > key.txt';

describe("secret masking", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function planThread(steps: unknown[]) {
    h = await harness({
      script: { steps } as any,
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    return thread;
  }

  /** Answers the next question request with `answers`; returns once the reply was accepted. */
  async function answer(threadId: string, answers: Record<string, unknown>, nth = 0) {
    const seen = () => h!.events.filter((s) => requested(s.event));
    const deadline = Date.now() + 15_000;
    while (seen().length <= nth && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const ev = seen()[nth].event as EventOf<"question.requested">;
    const r = h!.runtime.questions.reply(threadId, ev.request.request_id, { answers } as any, {
      kind: "test",
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  }

  /** Every live output chunk of a call, in order, joined as a surface would show it. */
  const deltas = (callId?: string) =>
    h!.events
      .map((s) => s.event)
      .filter((e): e is EventOf<"exec.output_delta"> => e.type === "exec.output_delta")
      .filter((e) => callId === undefined || e.item_id === callId)
      .map((e) => e.chunk)
      .join("");

  /** The value (and its first half) is in no model request, event or database file. */
  async function expectNowhere(values: string[]) {
    const requests = JSON.stringify(h!.model.requests);
    const events = JSON.stringify(h!.events);
    for (const v of values) {
      expect(requests.includes(v), `a model request holds ${v}`).toBe(false);
      expect(events.includes(v), `an event holds ${v}`).toBe(false);
      expect(deltas().includes(v), `the joined output deltas hold ${v}`).toBe(false);
    }
    await h!.runtime.shutdown();
    for (const f of homeFiles(h!.home)) {
      const bytes = readFileSync(join(h!.home, f));
      for (const v of values) expect(bytes.includes(v), `${f} holds ${v}`).toBe(false);
    }
    // A file a command wrote the secret into is kept out of checkpoints (compressed or not).
    for (const blob of checkpointBlobs(h!.home))
      for (const v of values) expect(blob.includes(v), `a checkpoint holds ${v}`).toBe(false);
  }

  it("a secret printed across the 4096-char streaming cut is masked in the live deltas", async () => {
    // fails if maskedStream streams a long partial line without holding back a possible secret
    // start (the first delta then ends in "sk-SECRET-", the next starts with the rest).
    const thread = await planThread([
      { output: [ask("s1", [KEY_Q])] },
      { output: [exec("p1", { cmd: SPLIT_PRINT })] },
      { output: [say("done")] },
    ]);
    const turn = thread.startTurn("configure");
    await answer(thread.id, { api_key: { selected: [], other: SECRET } });
    expect((await turn.done).status).toBe("completed");
    expect(readFileSync(join(h!.cwd, "key.txt"), "utf8")).toBe(SECRET); // the command got it
    const shown = deltas("p1");
    expect(shown).toBe(`${"x".repeat(4090)}${REDACTED}`); // all output still streamed, masked
    await expectNowhere([SECRET, HEAD]);
  });

  it("the same under a PTY (tty: true)", async () => {
    // fails if the PTY path skips the cross-chunk hold-back.
    const thread = await planThread([
      { output: [ask("s1", [KEY_Q])] },
      { output: [exec("p2", { cmd: SPLIT_PRINT, tty: true })] },
      { output: [say("done")] },
    ]);
    const turn = thread.startTurn("configure");
    await answer(thread.id, { api_key: { selected: [], other: SECRET } });
    expect((await turn.done).status).toBe("completed");
    expect(readFileSync(join(h!.cwd, "key.txt"), "utf8")).toBe(SECRET);
    expect(deltas("p2")).toContain(REDACTED);
    await expectNowhere([SECRET, HEAD]);
  });

  it("a secret split across two reads of a write_stdin session reaches the model masked", async () => {
    // fails if a still-running session's report (or its end-of-yield flush) hands out a tail that
    // may be the start of a secret: the model then sees "sk-SECRET-" in one result, the rest in
    // the next.
    const thread = await planThread([
      { output: [ask("s1", [KEY_Q])] },
      {
        output: [
          exec("w1", {
            cmd: 'printf %s "$TANDEM_SECRET_API_KEY" | head -c 10; read line; printf %s "$TANDEM_SECRET_API_KEY" | tail -c +11; echo " end"',
            yield_time_ms: 500,
          }),
        ],
      },
      {
        expect: { input_contains: ["Process running with session ID 1000"] },
        output: [
          {
            type: "function_call",
            name: "write_stdin",
            arguments: { session_id: 1000, chars: "\n", yield_time_ms: 2000 },
            call_id: "w2",
          },
        ],
      },
      { output: [say("done")] },
    ]);
    const turn = thread.startTurn("configure");
    await answer(thread.id, { api_key: { selected: [], other: SECRET } });
    expect((await turn.done).status).toBe("completed");
    const seen = JSON.stringify(h!.model.requests);
    expect(seen.includes(`${REDACTED} end`), "the model sees the masked value").toBe(true);
    await expectNowhere([SECRET, HEAD]);
  });

  it("a secret typed into the note or free text of another question of the same reply is masked", async () => {
    // fails if only the secret question's own answer is redacted: the note of "stack" and the
    // free text of "name" then reach question.answered, the questions table and the model.
    const thread = await planThread([
      { output: [ask("s1", [KEY_Q, STACK_Q, NAME_Q])] },
      { output: [say("done")] },
    ]);
    const turn = thread.startTurn("configure");
    await answer(thread.id, {
      api_key: { selected: [], other: SECRET },
      stack: { selected: ["Rust"], note: `my key is ${SECRET} fyi` },
      name: { selected: [], other: `app-${SECRET}` },
    });
    expect((await turn.done).status).toBe("completed");
    const result = JSON.stringify(h!.model.requests[1]);
    expect(result).toContain(`my key is ${REDACTED} fyi`); // the rest of the note still arrives
    expect(result).toContain("Rust");
    await expectNowhere([SECRET]);
  });

  it("a secret pasted with surrounding whitespace is masked without it too", async () => {
    // fails if only the exact typed value (with its spaces) is known to the mask.
    const thread = await planThread([
      { output: [ask("s1", [KEY_Q, STACK_Q])] },
      {
        output: [exec("t1", { cmd: "printf %s \"$TANDEM_SECRET_API_KEY\" | tr -d ' \\n'; echo; echo tail" })],
      },
      { output: [say("done")] },
    ]);
    const turn = thread.startTurn("configure");
    await answer(thread.id, {
      api_key: { selected: [], other: `  ${SECRET}\n` },
      stack: { selected: ["Rust"], note: `key ${SECRET}` },
    });
    expect((await turn.done).status).toBe("completed");
    await expectNowhere([SECRET]);
  });

  it("a secret from an earlier question typed into a later answer is masked everywhere", async () => {
    // fails if the broker redacts a reply only against that reply's own secret answers: the
    // note of the second question then lands in events and the database.
    const thread = await planThread([
      { output: [ask("s1", [KEY_Q])] },
      { output: [ask("s2", [STACK_Q])] },
      { output: [say("done")] },
    ]);
    const turn = thread.startTurn("configure");
    await answer(thread.id, { api_key: { selected: [], other: SECRET } });
    await answer(thread.id, { stack: { selected: ["Rust"], note: `use ${SECRET}` } }, 1);
    expect((await turn.done).status).toBe("completed");
    expect(JSON.stringify(h!.model.requests[2])).toContain(`use ${REDACTED}`);
    await expectNowhere([SECRET]);
  });
});

describe("secret masking on the surfaces fed by the event stream", () => {
  const steps = [
    { output: [ask("s1", [KEY_Q])] },
    { output: [exec("p1", { cmd: SPLIT_PRINT })] },
    { output: [say("done")] },
  ];

  it("app-server: item/commandExecution/outputDelta never carries the secret or its first half", async () => {
    // fails if the live stream shows a secret cut in two: the deltas of call p1 then join into it.
    const model = await startMockModel({ script: { steps } as any });
    const home = tempDir("tandem-home-");
    writeFileSync(join(home, "config.toml"), 'sandbox_mode = "danger-full-access"\n');
    const s = inProcessStdio(serverEnv({ url: model.url } as MockProcess, home));
    try {
      await s.client.initialize();
      const cwd = tempDir("tandem-cwd-");
      const { question } = await startPlanTurn(s.client, cwd);
      s.client.respond(question, { answers: { api_key: { answers: [SECRET] } } });
      await s.client.notification("turn/completed");
      const deltas = s.client.notifications
        .filter((m) => m.method === "item/commandExecution/outputDelta")
        .map((m) => m.params.delta)
        .join("");
      expect(deltas).toBe(`${"x".repeat(4090)}${REDACTED}`);
      expect(readFileSync(join(cwd, "key.txt"), "utf8")).toBe(SECRET);
      const wire = JSON.stringify(s.client.received) + JSON.stringify(model.requests);
      expect(wire.includes(SECRET) || wire.includes(HEAD), "the secret reached the wire").toBe(false);
      expect(s.client.violations).toEqual([]);
    } finally {
      await s.close();
      await model.close();
    }
  });

  it("tandem serve: GET /event frames and the Last-Event-ID replay never carry it", async () => {
    // fails like the one above: SSE frames and the replay buffer hold the deltas as published.
    const sv = await serve({ script: { steps } as any, overrides: ['sandbox_mode="danger-full-access"'] });
    try {
      const threadId = (await sv.call("POST", "/thread", { mode: "plan" })).json.id;
      const live = await openSse(`${sv.url}/event?responder=web`, SSE_AUTH);
      await live.next((f) => f.event === "ready");
      await sv.call("POST", `/thread/${threadId}/turn`, { text: "go" });
      const asked = await live.next(isEvent("question.requested"));
      const requestId = JSON.parse(asked.data).event.request.request_id;
      const reply = await sv.call("POST", `/question/${requestId}/reply`, {
        thread_id: threadId,
        answers: { api_key: { selected: [], other: SECRET } },
      });
      expect(reply.status).toBe(200);
      await live.next(isEvent("turn.completed"));
      const replay = await openSse(`${sv.url}/event`, { ...SSE_AUTH, "last-event-id": asked.id! });
      await replay.next(isEvent("turn.completed"));
      for (const client of [live, replay]) {
        const joined = client
          .events()
          .filter((s) => s.event.type === "exec.output_delta")
          .map((s) => s.event.chunk)
          .join("");
        expect(joined).toBe(`${"x".repeat(4090)}${REDACTED}`);
        const raw = client.frames.map((f) => f.data).join("\n");
        expect(raw.includes(SECRET) || raw.includes(HEAD), "an SSE frame holds the secret").toBe(false);
      }
      live.close();
      replay.close();
    } finally {
      await sv.close();
    }
  });
});

describe("headless secret answers never go on the command line", () => {
  const CLI_SECRET = "tok-CLI-5e4d3c2b1a09";
  const script = {
    steps: [
      { output: [ask("s1", [KEY_Q, NAME_Q])] },
      {
        expect: { input_contains: ["$TANDEM_SECRET_API_KEY", "demo-app"] },
        output: [
          exec("use", {
            cmd: 'printf %s "$TANDEM_SECRET_API_KEY" > key.txt; echo "key=$TANDEM_SECRET_API_KEY"',
          }),
        ],
      },
      { output: [say("configured")] },
    ],
  };
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  /** Runs until the secret question is deferred (exit 3); returns the thread id and its env. */
  async function deferred() {
    mock = mock ?? (await startMockProcess(script));
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-cwd-");
    writeFileSync(join(home, "config.toml"), 'sandbox_mode = "danger-full-access"\n');
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const first = await runTandem(
      ["exec", "--mode", "plan", "--questions", "defer", "--cd", cwd, "configure"],
      {
        env,
      },
    );
    expect(first.code, first.stderr).toBe(3);
    const threadId = /tandem exec resume (\S+)/.exec(first.stderr)![1];
    return { threadId, env, home, cwd, first };
  }

  /** The secret is in no file of TANDEM_HOME, not in the model's request log, not in the output. */
  function expectNowhere(home: string, ...outputs: string[]) {
    for (const f of homeFiles(home))
      expect(readFileSync(join(home, f)).includes(CLI_SECRET), `${f} holds the secret`).toBe(false);
    expect(readFileSync(mock!.log, "utf8").includes(CLI_SECRET), "the request log holds it").toBe(false);
    for (const o of outputs) expect(o.includes(CLI_SECRET), "the output holds it").toBe(false);
  }

  it("the deferred question is labelled secret and its hint says how to answer it off argv", async () => {
    // fails if the hint suggests --answer api_key=… for a secret question.
    const { first } = await deferred();
    expect(first.stderr).toContain("[api_key] (secret)");
    expect(first.stderr).toMatch(/--answer api_key=- /);
    expect(first.stderr).not.toMatch(/--answer api_key=…/);
    expect(first.stderr).toMatch(
      /"api_key" is secret: never put its value on the command line.*--answer-file/,
    );
  });

  it("--answer api_key=VALUE is refused (exit 2) and nothing is recorded; --answer-file answers it", async () => {
    // fails if a secret answer is accepted from argv (visible in ps), or if the refusal still
    // settles the other question of the same request.
    const { threadId, env, home, cwd } = await deferred();
    const refused = await runTandem(
      ["exec", "resume", threadId, "--answer", `api_key=${CLI_SECRET}`, "--answer", "name=demo-app"],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/"api_key" is a secret question.*--answer api_key=-.*--answer-file/);
    expectNowhere(home, refused.stdout, refused.stderr);
    expect(readFileSync(mock!.log, "utf8").trim().split("\n")).toHaveLength(1); // the turn did not go on

    const file = join(tempDir("tandem-answers-"), "answers");
    writeFileSync(file, `# answers\napi_key=${CLI_SECRET}\nname=demo-app\n`, { mode: 0o600 });
    const done = await runTandem(["exec", "resume", threadId, "--answer-file", file], { env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("configured");
    expect(readFileSync(join(cwd, "key.txt"), "utf8")).toBe(CLI_SECRET);
    expectNowhere(home, done.stdout, done.stderr);
  });

  it("--answer api_key=- reads the value from stdin", async () => {
    // fails if "-" is taken literally (the command would then get "-", not the value).
    const { threadId, env, home, cwd } = await deferred();
    const done = await runTandem(
      ["exec", "resume", threadId, "--answer", "api_key=-", "--answer", "name=demo-app"],
      {
        env,
        input: `${CLI_SECRET}\n`,
      },
    );
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(join(cwd, "key.txt"), "utf8")).toBe(CLI_SECRET);
    expectNowhere(home, done.stdout, done.stderr);
  });

  it.skipIf(!hasTmux)("on a terminal, --answer api_key=- prompts with echo off", async () => {
    // fails if the value typed at the prompt is echoed to the terminal.
    const { threadId, env, home, cwd } = await deferred();
    const session = `tandem-secret-${process.pid}`;
    const tmux = (...a: string[]) => execFileSync("tmux", a, { encoding: "utf8" });
    const vars = Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ");
    const cmd = `cd ${cwd} && ${vars} ${BIN} exec resume ${threadId} --answer api_key=- --answer name=demo-app; echo EXIT=$?; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", cmd);
    try {
      const screen = async (pred: (t: string) => boolean) => {
        for (let i = 0; i < 150; i++) {
          const t = tmux("capture-pane", "-p", "-t", session, "-S", "-200");
          if (pred(t)) return t;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`pane never matched: ${tmux("capture-pane", "-p", "-t", session)}`);
      };
      await screen((t) => t.includes("api_key (hidden)>"));
      tmux("send-keys", "-t", session, CLI_SECRET, "Enter");
      const shown = await screen((t) => /EXIT=\d/.test(t));
      expect(shown).toContain("EXIT=0");
      expect(shown.includes(CLI_SECRET), "the typed secret was echoed").toBe(false);
      expect(readFileSync(join(cwd, "key.txt"), "utf8")).toBe(CLI_SECRET);
      expectNowhere(home);
    } finally {
      tmux("kill-session", "-t", session);
    }
  });

  it("a JSON --answer-file on stdin answers too; --answer-json with the secret is refused", async () => {
    // fails if --answer-json (argv as well) may carry a secret answer.
    const { threadId, env, home, cwd } = await deferred();
    const refused = await runTandem(
      ["exec", "resume", threadId, "--answer-json", JSON.stringify({ api_key: { other: CLI_SECRET } })],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('"api_key" is a secret question');
    const done = await runTandem(["exec", "resume", threadId, "--answer-file", "-"], {
      env,
      input: JSON.stringify({ api_key: CLI_SECRET, name: { selected: [], other: "demo-app" } }),
    });
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(join(cwd, "key.txt"), "utf8")).toBe(CLI_SECRET);
    expectNowhere(home, done.stdout, done.stderr);
  });
});
