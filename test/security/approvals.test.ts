/**
 * Security regressions for approvals (README "Sandbox and approvals"), through the real Runtime and the
 * scripted model over HTTP, with real bubblewrap:
 * - "Accept for session" covers exactly the approved command, never the model's prefix rule;
 * - "Accept and remember" stores only a prefix of the approved command, and the prompt shows it;
 * - a remembered rule never approves a compound command it does not fully cover;
 * - headless (no responder), a remembered rule does not auto-approve: the answer is decline;
 * - under `untrusted`, the former holes of the known-safe list ask, and declined never run.
 * Targets of escalated commands live under /var/lib (not /tmp), so that the sandbox alone could
 * not have written them: a file there means the command ran unsandboxed, i.e. was approved.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { decide, type Harness, harness, tempDir } from "../helpers/index.js";
import { missing } from "../helpers/system-tools.js";

const hasBwrap = missing("bwrap").length === 0;

const call = (id: string, cmd: string, extra: Record<string, unknown> = {}) => ({
  type: "function_call" as const,
  name: "exec_command",
  call_id: id,
  arguments: { cmd, ...extra },
});
const esc = (id: string, cmd: string, prefix_rule?: string[]) =>
  call(id, cmd, {
    sandbox_permissions: "require_escalated",
    justification: "needs to run outside",
    ...(prefix_rule ? { prefix_rule } : {}),
  });
const done = { output: [{ type: "message" as const, text: "done" }] };

function outputOf(h: Harness, callId: string): string {
  for (const body of h.model.requests as any[]) {
    const o = body.input.find((i: any) => i.type === "function_call_output" && i.call_id === callId);
    if (o) return o.output;
  }
  return "";
}

const questions = (h: Harness) =>
  h.events
    .map((s) => s.event)
    .filter((e): e is EventOf<"question.requested"> => e.type === "question.requested");

/** Answers every approval with the label `answer(n, event)` gives (n counts from 0). */
function answerAll(h: Harness, answer: (n: number, e: EventOf<"question.requested">) => string): void {
  let n = 0;
  h.runtime.subscribe((s) => {
    const e = s.event;
    if (e.type === "question.requested" && e.request.approval) {
      const label = answer(n++, e);
      setImmediate(() => decide(h, e, label));
    }
  });
}

describe.skipIf(!hasBwrap)("approvals: session grants, remembered rules, headless", () => {
  let h: Harness | undefined;
  let outside: string;
  beforeAll(() => {
    mkdirSync("/var/lib", { recursive: true });
    outside = mkdtempSync("/var/lib/tandem-test-");
  });
  afterAll(() => rmSync(outside, { recursive: true, force: true }));
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // fails if accept_for_session also grants the model's proposed prefix_rule (["bash"]), so that a
  // later `bash -c …` escalation runs unsandboxed without asking.
  it("accept for session covers exactly the approved command, not the model's prefix rule", async () => {
    const pwned = join(outside, "session-pwned");
    const again = join(outside, "session-again");
    h = await harness({
      script: {
        steps: [
          { output: [esc("s1", "ls", ["bash"])] },
          { output: [esc("s2", `bash -c 'touch ${pwned}'`, ["bash"])] },
          { output: [esc("s3", "ls")] },
          { output: [esc("s4", `touch ${again}`)] },
          done,
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    answerAll(h, (n) => (n === 0 ? "Accept for session" : n === 1 ? "Decline" : "Accept"));
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const asked = questions(h).map((q) => q.request.approval?.command);
    // s1 asked, s2 asked again (not covered), s3 (same command) did not, s4 asked.
    expect(asked).toEqual(["ls", `bash -c 'touch ${pwned}'`, `touch ${again}`]);
    expect(outputOf(h, "s2")).toMatch(/declined/);
    expect(existsSync(pwned)).toBe(false);
    expect(outputOf(h, "s3")).toContain("Process exited with code 0");
    expect(existsSync(again)).toBe(true);
  });

  // fails if accept_and_remember stores the model's rule although it is not a prefix of the approved
  // command (["bash"] for `ls`), or the prompt does not show the rule that is stored.
  it("accept and remember stores only a prefix of the approved command, and the prompt shows it", async () => {
    const pwned = join(outside, "remember-pwned");
    h = await harness({
      script: {
        steps: [
          { output: [esc("r1", "ls -a", ["bash"])] },
          { output: [esc("r2", `bash -c 'touch ${pwned}'`)] },
          { output: [esc("r3", "ls -a")] },
          done,
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    answerAll(h, (n) => (n === 0 ? "Accept and remember" : "Decline"));
    expect((await thread.startTurn("go").done).status).toBe("completed");
    const [first, second, third] = questions(h);
    expect(first.request.approval?.prefix_rule).toEqual(["ls", "-a"]);
    const q = first.request.questions[0];
    expect(q.prompt).toContain("`ls -a`");
    expect(q.options.find((o) => o.label === "Accept and remember")?.description).toContain("`ls -a`");
    expect(q.prompt + JSON.stringify(q.options)).not.toMatch(/`bash/);
    expect(h.runtime.approvals.rules(h.cwd)).toEqual([["ls", "-a"]]);
    expect(second.request.approval?.command).toContain("bash -c");
    expect(existsSync(pwned)).toBe(false);
    expect(third).toBeUndefined(); // r3 matched the remembered rule
    expect(outputOf(h, "r3")).toContain("Process exited with code 0");
  });

  // fails if matchesPrefix approves a compound command or one with substitutions/redirections
  // because its first words match a remembered rule (["touch"]).
  it("a remembered rule does not cover compound commands, substitutions or redirections", async () => {
    const ok1 = join(outside, "rule-ok1");
    const ok2 = join(outside, "rule-ok2");
    const bad = (n: string) => join(outside, `rule-bad-${n}`);
    const attacks = [
      `touch ${bad("a")}; rm -rf ${bad("x")}`,
      `touch ${bad("b")} && bash -c 'touch ${bad("c")}'`,
      `touch ${bad("d")} | sh`,
      `touch $(touch ${bad("e")})`,
      `touch \`touch ${bad("f")}\``,
      `touch ${bad("g")} > ${bad("h")}`,
      `touch ${bad("i")}\nbash -c 'touch ${bad("j")}'`,
    ];
    h = await harness({
      script: {
        steps: [
          { output: [esc("t0", `touch ${ok1}`, ["touch"])] },
          ...attacks.map((cmd, i) => ({ output: [esc(`a${i}`, cmd, ["touch"])] })),
          { output: [esc("t1", `touch ${ok2} && touch ${ok2}`, ["touch"])] },
          done,
        ],
      },
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    answerAll(h, (n) => (n === 0 ? "Accept and remember" : "Decline"));
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(h.runtime.approvals.rules(h.cwd)).toEqual([["touch"]]);
    expect(questions(h).map((q) => q.request.approval?.command)).toEqual([`touch ${ok1}`, ...attacks]);
    for (const n of "abcdefghij") expect(existsSync(bad(n)), n).toBe(false);
    expect(existsSync(ok1)).toBe(true);
    expect(existsSync(ok2)).toBe(true); // every part covered by the rule: runs without asking
  });

  // fails if a remembered rule is checked before the "no responder → unavailable" gate: headless, the
  // planted rule would approve the escalation and `two` would be written outside the sandbox.
  it("headless, a remembered rule does not approve; with a responder it still does", async () => {
    const home = tempDir("tandem-home-");
    const cwd = tempDir("tandem-cwd-");
    const touch = (id: string, f: string) => esc(id, `touch ${join(outside, f)}`, ["touch"]);
    h = await harness({ home, cwd, script: { steps: [{ output: [touch("h1", "headless-one")] }, done] } });
    let thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    answerAll(h, () => "Accept and remember");
    await thread.startTurn("go").done;
    expect(existsSync(join(outside, "headless-one"))).toBe(true);
    await h.close();

    h = await harness({ home, cwd, script: { steps: [{ output: [touch("h2", "headless-two")] }, done] } });
    thread = h.runtime.threads.start({ cwd });
    expect(h.runtime.approvals.rules(cwd)).toEqual([["touch"]]);
    expect((await thread.startTurn("go").done).status).toBe("completed");
    // Nobody could be asked: the model hears "unavailable", not a user's decline.
    expect(outputOf(h, "h2")).toMatch(/No one could approve this/);
    expect(existsSync(join(outside, "headless-two"))).toBe(false);
    await h.close();

    h = await harness({ home, cwd, script: { steps: [{ output: [touch("h3", "headless-three")] }, done] } });
    thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(questions(h)).toEqual([]);
    expect(existsSync(join(outside, "headless-three"))).toBe(true);
  });
});

// Each former hole of the known-safe list, with the side effect it would have had.
const HOLES: Array<{ name: string; cmd: string; effect: string }> = [
  { name: "env bash -c", cmd: "env bash -c 'touch env-ran'", effect: "env-ran" },
  { name: "sed e command", cmd: "sed -n '1e touch sed-e-ran' f.txt", effect: "sed-e-ran" },
  { name: "sed w command", cmd: "sed 'w sed-w-out' f.txt", effect: "sed-w-out" },
  { name: "sed -n w", cmd: "sed -n 'w sed-nw-out' f.txt", effect: "sed-nw-out" },
  { name: "find -fls", cmd: "find . -fls find-fls-out", effect: "find-fls-out" },
  { name: "find -fprint", cmd: "find . -fprint find-fprint-out", effect: "find-fprint-out" },
  { name: "sort -o", cmd: "sort -o sort-out f.txt", effect: "sort-out" },
  { name: "sort --output", cmd: "sort --output=sort-out2 f.txt", effect: "sort-out2" },
  { name: "uniq output file", cmd: "uniq f.txt uniq-out", effect: "uniq-out" },
  { name: "git diff --output", cmd: "git diff --output=git-diff-out", effect: "git-diff-out" },
  { name: "git log --output", cmd: "git log --output=git-log-out", effect: "git-log-out" },
  { name: "git -c", cmd: "git -c core.pager='touch git-c-ran' log", effect: "git-c-ran" },
  { name: "nice wrapper", cmd: "nice sh -c 'touch nice-ran'", effect: "nice-ran" },
  { name: "timeout wrapper", cmd: "timeout 5 sh -c 'touch timeout-ran'", effect: "timeout-ran" },
  { name: "xargs", cmd: "echo xargs-ran | xargs touch", effect: "xargs-ran" },
  { name: "brace expansion", cmd: "find . -{fls,true} brace-out", effect: "brace-out" },
  { name: "newline", cmd: "ls\ntouch newline-ran", effect: "newline-ran" },
  {
    name: "variable expansion",
    cmd: "echo $TANDEM_PROBE_SECRET > /dev/null; touch var-ran",
    effect: "var-ran",
  },
];

describe.skipIf(!hasBwrap)("untrusted: the known-safe list has no holes", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function setup(steps: any[], cwd = tempDir("tandem-cwd-")) {
    writeFileSync(join(cwd, "f.txt"), "b\na\na\n");
    spawnSync("git", ["init", "-q", cwd]);
    h = await harness({ cwd, script: { steps }, overrides: ['approval_policy="untrusted"'] });
    const thread = h.runtime.threads.start({ cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    return { cwd, thread, h };
  }

  // fails if `${name}` counts as known-safe again: it would run without an approval request and
  // its side effect file would exist.
  beforeAll(() => {
    process.env.TANDEM_TEST_PROBE_VALUE = "probe-5ee1c7";
  });
  afterAll(() => {
    delete process.env.TANDEM_TEST_PROBE_VALUE;
  });

  it.each(HOLES)("$name asks, and declined never runs", async ({ cmd, effect }) => {
    const { cwd, thread, h } = await setup([{ output: [call("x1", cmd)] }, done]);
    answerAll(h, () => "Decline");
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(questions(h).map((q) => q.request.approval?.command)).toEqual([cmd]);
    expect(outputOf(h, "x1")).toMatch(/declined/);
    expect(outputOf(h, "x1")).not.toContain("probe-5ee1c7");
    if (effect) expect(existsSync(join(cwd, effect))).toBe(false);
  });

  // fails if hardening made ordinary read-only commands ask (legitimate use still works).
  it("read-only commands still run without asking", async () => {
    const cmds = [
      "ls -la && git status | head -5",
      "sed -n 1,2p f.txt",
      "grep -n a f.txt || true",
      "sort f.txt | uniq -c",
    ];
    const { thread, h } = await setup([{ output: cmds.map((c, i) => call(`ok${i}`, c)) }, done]);
    expect((await thread.startTurn("go").done).status).toBe("completed");
    expect(questions(h)).toEqual([]);
    for (let i = 0; i < cmds.length; i++)
      expect(outputOf(h, `ok${i}`)).toContain("Process exited with code 0");
  });

  // fails if the known-safe decision depends on where the workspace lies (under /tmp or not):
  // with the workspace under /var/lib a hole still asks and a read-only command still runs.
  it("a workspace outside /tmp: the same decisions", async () => {
    const cwd = mkdtempSync("/var/lib/tandem-test-");
    try {
      const steps = [{ output: [call("v1", "sort -o sorted f.txt"), call("v2", "sed -n 1p f.txt")] }, done];
      const { thread, h } = await setup(steps, cwd);
      answerAll(h, () => "Decline");
      expect((await thread.startTurn("go").done).status).toBe("completed");
      expect(questions(h).map((q) => q.request.approval?.command)).toEqual(["sort -o sorted f.txt"]);
      expect(existsSync(join(cwd, "sorted"))).toBe(false);
      expect(outputOf(h, "v2")).toContain("Process exited with code 0");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
