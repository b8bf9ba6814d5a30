/**
 * A Codex user's daily keys in the real Codex TUI 0.171.0 (`codex --remote`) on `tandem
 * app-server` (issue "Codex's clients, all the way"; README "Answer from anywhere"). The rig is
 * test/codex/tui.test.ts's: a recording proxy validates every frame both ways against the Codex
 * schema bundle, the pane comes from tmux `capture-pane`, the model's view from the scripted
 * model's request log, files from the workspace (a git repository with `calc.py` committed).
 *
 * One TUI session walks the flow in order (each `it` relies on the ones before): a patch approval
 * shows its diff and so does the transcript; `/diff` shows the turn's diff (command/exec); `!echo
 * hi` prints `hi` and the TUI keeps running (thread/shellCommand); a plan shows as Codex's
 * checklist and a proposed plan gives "Implement this plan?"; `/model` saves to config.toml with
 * its comments kept (config/batchWrite); `/permissions` keeps the effort; a question is answered
 * and a slow answer interrupted; then a new TUI process `/resume`s the thread and draws the diff,
 * the answered question and the interrupted answer's text again.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
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
  type Json,
  startFrameProxy,
  startTandemAppServer,
  type TandemAppServer,
} from "../helpers/codex-tui-rig.js";
import { outsideDir, tempDir } from "../helpers/index.js";
import { hasTool, missing } from "../helpers/system-tools.js";
import { requests } from "../helpers/tui-harness.js";
import { waitUntil } from "../helpers/wait.js";

const say = (text: string, extra: Json = {}) => ({ output: [{ type: "message" as const, text }], ...extra });
const PATCH = [
  "*** Begin Patch",
  "*** Update File: calc.py",
  "@@",
  " def add(a, b):",
  "-    return a - b",
  "+    return a + b",
  "*** End Patch",
].join("\n");
const PLAN = {
  explanation: "Three steps",
  plan: [
    { step: "Read calc.py", status: "completed" },
    { step: "Fix add()", status: "in_progress" },
    { step: "Add a test", status: "pending" },
  ],
};
const PROPOSED = "<proposed_plan>\n# Fix the calculator\n\n- Fix add()\n- Add a unit test\n</proposed_plan>";
const SLOW = Array.from({ length: 80 }, (_, i) => `slowword${i}`).join(" ");

const SCRIPT: Script = {
  side_steps: [
    {
      when: { input_contains: ["task title"] },
      output: [{ type: "message", text: '{"title":"Fix the calculator"}' }],
    },
  ],
  steps: [
    { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH }] },
    say("Fixed add."),
    { output: [{ type: "function_call", name: "update_plan", arguments: PLAN }] },
    say(PROPOSED),
    say("Implementing the plan now."),
    {
      output: [
        {
          type: "function_call",
          name: "request_user_input",
          arguments: {
            questions: [
              {
                id: "runner",
                header: "Runner",
                question: "Which test runner?",
                options: [
                  { label: "pytest (Recommended)", description: "Plain asserts" },
                  { label: "unittest", description: "Standard library" },
                ],
              },
            ],
          },
        },
      ],
    },
    say("Using {{answer:runner}}."),
    say(SLOW, { token_delay_ms: 80 }),
  ],
};

const SANDBOXED = hasTool("bwrap");
const T = 90_000;

describe.skipIf(missing("tmux").length > 0)(
  "the Codex TUI's daily keys on tandem app-server",
  { timeout: 180_000 },
  () => {
    let mock: MockProcess;
    let server: TandemAppServer;
    let proxy: FrameProxy;
    let tui: CodexPane;
    let workspace: string;
    let codexHome: string;
    let mainThread: string;
    let evidence: string;
    let step = 0;

    const c2s = (method: string) => proxy.frames.filter((f) => f.dir === "c2s" && f.msg.method === method);
    const notes = (method: string) =>
      proxy.frames.filter((f) => f.dir === "s2c" && f.msg.method === method && f.msg.id === undefined);
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
    /** The pane from the user message `text` on (its turn and everything after). */
    const since = (text: string) => {
      const p = tui.pane();
      return p.slice(p.indexOf(`› ${text}`));
    };
    /** Polls the visible screen (a pager's alternate screen included) until it matches. */
    const screenWait = async (re: RegExp, what: string) => {
      await waitUntil(() => re.test(tui.bottom(80)), what, { timeoutMs: T, intervalMs: 150 });
      return tui.bottom(80);
    };

    beforeAll(async () => {
      evidence = tempDir("tandem-codex-daily-evidence-");
      mock = await startMockProcess(SCRIPT);
      codexHome = outsideDir("tandem-codex-home-");
      server = await startTandemAppServer({
        mockUrl: mock.url,
        sandboxed: SANDBOXED,
        configHead: ["# my settings, hand-written", 'approval_policy = "on-request" # ask me first'],
      });
      workspace = server.workspace;
      writeFileSync(join(workspace, "calc.py"), "def add(a, b):\n    return a - b\n");
      const git = (...a: string[]) => execFileSync("git", a, { cwd: workspace, stdio: "ignore" });
      git("init", "-q");
      git("-c", "user.email=t@example.com", "-c", "user.name=t", "add", "calc.py");
      git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "calc");
      proxy = await startFrameProxy(server.url, join(evidence, "frames.jsonl"));
      tui = codexPane({ cwd: workspace, codexHome, tokenFile: server.tokenFile, remote: proxy.url });
    }, 60_000);

    afterEach(() => {
      let screen = "";
      try {
        screen = tui.pane();
      } catch {
        // between TUI processes
      }
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
      console.log(`codex TUI daily keys, evidence in ${evidence}`);
    });

    it("starts", async () => {
      tui.launch();
      await tui.waitFor("Ask Codex to do anything", T);
      await frameWait(() => c2s("thread/start").some((f) => responseTo(f)), "thread/start");
      mainThread = responseTo(c2s("thread/start")[0])!.msg.result.thread.id;
    });

    it("a patch approval shows the diff; accepted, the transcript shows it too", async () => {
      await tui.submit("Fix add in calc.py");
      const prompt = await tui.waitFor(/Would you like to make the following edits\?|allow.*edit/i, T);
      writeFileSync(join(evidence, "patch-approval.txt"), prompt);
      // Fails if the approval's fileChange carries an empty diff (the TUI then draws +0 -0).
      expect(prompt).toMatch(/-\s*return a - b/);
      expect(prompt).toMatch(/\+\s*return a \+ b/);
      expect(prompt).not.toContain("(+0 -0)");
      tui.keys("y");
      await turnDone("Fixed add.");
      expect(readFileSync(join(workspace, "calc.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
      const transcript = since("Fix add in calc.py");
      expect(transcript).toMatch(/Edited calc\.py \(\+1 -1\)/);
      expect(transcript).toMatch(/\+\s*return a \+ b/);
      // The turn's diff was sent as Codex sends it.
      const diffs = notes("turn/diff/updated").map((f) => f.msg.params.diff as string);
      expect(diffs.some((d) => d.includes("+    return a + b"))).toBe(true);
    });

    it("/diff shows the workspace's diff (command/exec) and the TUI keeps running", async () => {
      await tui.submit("/diff");
      await frameWait(() => c2s("command/exec").some((f) => responseTo(f)), "command/exec's response");
      // The pager (an alternate screen) shows git's diff, run under the thread's sandbox.
      const screen = await screenWait(/q close/, "the /diff pager");
      writeFileSync(join(evidence, "diff.txt"), screen);
      expect(screen).toMatch(/diff --git a\/calc\.py b\/calc\.py/);
      expect(screen).toMatch(/\+\s*return a \+ b/);
      const exec = c2s("command/exec");
      expect(exec.map((f) => f.msg.params.command.join(" ")).join("\n")).toMatch(/^git .* diff /m);
      tui.keys("q");
      await screenWait(/Ask Codex to do anything/, "the composer after the pager");
    });

    it("!echo hi prints hi (thread/shellCommand) and the TUI keeps running", async () => {
      // `!` switches the composer to shell mode; the rest is typed after it.
      tui.literal("!");
      await screenWait(/Shell mode/, "shell mode");
      await tui.submit("echo hi-from-bang");
      await frameWait(() => c2s("thread/shellCommand").some((f) => responseTo(f)), "thread/shellCommand");
      // Fails if the command's output is not drawn (the TUI shows `└ <first output line>`).
      await tui.waitFor(/└ hi-from-bang/, T);
      expect(c2s("thread/shellCommand")[0].msg.params).toMatchObject({ threadId: mainThread });
      await tui.submit("/status");
      await tui.waitFor(/Model:|model:/, T);
    });

    it("a plan shows as Codex's checklist; a proposed plan gives the 'Implement this plan?' prompt", async () => {
      tui.keys("BTab");
      await tui.waitFor("Plan mode (shift+tab to cycle)", T);
      await tui.submit("Plan the work");
      await frameWait(() => notes("turn/plan/updated").length > 0, "turn/plan/updated");
      const screen = await tui.waitFor("Implement this plan?", T);
      writeFileSync(join(evidence, "plan.txt"), screen);
      expect(screen).toContain("Read calc.py");
      expect(screen).toContain("Fix add()");
      expect(screen).toContain("Add a test");
      expect(screen).not.toContain("<proposed_plan>");
      expect(screen).not.toMatch(/Interrupted update_plan/);
      expect(screen).toContain("Add a unit test");
      tui.keys("Enter");
      await turnDone("Implementing the plan now.");
      const last = modelRequests().at(-1)!;
      expect(JSON.stringify(last.input)).toMatch(/[Ii]mplement/);
    });

    it("/model saves the model and effort to config.toml with the user's comments kept", async () => {
      await tui.submit("/model");
      await tui.waitFor("mock-model", T);
      tui.keys("Enter");
      await tui.waitFor(/[Rr]easoning|effort|High|high/, T);
      writeFileSync(join(evidence, "model-picker.txt"), tui.pane());
      tui.keys("Enter");
      await frameWait(
        () => [...c2s("config/batchWrite"), ...c2s("config/value/write")].some((f) => responseTo(f)),
        "config/batchWrite's response",
      );
      const toml = readFileSync(join(server.home, "config.toml"), "utf8");
      writeFileSync(join(evidence, "config.toml"), toml);
      expect(toml).toContain("# my settings, hand-written");
      expect(toml).toContain('approval_policy = "on-request" # ask me first');
      expect(toml).toMatch(/^model = "mock-model"/m);
      expect(toml).toMatch(/^model_reasoning_effort = "\w+"/m);
    });

    it("/permissions keeps the reasoning effort", async () => {
      const effortBefore = notes("thread/settings/updated").at(-1)?.msg.params.threadSettings.effort;
      const count = notes("thread/settings/updated").length;
      await tui.submit("/permissions");
      await tui.waitFor("Update Model Permissions", T);
      await tui.waitFor("1. Ask for approval", T);
      await new Promise((r) => setTimeout(r, 500));
      tui.keys("1");
      tui.keys("Enter");
      await frameWait(() => notes("thread/settings/updated").length > count, "thread/settings/updated");
      const after = notes("thread/settings/updated").at(-1)!.msg.params.threadSettings;
      // Fails if a settings update resets what it did not name (the effort went to null).
      expect(after.effort ?? null).toBe(effortBefore ?? null);
      expect(after.effort).toBe("medium");
    });

    it("a question answered, then a slow answer interrupted mid-stream", async () => {
      tui.keys("BTab");
      await tui.waitFor("Plan mode (shift+tab to cycle)", T);
      await tui.submit("Choose a runner");
      await tui.waitFor("Which test runner?", T);
      tui.keys("Down");
      tui.keys("Enter");
      await turnDone("Using unittest.");
      await tui.submit("Talk slowly");
      await tui.waitFor("slowword6 ", T);
      tui.keys("Escape");
      await frameWait(() => c2s("turn/interrupt").some((f) => responseTo(f)), "turn/interrupt");
      await frameWait(
        () => notes("turn/completed").some((f) => f.msg.params.turn.status === "interrupted"),
        "an interrupted turn/completed",
      );
    });

    it("a new TUI process: /resume draws the diff, the answered question and the interrupted text", async () => {
      await tui.submit("/quit");
      expect(await tui.waitFor(/\[exited \d+\]/, T)).toContain("[exited 0]");
      const conns = new Set(proxy.frames.map((f) => f.conn)).size;
      // A screen taller than the resumed history: lines the TUI inserts above its viewport scroll
      // inside a region, and tmux keeps no scrollback of those, so nothing may scroll here.
      tui.kill();
      tui = codexPane({
        cwd: workspace,
        codexHome,
        tokenFile: server.tokenFile,
        remote: proxy.url,
        height: 150,
      });
      tui.launch();
      await tui.waitFor("Ask Codex to do anything", T);
      await tui.submit("/resume");
      await screenWait(/Resume a previous session[\s\S]*Fix add in calc\.py/, "the resume picker");
      tui.keys("Enter");
      await tui.waitFor("slowword6", T);
      const resumed = tui.pane();
      writeFileSync(join(evidence, "resumed.txt"), resumed);
      // Fails if resumed fileChange items carry no diff.
      expect(resumed).toMatch(/Edited calc\.py \(\+1 -1\)/);
      expect(resumed).toMatch(/\+\s*return a \+ b/);
      expect(resumed).toContain("Fixed add.");
      // Fails if the answered question is left out of the resumed history.
      expect(resumed).toMatch(/Which test runner\? → unittest/);
      // Fails if the interrupted turn's streamed text is lost.
      expect(resumed).toContain("slowword0 slowword1 slowword2");
      expect(proxy.frames.some((f) => f.conn > conns && f.msg.method === "thread/resume")).toBe(true);
      expect(server.stderr()).not.toMatch(/error|exception/i);
    });
  },
);
