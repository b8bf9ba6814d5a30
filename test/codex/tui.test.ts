/**
 * The real Codex TUI 0.171.0 (`codex --remote`, the dev dependency) in tmux against
 * `tandem app-server --listen ws://… --ws-token-file …` on the scripted model (README "Answer from anywhere", "How we
 * will know"). A recording proxy in this process sits between the TUI and the server and
 * validates every frame both ways against the complete Codex schema bundle; what the user sees
 * comes from `capture-pane`, what reached the model from the scripted model's request log, and
 * what the commands did from the workspace on disk.
 *
 * One TUI session walks the flow in order (each `it` is one step and relies on the ones before):
 * startup, shift+tab to Plan mode, a question answered with the keyboard, "None of the above"
 * with a note, an approval accepted with `y`, `/permissions` to workspace write, then a second
 * TUI process resumes the thread with `/resume`.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const ask = (question: string) => ({
  output: [
    {
      type: "function_call" as const,
      name: "request_user_input",
      arguments: {
        questions: [
          {
            id: "db_engine",
            header: "Database",
            question,
            options: [
              { label: "SQLite (Recommended)", description: "File based" },
              { label: "PostgreSQL", description: "Server" },
            ],
          },
        ],
      },
    },
  ],
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });
const exec = (args: Json) => ({
  output: [{ type: "function_call" as const, name: "exec_command", arguments: args }],
});

const APPROVED_CMD = "echo hi > approved.txt && cat approved.txt";
const SCRIPT: Script = {
  side_steps: [
    {
      when: { input_contains: ["task title"] },
      output: [{ type: "message", text: '{"title":"Set up the service"}' }],
    },
  ],
  steps: [
    ask("Which database should the service use?"),
    say("You chose {{answer:db_engine}}."),
    ask("Which database now?"),
    say("Other: {{answer:db_engine}}."),
    // Default mode, the thread still read-only: this write must fail under the sandbox.
    exec({ cmd: "echo early > written.txt" }),
    exec({
      cmd: APPROVED_CMD,
      sandbox_permissions: "require_escalated",
      justification: "write the marker file",
    }),
    say("Approved command done."),
    exec({ cmd: "echo w > written.txt; ls" }),
    say("Wrote it."),
  ],
};

/** Commands run under the real sandbox only with bubblewrap; without it, full access (sandboxFallback). */
const SANDBOXED = hasTool("bwrap");
const T = 90_000;

describe.skipIf(missing("tmux").length > 0)(
  "the real Codex TUI on tandem app-server",
  { timeout: 180_000 },
  () => {
    let mock: MockProcess;
    let server: TandemAppServer;
    let proxy: FrameProxy;
    let tui: CodexPane;
    let workspace: string;
    let codexHome: string;
    let mainThread: string;
    const started = Date.now();
    const timings: string[] = [];
    let stepStart = Date.now();
    /** Frames (frames.jsonl) and the pane after each step (pane-N.txt), kept for a failure's post-mortem. */
    let evidence: string;

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
    /** The model requests of the conversation (the title writer's requests left out). */
    const modelRequests = () =>
      requests(mock.log, { allowMissing: true }).filter(
        (r) => !JSON.stringify(r.input).includes("task title"),
      );
    /** The last tool output in a model request: raw text, and parsed (request_user_input's JSON). */
    const lastOutput = (request: Json): string =>
      [...request.input].reverse().find((i: Json) => i.type === "function_call_output").output;
    const toolOutput = (request: Json) => JSON.parse(lastOutput(request));
    /**
     * Waits for a turn's last message and the "Worked for" line the TUI prints once it has seen
     * turn/completed: keys sent before that race the TUI's idea of a running turn (Ctrl+C, for
     * one, becomes turn/interrupt).
     */
    const turnDone = (text: string) =>
      tui.waitFor(new RegExp(`${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*\n[^]*Worked for`), T);

    beforeAll(async () => {
      evidence = tempDir("tandem-codex-tui-evidence-");
      mock = await startMockProcess(SCRIPT);
      codexHome = outsideDir("tandem-codex-home-");
      server = await startTandemAppServer({ mockUrl: mock.url, sandboxed: SANDBOXED });
      workspace = server.workspace;
      proxy = await startFrameProxy(server.url, join(evidence, "frames.jsonl"));
      // CODEX_HOME outside /tmp: codex warns about helper binaries under /tmp.
      tui = codexPane({ cwd: workspace, codexHome, tokenFile: server.tokenFile, remote: proxy.url });
    }, 60_000);

    afterEach((ctx) => {
      timings.push(`${ctx.task.name}: ${((Date.now() - stepStart) / 1000).toFixed(1)} s`);
      stepStart = Date.now();
      let screen = "";
      try {
        screen = tui.pane();
      } catch {
        // no session (the TUI was between processes)
      }
      writeFileSync(join(evidence, `pane-${timings.length}.txt`), screen);
      // Fails if the TUI reports a method or parameter of ours as unsupported at any point.
      expect(screen).not.toMatch(/not supported|unsupported|unknown method/i);
      // Fails if any frame either way does not match the Codex schema (printed with ajv's errors).
      expect(proxy.violations, describeViolations(proxy.violations)).toEqual([]);
      // Fails if either side answered a request with a JSON-RPC error (none is provoked).
      const errors = proxy.frames.filter((f) => "error" in f.msg);
      expect(errors.map((f) => `${f.dir} ${f.answers}: ${JSON.stringify(f.msg.error)}`)).toEqual([]);
    });

    afterAll(async () => {
      tui?.kill();
      await proxy?.close();
      await server?.stop();
      await mock?.stop();
      if (codexHome) rmSync(codexHome, { recursive: true, force: true });
      console.log(
        `codex TUI e2e, evidence in ${evidence} (${((Date.now() - started) / 1000).toFixed(1)} s):\n  ${timings.join("\n  ")}`,
      );
    });

    it("starts: banner and composer, no error on screen, userAgent from the TUI's clientInfo", async () => {
      tui.launch();
      await tui.waitFor("OpenAI Codex (v0.171.0)", T);
      const screen = await tui.waitFor("Ask Codex to do anything", T);
      await frameWait(
        () => c2s("thread/start").some((f) => responseTo(f)),
        "the startup thread/start response",
      );
      // Fails if an unsupported method or a failed startup call surfaces in the TUI.
      expect(tui.pane()).not.toMatch(/Error|error:|failed|not supported/);
      expect(screen).not.toContain("⚠");
      // Fails if initialize's userAgent is not built from the client's name and version.
      const init = responseTo(c2s("initialize")[0])!;
      expect(init.msg.result.userAgent).toMatch(/^codex-tui\/0\.171\.0/);
      mainThread = responseTo(c2s("thread/start")[0])!.msg.result.thread.id;
      expect(mainThread).toBeTruthy();
    });

    it("shift+tab switches to Plan mode", async () => {
      tui.keys("BTab");
      // Fails if collaborationMode/list does not offer plan (shift+tab then has nothing to cycle to).
      await tui.waitFor("Plan mode (shift+tab to cycle)", T);
      // Fails if thread/settings/update did not carry plan mode or no thread/settings/updated came back.
      await frameWait(
        () =>
          notes("thread/settings/updated").some(
            (f) => f.msg.params.threadSettings.collaborationMode?.mode === "plan",
          ),
        "thread/settings/updated in plan mode",
      );
      const update = c2s("thread/settings/update").find(
        (f) => f.msg.params.collaborationMode?.mode === "plan",
      );
      expect(update?.msg.params.threadId).toBe(mainThread);
      expect(responseTo(update!)?.msg.result).toEqual({});
      const updated = notes("thread/settings/updated").find(
        (f) => f.msg.params.threadSettings.collaborationMode?.mode === "plan",
      );
      expect(updated?.msg.params.threadId).toBe(mainThread);
    });

    it("a Plan-mode question answered with Down+Enter reaches the model as Tandem's typed answer", async () => {
      await tui.submit("Set up the service.");
      const screen = await tui.waitFor("Which database should the service use?", T);
      // Fails if the options (or the "None of the above" entry for isOther) are not rendered.
      expect(screen).toContain("1. SQLite (Recommended)");
      expect(screen).toContain("2. PostgreSQL");
      expect(screen).toContain("3. None of the above");
      tui.keys("Down");
      tui.keys("Enter");
      await turnDone("You chose PostgreSQL.");
      // Fails if the TUI's `answers: ["PostgreSQL"]` is not turned into Tandem's typed answer.
      const log = modelRequests();
      expect(log).toHaveLength(2);
      expect(toolOutput(log[1]).answers.db_engine).toEqual({ selected: ["PostgreSQL"] });
      expect(JSON.stringify(log[1].input)).toContain('\\"selected\\":[\\"PostgreSQL\\"]');
    });

    it('"None of the above" with a note reaches the model as other (not as a selected label)', async () => {
      await tui.submit("Again");
      await tui.waitFor("Which database now?", T);
      tui.keys("Down");
      tui.keys("Down");
      tui.keys("Tab");
      await tui.submit("MySQL 8 please");
      await turnDone("Other: MySQL 8 please.");
      // Fails if "None of the above" is passed on as a selection or as the other text.
      const log = modelRequests();
      expect(log).toHaveLength(4);
      expect(toolOutput(log[3]).answers.db_engine).toEqual({ selected: [], other: "MySQL 8 please" });
      expect(JSON.stringify(log[3].input)).not.toContain("None of the above");
    });

    it("back in Default mode an approval accepted with y runs the command, displayed exactly as typed", async () => {
      tui.keys("BTab");
      await tui.waitFor("Model changed to mock-model default for Default mode.", T);
      await waitUntil(() => !tui.bottom(3).includes("Plan mode"), "Plan mode to leave the status line", {
        timeoutMs: T,
        intervalMs: 150,
      });
      await tui.submit("Write the marker");
      const prompt = await tui.waitFor(`$ ${APPROVED_CMD}`, T);
      writeFileSync(join(evidence, "approval.txt"), prompt);
      // Fails if the command is shown shell-quoted (bash -lc '…' or quoted && and >) instead of as typed.
      expect(prompt).not.toContain("'&&'");
      expect(prompt).not.toContain("'>'");
      expect(prompt).not.toContain("bash -c");
      expect(existsSync(join(workspace, "approved.txt"))).toBe(false);
      tui.keys("y");
      await tui.waitFor("└ hi", T);
      await turnDone("Approved command done.");
      // Fails if accepting does not run the command (or runs it elsewhere than the workspace).
      expect(readFileSync(join(workspace, "approved.txt"), "utf8")).toBe("hi\n");
      // Fails if the mode switch back to default is not sent to the server.
      const back = c2s("thread/settings/update").filter(
        (f) => f.msg.params.collaborationMode?.mode === "default",
      );
      expect(back.length).toBeGreaterThan(0);
      // Fails if the thread was not read-only before /permissions (the early write must have failed).
      if (SANDBOXED) {
        const log = modelRequests();
        expect(lastOutput(log[5])).toMatch(/Read-only file system|Permission denied/);
        expect(existsSync(join(workspace, "written.txt"))).toBe(false);
      }
    });

    it("/permissions → workspace write: the settings round trip, and the next turn can write", async () => {
      await tui.submit("/permissions");
      await tui.waitFor("Update Model Permissions", T);
      await tui.waitFor("1. Ask for approval", T);
      tui.keys("1");
      tui.keys("Enter");
      // Fails if the picked profile does not reach the server as permissions ":workspace".
      await frameWait(
        () =>
          c2s("thread/settings/update").some(
            (f) => f.msg.params.permissions === ":workspace" && responseTo(f),
          ),
        'thread/settings/update with permissions ":workspace"',
      );
      await frameWait(
        () =>
          notes("thread/settings/updated").some(
            (f) => f.msg.params.threadSettings.sandboxPolicy?.type === "workspaceWrite",
          ),
        "thread/settings/updated with a workspaceWrite sandbox",
      );
      await tui.submit("Write it");
      await turnDone("Wrote it.");
      // Fails if the switched sandbox is not the one the next command runs under.
      if (SANDBOXED) expect(readFileSync(join(workspace, "written.txt"), "utf8")).toBe("w\n");
    });

    it("a new TUI process: /resume lists only the real thread and renders its history", async () => {
      await tui.submit("/quit");
      // Fails if the TUI does not quit cleanly (a server frame it cannot handle makes it exit non-zero).
      expect(await tui.waitFor(/\[exited \d+\]/, T)).toContain("[exited 0]");
      tui.launch();
      await tui.waitFor("Ask Codex to do anything", T);
      await tui.submit("/resume");
      // The picker's own requests carry ids "picker-…" (the TUI's startup lists run concurrently).
      const pickerList = () =>
        proxy.frames.filter(
          (f) =>
            f.conn === 2 &&
            f.msg.method === "thread/list" &&
            String(f.msg.id).startsWith("picker-") &&
            responseTo(f),
        );
      await frameWait(() => pickerList().length > 0, "the picker's thread/list");
      // Fails if the picker lists the ephemeral title thread, the new empty thread, or anything else.
      const listed = responseTo(pickerList()[0])!.msg.result.data;
      expect(listed.map((t: Json) => t.id)).toEqual([mainThread]);
      const screen = await tui.waitFor("Set up the service", T);
      writeFileSync(join(evidence, "picker.txt"), screen);
      expect(screen).toContain("1 / 1");
      expect(screen).not.toContain("Untitled");
      expect(screen).not.toContain("Generate a concise");
      tui.keys("Enter");
      // Fails if thread/resume does not return the stored turns as items the TUI can render.
      await tui.waitFor("You chose PostgreSQL.", T);
      const history = await tui.waitFor(`Ran ${APPROVED_CMD}`, T);
      expect(history).toContain("Other: MySQL 8 please.");
    });

    it("the title writer's ephemeral thread: ephemeral, never listed, no tools beyond its job", () => {
      const titleTurn = c2s("turn/start").find((f) =>
        JSON.stringify(f.msg.params.input).includes("task title"),
      );
      expect(titleTurn).toBeTruthy();
      const titleThread = titleTurn!.msg.params.threadId;
      // Fails if the ephemeral flag of thread/start is dropped.
      const start = c2s("thread/start")
        .map((f) => responseTo(f)?.msg.result?.thread)
        .find((t) => t?.id === titleThread);
      expect(start?.ephemeral).toBe(true);
      // Fails if thread/list returns ephemeral threads.
      const lists = c2s("thread/list").map((f) => responseTo(f)?.msg.result?.data ?? []);
      expect(lists.length).toBeGreaterThan(0);
      expect(lists.flat().map((t: Json) => t.id)).not.toContain(titleThread);
      // Fails if the title request is offered the conversation's tools (it could run commands or ask).
      const titleRequests = requests(mock.log).filter((r) => JSON.stringify(r.input).includes("task title"));
      expect(titleRequests.length).toBeGreaterThan(0);
      for (const r of titleRequests) {
        const names = (r.tools ?? []).map((t: Json) => t.name ?? t.type);
        for (const banned of ["exec_command", "request_user_input", "update_plan"])
          expect(names).not.toContain(banned);
      }
      // Fails if Tandem's own notifications leak to a Codex client that did not opt in.
      expect(
        proxy.frames.filter((f) => f.dir === "s2c" && String(f.msg.method).startsWith("tandem/")),
      ).toEqual([]);
      expect(proxy.frames.length).toBeGreaterThan(100);
      expect(server.stderr()).not.toMatch(/error|exception/i);
    });
  },
);
