/**
 * Red team: a secret value reaches the checkpoint store by a way that is not a file's content.
 *
 * README "Secret answers": a file that holds a secret value Tandem knows is never stored in a
 * checkpoint. The command here does not write the value into a file: it names a symbolic link's
 * target after it (`ln -s "$TANDEM_SECRET_API_KEY" link`) and a file after it (`touch
 * "$TANDEM_SECRET_API_KEY.txt"`). The watch stores link targets as blobs and paths in its
 * `files` table: the value would sit in `$TANDEM_HOME/checkpoints/*.db`, outside the sealed
 * vault, beside the key that opens the vault. No byte under the home may hold it.
 *
 * Real loop (harness: Runtime, SQLite, scripted model over HTTP); danger-full-access (the
 * sandbox is not the point), so it runs without bubblewrap too.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { checkpointBlobs, homeFiles } from "../helpers/checkpoints.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

const SECRET = "sk-LINKED-3b7e20f91c";

const call = (call_id: string, name: string, args: Record<string, unknown>) => ({
  type: "function_call" as const,
  name,
  arguments: args,
  call_id,
});
const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

describe("red team: secrets never reach the checkpoint store", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if link targets or path names skip the secret check that file contents get.
  it("a link whose target is the secret and a file named after it are not stored", async () => {
    h = await harness({
      script: {
        steps: [
          {
            output: [
              call("s1", "request_user_input", {
                questions: [
                  { id: "api_key", header: "API key", question: "Paste your API key", secret: true },
                ],
              }),
            ],
          },
          {
            output: [
              call("x1", "exec_command", {
                cmd: 'ln -s "$TANDEM_SECRET_API_KEY" link && touch "$TANDEM_SECRET_API_KEY.txt" && echo plain > plain.txt',
              }),
            ],
          },
          { output: [{ type: "message", text: "done" }] },
        ],
      } as any,
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("set up");
    const deadline = Date.now() + 15_000;
    while (!h.events.some((s) => requested(s.event)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const ev = h.events.map((s) => s.event).find(requested);
    expect(ev, "the secret question was asked").toBeDefined();
    const r = h.runtime.questions.reply(
      thread.id,
      ev!.request.request_id,
      { answers: { api_key: { other: SECRET } } } as any,
      {
        kind: "test",
      },
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect((await turn.done).status).toBe("completed");
    // The command did its work with the value.
    expect(readFileSync(join(h.cwd, `${SECRET}.txt`), "utf8")).toBe("");
    const diff = h.events
      .map((s) => s.event)
      .filter((e) => e.type === "turn.diff")
      .map((e) => (e as { diff: string }).diff)
      .at(-1);
    expect(diff).toContain("plain.txt"); // the watch saw the command
    await h.runtime.shutdown();
    for (const f of homeFiles(h.home)) {
      const bytes = readFileSync(join(h.home, f));
      expect(bytes.includes(SECRET), `${f} holds the secret`).toBe(false);
    }
    for (const blob of checkpointBlobs(h.home))
      expect(blob.includes(SECRET), "a checkpoint blob holds it").toBe(false);
  });
});

describe("red team: a resumed family's secret stays out of checkpoints", () => {
  let mock: MockProcess | undefined;
  afterEach(async () => {
    await mock?.stop();
    mock = undefined;
  });

  // Fails if the watch's secret check knows only the families this process has loaded so far:
  // a resumed thread's turn starts with a sync, before anything loads the family's sealed
  // values, and the user's edit to .env (which holds the value) is stored in clear.
  it("a file holding the value, changed between two processes, is withheld by the next", async () => {
    mock = await startMockProcess({
      steps: [
        {
          output: [
            call("ask1", "request_user_input", {
              questions: [{ id: "api_key", header: "API key", question: "Your API key?", secret: true }],
            }),
          ],
        },
        {
          output: [
            call("w1", "exec_command", { cmd: "printf 'API_KEY=%s\\n' \"$TANDEM_SECRET_API_KEY\" > .env" }),
          ],
        },
        { output: [{ type: "message", text: "written" }] },
        { output: [call("e1", "exec_command", { cmd: "echo again > again.txt" })] },
        { output: [{ type: "message", text: "done again" }] },
      ],
    });
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-ws-");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url };
    const common = ["--json", "-c", 'sandbox_mode="danger-full-access"'];
    const first = await runTandem(["exec", ...common, "--mode", "plan", "--questions", "defer", "set up"], {
      env,
      cwd,
    });
    expect(first.code, first.stderr).toBe(3);
    const threadId = jsonLines(first.stdout)[0].thread_id as string;
    const second = await runTandem(["exec", ...common, "resume", threadId, "--answer", "api_key=-"], {
      env,
      cwd,
      input: `${SECRET}\n`,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(cwd, ".env"), "utf8")).toBe(`API_KEY=${SECRET}\n`);
    // The user edits .env between the runs; the next run's first sync reads it again.
    appendFileSync(join(cwd, ".env"), "DEBUG=1\n");
    const third = await runTandem(["exec", ...common, "resume", threadId, "again"], { env, cwd });
    expect(third.code, third.stderr).toBe(0);
    expect(readFileSync(join(cwd, "again.txt"), "utf8")).toBe("again\n");
    const blobs = checkpointBlobs(home);
    expect(
      blobs.some((b) => b.toString() === "again\n"),
      "the third run's watch stored again.txt",
    ).toBe(true);
    for (const blob of blobs) expect(blob.includes(SECRET), "a checkpoint blob holds it").toBe(false);
  });
});

describe("red team: a patch next to a secret", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if the file_change item (its diff's context lines come from the file) is published or
  // stored unmasked: .env holds the value, and the patch edits the line after it.
  it("apply_patch on a file that holds the value: its diff and its mismatch error show it masked", async () => {
    const patch = "*** Begin Patch\n*** Update File: .env\n@@\n-DEBUG=0\n+DEBUG=1\n*** End Patch";
    const guess =
      "*** Begin Patch\n*** Update File: .env\n@@\n-API_KEY=sk-LINKED-guess\n+API_KEY=other\n*** End Patch";
    h = await harness({
      script: {
        steps: [
          {
            output: [
              call("s1", "request_user_input", {
                questions: [
                  { id: "api_key", header: "API key", question: "Paste your API key", secret: true },
                ],
              }),
            ],
          },
          {
            output: [
              call("x1", "exec_command", {
                cmd: 'printf "API_KEY=%s\\nDEBUG=0\\n" "$TANDEM_SECRET_API_KEY" > .env',
              }),
            ],
          },
          { output: [{ type: "custom_tool_call", name: "apply_patch", call_id: "p1", input: patch }] },
          // A guess that does not match: the error quotes the most similar lines of the file.
          { output: [{ type: "custom_tool_call", name: "apply_patch", call_id: "p2", input: guess }] },
          { output: [{ type: "message", text: "done" }] },
        ],
      } as any,
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("set up");
    const deadline = Date.now() + 15_000;
    while (!h.events.some((s) => requested(s.event)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const ev = h.events.map((s) => s.event).find(requested);
    const r = h.runtime.questions.reply(
      thread.id,
      ev!.request.request_id,
      { answers: { api_key: { other: SECRET } } } as any,
      {
        kind: "test",
      },
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect((await turn.done).status).toBe("completed");
    expect(readFileSync(join(h.cwd, ".env"), "utf8")).toBe(`API_KEY=${SECRET}\nDEBUG=1\n`);
    const changes = h.events
      .map((s) => s.event)
      .filter((e) => e.type === "item.completed" && (e as any).item.type === "file_change");
    expect(changes.length).toBeGreaterThan(0);
    const outputOf = (id: string) =>
      JSON.stringify(
        (h!.model.requests as any[])
          .flatMap((b) => b.input)
          .find((i: any) => i.call_id === id && i.type.endsWith("_output")),
      );
    expect(outputOf("p2")).toContain("The most similar lines"); // the guess failed, and said why
    expect(outputOf("p2")).toContain("[redacted secret]");
    expect(JSON.stringify(h.events).includes(SECRET), "an event holds the secret").toBe(false);
    expect(JSON.stringify(h.model.requests).includes(SECRET), "a model request holds the secret").toBe(false);
    await h.runtime.shutdown();
    for (const f of homeFiles(h.home)) {
      const bytes = readFileSync(join(h.home, f));
      expect(bytes.includes(SECRET), `${f} holds the secret`).toBe(false);
    }
  });
});

describe("red team: a multi-line secret under a PTY", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // Fails if masking matches only the value as typed: a PTY turns each "\n" the program prints
  // into "\r\n", so a pasted key of several lines would reach the model whole.
  it("a two-line value printed under tty: true is masked", async () => {
    const value = "-----KEY-LINE-ONE-7f3a-----\n-----KEY-LINE-TWO-c81e-----";
    h = await harness({
      script: {
        steps: [
          {
            output: [
              call("s1", "request_user_input", {
                questions: [{ id: "key", header: "Key", question: "Paste your key", secret: true }],
              }),
            ],
          },
          { output: [call("x1", "exec_command", { cmd: 'printf "%s\\n" "$TANDEM_SECRET_KEY"', tty: true })] },
          { output: [{ type: "message", text: "done" }] },
        ],
      } as any,
      overrides: ['sandbox_mode="danger-full-access"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("set up");
    const deadline = Date.now() + 15_000;
    while (!h.events.some((s) => requested(s.event)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    const ev = h.events.map((s) => s.event).find(requested);
    const r = h.runtime.questions.reply(
      thread.id,
      ev!.request.request_id,
      { answers: { key: { other: value } } } as any,
      {
        kind: "test",
      },
    );
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect((await turn.done).status).toBe("completed");
    const requests = JSON.stringify(h.model.requests);
    expect(requests).toContain("[redacted secret]"); // the command printed it, masked
    for (const line of value.split("\n"))
      expect(requests.includes(line), `a model request holds "${line}"`).toBe(false);
    expect(JSON.stringify(h.events).includes("KEY-LINE-ONE"), "an event holds the first line").toBe(false);
  });
});
