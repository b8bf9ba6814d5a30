/**
 * `tandem mcp-server` (requirements S7, README "MCP servers") driven by the MCP SDK's own client over stdio, as an
 * agent host would: a real `./bin/tandem mcp-server` process against a real scripted-model process.
 * Questions and approvals come back to the client as `elicitation/create` forms; what the client
 * answers is checked where it lands: the model's next request, the file on disk, the stored thread.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ElicitResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { Scripts } from "../../src/mock-model/index.js";
import { OTHER_LABEL } from "../../src/protocol/form-rules.js";
import { BIN, runTandem, startMockProcess } from "../helpers/cli.js";
import { tempDir } from "../helpers/index.js";
import {
  call,
  closeHosts,
  dropHost,
  execCall,
  message,
  modelRequests,
  outputOf,
  startHost,
  unanswered,
} from "../helpers/mcp-host.js";

afterEach(closeHosts);

/** The question demo's first step alone (two questions: a choice with free text, a text). */
const ASK = Scripts.questionDemo().steps[0];

/** Processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").join(" ").includes(marker))
        pids.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("tandem mcp-server", () => {
  // fails if a tool is not registered, is renamed, or its schema loses prompt/mode/sandbox.
  it("lists the tandem and tandem_reply tools with described input and output schemas", async () => {
    const h = await startHost({ steps: [] });
    const { tools } = await h.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(["tandem", "tandem_reply"]);
    const tandem = byName.tandem.inputSchema as any;
    expect(tandem.required).toEqual(["prompt"]);
    expect(tandem.properties.mode.enum).toEqual(["default", "plan"]);
    expect(tandem.properties.sandbox.enum).toEqual(["read-only", "workspace-write", "danger-full-access"]);
    expect(Object.keys(tandem.properties).sort()).toEqual(
      ["approval_policy", "cwd", "mode", "model", "prompt", "sandbox"].sort(),
    );
    for (const p of Object.values<any>(tandem.properties)) expect(p.description).toBeTruthy();
    expect((byName.tandem_reply.inputSchema as any).required.sort()).toEqual(["prompt", "threadId"]);
    expect((byName.tandem.outputSchema as any).properties.threadId).toBeTruthy();
    expect(byName.tandem.description).toMatch(/elicitation/);
  });

  // fails if the final message, the thread id or the stored thread are lost, or if tandem_reply
  // starts a new conversation instead of continuing the thread's history.
  it("runs a task to its final message, stores the thread, and tandem_reply continues it", async () => {
    const h = await startHost({
      steps: [
        message("First answer: the workspace is empty.", ["List the workspace"]),
        message("Second answer: still empty.", ["List the workspace", "First answer", "And now?"]),
      ],
    });
    const work = tempDir("tandem-mcp-work-");
    const first = await call(h, "tandem", { prompt: "List the workspace", cwd: work });
    expect(first.isError).toBeFalsy();
    expect(first.content).toEqual([{ type: "text", text: "First answer: the workspace is empty." }]);
    const { threadId } = first.structuredContent;
    expect(first.structuredContent).toMatchObject({
      status: "completed",
      message: "First answer: the workspace is empty.",
    });
    expect(threadId).toMatch(/\S/);
    // The thread ran in the cwd the call named (the model's environment context says so).
    expect(JSON.stringify(modelRequests(h)[0].input)).toContain(work);

    const second = await call(h, "tandem_reply", { threadId: threadId.slice(0, 12), prompt: "And now?" });
    expect(second.structuredContent).toMatchObject({ threadId, status: "completed" });
    expect(second.content[0].text).toBe("Second answer: still empty.");
    expect(modelRequests(h)).toHaveLength(2);

    const exported = await runTandem(["export", threadId], { env: { TANDEM_HOME: h.home } });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("List the workspace");
    expect(exported.stdout).toContain("Second answer: still empty.");
  });

  // fails if a question does not reach the host as a typed form, or the form's answer is not
  // turned into Tandem's typed reply (selected label, free text) that the model then receives.
  it("asks a Plan-mode question through elicitation and the model receives the typed answer", async () => {
    const h = await startHost(
      {
        steps: [
          ASK,
          message("Noted: Rust, demo-app.", ['\\"selected\\":[\\"Rust\\"]', '\\"other\\":\\"demo-app\\"']),
        ],
      },
      () => ({ action: "accept", content: { stack: "Rust", name: "demo-app" } }),
    );
    const progress: Progress[] = [];
    const res = await call(
      h,
      "tandem",
      { prompt: "Set up the demo project", mode: "plan" },
      { onprogress: (p: Progress) => progress.push(p) },
    );
    expect(res.structuredContent).toMatchObject({ status: "completed", message: "Noted: Rust, demo-app." });
    expect(h.forms).toHaveLength(1);
    const form = h.forms[0];
    expect(form.mode).toBe("form");
    const props = form.requestedSchema.properties;
    expect(props.stack).toMatchObject({
      type: "string",
      title: "Stack",
      oneOf: [
        { const: "TypeScript (Recommended)", title: "TypeScript (Recommended)" },
        { const: "Rust", title: "Rust" },
        { const: OTHER_LABEL, title: OTHER_LABEL },
      ],
    });
    expect(props.stack.description).toContain("A cargo binary crate");
    // Free text only through the explicit "Other…" choice: no field beside the questions' own.
    expect(Object.keys(props)).toEqual(["stack", "name"]);
    expect(props.name).toMatchObject({ type: "string", title: "Name" });
    expect(JSON.parse(outputOf(h, 2, "call_q01"))).toMatchObject({
      status: "answered",
      answers: { stack: { selected: ["Rust"] }, name: { other: "demo-app" } },
    });
    expect(progress.map((p) => p.message)).toContain("waiting for an answer: Stack, Name");
  });

  // fails if "Other…" does not lead to a second form holding only that question's text (named by
  // its id, required), if the text does not reach the model as `other` with no option selected, or
  // if the first form's other answers are lost on the way.
  it('"Other…" chosen: a second form asks for the text, and the model gets it as other', async () => {
    const h = await startHost(
      { steps: [ASK, message("Noted: Zig.", ["Zig", "demo-app"])] },
      (_form, n): ElicitResult => ({
        action: "accept",
        content: n === 1 ? { stack: OTHER_LABEL, name: "demo-app" } : { stack: "Zig" },
      }),
    );
    const res = await call(h, "tandem", { prompt: "Set up the demo project", mode: "plan" });
    expect(res.structuredContent).toMatchObject({ status: "completed", message: "Noted: Zig." });
    expect(h.forms).toHaveLength(2);
    expect(h.forms[1].requestedSchema).toEqual({
      type: "object",
      properties: { stack: expect.objectContaining({ type: "string", minLength: 1 }) },
      required: ["stack"],
    });
    expect(h.forms[1].message).toContain("Other…");
    expect(JSON.parse(outputOf(h, 2, "call_q01"))).toMatchObject({
      status: "answered",
      answers: { stack: { selected: [], other: "Zig" }, name: { other: "demo-app" } },
    });
  });

  // fails if the host failing to show a form is reported as the user's decline, or makes the turn
  // wait: nobody saw it and nobody else can answer, so the model is told `unavailable`.
  it("a host that cannot show the form: the model is told unavailable, not declined", async () => {
    const h = await startHost({ steps: [ASK, message("Going on alone.", ["unavailable"])] }, () => {
      throw new Error("this host cannot render forms today");
    });
    const res = await call(h, "tandem", { prompt: "Set up the demo project", mode: "plan" });
    expect(res.structuredContent).toMatchObject({ status: "completed", message: "Going on alone." });
    expect(h.forms).toHaveLength(1);
    const out = JSON.parse(outputOf(h, 2, "call_q01"));
    expect(out.status).toBe("unavailable");
    expect(JSON.stringify(out)).toContain("this host cannot render forms today");
  });

  // fails if the limit of attempts is not the one policy's (3), or if running out of attempts is
  // reported as a decline instead of unavailable (the model is told nobody could answer).
  it("three invalid answers: no more forms, and the model is told unavailable", async () => {
    const h = await startHost({ steps: [ASK, message("Going on alone.", ["unavailable"])] }, () => ({
      action: "accept",
      content: { stack: "Haskell" },
    }));
    const res = await call(h, "tandem", { prompt: "Set up the demo project", mode: "plan" });
    expect(res.structuredContent.status).toBe("completed");
    expect(h.forms).toHaveLength(3);
    const out = JSON.parse(outputOf(h, 2, "call_q01"));
    expect(out.status).toBe("unavailable");
    expect(JSON.stringify(out)).toContain("no valid answer after 3 attempts");
  });

  // fails if an answer that does not fit the form (found by the SDK's schema check) or that the
  // broker refuses is dropped (the question lost) instead of asked again with the reason, or if
  // a decline is not reported to the model as declined.
  it("asks again after invalid answers, then a decline reaches the model as declined", async () => {
    const answers: ElicitResult[] = [
      { action: "accept", content: { stack: "Haskell" } },
      { action: "accept", content: { name: "   " } },
      { action: "decline" },
    ];
    const h = await startHost(
      { steps: [ASK, message("Understood, no answer.", ['\\"status\\":\\"declined\\"'])] },
      (_form, n) => answers[n - 1],
    );
    const res = await call(h, "tandem", { prompt: "Set up the demo project", mode: "plan" });
    expect(res.structuredContent.status).toBe("completed");
    expect(h.forms).toHaveLength(3);
    expect(h.forms[1].message).toMatch(
      /^Your previous answer was not used: .*data\/stack must be equal to constant/,
    );
    expect(h.forms[2].message).toMatch(
      /^Your previous answer was not used: question "name": expected a non-empty/,
    );
    expect(JSON.parse(outputOf(h, 2, "call_q01")).status).toBe("declined");
  });

  // fails if the host's cancel is treated as an answer or a decline instead of stopping the turn,
  // or if the stopped thread cannot be continued.
  it("a cancelled form stops the turn; tandem_reply continues the thread afterwards", async () => {
    const h = await startHost({ steps: [ASK, message("Back again.", ["Try again"])] }, () => ({
      action: "cancel",
    }));
    const res = await call(h, "tandem", { prompt: "Set up the demo project", mode: "plan" });
    expect(res.isError).toBe(true);
    expect(res.structuredContent.status).toBe("interrupted");
    expect(res.content[0].text).toMatch(/^The turn was interrupted/);
    expect(modelRequests(h)).toHaveLength(1);
    const again = await call(h, "tandem_reply", {
      threadId: res.structuredContent.threadId,
      prompt: "Try again",
    });
    expect(again.structuredContent).toMatchObject({ status: "completed", message: "Back again." });
    // The interrupted question call is recorded as aborted in the history the model sees.
    expect(outputOf(h, 2, "call_q01")).toBe("aborted");
  });

  // fails if approvals are not sent as a decision form, or an accepted decision does not run the
  // command (file absent) — or runs one the host declined.
  it("asks approvals as a decision form: accept runs the command, decline does not", async () => {
    const h = await startHost(
      {
        steps: [
          execCall("call_a1", "touch approved.txt"),
          execCall("call_a2", "touch refused.txt"),
          message("One ran, one was refused.", ["declined to run this command"]),
        ],
      },
      (_form, n) => ({ action: "accept", content: { decision: n === 1 ? "accept" : "decline" } }),
    );
    const work = tempDir("tandem-mcp-work-");
    const res = await call(h, "tandem", {
      prompt: "Touch two files",
      cwd: work,
      approval_policy: "untrusted",
    });
    expect(res.structuredContent.status).toBe("completed");
    expect(h.forms).toHaveLength(2);
    const decision = h.forms[0].requestedSchema.properties.decision;
    expect(decision.oneOf.map((o: any) => o.const)).toEqual([
      "accept",
      "accept_for_session",
      "accept_and_remember",
      "decline",
      "cancel",
    ]);
    expect(h.forms[0].requestedSchema.required).toEqual(["decision"]);
    expect(h.forms[0].message).toContain("touch approved.txt");
    expect(existsSync(join(work, "approved.txt"))).toBe(true);
    expect(existsSync(join(work, "refused.txt"))).toBe(false);
  });

  // fails if a host without elicitation makes the turn wait, or if the model is not told that
  // nobody can answer (an approval nobody saw is "unavailable", never "the user declined"), or if
  // an approval is granted when nobody could be asked.
  it("without the elicitation capability: no responder, approvals unavailable, the turn completes", async () => {
    const h = await startHost({
      steps: [
        ASK,
        execCall("call_t1", "touch unasked.txt"),
        message("Proceeding without answers.", ["No one could approve this"]),
      ],
    });
    const work = tempDir("tandem-mcp-work-");
    const res = await call(h, "tandem", {
      prompt: "Set up the demo project",
      mode: "plan",
      cwd: work,
      approval_policy: "untrusted",
    });
    expect(res.structuredContent).toMatchObject({
      status: "completed",
      message: "Proceeding without answers.",
    });
    expect(JSON.parse(outputOf(h, 2, "call_q01")).status).toBe("unavailable");
    expect(existsSync(join(work, "unasked.txt"))).toBe(false);
  });

  // fails if cancelling the MCP call leaves the turn running or its command's process alive.
  it("a cancelled tool call interrupts the turn and kills the command's process", async () => {
    const marker = `sleep 297.${process.pid % 1000}`;
    const h = await startHost({
      steps: [execCall("call_s1", marker, { yield_time_ms: 30_000 }), message("Resumed.", ["Go on"])],
    });
    const ac = new AbortController();
    const pending = call(h, "tandem", { prompt: "Sleep a while" }, { signal: ac.signal });
    await until(() => processesWith(marker).length > 0);
    ac.abort();
    await expect(pending).rejects.toThrow();
    await until(() => processesWith(marker).length === 0);
    // The turn ended: the thread takes a new turn, whose history pairs the killed call.
    const threads = await runTandem(["threads"], { env: { TANDEM_HOME: h.home } });
    const threadId = threads.stdout.split(/\s/)[0];
    expect(threads.stdout).toContain("Sleep a while");
    const again = await call(h, "tandem_reply", { threadId, prompt: "Go on" });
    expect(again.structuredContent).toMatchObject({ status: "completed", message: "Resumed." });
    expect(outputOf(h, 2, "call_s1")).toMatch(/aborted|interrupted/);
  });

  // fails if a question's timeout (Q7) leaves the host's form open, or the model is not told.
  it("a question that times out withdraws the host's form and the model is told", async () => {
    let withdrawn = false;
    const h = await startHost(
      { steps: [ASK, message("Going on without it.", ['\\"status\\":\\"timed_out\\"'])] },
      (form, n, signal) => {
        signal.addEventListener("abort", () => {
          withdrawn = true;
        });
        return unanswered(form, n, signal);
      },
      { args: ["-c", 'questions.policy={type="timeout", ms=300, on_timeout="empty"}'] },
    );
    const res = await call(h, "tandem", { prompt: "Set up the demo project", mode: "plan" });
    expect(res.structuredContent).toMatchObject({ status: "completed", message: "Going on without it." });
    expect(h.forms).toHaveLength(1);
    await until(() => withdrawn);
  });

  // fails if a question left pending when the server stopped is lost instead of asked again by
  // the next server process (Q11), or if its answer does not complete the old turn before the new
  // prompt runs.
  it("a question pending at shutdown is asked again by the next server, then the reply runs", async () => {
    const mock = await startMockProcess({
      steps: [
        ASK,
        message("Rust it is.", ['\\"selected\\":[\\"Rust\\"]']),
        message("Continuing.", ["Rust it is.", "Carry on"]),
      ],
    });
    const home = tempDir("tandem-mcp-home-");
    const first = await startHost(mock, unanswered, { home });
    const pending = call(first, "tandem", { prompt: "Set up the demo project", mode: "plan" }).catch(
      (e) => e,
    );
    await until(() => first.forms.length === 1);
    await first.client.close();
    await pending;
    dropHost(first);

    const threads = await runTandem(["threads"], { env: { TANDEM_HOME: home } });
    const threadId = threads.stdout.split(/\s/)[0];
    const second = await startHost(mock, () => ({ action: "accept", content: { stack: "Rust" } }), { home });
    const res = await call(second, "tandem_reply", { threadId, prompt: "Carry on" });
    expect(second.forms).toHaveLength(1);
    expect(second.forms[0].requestedSchema.properties.stack.title).toBe("Stack");
    expect(res.structuredContent).toMatchObject({ threadId, status: "completed", message: "Continuing." });
    expect(JSON.parse(outputOf(second, 2, "call_q01"))).toMatchObject({ status: "answered" });
  });

  // fails if --help is not the subcommand's usage (exit 0) or an unknown option is not a usage error.
  it("--help prints its usage; an unknown option exits 2", async () => {
    const home = tempDir("tandem-mcp-home-");
    const help = await runTandem(["mcp-server", "--help"], { env: { TANDEM_HOME: home } });
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: tandem mcp-server/);
    expect(help.stdout).toContain("tandem_reply");
    const bad = await runTandem(["mcp-server", "--frobnicate"], { env: { TANDEM_HOME: home } });
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toBe("tandem mcp-server: unknown option '--frobnicate'");
    const top = await runTandem(["--help"], { env: { TANDEM_HOME: home } });
    expect(top.stdout).toContain("tandem mcp-server");
  });

  // fails if EOF on stdin does not end the server (a host closing the pipe would leave it running).
  it("exits 0 when the host closes stdin", async () => {
    const home = tempDir("tandem-mcp-home-");
    const proc = spawn(BIN, ["mcp-server"], {
      cwd: tempDir("tandem-mcp-cwd-"),
      env: { ...process.env, TANDEM_HOME: home, OPENAI_API_KEY: "test-key" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    proc.stdin.write(`${JSON.stringify(init)}\n`);
    await until(() => out.includes('"id":1'));
    expect(JSON.parse(out.split("\n")[0]).result.serverInfo.name).toBe("tandem");
    proc.stdin.end();
    const code = await new Promise<number | null>((r) => proc.once("exit", r));
    expect(code).toBe(0);
  });
});
