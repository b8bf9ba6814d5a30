/**
 * `tandem exec --questions stdin` on a real terminal (tmux): the question is asked inline
 * with numbered options, answered by typing, and the answer reaches the next request.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { BIN, jsonLines, type MockProcess, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import { missing, sandboxFallback } from "../helpers/system-tools.js";

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const pane = (s: string) => tmux("capture-pane", "-p", "-t", s, "-S", "-200");

async function waitForPane(session: string, pred: (text: string) => boolean, ms = 15_000): Promise<string> {
  const end = Date.now() + ms;
  let text = "";
  while (Date.now() < end) {
    text = pane(session);
    if (pred(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pane never matched; last screen:\n${text}`);
}

describe.skipIf(missing("tmux").length > 0)("exec --questions stdin (tmux)", () => {
  let mock: MockProcess | undefined;
  const session = `tandem-stdin-${process.pid}`;
  afterEach(async () => {
    try {
      tmux("kill-session", "-t", session);
    } catch {}
    await mock?.stop();
  });

  it("asks inline on a TTY and the typed answers reach the model", async () => {
    mock = await startMockProcess(Scripts.questionDemo());
    const home = tempDir();
    sandboxFallback(home);
    const cwd = tempDir();
    const cmd = `cd ${cwd} && TANDEM_HOME=${home} OPENAI_API_KEY=k OPENAI_BASE_URL=${mock.url} ${BIN} exec --mode plan --questions stdin 'set up'; echo EXIT=$?; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", cmd);
    await waitForPane(session, (t) => t.includes("stack>"));
    tmux("send-keys", "-t", session, "2", "Enter");
    await waitForPane(session, (t) => t.includes("name>"));
    tmux("send-keys", "-t", session, "my-app", "Enter");
    const screen = await waitForPane(session, (t) => /EXIT=\d/.test(t));
    expect(screen).toContain("EXIT=0");
    const log = jsonLines(readFileSync(mock.log, "utf8"));
    const out = log[1].input.find((i: any) => i.type === "function_call_output");
    const result = JSON.parse(out.output);
    expect(result.answers.stack.selected).toEqual(["Rust"]);
    expect(result.answers.name.other).toBe("my-app");
  });

  it("hides a secret answer as it is typed; the model gets a handle, the command the value", async () => {
    const SECRET = "tok-9f8e7d6c5b";
    mock = await startMockProcess({
      steps: [
        {
          output: [
            {
              type: "function_call",
              name: "request_user_input",
              call_id: "sec",
              arguments: {
                questions: [
                  { id: "token", header: "Token", question: "Paste the deploy token", secret: true },
                ],
              },
            },
          ],
        },
        {
          expect: { input_contains: ["$TANDEM_SECRET_TOKEN"] },
          output: [
            {
              type: "function_call",
              name: "exec_command",
              call_id: "use",
              arguments: { cmd: 'printf "%s" "$TANDEM_SECRET_TOKEN" > token.txt' },
            },
          ],
        },
        { output: [{ type: "message", text: "stored" }] },
      ],
    });
    const home = tempDir();
    sandboxFallback(home);
    const cwd = tempDir();
    const cmd = `cd ${cwd} && TANDEM_HOME=${home} OPENAI_API_KEY=k OPENAI_BASE_URL=${mock.url} ${BIN} exec --mode plan --questions stdin 'deploy'; echo EXIT=$?; sleep 60`;
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", cmd);
    await waitForPane(session, (t) => t.includes("token (hidden)>"));
    tmux("send-keys", "-t", session, SECRET, "Enter");
    const screen = await waitForPane(session, (t) => /EXIT=\d/.test(t));
    expect(screen).toContain("EXIT=0");
    expect(screen).not.toContain(SECRET);
    expect(readFileSync(`${cwd}/token.txt`, "utf8")).toBe(SECRET);
    expect(readFileSync(mock.log, "utf8")).not.toContain(SECRET);
  });
});
