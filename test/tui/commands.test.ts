/**
 * The TUI's commands end to end (README "Use it"): tmux runs the real `tandem` against
 * `tandem mock-model`; keys go in with send-keys, the screen comes out of capture-pane and the
 * scripted model's request log shows what reached the model. Polls, never sleeps.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { builtOrSourceTui, hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, pane, waitFor, keys, literal } = tuiHarness({
  name: "tandem-tui-cmds",
  command: builtOrSourceTui(),
});

const reply = (text: string) => ({ output: [{ type: "message" as const, text }] });
const READY = "ask Tandem to do something";

/** The screen below the last occurrence of `marker` (the live part after it was drawn). */
const after = (screen: string, marker: string) => screen.slice(screen.lastIndexOf(marker));

describe.skipIf(!hasTmux)("TUI commands in tmux (real processes)", { timeout: 120_000 }, () => {
  // fails if the startup header lacks a field, "/" opens no list, typing does not filter it, or
  // /status misses model, provider, directory, sandbox, approvals, tokens or context
  it("shows a header, a filtered / list and /status", async () => {
    const mock = await startMock({ steps: [] } satisfies Script);
    const { cwd } = launch({ url: mock.url });
    await waitFor(READY);
    let screen = await waitFor("approvals: on-request");
    expect(screen).toContain("model:     gpt-5.2-codex");
    expect(screen).toContain(`directory: ${cwd}`);
    expect(screen).toMatch(/sandbox: {3}(workspace-write|danger-full-access)/);
    expect(screen).toContain("approvals: on-request");
    literal("/");
    screen = await waitFor("choose the approval policy");
    expect(screen).toContain("/model");
    expect(screen).toContain("/status");
    literal("sta");
    await waitFor(/› \/status +show model/);
    expect(after(pane(), "› /sta")).not.toContain("choose the approval policy");
    keys("Enter");
    screen = after(await waitFor("context:"), "Status");
    expect(screen).toContain("model:      gpt-5.2-codex");
    expect(screen).toContain(`provider:   openai — ${mock.url}`);
    expect(screen).toContain(`directory:  ${cwd}`);
    expect(screen).toMatch(/sandbox: {4}\S/);
    expect(screen).toContain("approvals:  on-request");
    expect(screen).toContain("tokens:     0 used in this thread");
    expect(screen).toMatch(/context: {4}100% left \(0 of 272k in use\)/);
  });

  // fails if /model does not reach the next model request (model and effort), the /approvals
  // picker's choice is not the policy in force afterwards, or /status invents a context window
  it("/model and the /approvals picker change later turns", async () => {
    const mock = await startMock({ steps: [reply("first"), reply("second")] } satisfies Script);
    launch({ url: mock.url });
    await waitFor(READY);
    literal("hello one");
    keys("Enter");
    await waitFor("first");
    literal("/model gpt-test-model high");
    keys("Enter");
    await waitFor("model gpt-test-model, effort high — for the next turns.");
    literal("/approvals");
    keys("Enter");
    await waitFor("Approvals and sandbox for the next turns");
    keys("Down");
    await waitFor(/› 3\. Full access/);
    keys("Enter");
    await waitFor("approvals never, sandbox danger-full-access — for the next turns.");
    literal("hello two");
    keys("Enter");
    await waitFor("second");
    const log = requests(mock.log);
    expect(log).toHaveLength(2);
    expect(log[0].model).toBe("gpt-5.2-codex");
    expect(log[1].model).toBe("gpt-test-model");
    expect(log[1].reasoning?.effort).toBe("high");
    literal("/status");
    keys("Enter");
    const screen = after(await waitFor("context:"), "Status");
    expect(screen).toContain("model:      gpt-test-model (effort high)");
    expect(screen).toContain("approvals:  never");
    expect(screen).toContain("sandbox:    danger-full-access");
    expect(screen).not.toContain("tokens:     0 used");
    expect(screen).toContain("context:    unknown (the context window of gpt-test-model is not known)");
  });

  // fails if /model offers only Tandem's built-in names when the provider lists its own models
  // (GET /v1/models), or picking one does not reach the next request
  it("/model lists the provider's /v1/models", async () => {
    const mock = await startMock({
      model: "served-model-7b",
      steps: [reply("on the served model")],
    } satisfies Script);
    launch({ url: mock.url });
    await waitFor(READY);
    literal("/model");
    keys("Enter");
    const picker = await waitFor("Model for the next turns");
    expect(picker).toMatch(/served-model-7b\s+listed by openai/);
    // Digits choose the n-th item directly (no arrow presses to overshoot on a loaded machine).
    const n = /(\d)\. served-model-7b/.exec(picker)?.[1];
    expect(n).toBeDefined();
    keys(n!);
    await waitFor("Reasoning effort for served-model-7b");
    keys("Enter");
    await waitFor(/model served-model-7b, effort \w+ — for the next turns\./);
    literal("hello");
    keys("Enter");
    await waitFor("on the served model");
    expect(requests(mock.log)[0].model).toBe("served-model-7b");
  });

  // fails if /init overwrites an existing AGENTS.md, writes none, or stays silent about it
  it("/init writes an AGENTS.md skeleton once", async () => {
    const mock = await startMock({ steps: [] } satisfies Script);
    const { cwd } = launch({ url: mock.url });
    await waitFor(READY);
    literal("/init");
    keys("Enter");
    await waitFor(`Wrote ${join(cwd, "AGENTS.md")}`);
    expect(readFileSync(join(cwd, "AGENTS.md"), "utf8")).toMatch(/^# AGENTS\.md\n[\s\S]*## Build and test/);
    writeFileSync(join(cwd, "AGENTS.md"), "mine\n");
    literal("/init");
    keys("Enter");
    await waitFor("already exists; /init leaves it as it is.");
    expect(readFileSync(join(cwd, "AGENTS.md"), "utf8")).toBe("mine\n");
  });

  // fails if /diff does not show the last turn's apply_patch diff, or /status ignores the context
  // the last response used
  it("/diff shows the last turn's changes", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: hello.txt",
      "+hello from the patch",
      "*** End Patch",
    ].join("\n");
    const mock = await startMock({
      steps: [
        { output: [{ type: "custom_tool_call", name: "apply_patch", input: patch, call_id: "p1" }] },
        reply("patched it"),
      ],
    } satisfies Script);
    const { cwd } = launch({ url: mock.url, args: ["-c", 'approval_policy="never"'] });
    await waitFor(READY);
    literal("/diff");
    keys("Enter");
    await waitFor("No turn has run in this session yet");
    literal("add a file");
    keys("Enter");
    await waitFor("patched it");
    expect(existsSync(join(cwd, "hello.txt"))).toBe(true);
    literal("/diff");
    keys("Enter");
    const screen = after(await waitFor("Diff of the last turn:"), "Diff of the last turn:");
    expect(screen).toContain("+hello from the patch");
    expect(screen).toContain("hello.txt");
    // After responses, /status counts the context the last one used against the window.
    literal("/status");
    keys("Enter");
    const status = after(await waitFor("context:"), "Status");
    expect(status).toMatch(/context: {4}\d+% left \([\d.]+k? of 272k in use\)/);
    expect(status).not.toContain("(0 of 272k in use)");
  });

  // fails if /clear leaves the earlier conversation on the screen or in the scrollback, keeps the
  // old thread, or does not show the header again
  it("/clear wipes the screen and starts a new thread", async () => {
    const mock = await startMock({ steps: [reply("gamma answered")] } satisfies Script);
    launch({ url: mock.url });
    await waitFor(READY);
    literal("gamma question");
    keys("Enter");
    await waitFor("gamma answered");
    const old = /thread (\S+) ·/.exec(pane())?.[1];
    literal("/clear");
    keys("Enter");
    const fresh = /New thread (\S+)/.exec(await waitFor(/New thread \S+/))?.[1];
    // The status line is redrawn on the next frame.
    const screen = await waitFor(`thread ${fresh} ·`);
    expect(screen).not.toContain("gamma");
    expect(screen).toContain("approvals: on-request");
    expect(screen).not.toContain(`thread ${old} ·`);
  });

  // fails if /resume without an id opens no picker, the picker lacks titles or ages, Enter does
  // not open the chosen thread, or a unique id prefix is refused
  it("/resume opens a picker and accepts an id prefix", async () => {
    const mock = await startMock({ steps: [reply("alpha done"), reply("beta done")] } satisfies Script);
    launch({ url: mock.url });
    await waitFor(READY);
    literal("alpha task");
    keys("Enter");
    await waitFor("alpha done");
    const first = /thread (\S+) ·/.exec(pane())?.[1];
    expect(first).toBeTruthy();
    literal("/new");
    keys("Enter");
    await waitFor("New thread");
    literal("beta task");
    keys("Enter");
    await waitFor("beta done");
    literal("/new");
    keys("Enter");
    await waitFor(/New thread[\s\S]*New thread/);
    literal("/resume");
    keys("Enter");
    let screen = await waitFor("Resume a thread");
    expect(screen).toMatch(/› 1\. beta task .*just now/);
    expect(screen).toMatch(/2\. alpha task .*just now/);
    keys("Down");
    await waitFor(/› 2\. alpha task/);
    keys("Enter");
    screen = await waitFor(`Resumed thread ${first}`);
    expect(after(screen, "Resumed thread")).toContain("› alpha task");
    literal("/new");
    keys("Enter");
    // Keys sent before the command ran could reach the composer in one chunk with the Enter.
    await waitFor(/(New thread[\s\S]*){3}/);
    literal(`/resume ${first!.slice(0, first!.length - 3)}`);
    keys("Enter");
    await waitFor(new RegExp(`Resumed thread ${first}[\\s\\S]*Resumed thread ${first}`));
  });

  // fails if `tandem --resume` refuses a unique prefix of a thread id
  it("--resume takes a unique thread-id prefix", async () => {
    const mock = await startMock({ steps: [reply("delta done")] } satisfies Script);
    const { home, cwd } = launch({ url: mock.url });
    await waitFor(READY);
    literal("delta task");
    keys("Enter");
    await waitFor("delta done");
    const id = /thread (\S+) ·/.exec(pane())?.[1];
    expect(id).toBeTruthy();
    keys("C-c");
    keys("C-c");
    await waitFor("[exited 0]");
    launch({ url: mock.url, home, cwd, args: ["--resume", id!.slice(0, -3)] });
    const screen = await waitFor(`Resumed thread ${id}`);
    expect(screen).toContain("› delta task");
  });
});
