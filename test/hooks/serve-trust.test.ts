/**
 * An untrusted project hook through `tandem serve` (real processes): the trust question reaches
 * the HTTP API like any question; the hook does not run before it is answered and runs after.
 * The notify program gets a deep link to the waiting question, without the token.
 */
import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { isEvent, openSse, until } from "../helpers/http.js";
import { outsideDir, tempDir } from "../helpers/index.js";

describe("project hook trust over the HTTP API", () => {
  let mock: MockProcess | undefined;
  let proc: ChildProcess | undefined;
  afterEach(async () => {
    proc?.kill("SIGKILL");
    await mock?.stop();
    mock = undefined;
    proc = undefined;
  });

  it("does not run the hook until the trust question is answered; runs it after; notify links the question", async () => {
    const outside = outsideDir("tandem-hook-out-");
    const marker = join(outside, "hook-ran");
    const notified = join(outside, "notified.jsonl");
    const notifier = join(outside, "notify.sh");
    writeFileSync(notifier, `#!/bin/sh\nprintf '%s\\n' "$1" >> ${notified}\n`);
    chmodSync(notifier, 0o755);
    const project = tempDir("tandem-hook-project-");
    mkdirSync(join(project, ".tandem"));
    writeFileSync(
      join(project, ".tandem/hooks.json"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] },
      }),
    );
    mock = await startMockProcess({ steps: [{ output: [{ type: "message", text: "hello" }] }] });
    const home = tempDir();
    writeFileSync(join(home, "config.toml"), `notify = ["${notifier}"]\n`);
    const token = "hooks-serve-token-0123456789";
    const run = await spawnServe(["--port", "0", "-c", `openai_base_url="${mock.url}"`], {
      TANDEM_HOME: home,
      OPENAI_API_KEY: "k",
      TANDEM_SERVE_TOKEN: token,
    });
    proc = run.proc;
    const url = /listening on (\S+)/.exec(run.lines[0])![1];
    const auth = { authorization: `Bearer ${token}` };
    const json = { ...auth, "content-type": "application/json" };
    const thread = (await (
      await fetch(`${url}/thread`, { method: "POST", headers: json, body: JSON.stringify({ cwd: project }) })
    ).json()) as any;
    const sse = await openSse(`${url}/event?responder=web&thread=${thread.id}`, auth);
    await fetch(`${url}/thread/${thread.id}/turn`, { method: "POST", headers: json, body: '{"text":"go"}' });
    const asked = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request;
    expect(asked.questions[0].id).toBe("trust");
    expect(asked.questions[0].prompt).toContain(`touch ${marker}`);
    expect(existsSync(marker)).toBe(false);
    await until(() => existsSync(notified));
    const first = JSON.parse(readFileSync(notified, "utf8").split("\n")[0]);
    expect(first).toMatchObject({
      type: "question-requested",
      "thread-id": thread.id,
      "question-id": asked.request_id,
    });
    expect(first.url).toBe(
      `${url}/#thread=${encodeURIComponent(thread.id)}&question=${encodeURIComponent(asked.request_id)}`,
    );
    expect(readFileSync(notified, "utf8")).not.toContain(token);

    const reply = await fetch(`${url}/question/${asked.request_id}/reply`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        thread_id: thread.id,
        answers: { trust: { selected: ["Trust and run them"] } },
      }),
    });
    expect(reply.status).toBe(200);
    const done = JSON.parse((await sse.next(isEvent("turn.completed"))).data).event;
    expect(done.status).toBe("completed");
    expect(existsSync(marker)).toBe(true);
    expect(readFileSync(join(home, "hooks-trust.json"), "utf8")).toContain(
      join(project, ".tandem/hooks.json"),
    );
    sse.close();
  });
});
