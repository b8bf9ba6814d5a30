/**
 * Fork and rewind (README "Undo, redo, fork and rewind") through the real loop: a fork holds the
 * history up to the point asked, with the source's settings, and the model sees only that
 * history; a rewind cuts a thread back to before a user message, keeps the part cut away as an
 * archived fork (with its checkpoints), and with restoreCode undoes the later turns' files.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import type { EventOf } from "../../src/protocol/events.js";
import { messageText } from "../../src/protocol/items.js";
import { type Harness, harness, tempDir } from "../helpers/index.js";

const patch = (id: string, body: string[]) => ({
  type: "custom_tool_call" as const,
  name: "apply_patch",
  call_id: id,
  input: ["*** Begin Patch", ...body, "*** End Patch"].join("\n"),
});
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

const SCRIPT: Script = {
  steps: [
    { output: [patch("p1", ["*** Update File: a.txt", "@@", "-one", "+two"])] },
    say("turn one done"),
    {
      output: [
        patch("p2", ["*** Update File: a.txt", "@@", "-two", "+three", "*** Add File: b.txt", "+bee"]),
      ],
    },
    say("turn two done"),
    say("after the fork or rewind"),
  ],
};

/** The user texts of the last request the model received. */
function lastUserTexts(h: Harness): string[] {
  const input = (
    h.model.requests.at(-1) as { input: Array<{ type: string; role?: string; content?: unknown }> }
  ).input;
  return input
    .filter((i) => i.type === "message" && i.role === "user")
    .map((i) => messageText(i as Parameters<typeof messageText>[0]))
    .filter((t) => !t.startsWith("<"));
}

describe("fork and rewind", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function twoTurns() {
    const cwd = tempDir("tandem-branch-");
    writeFileSync(join(cwd, "a.txt"), "one\n");
    h = await harness({ cwd, script: SCRIPT });
    const t = h.runtime.threads.start({ cwd, effort: "high" });
    expect((await t.startTurn("first ask").done).status).toBe("completed");
    expect((await t.startTurn("second ask").done).status).toBe("completed");
    return { cwd, t, turns: h.runtime.threads.turns(t.id) };
  }

  it("fork before a turn: same settings, own id, '(fork)' title, and the model sees only the kept history", async () => {
    const { t, turns } = await twoTurns();
    const rt = h!.runtime;
    const before = rt.threads.history(t.id).map((s) => s.item);
    expect(rt.branches.userMessages(t.id).map((m) => [m.turnId, m.text])).toEqual([
      [turns[0].id, "first ask"],
      [turns[1].id, "second ask"],
    ]);
    const fork = rt.branches.fork(t.id, { beforeTurnId: turns[1].id });
    expect(fork.id).not.toBe(t.id);
    expect(fork.title).toBe("first ask (fork)");
    expect([fork.cwd, fork.model, fork.mode, fork.settings.effort]).toEqual([
      t.record.cwd,
      t.record.model,
      t.record.mode,
      "high",
    ]);
    const kept = rt.threads.history(fork.id);
    expect(kept.map((s) => s.item)).toEqual(before.slice(0, rt.branches.userMessages(t.id)[1].index));
    expect(new Set(kept.map((s) => s.turn_id)).has(turns[0].id)).toBe(false); // its own turn ids
    expect(rt.threads.history(t.id).map((s) => s.item)).toEqual(before); // the source is untouched
    const forked = rt.threads.open(fork.id);
    expect((await forked.startTurn("fork ask").done).status).toBe("completed");
    expect(lastUserTexts(h!)).toEqual(["first ask", "fork ask"]);
    // Through an item index: everything up to it.
    expect(rt.threads.history(rt.branches.fork(t.id, { throughItem: 0 }).id)).toHaveLength(1);
    expect(() => rt.branches.fork(t.id, { throughItem: 999 })).toThrow(/has no item 999/);
  });

  it("rewind with restoreCode: the later turn's files are undone, its history is archived, the thread goes on from there", async () => {
    const { cwd, t, turns } = await twoTurns();
    const rt = h!.runtime;
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("three\n");
    const all = rt.threads.history(t.id).map((s) => s.item);
    rt.questions.attach({ threadId: t.id }, { kind: "test" });
    const rewinding = rt.branches.rewind(t.id, turns[1].id, { restoreCode: true });
    const q = (await h!.waitFor(
      (e): e is EventOf<"question.requested"> => e.type === "question.requested",
    )) as EventOf<"question.requested">;
    expect(q.request.questions[0].prompt).toContain("second ask");
    rt.questions.reply(
      t.id,
      q.request.request_id,
      { answers: { restore: { selected: ["Apply"] } } },
      { kind: "test" },
    );
    const r = await rewinding;
    expect(r.status).toBe("rewound");
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("two\n");
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
    // History: cut before "second ask"; the archived branch has all of it and its checkpoint.
    const userTexts = (id: string) => rt.branches.userMessages(id).map((m) => m.text);
    expect(userTexts(t.id)).toEqual(["first ask"]);
    expect(rt.threads.turns(t.id).map((x) => x.id)).toEqual([turns[0].id]);
    const archived = rt.threads.stored(r.archivedId!);
    expect(archived?.title).toBe("first ask (rewound)");
    expect(archived?.settings.archived).toBe(true);
    expect(rt.threads.history(r.archivedId!).map((s) => s.item)).toEqual(all);
    expect(rt.checkpoints.list(t.id).map((c) => c.message)).toEqual(["first ask"]);
    expect(rt.checkpoints.list(r.archivedId!).map((c) => [c.message, c.state])).toEqual([
      ["second ask", "undone"],
    ]);
    // The thread goes on from the cut: the model never sees the rewound-away turn.
    expect((await t.startTurn("third ask").done).status).toBe("completed");
    expect(lastUserTexts(h!)).toEqual(["first ask", "third ask"]);
  });

  it("rewind without restoreCode changes history only; files stay", async () => {
    const { cwd, t, turns } = await twoTurns();
    const r = await h!.runtime.branches.rewind(t.id, turns[0].id);
    expect(r.status).toBe("rewound");
    expect(h!.runtime.threads.history(t.id).filter((s) => s.turn_id !== null)).toEqual([]);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("three\n");
    await expect(h!.runtime.branches.rewind(t.id, "turn_nope")).rejects.toThrow(/has no turn turn_nope/);
  });
});
