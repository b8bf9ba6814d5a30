/**
 * apply_patch and update_plan through the real loop (README "Sandbox and approvals"): a freeform patch
 * edits the workspace, the exec --json stream reports file_change and todo_list items, the
 * turn diff is published, and a read-only sandbox asks before a patch writes.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { EventOf } from "../../src/protocol/events.js";
import { jsonLines, type MockProcess, runTandem, startMockProcess } from "../helpers/cli.js";
import { decide, type Harness, harness, outsideDir, tempDir } from "../helpers/index.js";

const PATCH = [
  "*** Begin Patch",
  "*** Update File: app.txt",
  "@@",
  " line one",
  "-line two",
  "+line 2",
  " line three",
  "*** Add File: notes.md",
  "+# Notes",
  "*** End Patch",
].join("\n");

const plan = (statuses: string[]) => ({
  type: "function_call" as const,
  name: "update_plan",
  arguments: { explanation: "steps", plan: statuses.map((status, i) => ({ step: `step ${i + 1}`, status })) },
});

describe("coding tools through the loop", () => {
  let mock: MockProcess | undefined;
  let h: Harness | undefined;
  /** Directories outside the sandbox's writable roots (never $HOME), removed after each test. */
  const outsides: string[] = [];
  const newOutside = (prefix: string) => {
    const dir = outsideDir(prefix);
    outsides.push(dir);
    return dir;
  };
  afterEach(async () => {
    await mock?.stop();
    await h?.close();
    mock = undefined;
    h = undefined;
    for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("exec --json: apply_patch edits files (file_change), update_plan emits todo_list items", async () => {
    mock = await startMockProcess({
      steps: [
        { output: [plan(["in_progress", "pending"])] },
        { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "patch_1" }] },
        { output: [plan(["completed", "completed"])] },
        { output: [{ type: "message", text: "patched" }] },
      ],
    });
    const cwd = tempDir();
    writeFileSync(join(cwd, "app.txt"), "line one\nline two\nline three\n");
    const r = await runTandem(["exec", "--json", "--cd", cwd, "edit it"], {
      env: { TANDEM_HOME: tempDir(), OPENAI_API_KEY: "k", OPENAI_BASE_URL: mock.url },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(join(cwd, "app.txt"), "utf8")).toBe("line one\nline 2\nline three\n");
    expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("# Notes\n");
    const events = jsonLines(r.stdout);
    const fc = events.find((e) => e.type === "item.completed" && e.item.type === "file_change");
    expect(fc.item.changes).toEqual([
      { path: "app.txt", kind: "update" },
      { path: "notes.md", kind: "add" },
    ]);
    expect(fc.item.status).toBe("completed");
    const todo = events.filter((e) => e.item?.type === "todo_list").map((e) => e.type);
    expect(todo).toEqual(["item.started", "item.updated", "item.completed"]);
    const last = events.filter((e) => e.item?.type === "todo_list").pop();
    expect(last.item.items).toEqual([
      { text: "step 1", completed: true },
      { text: "step 2", completed: true },
    ]);
    const log = jsonLines(readFileSync(mock.log, "utf8"));
    const patchTool = log[0].tools.find((t: any) => t.name === "apply_patch");
    expect(patchTool.type).toBe("custom");
    expect(patchTool.format.type).toBe("grammar");
    const out = log[2].input.find((i: any) => i.type === "custom_tool_call_output");
    expect(out.output).toMatch(/Success/);
  });

  // Fails if a failed patch writes any file before the failing hunk (notes.md is added first,
  // then app.txt's hunk does not match), or if the turn diff misses the good patch.
  it("publishes the turn diff; a bad hunk fails atomically with a precise message", async () => {
    const bad = [
      "*** Begin Patch",
      "*** Add File: notes.md",
      "+# Notes",
      "*** Update File: app.txt",
      "@@",
      " line one",
      "-line two",
      "+line 2",
      " line 3 (not in the file)",
      "*** End Patch",
    ].join("\n");
    h = await harness({
      script: {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: bad, call_id: "bad" }] },
          { output: [{ type: "message", text: "failed" }] },
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "good" }] },
          { output: [{ type: "message", text: "ok" }] },
        ],
      },
    });
    const original = "line one\nline two\nline three\n";
    writeFileSync(join(h.cwd, "app.txt"), original);
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    await thread.startTurn("go").done;
    const outs = (h.model.requests as any[])[1].input.filter(
      (i: any) => i.type === "custom_tool_call_output",
    );
    expect(outs[0].call_id).toBe("bad");
    expect(outs[0].output).toMatch(/app\.txt/);
    expect(outs[0].output).toMatch(/No files were changed/);
    expect(existsSync(join(h.cwd, "notes.md"))).toBe(false);
    expect(readFileSync(join(h.cwd, "app.txt"), "utf8")).toBe(original);
    expect(readdirSync(h.cwd).sort()).toEqual(["app.txt"]);

    await thread.startTurn("again").done;
    const diff = h.events.filter((e) => e.event.type === "turn.diff").pop()!.event as EventOf<"turn.diff">;
    expect(diff.diff).toContain("-line two");
    expect(diff.diff).toContain("+line 2");
    expect(diff.diff).toContain("+# Notes");
  });

  it("read-only sandbox: a patch asks for approval; declined → nothing written", async () => {
    h = await harness({
      script: {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: PATCH, call_id: "ro" }] },
          { output: [{ type: "message", text: "ok" }] },
        ],
      },
      overrides: ['sandbox_mode="read-only"'],
    });
    writeFileSync(join(h.cwd, "app.txt"), "line one\nline two\nline three\n");
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(q.request.approval).toMatchObject({
      kind: "file_change",
      paths: [join(h.cwd, "app.txt"), join(h.cwd, "notes.md")],
    });
    decide(h, q, "Decline");
    await turn.done;
    expect(readFileSync(join(h.cwd, "app.txt"), "utf8")).toBe("line one\nline two\nline three\n");
    const out = (h.model.requests as any[])[1].input.find((i: any) => i.type === "custom_tool_call_output");
    expect(out.output).toMatch(/declined/);
  });

  it("a patch that writes outside the workspace asks; accepted, it writes there", async () => {
    const { existsSync } = await import("node:fs");
    const outside = newOutside("tandem-patch-out-");
    const patch = ["*** Begin Patch", `*** Add File: ${outside}/shared.md`, "+shared", "*** End Patch"].join(
      "\n",
    );
    h = await harness({
      script: {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "out1" }] },
          {
            output: [
              {
                type: "custom_tool_call",
                name: "apply_patch",
                input: patch.replace("shared.md", "second.md"),
                call_id: "out2",
              },
            ],
          },
          { output: [{ type: "message", text: "ok" }] },
        ],
      },
      // Patches are applied in-process: this holds without bubblewrap too.
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q1 = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    expect(q1.request.approval).toMatchObject({ kind: "file_change", paths: [`${outside}/shared.md`] });
    decide(h, q1, "Accept");
    const q2 = (await h.waitFor(
      (e) => e.type === "question.requested" && e.request.request_id !== q1.request.request_id,
    )) as EventOf<"question.requested">;
    decide(h, q2, "Decline");
    await turn.done;
    expect(readFileSync(join(outside, "shared.md"), "utf8")).toBe("shared\n");
    expect(existsSync(join(outside, "second.md"))).toBe(false);
    const outs = (h.model.requests as any[])[2].input.filter(
      (i: any) => i.type === "custom_tool_call_output",
    );
    expect(outs[1].output).toMatch(/declined/);
  });

  it("accept for session covers later patches to the same paths outside the workspace", async () => {
    const outside = newOutside("tandem-patch-session-");
    const add = ["*** Begin Patch", `*** Add File: ${outside}/log.md`, "+one", "*** End Patch"].join("\n");
    const upd = [
      "*** Begin Patch",
      `*** Update File: ${outside}/log.md`,
      "@@",
      " one",
      "+two",
      "*** End Patch",
    ].join("\n");
    h = await harness({
      script: {
        steps: [
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: add, call_id: "s1" }] },
          { output: [{ type: "custom_tool_call", name: "apply_patch", input: upd, call_id: "s2" }] },
          { output: [{ type: "message", text: "ok" }] },
        ],
      },
      // Patches are applied in-process: this holds without bubblewrap too.
      overrides: ['sandbox_mode="workspace-write"'],
    });
    const thread = h.runtime.threads.start({ cwd: h.cwd });
    h.runtime.questions.attach({ threadId: thread.id }, { kind: "test" });
    const turn = thread.startTurn("go");
    const q = (await h.waitFor((e) => e.type === "question.requested")) as EventOf<"question.requested">;
    decide(h, q, "Accept for session");
    await turn.done;
    expect(readFileSync(join(outside, "log.md"), "utf8")).toBe("one\ntwo\n");
    expect(h.events.filter((e) => e.event.type === "question.requested")).toHaveLength(1);
  });
});
