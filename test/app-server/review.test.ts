/**
 * Codex `review/start` on Tandem's app server (README "Review: `/review`"): a real app server
 * (in-process stdio, every frame validated against the Codex schema) against `tandem
 * mock-model`. The review runs inline as a read-only turn: enteredReviewMode, the commands it
 * ran, the findings as text in an agentMessage and in exitedReviewMode — never the JSON — and
 * `thread/read` returns the same items. Bad targets are invalid params.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inProcessStdio, type Served } from "../helpers/app-server-client.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { sandboxFallback } from "../helpers/system-tools.js";

describe("tandem app-server: review/start", () => {
  const served: Served[] = [];
  let mock: MockProcess | undefined;
  afterEach(async () => {
    for (const s of served.splice(0)) {
      expect(s.client.violations).toEqual([]);
      expect(await s.close()).toBe(0);
    }
    await mock?.stop();
    mock = undefined;
  });

  it("reviews a commit inline and returns findings as Codex's review items", async () => {
    const cwd = tempDir("tandem-review-cwd-");
    const git = (...a: string[]) =>
      execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd, encoding: "utf8" });
    git("init", "-q");
    writeFileSync(join(cwd, "a.py"), "x = 1\n");
    git("add", ".");
    git("commit", "-qm", "add a");
    const sha = git("rev-parse", "HEAD").trim();
    const answer = {
      findings: [
        {
          title: "Name the constant",
          body: "`x` says nothing.",
          priority: 2,
          confidence_score: 0.5,
          code_location: { absolute_file_path: join(cwd, "a.py"), line_range: { start: 1, end: 1 } },
        },
      ],
      overall_correctness: "patch is correct",
      overall_explanation: "Fine apart from naming.",
    };
    mock = await startMockProcess(
      {
        steps: [
          {
            expect: {
              input_contains: [`Code review requested: commit ${sha.slice(0, 7)}: add a`, `git show ${sha}`],
            },
            output: [
              {
                type: "function_call",
                name: "exec_command",
                arguments: { cmd: `git show ${sha}` },
                call_id: "g1",
              },
            ],
          },
          { output: [{ type: "message", text: JSON.stringify(answer) }] },
        ],
      },
      { log: true },
    );
    const home = tempDir("tandem-home-");
    sandboxFallback(home);
    const s = inProcessStdio({ TANDEM_HOME: home, OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url });
    served.push(s);
    const client = s.client;
    await client.initialize();
    const { thread } = await client.request("thread/start", { cwd });
    await expect(
      client.request("review/start", {
        threadId: thread.id,
        target: { type: "baseBranch", branch: "x;rm -rf /" },
      }),
    ).rejects.toMatchObject({ code: -32602 });
    const started = await client.request("review/start", {
      threadId: thread.id,
      target: { type: "commit", sha, title: "add a" },
      delivery: "inline",
    });
    expect(started.reviewThreadId).toBe(thread.id);
    const entered = await client.notification("item/completed", (p) => p.item.type === "enteredReviewMode");
    expect(entered.item.review).toBe(`commit ${sha.slice(0, 7)}: add a`);
    const exited = await client.notification("item/completed", (p) => p.item.type === "exitedReviewMode");
    expect(exited.item.review).toBe(
      "[P2] Name the constant — a.py:1\n  `x` says nothing.\n\nOverall: patch is correct — Fine apart from naming.",
    );
    await client.notification("turn/completed", (p) => p.threadId === thread.id);
    // The answer also comes as an agentMessage with the same text (Codex's TUI draws that), never the JSON.
    const answers = client.notifications.filter(
      (n: any) => n.method === "item/completed" && n.params?.item?.type === "agentMessage",
    );
    expect(answers.map((n: any) => n.params.item.text)).toEqual([exited.item.review]);
    expect(client.notifications.some((n: any) => n.method === "item/agentMessage/delta")).toBe(false);

    const read = await client.request("thread/read", { threadId: thread.id, includeTurns: true });
    const types = read.thread.turns.flatMap((t: any) => t.items.map((i: any) => i.type));
    expect(types).toEqual(["enteredReviewMode", "commandExecution", "agentMessage", "exitedReviewMode"]);
    expect(read.thread.turns[0].items[3].review).toBe(exited.item.review);
  });
});
