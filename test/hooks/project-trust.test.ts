/**
 * Project hooks are files the model can write: they never run until the user trusted their
 * exact content (README "Hooks"). Through the real runtime and the scripted model over HTTP.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Event, EventOf } from "../../src/protocol/events.js";
import { type Harness, harness, outsideDir } from "../helpers/index.js";

const exec = (cmd: string, call_id: string) => ({
  type: "function_call" as const,
  name: "exec_command",
  arguments: { cmd },
  call_id,
});
const say = (text: string) => ({ type: "message" as const, text });
const requested = (e: Event): e is EventOf<"question.requested"> => e.type === "question.requested";

function hooksJson(marker: string): string {
  return JSON.stringify({
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `touch ${marker}` }] }] },
  });
}

describe("project hooks and trust", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("attack: hooks the model writes into .tandem/hooks.json never run headless; one warning says so", async () => {
    const marker = join(outsideDir("tandem-hook-marker-"), "pwned");
    const write = `mkdir -p .tandem && printf '%s' '${hooksJson(marker)}' > .tandem/hooks.json`;
    h = await harness({
      script: {
        steps: [
          { output: [exec(write, "w1")] },
          { output: [exec("echo one", "e1")] },
          { output: [say("written")] },
          { output: [exec("echo two", "e2")] },
          { output: [say("done")] },
        ],
      },
    });
    const t = h.runtime.threads.start({ cwd: h.cwd });
    expect((await t.startTurn("set things up").done).status).toBe("completed");
    expect(existsSync(join(h.cwd, ".tandem/hooks.json"))).toBe(true);
    expect((await t.startTurn("go on").done).status).toBe("completed");
    expect(existsSync(marker)).toBe(false);
    const warnings = h.events
      .filter((e) => e.event.type === "hook.warning")
      .map((e) => (e.event as any).message);
    expect(warnings.filter((w) => /project hooks not trusted/.test(w))).toHaveLength(1);
    expect(warnings[0]).toContain(join(h.cwd, ".tandem/hooks.json"));
  });

  it("asks once through the broker; refused → never runs; trusted → runs; a changed file asks again", async () => {
    const marker = join(outsideDir("tandem-hook-marker-"), "ran");
    h = await harness({
      script: {
        steps: [
          { output: [exec("echo a", "a1")] },
          { output: [say("a")] },
          { output: [exec("echo b", "b1")] },
          { output: [say("b")] },
          { output: [exec("echo c", "c1")] },
          { output: [say("c")] },
        ],
      },
    });
    mkdirSync(join(h.cwd, ".claude"), { recursive: true });
    writeFileSync(join(h.cwd, ".claude/settings.json"), hooksJson(marker));
    const t = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    let answer = "Do not run them";
    h.runtime.subscribe((s) => {
      if (requested(s.event) && s.event.request.questions[0]?.id === "trust")
        h!.runtime.questions.reply(
          t.id,
          s.event.request.request_id,
          { answers: { trust: { selected: [answer] } } },
          { kind: "test" },
        );
    });
    expect((await t.startTurn("one").done).status).toBe("completed");
    expect(existsSync(marker)).toBe(false);
    const asked = () =>
      h!.events.filter((e) => requested(e.event) && e.event.request.questions[0]?.id === "trust");
    expect(asked()).toHaveLength(1);
    const q = (asked()[0].event as EventOf<"question.requested">).request;
    expect(q.source).toBe("internal");
    expect(q.questions[0].prompt).toContain(`touch ${marker}`);
    // Refused in this process: not asked again, still not run.
    expect((await t.startTurn("two").done).status).toBe("completed");
    expect(asked()).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
    // The file changes: asked again; trusted now, the hook runs.
    writeFileSync(join(h.cwd, ".claude/settings.json"), hooksJson(`${marker} `));
    answer = "Trust and run them";
    expect((await t.startTurn("three").done).status).toBe("completed");
    expect(asked()).toHaveLength(2);
    expect(existsSync(marker)).toBe(true);
  });

  // Red team: the question once showed 12 hooks and 200 characters of each, so a long first
  // command or a 14th hook ran unseen once the file was trusted.
  it("attack: the trust question shows every command in full, quoted; a file too long to show is skipped", async () => {
    const many = [
      { type: "command", command: `echo ${"a".repeat(195)}; touch /tmp/tail-hidden` },
      ...Array.from({ length: 12 }, () => ({ type: "command", command: "true" })),
      { type: "command", command: "touch /tmp/fourteenth\nfake line" },
    ];
    h = await harness({ script: { steps: [{ output: [say("a")] }, { output: [say("b")] }] } });
    mkdirSync(join(h.cwd, ".tandem"), { recursive: true });
    const file = join(h.cwd, ".tandem/hooks.json");
    writeFileSync(file, JSON.stringify({ hooks: { SessionStart: [{ hooks: many }] } }));
    const t = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: t.id }, { kind: "test" });
    const prompts: string[] = [];
    h.runtime.subscribe((s) => {
      if (requested(s.event) && s.event.request.questions[0]?.id === "trust") {
        prompts.push(s.event.request.questions[0].prompt);
        h!.runtime.questions.reply(
          t.id,
          s.event.request.request_id,
          { answers: { trust: { selected: ["Do not run them"] } } },
          { kind: "test" },
        );
      }
    });
    expect((await t.startTurn("one").done).status).toBe("completed");
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("touch /tmp/tail-hidden");
    expect(prompts[0]).toContain(JSON.stringify("touch /tmp/fourteenth\nfake line"));
    expect(prompts[0]).not.toContain("\nfake line");

    // Past what a question may show: not asked at all, one warning instead.
    writeFileSync(
      file,
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: "command", command: `echo ${"b".repeat(7000)}` }] }] },
      }),
    );
    expect((await t.startTurn("two").done).status).toBe("completed");
    expect(prompts).toHaveLength(1);
    const warnings = h.events
      .filter((e) => e.event.type === "hook.warning")
      .map((e) => (e.event as any).message);
    expect(warnings.some((w) => /too long to show/.test(w))).toBe(true);
  });
});
