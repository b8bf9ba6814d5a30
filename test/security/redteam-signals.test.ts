/**
 * Red team: a signal path the surfaces do not cover. Closing the terminal (or an ssh session
 * dropping) sends SIGHUP, not SIGTERM. Node's default for SIGHUP ends the process at once,
 * without its `exit` hooks — the ones that kill the process trees of running commands (README
 * "Stopping Tandem", "Background jobs … are killed when … Tandem exits"). Commands run in their
 * own process group, so the hangup never reaches them: under danger-full-access (no bwrap
 * `--die-with-parent` to catch it) a command the model started keeps running after Tandem is
 * gone. After SIGHUP a surface must stop like after SIGTERM: its commands killed, the question
 * still stored.
 *
 * A real `./bin/tandem serve` process against the scripted model.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { commandRunning, exitWithin, marker, pendingStep, procsMatching } from "../helpers/signals.js";
import { waitUntil } from "../helpers/wait.js";

const exitOf = (proc: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.exitCode !== null
      ? r({ code: proc.exitCode, signal: null })
      : proc.once("exit", (code, signal) => r({ code, signal })),
  );

let mock: MockProcess | undefined;
const kills: Array<() => void> = [];
afterEach(async () => {
  for (const k of kills.splice(0)) k();
  await mock?.stop();
  mock = undefined;
});

describe("red team: SIGHUP ends a surface like SIGTERM", () => {
  // Fails if SIGHUP takes Node's default (exit without the hooks): the command outlives serve.
  it("serve on SIGHUP: exits 129, the command's tree is gone, the question stays stored", async () => {
    const mark = marker();
    mock = await startMockProcess({
      steps: [pendingStep(mark), { output: [{ type: "message", text: "unused" }] }],
    });
    kills.push(() => {
      for (const pid of procsMatching(`sleep ${mark}`)) process.kill(pid, "SIGKILL");
    });
    const home = tempDir("tandem-sig-home-");
    const env = { TANDEM_HOME: home, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: mock.url, NO_COLOR: "1" };
    const served = await spawnServe(
      [
        "--responder",
        "--token",
        "sig-token-0123456789",
        "-c",
        "questions.default_mode=true",
        "-c",
        'sandbox_mode="danger-full-access"',
      ],
      env,
    );
    kills.push(() => served.proc.kill("SIGKILL"));
    const base = /listening on (\S+)/.exec(served.lines[0])![1];
    const call = (method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: { authorization: "Bearer sig-token-0123456789", "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const thread = await call("POST", "/thread", { cwd: tempDir("tandem-sig-cwd-") });
    await call("POST", `/thread/${thread.id}/turn`, { text: "go" });
    await waitUntil(
      async () => (await call("GET", "/question")).questions.length === 1,
      "GET /question to list it",
    );
    await commandRunning(mark);
    const exited = exitOf(served.proc);
    served.proc.kill("SIGHUP");
    const end = await exitWithin(
      exited.then((e) => e.code),
      15_000,
      served.stderr,
    );
    expect(end, served.stderr()).toBe(129);
    expect(served.stderr()).toContain("tandem serve: SIGHUP received, shutting down");
    await waitUntil(
      () => procsMatching(`sleep ${mark}`).length === 0,
      "the command's process tree to be gone",
    );
    const store = openStore(join(home, "state.db"));
    try {
      expect(store.pendingQuestions().map((q) => q.call_id)).toEqual(["ask-sig"]);
    } finally {
      store.close();
    }
  });
});
