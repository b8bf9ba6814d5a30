/**
 * A skill that needs API_TOKEN (Codex `agents/openai.yaml` dependencies), used as `$deploy-app`
 * over `tandem serve` as a real process: Tandem asks a secret internal question, the answer given
 * over the HTTP API reaches the skill's command as $API_TOKEN, and the value appears in no model
 * request, no file of Tandem's home (SQLite store, WAL) and not in the debug log (docs/skills.md).
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type MockProcess, spawnServe, startMockProcess } from "../helpers/cli.js";
import { isEvent, openSse } from "../helpers/http.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { writeDeploySkill } from "../helpers/skills.js";

const SECRET = "tok-9f2c4e7a1b3d5e60";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("skill dependencies as secret questions (tandem serve)", () => {
  let mock: MockProcess | undefined;
  let proc: ChildProcess | undefined;
  const cleanup: string[] = [];
  afterEach(async () => {
    proc?.kill("SIGKILL");
    await mock?.stop();
    mock = undefined;
    proc = undefined;
    for (const d of cleanup.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("asks for API_TOKEN as a secret, gives it to the skill's command, and keeps it out of requests, store and log", async () => {
    const proj = outsideDir("tandem-skill-secret-");
    cleanup.push(proj);
    mkdirSync(join(proj, ".git"));
    const skill = writeDeploySkill(join(proj, ".agents", "skills"));
    const script = join(skill, "..", "scripts", "deploy.sh");
    mock = await startMockProcess({
      steps: [
        {
          expect: { input_contains: ["BODY-MARKER-DEPLOY", "$API_TOKEN is set in the environment"] },
          output: [
            {
              type: "function_call",
              name: "exec_command",
              arguments: { cmd: `sh ${script} && cat deployed-with.txt`, workdir: proj },
            },
          ],
        },
        {
          expect: { input_contains: ["deployed", "[redacted secret]"] },
          output: [{ type: "message", text: "done" }],
        },
      ],
    });
    const home = tempDir();
    const logFile = join(tempDir(), "debug.log");
    const served = await spawnServe(
      ["--port", "0", "--log-file", logFile, "-c", `openai_base_url="${mock.url}"`],
      {
        TANDEM_HOME: home,
        HOME: tempDir(),
        OPENAI_API_KEY: "k",
        TANDEM_SERVE_TOKEN: "skills-test-token-0123456789",
        TANDEM_LOG: "trace",
        API_TOKEN: undefined,
      },
    );
    proc = served.proc;
    const url = /listening on (http:\/\/\S+)$/.exec(served.lines[0])?.[1] as string;
    const auth = { authorization: "Bearer skills-test-token-0123456789" };
    const json = { ...auth, "content-type": "application/json" };
    const thread = (await (
      await fetch(`${url}/thread`, { method: "POST", headers: json, body: JSON.stringify({ cwd: proj }) })
    ).json()) as any;
    const sse = await openSse(`${url}/event?responder=web&thread=${thread.id}`, auth);
    const started = await fetch(`${url}/thread/${thread.id}/turn`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ text: "ship it with $deploy-app" }),
    });
    expect(started.status).toBeLessThan(300);
    const asked = JSON.parse((await sse.next(isEvent("question.requested"))).data).event.request;
    expect(asked.source).toBe("internal");
    expect(asked.questions).toEqual([
      expect.objectContaining({ id: "API_TOKEN", secret: true, kind: "text" }),
    ]);
    const reply = await fetch(`${url}/question/${asked.request_id}/reply`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ thread_id: thread.id, answers: { API_TOKEN: { selected: [], other: SECRET } } }),
    });
    expect(reply.status).toBe(200);
    expect(await reply.text()).not.toContain(SECRET);
    await sse.next(isEvent("turn.completed"));
    const read = (await (await fetch(`${url}/thread/${thread.id}`, { headers: auth })).json()) as any;
    expect(read.turns.at(-1).status).toBe("completed");
    // The skill's command got the value under its own name…
    expect(readFileSync(join(proj, "deployed-with.txt"), "utf8")).toBe(SECRET);
    // …and it is nowhere else: model requests, the thread as read, Tandem's home, the log.
    expect(readFileSync(mock.log, "utf8")).not.toContain(SECRET);
    expect(JSON.stringify(read)).not.toContain(SECRET);
    proc.kill("SIGTERM");
    await new Promise((r) => proc?.once("exit", r));
    const homeFiles = filesUnder(home);
    expect(homeFiles.some((f) => /\.db$/.test(f))).toBe(true);
    for (const f of homeFiles) expect(readFileSync(f).includes(SECRET), f).toBe(false);
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain("request");
    expect(log).not.toContain(SECRET);
  });
});
