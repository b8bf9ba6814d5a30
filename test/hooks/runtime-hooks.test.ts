/**
 * Hook events and decisions through the real runtime and the scripted model over HTTP (README
 * "Hooks"): questions rewritten and answers withheld, `ask` as a real approval, PermissionRequest,
 * UserPromptSubmit, SessionStart and Stop. Hooks are user hooks ($TANDEM_HOME/hooks.json) written
 * as Node scripts that read the event's JSON from stdin.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { until } from "../helpers/http.js";
import { type Harness, harness, outsideDir, tempDir } from "../helpers/index.js";

const say = (text: string) => ({ type: "message" as const, text });
const exec = (cmd: string, call_id: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: { cmd },
  call_id,
});
const STACK = {
  id: "stack",
  header: "Stack",
  question: "Which stack?",
  options: [
    { label: "TypeScript (Recommended)", description: "fast to start" },
    { label: "Rust", description: "fast to run" },
  ],
};
const askStack = (call_id: string) => ({
  type: "function_call" as const,
  name: "request_user_input",
  arguments: { questions: [STACK] },
  call_id,
});
const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

/** A Node hook: `body` sees `input` (the event's JSON) and may print / exit. */
function nodeHook(dir: string, name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    `#!${process.execPath}\nconst input = JSON.parse(require("fs").readFileSync(0, "utf8"));\nrequire("fs").appendFileSync(${JSON.stringify(join(dir, "seen.jsonl"))}, JSON.stringify(input) + "\\n");\n${body}\n`,
  );
  chmodSync(p, 0o755);
  return p;
}
const seen = (dir: string): any[] =>
  existsSync(join(dir, "seen.jsonl"))
    ? readFileSync(join(dir, "seen.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

function home(hooks: unknown): string {
  const h = tempDir("tandem-hooks-home-");
  writeFileSync(join(h, "hooks.json"), JSON.stringify({ hooks }));
  return h;
}
const cmd = (command: string, matcher?: string) => [
  { ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] },
];

function outputFor(h: Harness, callId: string): string | undefined {
  for (const body of h.model.requests as any[]) {
    const out = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (out) return out.output;
  }
  return undefined;
}

describe("hook events through the runtime", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("PreToolUse rewrites request_user_input's questions; PostToolUse withholds the answer, the record keeps it", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const pre = nodeHook(
      dir,
      "pre.js",
      `const q = input.tool_input.questions.map((x) => ({ ...x, question: "Which stack (asked by policy)?" }));
console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { questions: q } } }));`,
    );
    const post = nodeHook(
      dir,
      "post.js",
      `console.log(JSON.stringify({ decision: "block", reason: "answers stay with the user" }));`,
    );
    h = await harness({
      home: home({
        PreToolUse: cmd(pre, "request_user_input"),
        PostToolUse: cmd(post, "request_user_input"),
      }),
      script: { steps: [{ output: [askStack("q1")] }, { output: [say("ok")] }] },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd, mode: "plan" });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    const turn = t.startTurn("start");
    const ev = await h.waitFor(requested);
    expect(ev.request.questions[0].prompt).toBe("Which stack (asked by policy)?");
    h.runtime.questions.reply(
      t.id,
      ev.request.request_id,
      { answers: { stack: { selected: ["Rust"] } } },
      { kind: "test" },
    );
    expect((await turn.done).status).toBe("completed");
    const out = JSON.parse(outputFor(h, "q1")!);
    expect(out.status).toBe("withheld");
    expect(out.message).toContain("answers stay with the user");
    expect(JSON.stringify(out)).not.toContain("Rust");
    // The interaction and the stored transcript are untouched.
    const stored = h.runtime.questions.get(ev.request.request_id);
    expect(JSON.stringify(stored?.outcome)).toContain("Rust");
    const post1 = seen(dir).find((s) => s.hook_event_name === "PostToolUse");
    expect(post1).toMatchObject({
      tool_name: "request_user_input",
      tool_use_id: "q1",
      thread_id: t.id,
      cwd: h.cwd,
    });
    expect(JSON.stringify(post1.tool_response)).toContain("Rust");
  });

  it("PreToolUse `ask` becomes a real approval: declined → not run; headless → declined without waiting", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const askHook = nodeHook(
      dir,
      "ask.js",
      `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "writes outside the usual files" } }));`,
    );
    const hooks = { PreToolUse: cmd(askHook, "Bash") };
    h = await harness({
      home: home(hooks),
      script: { steps: [{ output: [exec("touch asked.txt", "a1")] }, { output: [say("ok")] }] },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    const turn = t.startTurn("go");
    const ev = await h.waitFor(requested);
    expect(ev.request.approval?.command).toBe("touch asked.txt");
    expect(ev.request.approval?.reason).toBe("writes outside the usual files");
    expect(h.runtime.questions.stored(t.id).map((q) => q.request_id)).toContain(ev.request.request_id);
    h.runtime.questions.reply(
      t.id,
      ev.request.request_id,
      { answers: { decision: { selected: ["Decline"] } } },
      { kind: "test" },
    );
    expect((await turn.done).status).toBe("completed");
    expect(existsSync(join(h.cwd, "asked.txt"))).toBe(false);
    expect(outputFor(h, "a1")).toContain("the user declined this call");
    await h.close();

    h = await harness({
      home: home(hooks),
      script: { steps: [{ output: [exec("touch asked.txt", "a2")] }, { output: [say("ok")] }] },
    });
    const t2 = h.runtime.threads.start({ cwd: h.cwd });
    expect((await t2.startTurn("go").done).status).toBe("completed");
    expect(existsSync(join(h.cwd, "asked.txt"))).toBe(false);
    expect(h.events.some((e) => requested(e.event))).toBe(false);
  });

  it("PermissionRequest decides an approval before anyone is asked", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const allow = nodeHook(
      dir,
      "perm.js",
      `const ok = input.tool_input.command.includes("allowed");
console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: ok ? "allow" : "deny", message: "not this one" } } }));`,
    );
    h = await harness({
      home: home({ PermissionRequest: cmd(allow, "Bash") }),
      overrides: ['approval_policy="untrusted"'],
      script: {
        steps: [
          { output: [exec("touch allowed.txt", "p1"), exec("touch denied.txt", "p2")] },
          { output: [say("ok")] },
        ],
      },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    expect((await t.startTurn("go").done).status).toBe("completed");
    expect(existsSync(join(h.cwd, "allowed.txt"))).toBe(true);
    expect(existsSync(join(h.cwd, "denied.txt"))).toBe(false);
    expect(h.events.some((e) => requested(e.event))).toBe(false);
    expect(seen(dir).every((s) => s.hook_event_name === "PermissionRequest" && s.tool_name === "Bash")).toBe(
      true,
    );
  });

  it("UserPromptSubmit blocks a prompt (exit 2) or adds context; SessionStart adds context once", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const gate = nodeHook(
      dir,
      "prompt.js",
      `if (input.prompt.includes("password")) { process.stderr.write("no passwords in prompts"); process.exit(2); }
console.log("Context from the prompt hook: the build runs with make.");`,
    );
    const start = nodeHook(
      dir,
      "start.js",
      `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "Session context: ticket T-42." } }));`,
    );
    h = await harness({
      home: home({ UserPromptSubmit: cmd(gate), SessionStart: cmd(start) }),
      script: {
        steps: [
          {
            expect: { input_contains: ["Session context: ticket T-42.", "the build runs with make"] },
            output: [say("hi")],
          },
        ],
      },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd });
    expect((await t.startTurn("my password is hunter2").done).status).toBe("completed");
    expect(h.model.requests).toHaveLength(0);
    expect(t.items().some((i) => JSON.stringify(i).includes("hunter2"))).toBe(false);
    const warned = h.events.map((e) => e.event).filter((e) => e.type === "hook.warning");
    expect(JSON.stringify(warned)).toContain("no passwords in prompts");
    expect((await t.startTurn("build it").done).status).toBe("completed");
    expect(h.model.requests).toHaveLength(1);
    const starts = seen(dir).filter((s) => s.hook_event_name === "SessionStart");
    expect(starts.map((s) => s.source)).toEqual(["startup"]);
  });

  it("a Stop hook that blocks keeps the turn going with its reason, once", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const stop = nodeHook(
      dir,
      "stop.js",
      `if (!input.stop_hook_active) console.log(JSON.stringify({ decision: "block", reason: "Run the tests before you stop." }));`,
    );
    h = await harness({
      home: home({ Stop: cmd(stop) }),
      script: {
        steps: [
          { output: [say("done, I think")] },
          { expect: { input_contains: ["Run the tests before you stop."] }, output: [say("tests pass")] },
        ],
      },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd });
    const outcome = await t.startTurn("work").done;
    expect(outcome.status).toBe("completed");
    expect(outcome.lastMessage).toBe("tests pass");
    expect(h.model.requests).toHaveLength(2);
    expect(seen(dir).map((s) => [s.stop_hook_active, s.last_assistant_message])).toEqual([
      [false, "done, I think"],
      [true, "tests pass"],
    ]);
  });

  it("hooks run on the host in the thread's cwd with the environment policy: no keys, tokens or secrets", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const envHook = nodeHook(
      dir,
      "env.js",
      `require("fs").appendFileSync(${JSON.stringify(join(dir, "env.jsonl"))}, JSON.stringify({ env: process.env, cwd: process.cwd() }) + "\\n");`,
    );
    const path = process.env.PATH;
    process.env.HOOKTEST_API_KEY = "sk-hooktest-0123456789";
    process.env.HOOKTEST_PLAIN = "plain-value";
    try {
      h = await harness({
        home: home({ UserPromptSubmit: cmd(envHook) }),
        script: { steps: [{ output: [say("ok")] }] },
      });
      process.env.PATH = `${join(h.cwd, "bin")}:.:bin:${path}`;
      const t = h.runtime.threads.start({ cwd: h.cwd });
      expect((await t.startTurn("go").done).status).toBe("completed");
    } finally {
      delete process.env.HOOKTEST_API_KEY;
      delete process.env.HOOKTEST_PLAIN;
      process.env.PATH = path;
    }
    const [{ env, cwd }] = readFileSync(join(dir, "env.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(cwd).toBe(h.cwd);
    expect(env.HOOKTEST_PLAIN).toBe("plain-value");
    expect(env.HOOKTEST_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain("sk-hooktest-0123456789");
    expect(env.CLAUDE_PROJECT_DIR).toBe(h.cwd);
    // No PATH entry inside the project, and no relative one: a bare name never finds a planted program.
    expect(env.PATH.split(":")).not.toContain(join(h.cwd, "bin"));
    expect(env.PATH.split(":")).not.toContain(".");
    expect(env.PATH.split(":")).not.toContain("bin");
    expect(env.PATH.split(":").length).toBeGreaterThan(0);
  });

  it("PreCompact and PostCompact see a compaction; SubagentStop fires for a sub-agent's turn", async () => {
    const dir = outsideDir("tandem-hook-scripts-");
    const note = nodeHook(dir, "note.js", "");
    h = await harness({
      home: home({
        PreCompact: cmd(note, "manual"),
        PostCompact: cmd(note),
        SubagentStop: cmd(note),
        Stop: cmd(note),
      }),
      script: { steps: [{ output: [say("first")] }, { output: [say("child done")] }] },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd });
    expect((await t.startTurn("one").done).status).toBe("completed");
    expect((await t.compact().done).status).toBe("completed");
    // Both fire from the compaction's events and run independently: either may finish first.
    await until(() =>
      ["PreCompact", "PostCompact"].every((e) => seen(dir).some((s) => s.hook_event_name === e)),
    );
    const pre = seen(dir).find((s) => s.hook_event_name === "PreCompact");
    const post = seen(dir).find((s) => s.hook_event_name === "PostCompact");
    expect(pre).toMatchObject({ trigger: "manual", thread_id: t.id });
    expect(post.compact_summary).toEqual(expect.any(String));
    const child = h.runtime.threads.start({ cwd: h.cwd, parentId: t.id });
    expect((await child.startTurn("do it").done).status).toBe("completed");
    const stops = seen(dir).filter((s) => /Stop$/.test(s.hook_event_name));
    expect(stops.map((s) => [s.hook_event_name, s.thread_id])).toEqual([
      ["Stop", t.id],
      ["SubagentStop", child.id],
    ]);
  });
});
