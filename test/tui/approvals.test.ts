/**
 * Approvals end to end in a real terminal (README "Sandbox and approvals", requirements A2/A3, Q16): tmux runs the built
 * `tandem` TUI as a real process against `tandem mock-model` as a real process, with real
 * bubblewrap. The scripted model asks for an escalated `exec_command`; the TUI shows the approval
 * overlay; keys decide (Accept, Decline, Cancel). What ran is checked on disk (a directory under
 * /var/lib — outside the workspace and outside temp, so only an unsandboxed command can write it),
 * what the model saw in the mock's request log, and the thread's history in the SQLite store:
 * every call has exactly one output.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { openStore } from "../../src/store/index.js";
import { outsideDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";
import { hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const hasBwrap = missing("bwrap").length === 0;
const JUSTIFICATION = "Write the shared build log outside the workspace";

/** The built TUI in a fresh tmux session (CI unset, so it runs interactively). */
const { launch, startMock, waitFor, keys, literal, defer } = tuiHarness({
  name: "tandem-tui-approval",
  tempPrefix: "tandem-tui",
});

/** A fresh directory outside every sandbox writable root (/var/lib, never $HOME), removed after the test. */
function freshOutside(): string {
  const dir = outsideDir("tandem-tui-approval-");
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The output the model was sent for `callId` (first request carrying it), or undefined. */
function sentOutput(log: string, callId: string): string | undefined {
  for (const body of requests(log)) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  }
  return undefined;
}

const escalated = (callId: string, cmd: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: callId,
  arguments: { cmd, sandbox_permissions: "require_escalated", justification: JUSTIFICATION },
});
const message = (text: string) => ({ type: "message" as const, text });

/** Types a prompt, waits for the approval overlay and checks what it shows. */
async function promptUntilApproval(text: string, cmd: string, cwd: string): Promise<string> {
  await waitFor("ask Tandem to do something");
  literal(text);
  keys("Enter");
  const screen = await waitFor("⚠ Approval needed");
  await waitFor(`$ ${cmd}`);
  const shown = await waitFor(`Model: ${JUSTIFICATION}`);
  expect(shown).toContain(`in ${cwd}`);
  for (const label of ["1. ", "Accept", "Accept for session", "Accept and remember", "Decline", "Cancel"])
    expect(shown).toContain(label);
  expect(screen).toContain("waiting on you");
  return shown;
}

/**
 * The settled approval in the transcript: the decision, and the reason line indented under the
 * subject (the prompt spans two lines).
 */
function expectApprovalCell(screen: string, label: string): void {
  expect(screen).toContain("? Approval — answered by tui");
  expect(screen).toMatch(new RegExp(`^ {4}${JUSTIFICATION}$`, "m"));
  expect(screen).toMatch(new RegExp(`^ {4}→ ${label}$`, "m"));
}

/** Picks option `digit` of the overlay and submits it. */
async function decide(digit: string, label: string): Promise<void> {
  keys(digit);
  await waitFor(`${digit}. (•) ${label}`);
  keys("Enter");
}

/** Quits the TUI (Ctrl+C twice) and waits for the process to exit cleanly. */
async function quit(): Promise<void> {
  keys("C-c");
  keys("C-c");
  await waitFor("[exited 0]");
}

/**
 * The thread the TUI created, read back from the store once the process has exited: the one
 * thread, its history items and its turns. Checks the history is well paired: every call has
 * exactly one output, every output has its call, and each output comes after its call.
 */
function storedThread(home: string) {
  const store = openStore(join(home, "state.db"));
  try {
    const threads = store.listThreads();
    expect(threads).toHaveLength(1);
    const id = threads[0].id;
    const items = store.loadItems(id).map((s) => s.item);
    const turns = store.listTurns(id);
    const calls = items.flatMap((it, at) => (it.type === "function_call" ? [{ id: it.call_id, at }] : []));
    const outputs = items.flatMap((it, at) =>
      it.type === "function_call_output" ? [{ id: it.call_id, at }] : [],
    );
    for (const call of calls) {
      const mine = outputs.filter((o) => o.id === call.id);
      expect(mine, `outputs of ${call.id}`).toHaveLength(1);
      expect(mine[0].at).toBeGreaterThan(call.at);
    }
    for (const o of outputs) expect(calls.map((c) => c.id)).toContain(o.id);
    const outputOf = (callId: string) => {
      const item = items.find((i) => i.type === "function_call_output" && i.call_id === callId);
      return item?.type === "function_call_output" ? item.output : undefined;
    };
    return { id, items, turns, calls: calls.map((c) => c.id), outputOf };
  } finally {
    store.close();
  }
}

describe.skipIf(!hasTmux || !hasBwrap)(
  "approvals in the TUI in tmux (real processes)",
  { timeout: 120_000 },
  () => {
    it("accept: the command runs outside the sandbox and the model's next request carries its output", async () => {
      const outside = freshOutside();
      const cmd = `echo TUI_$((6*7)) > ${outside}/a.txt && cat ${outside}/a.txt`;
      const script: Script = {
        steps: [
          { output: [escalated("call_acc", cmd)] },
          { expect: { input_contains: ["TUI_42"] }, output: [message("The log is written.")] },
        ],
      };
      const mock = await startMock(script);
      const { home, cwd } = launch({ url: mock.url });
      await promptUntilApproval("write the build log", cmd, cwd);
      await decide("1", "Accept");

      await waitFor("The log is written.");
      const screen = await waitFor(/done in [\d.]+m?s/);
      expect(screen).not.toContain("⚠ Approval needed");
      expectApprovalCell(screen, "Accept");
      expect(screen).toMatch(/│ TUI_42\n\s+└ exit 0/);

      expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("TUI_42\n");
      const log = requests(mock.log);
      expect(log).toHaveLength(2);
      expect(sentOutput(mock.log, "call_acc")).toMatch(/Process exited with code 0[\s\S]*TUI_42/);

      await quit();
      const t = storedThread(home);
      expect(t.calls).toEqual(["call_acc"]);
      expect(String(t.outputOf("call_acc"))).toContain("TUI_42");
      expect(t.turns.map((x) => x.status)).toEqual(["completed"]);
    });

    it("y accepts in one key, and the hint line lists the one-key decisions", async () => {
      const outside = freshOutside();
      const cmd = `echo ONE_$((2*21)) > ${outside}/y.txt && cat ${outside}/y.txt`;
      const script: Script = {
        steps: [
          { output: [escalated("call_y", cmd)] },
          { expect: { input_contains: ["ONE_42"] }, output: [message("Approved with y.")] },
        ],
      };
      const mock = await startMock(script);
      const { cwd } = launch({ url: mock.url });
      const shown = await promptUntilApproval("write the log", cmd, cwd);
      expect(shown).toContain("y accept · a session · r remember · n decline · Esc decline & stop");
      literal("y");
      await waitFor("Approved with y.");
      const screen = await waitFor(/done in [\d.]+m?s/);
      expectApprovalCell(screen, "Accept");
      expect(readFileSync(join(outside, "y.txt"), "utf8")).toBe("ONE_42\n");
      expect(sentOutput(mock.log, "call_y")).toMatch(/Process exited with code 0[\s\S]*ONE_42/);
      await quit();
    });

    it("decline: nothing runs and the model is told the user declined", async () => {
      const outside = freshOutside();
      const cmd = `touch ${outside}/declined.txt`;
      const script: Script = {
        steps: [
          { output: [escalated("call_dec", cmd)] },
          { expect: { input_contains: ["declined"] }, output: [message("Understood, I will not touch it.")] },
        ],
      };
      const mock = await startMock(script);
      const { home, cwd } = launch({ url: mock.url });
      await promptUntilApproval("touch the shared file", cmd, cwd);
      await decide("4", "Decline");

      await waitFor("Understood, I will not touch it.");
      const screen = await waitFor(/done in [\d.]+m?s/);
      expectApprovalCell(screen, "Decline");
      // The transcript speaks to the user; the model's wording is checked in its request below.
      expect(screen).toMatch(/You declined this command\.\n\s+└ declined/);

      expect(existsSync(join(outside, "declined.txt"))).toBe(false);
      expect(requests(mock.log)).toHaveLength(2);
      expect(sentOutput(mock.log, "call_dec")).toMatch(/declined/);

      await quit();
      const t = storedThread(home);
      expect(t.calls).toEqual(["call_dec"]);
      expect(String(t.outputOf("call_dec"))).toMatch(/declined/);
      expect(t.turns.map((x) => x.status)).toEqual(["completed"]);
    });

    it("cancel: the turn is interrupted, nothing runs, and the next turn is well paired", async () => {
      const outside = freshOutside();
      const cmd = `touch ${outside}/cancelled.txt`;
      const script: Script = {
        steps: [
          { output: [escalated("call_can", cmd)] },
          { expect: { input_contains: ["again please"] }, output: [message("Back after the cancel.")] },
        ],
      };
      const mock = await startMock(script);
      const { home, cwd } = launch({ url: mock.url });
      await promptUntilApproval("touch the shared file", cmd, cwd);
      await decide("5", "Cancel");

      const screen = await waitFor("■ Interrupted");
      expect(screen).not.toContain("⚠ Approval needed");
      expectApprovalCell(screen, "Cancel");
      expect(existsSync(join(outside, "cancelled.txt"))).toBe(false);
      expect(requests(mock.log)).toHaveLength(1);

      // The composer is back; the next turn sends the cancelled call with its "aborted" output.
      await waitFor("ask Tandem to do something");
      literal("again please");
      keys("Enter");
      await waitFor("Back after the cancel.");
      await waitFor(/done in [\d.]+m?s/);
      expect(requests(mock.log)).toHaveLength(2);
      expect(sentOutput(mock.log, "call_can")).toBe("aborted");
      expect(existsSync(join(outside, "cancelled.txt"))).toBe(false);

      await quit();
      const t = storedThread(home);
      expect(t.calls).toEqual(["call_can"]);
      expect(t.outputOf("call_can")).toBe("aborted");
      expect(t.turns.map((x) => x.status)).toEqual(["interrupted", "completed"]);
    });
  },
);
