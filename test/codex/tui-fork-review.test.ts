/**
 * Taking work back in the real Codex TUI 0.171.0 (`codex --remote`) on `tandem app-server`
 * (README "Undo, redo, fork and rewind", "Review: `/review`"), with test/codex/tui.test.ts's rig
 * (a recording proxy validating every frame both ways against the Codex schema, tmux panes, the
 * scripted model's request log). One TUI session: two messages; `/review` of the uncommitted
 * changes (review/start) draws the findings and the TUI keeps running; `/fork` (thread/fork)
 * continues in a new thread; Esc Esc edits the first message (thread/revert) and the next model
 * request holds only the history before it.
 */
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { type MockProcess, startMockProcess } from "../helpers/cli.js";
import {
  type CodexPane,
  codexPane,
  describeViolations,
  type Frame,
  type FrameProxy,
  startFrameProxy,
  startTandemAppServer,
  type TandemAppServer,
} from "../helpers/codex-tui-rig.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { hasTool, missing } from "../helpers/system-tools.js";
import { requests } from "../helpers/tui-harness.js";
import { waitUntil } from "../helpers/wait.js";

const say = (text: string) => ({ output: [{ type: "message" as const, text }] });
const FINDINGS = {
  findings: [
    {
      title: "Guard the zero divisor",
      body: "div(1, 0) raises.",
      priority: 1,
      confidence_score: 0.8,
      code_location: { absolute_file_path: "/w/calc.py", line_range: { start: 2, end: 2 } },
    },
  ],
  overall_correctness: "patch is incorrect",
  overall_explanation: "Zero is not handled.",
};

const SCRIPT: Script = {
  side_steps: [
    {
      when: { input_contains: ["task title"] },
      output: [{ type: "message", text: '{"title":"Calc work"}' }],
    },
  ],
  steps: [
    say("FIRST-REPLY"),
    say("SECOND-REPLY"),
    {
      expect: { input_contains: ["Code review requested: changes against 'master'"] },
      output: [{ type: "message", text: JSON.stringify(FINDINGS) }],
    },
    say("FORK-REPLY"),
    say("EDITED-REPLY"),
  ],
};

const T = 90_000;

describe.skipIf(missing("tmux").length > 0)(
  "the Codex TUI's /review, /fork and Esc Esc on tandem app-server",
  { timeout: 240_000 },
  () => {
    let mock: MockProcess;
    let server: TandemAppServer;
    let proxy: FrameProxy;
    let tui: CodexPane;
    let codexHome: string;
    let evidence: string;
    let mainThread: string;
    let step = 0;

    const c2s = (method: string) => proxy.frames.filter((f) => f.dir === "c2s" && f.msg.method === method);
    const responseTo = (req: Frame) =>
      proxy.frames.find(
        (f) =>
          f.conn === req.conn && f.dir !== req.dir && f.msg.method === undefined && f.msg.id === req.msg.id,
      );
    const frameWait = (cond: () => boolean, what: string) =>
      waitUntil(cond, what, { timeoutMs: T, intervalMs: 100 });
    const modelRequests = () =>
      requests(mock.log, { allowMissing: true }).filter(
        (r) => !JSON.stringify(r.input).includes("task title"),
      );
    const turnDone = (text: string) =>
      tui.waitFor(new RegExp(`${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*\n[^]*Worked for`), T);

    beforeAll(async () => {
      evidence = tempDir("tandem-codex-fork-evidence-");
      mock = await startMockProcess(SCRIPT);
      codexHome = outsideDir("tandem-codex-home-");
      server = await startTandemAppServer({ mockUrl: mock.url, sandboxed: hasTool("bwrap") });
      const ws = server.workspace;
      writeFileSync(join(ws, "calc.py"), "def div(a, b):\n    return a * b\n");
      const git = (...a: string[]) =>
        execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...a], { cwd: ws });
      git("init", "-q");
      git("add", "calc.py");
      git("commit", "-qm", "calc");
      writeFileSync(join(ws, "calc.py"), "def div(a, b):\n    return a / b\n");
      proxy = await startFrameProxy(server.url, join(evidence, "frames.jsonl"));
      tui = codexPane({ cwd: ws, codexHome, tokenFile: server.tokenFile, remote: proxy.url, height: 80 });
    }, 60_000);

    afterEach(() => {
      let screen = "";
      try {
        screen = tui.pane();
      } catch {}
      writeFileSync(join(evidence, `pane-${++step}.txt`), screen);
      expect(screen).not.toMatch(/not supported|unsupported|unknown method/i);
      expect(proxy.violations, describeViolations(proxy.violations)).toEqual([]);
      const errors = proxy.frames.filter((f) => "error" in f.msg);
      expect(errors.map((f) => `${f.dir} ${f.answers}: ${JSON.stringify(f.msg.error)}`)).toEqual([]);
    });

    afterAll(async () => {
      tui?.kill();
      await proxy?.close();
      await server?.stop();
      await mock?.stop();
      if (codexHome) rmSync(codexHome, { recursive: true, force: true });
      console.log(`codex TUI fork/review, evidence in ${evidence}`);
    });

    it("two messages", async () => {
      tui.launch();
      await tui.waitFor("Ask Codex to do anything", T);
      await frameWait(() => c2s("thread/start").some((f) => responseTo(f)), "thread/start");
      mainThread = responseTo(c2s("thread/start")[0])!.msg.result.thread.id;
      await tui.submit("first message alpha");
      await turnDone("FIRST-REPLY");
      await tui.submit("second message beta");
      await turnDone("SECOND-REPLY");
    });

    it("/review against the base branch draws the findings and the TUI keeps running", async () => {
      await tui.submit("/review");
      const popup = await tui.waitFor(/1\. Review against a base branch/, T);
      writeFileSync(join(evidence, "review-popup.txt"), popup);
      await new Promise((r) => setTimeout(r, 500));
      tui.keys("Enter");
      await tui.waitFor("Select a base branch", T);
      await new Promise((r) => setTimeout(r, 500));
      tui.keys("Enter");
      await frameWait(() => c2s("review/start").some((f) => responseTo(f)), "review/start answered");
      expect(c2s("review/start")[0].msg.params.target).toEqual({ type: "baseBranch", branch: "master" });
      const screen = await tui.waitFor("Guard the zero divisor", T);
      writeFileSync(join(evidence, "review.txt"), screen);
      await tui.waitFor(/Worked for[\s\S]*›/, T);
    });

    it("/fork continues in a new thread that holds the conversation", async () => {
      const before = c2s("thread/fork").length;
      await tui.submit("/fork");
      await frameWait(
        () => c2s("thread/fork").length > before && !!responseTo(c2s("thread/fork").at(-1)!),
        "thread/fork answered",
      );
      const forked = responseTo(c2s("thread/fork").at(-1)!)!.msg.result.thread.id;
      expect(forked).not.toBe(mainThread);
      await new Promise((r) => setTimeout(r, 1000));
      await tui.submit("third message in the fork");
      await turnDone("FORK-REPLY");
      const last = JSON.stringify(modelRequests().at(-1)?.input);
      expect(last).toContain("first message alpha");
      expect(last).toContain("second message beta");
      const turn = c2s("turn/start").at(-1)!;
      expect(turn.msg.params.threadId).toBe(forked);
    });

    it("Esc Esc edits an earlier message: the next request holds only the history before it", async () => {
      await new Promise((r) => setTimeout(r, 500));
      tui.keys("Escape");
      await new Promise((r) => setTimeout(r, 300));
      tui.keys("Escape");
      const backtrack = await tui.waitFor(/edit|Edit|previous message|backtrack/i, T);
      writeFileSync(join(evidence, "backtrack.txt"), backtrack);
      await new Promise((r) => setTimeout(r, 300));
      tui.keys("Enter");
      await frameWait(
        () =>
          c2s("thread/revert").some((f) => responseTo(f)) ||
          c2s("thread/rollback").some((f) => responseTo(f)),
        "thread/revert answered",
      );
      await new Promise((r) => setTimeout(r, 500));
      tui.keys("C-u");
      await tui.submit("edited message gamma");
      await turnDone("EDITED-REPLY");
      const last = JSON.stringify(modelRequests().at(-1)?.input);
      expect(last).toContain("edited message gamma");
      expect(last).not.toContain("third message in the fork");
    });
  },
);
